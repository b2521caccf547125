"""A user's own settings: the interface language they chose."""

from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

from ..models import UserPreference


def user_language_set(*, user, language: str) -> UserPreference:
    """Remember `language` (a code from settings.LANGUAGES) as the user's interface language."""
    if language not in dict(settings.LANGUAGES):
        raise ValidationError(_("Choose one of the languages offered."))
    preference, _created = UserPreference.objects.update_or_create(
        user=user, defaults={"language": language}
    )
    return preference
