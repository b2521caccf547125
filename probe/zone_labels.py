"""Time zones as a person looks for them: a name in the interface's language where one is common,
always with the zone's IANA name and its offset from UTC now.

The select of the time zone page and of the team's zone (the members page) offers the common
zones first, by a name a reader knows (「日本標準時（Asia/Tokyo、UTC+9）」, "Japan Standard Time
(Asia/Tokyo, UTC+9)"), then every other zone by its IANA name with its offset, a form that reads
the same in every language (「America/Lima（UTC-5）」). The stored value is the IANA name.
"""

from __future__ import annotations

import zoneinfo
from datetime import UTC, datetime, timedelta

from django.utils.translation import gettext as _
from django.utils.translation import pgettext_lazy

from .selectors.preferences import time_zone_names

# Zones many teams live in, by the name their people call them. Each name is in the catalogue.
COMMON_ZONES = {
    "UTC": pgettext_lazy("time zone", "Coordinated Universal Time"),
    "Pacific/Honolulu": pgettext_lazy("time zone", "Hawaii Time"),
    "America/Anchorage": pgettext_lazy("time zone", "Alaska Time"),
    "America/Los_Angeles": pgettext_lazy("time zone", "US Pacific Time"),
    "America/Vancouver": pgettext_lazy("time zone", "Vancouver Time"),
    "America/Denver": pgettext_lazy("time zone", "US Mountain Time"),
    "America/Phoenix": pgettext_lazy("time zone", "Arizona Time"),
    "America/Chicago": pgettext_lazy("time zone", "US Central Time"),
    "America/Mexico_City": pgettext_lazy("time zone", "Mexico City Time"),
    "America/New_York": pgettext_lazy("time zone", "US Eastern Time"),
    "America/Toronto": pgettext_lazy("time zone", "Toronto Time"),
    "America/Sao_Paulo": pgettext_lazy("time zone", "Brasília Time"),
    "America/Argentina/Buenos_Aires": pgettext_lazy("time zone", "Argentina Time"),
    "Europe/London": pgettext_lazy("time zone", "UK Time"),
    "Europe/Dublin": pgettext_lazy("time zone", "Irish Time"),
    "Europe/Lisbon": pgettext_lazy("time zone", "Portugal Time"),
    "Africa/Lagos": pgettext_lazy("time zone", "West Africa Time"),
    "Europe/Paris": pgettext_lazy("time zone", "Paris Time"),
    "Europe/Berlin": pgettext_lazy("time zone", "Berlin Time"),
    "Europe/Amsterdam": pgettext_lazy("time zone", "Amsterdam Time"),
    "Europe/Madrid": pgettext_lazy("time zone", "Madrid Time"),
    "Europe/Rome": pgettext_lazy("time zone", "Rome Time"),
    "Europe/Zurich": pgettext_lazy("time zone", "Zurich Time"),
    "Europe/Stockholm": pgettext_lazy("time zone", "Stockholm Time"),
    "Europe/Warsaw": pgettext_lazy("time zone", "Warsaw Time"),
    "Africa/Johannesburg": pgettext_lazy("time zone", "South Africa Time"),
    "Africa/Cairo": pgettext_lazy("time zone", "Egypt Time"),
    "Europe/Helsinki": pgettext_lazy("time zone", "Helsinki Time"),
    "Europe/Kyiv": pgettext_lazy("time zone", "Kyiv Time"),
    "Europe/Istanbul": pgettext_lazy("time zone", "Turkey Time"),
    "Europe/Moscow": pgettext_lazy("time zone", "Moscow Time"),
    "Africa/Nairobi": pgettext_lazy("time zone", "East Africa Time"),
    "Asia/Dubai": pgettext_lazy("time zone", "Gulf Standard Time"),
    "Asia/Karachi": pgettext_lazy("time zone", "Pakistan Time"),
    "Asia/Kolkata": pgettext_lazy("time zone", "India Standard Time"),
    "Asia/Dhaka": pgettext_lazy("time zone", "Bangladesh Time"),
    "Asia/Bangkok": pgettext_lazy("time zone", "Indochina Time"),
    "Asia/Ho_Chi_Minh": pgettext_lazy("time zone", "Vietnam Time"),
    "Asia/Jakarta": pgettext_lazy("time zone", "Western Indonesia Time"),
    "Asia/Singapore": pgettext_lazy("time zone", "Singapore Time"),
    "Asia/Kuala_Lumpur": pgettext_lazy("time zone", "Malaysia Time"),
    "Asia/Manila": pgettext_lazy("time zone", "Philippine Time"),
    "Asia/Shanghai": pgettext_lazy("time zone", "China Standard Time"),
    "Asia/Hong_Kong": pgettext_lazy("time zone", "Hong Kong Time"),
    "Asia/Taipei": pgettext_lazy("time zone", "Taipei Time"),
    "Australia/Perth": pgettext_lazy("time zone", "Australian Western Time"),
    "Asia/Seoul": pgettext_lazy("time zone", "Korea Standard Time"),
    "Asia/Tokyo": pgettext_lazy("time zone", "Japan Standard Time"),
    "Australia/Brisbane": pgettext_lazy("time zone", "Brisbane Time"),
    "Australia/Adelaide": pgettext_lazy("time zone", "Adelaide Time"),
    "Australia/Sydney": pgettext_lazy("time zone", "Sydney Time"),
    "Australia/Melbourne": pgettext_lazy("time zone", "Melbourne Time"),
    "Pacific/Auckland": pgettext_lazy("time zone", "New Zealand Time"),
}


def utc_offset(name: str, at: datetime | None = None) -> str:
    """The zone's offset from UTC at `at` (now by default): "UTC+9", "UTC+5:30", "UTC-3"."""
    offset = (at or datetime.now(UTC)).astimezone(zoneinfo.ZoneInfo(name)).utcoffset()
    offset = offset or timedelta(0)
    sign = "-" if offset < timedelta(0) else "+"
    minutes = abs(int(offset.total_seconds())) // 60
    hours, rest = divmod(minutes, 60)
    return f"UTC{sign}{hours}" + (f":{rest:02d}" if rest else "")


def zone_name(name: str) -> str:
    """A zone's common name in the active language (「日本標準時」), else its IANA name."""
    return str(COMMON_ZONES.get(name, name))


def zone_label(name: str, at: datetime | None = None) -> str:
    """A zone as the select offers it, in the active language."""
    offset = utc_offset(name, at)
    common = COMMON_ZONES.get(name)
    if name == "UTC":
        return _("%(name)s (%(zone)s)") % {"name": common, "zone": name}
    if common is not None:
        return _("%(name)s (%(zone)s, %(offset)s)") % {
            "name": common,
            "zone": name,
            "offset": offset,
        }
    return _("%(zone)s (%(offset)s)") % {"zone": name, "offset": offset}


def zone_choices(at: datetime | None = None) -> list[tuple[str, list[tuple[str, str]]]]:
    """The zones this machine knows in two groups: the common ones (west to east), then every
    other one by its IANA name; each as (IANA name, label)."""
    at = at or datetime.now(UTC)
    names = time_zone_names()
    common = [name for name in COMMON_ZONES if name in names]
    common.sort(key=lambda name: at.astimezone(zoneinfo.ZoneInfo(name)).utcoffset())
    others = sorted(names - set(common))
    return [
        (_("Common time zones"), [(name, zone_label(name, at)) for name in common]),
        (_("Every other time zone"), [(name, zone_label(name, at)) for name in others]),
    ]
