"""A user's own settings (the interface language, the time zone), and the team's time zone."""

from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

from ..models import Team, UserPreference
from ..selectors.preferences import time_zone_names


def user_language_set(*, user, language: str) -> UserPreference:
    """Remember `language` (a code from settings.LANGUAGES) as the user's interface language."""
    if language not in dict(settings.LANGUAGES):
        raise ValidationError(_("Choose one of the languages offered."))
    preference, _created = UserPreference.objects.update_or_create(
        user=user, defaults={"language": language}
    )
    return preference


def user_language_offer(*, user, language: str) -> bool:
    """The request's language at a first sign-in, kept as the user's while they have chosen
    none (their mails then go out in it). Returns whether it was taken."""
    language = (language or "").split("-")[0].lower()
    if language not in dict(settings.LANGUAGES):
        return False
    preference, _created = UserPreference.objects.get_or_create(user=user)
    if preference.language:
        return False
    UserPreference.objects.filter(pk=preference.pk, language="").update(language=language)
    return True


def user_time_zone_set(*, user, time_zone: str) -> UserPreference:
    """The zone the user chose on the time zone page (an IANA name such as Asia/Tokyo), kept
    whatever their browser says at login. Empty: none chosen, so the browser's is taken at the
    next login (and the team's until then)."""
    if time_zone and time_zone not in time_zone_names():
        raise ValidationError(_("Choose one of the time zones offered."))
    preference, _created = UserPreference.objects.update_or_create(
        user=user, defaults={"time_zone": time_zone, "time_zone_chosen": bool(time_zone)}
    )
    return preference


def user_time_zone_offer(*, user, time_zone: str) -> bool:
    """The browser's time zone, offered at every login: taken unless the user chose one.

    Returns whether it was taken. Anything not a known zone is ignored (it comes from a form).
    """
    if time_zone not in time_zone_names():
        return False
    preference, _created = UserPreference.objects.get_or_create(user=user)
    if preference.time_zone_chosen:
        return False
    if preference.time_zone != time_zone:
        UserPreference.objects.filter(pk=preference.pk, time_zone_chosen=False).update(
            time_zone=time_zone
        )
    return True


def team_time_zone_set(*, team: Team, time_zone: str) -> Team:
    """The team's time zone, for members who have none of their own (empty: the server's)."""
    if time_zone and time_zone not in time_zone_names():
        raise ValidationError(_("Choose one of the time zones offered."))
    team.time_zone = time_zone
    team.save(update_fields=["time_zone"])
    return team
