"""Dates and times as the user reads them: in their time zone (activated per request by
TimeZoneMiddleware), in one format per language, with the zone, inside <time datetime>.

    {{ value|when }}  1 Dec 2026, 22:02 UTC · 2026年12月1日 22:02 JST
    {{ value|day }}   1 Dec 2026 · 2026年12月1日
    {{ value|ago }}   3 minutes ago · 3分前 (the exact time in its title)
"""

import datetime

from django import template
from django.utils import dateformat, timezone
from django.utils.formats import get_format
from django.utils.html import format_html
from django.utils.timesince import timesince, timeuntil
from django.utils.translation import gettext as _

register = template.Library()


def _local(value):
    if isinstance(value, datetime.datetime) and timezone.is_aware(value):
        return timezone.localtime(value)
    return value


def when_text(value) -> str:
    """The date and time as text, for places that cannot take markup (a title, a message)."""
    if not value:
        return ""
    return dateformat.format(_local(value), get_format("DATETIME_FORMAT"))


@register.filter
def when(value):
    if not value:
        return ""
    return format_html('<time datetime="{}">{}</time>', value.isoformat(), when_text(value))


@register.filter
def day(value):
    if not value:
        return ""
    local = _local(value)
    machine = (
        local.date().isoformat() if isinstance(local, datetime.datetime) else local.isoformat()
    )
    return format_html(
        '<time datetime="{}">{}</time>',
        machine,
        dateformat.format(local, get_format("DATE_FORMAT")),
    )


@register.filter
def ago(value):
    """How long ago (or how soon), the way a person says it; the exact time on hover."""
    if not value:
        return ""
    now = timezone.now()
    if value <= now:
        words = _("%(time)s ago") % {"time": timesince(value, now, depth=1)}
    else:
        words = _("in %(time)s") % {"time": timeuntil(value, now, depth=1)}
    return format_html(
        '<time datetime="{}" title="{}">{}</time>', value.isoformat(), when_text(value), words
    )


@register.simple_tag
def now_when():
    """The current time, as `when` shows it (the time zone page shows what the choice does)."""
    return when(timezone.now())
