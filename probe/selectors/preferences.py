"""Reads of a user's own settings, and the time zone a user's pages are shown in."""

import zoneinfo
from functools import cache

from django.conf import settings

from ..models import Membership, UserPreference


def user_language(*, user) -> str | None:
    """The interface language the user chose, if they chose one and it is still offered."""
    language = UserPreference.objects.filter(user=user).values_list("language", flat=True).first()
    return language if language in dict(settings.LANGUAGES) else None


@cache
def time_zone_names() -> frozenset[str]:
    """The IANA time zones this machine knows, by their Area/Location names (Asia/Tokyo,
    Europe/Paris) plus UTC: the legacy aliases (Japan, US/Eastern, Etc/GMT+9...) left out."""
    legacy = ("Etc/", "SystemV/", "US/", "Brazil/", "Canada/", "Chile/", "Mexico/")
    return frozenset(
        name
        for name in zoneinfo.available_timezones()
        if ("/" in name and not name.startswith(legacy)) or name == "UTC"
    ) | {"UTC"}


def user_time_zone(*, user) -> str:
    """The zone the user's dates and times are shown in: their own (chosen, or offered by their
    browser at login), else their team's (the first team that set one), else the server's."""
    own = UserPreference.objects.filter(user=user).values_list("time_zone", flat=True).first()
    if own and own in time_zone_names():
        return own
    teams = (
        Membership.objects.filter(user=user)
        .exclude(team__time_zone="")
        .order_by("team__name", "team_id")
        .values_list("team__time_zone", flat=True)
    )
    for zone in teams:
        if zone in time_zone_names():
            return zone
    return settings.TIME_ZONE
