"""Reads of a user's own settings."""

from django.conf import settings

from ..models import UserPreference


def user_language(*, user) -> str | None:
    """The interface language the user chose, if they chose one and it is still offered."""
    language = UserPreference.objects.filter(user=user).values_list("language", flat=True).first()
    return language if language in dict(settings.LANGUAGES) else None
