"""Number formatting for the report: fractions as percentages, None as a dash."""

from django import template
from django.utils.formats import number_format
from django.utils.html import format_html
from django.utils.translation import gettext as _

from scoring.models import Bucket

register = template.Library()

DASH = "–"


def _number(value: float, decimals: int) -> str:
    value = round(float(value), decimals)
    if value.is_integer():
        return number_format(int(value))
    # 12.50 -> 12.5, keeping the locale's decimal mark
    return number_format(value, decimal_pos=decimals).rstrip("0")


@register.filter
def num(value, decimals: int = 2) -> str:
    """12.0 -> "12"; 12.333 -> "12.33"; None -> "–"."""
    if value is None or value == "":
        return DASH
    return _number(value, int(decimals))


@register.filter
def pct(value, decimals: int = 1) -> str:
    """A fraction as a percentage: 0.6667 -> "66.7 %", 0.5 -> "50 %"; None -> "–"."""
    if value is None or value == "":
        return DASH
    return f"{_number(float(value) * 100, int(decimals))} %"


@register.filter
def span(summary, kind: str = "num") -> str:
    """A RepeatSummary's range, "min–max" (or the one value when they agree)."""
    if summary is None or summary.min is None:
        return DASH
    fmt = pct if kind == "pct" else num
    low, high = fmt(summary.min), fmt(summary.max)
    if low == high:
        return low
    if summary.min < 0:  # "-30–-18" reads badly: a true minus sign and a spaced dash
        return f"{low.replace('-', '−')} – {high.replace('-', '−')}"
    return f"{low}–{high}"


@register.filter
def attr(obj, name: str):
    return getattr(obj, name, None)


@register.filter
def lookup(mapping, key):
    return mapping.get(key) if mapping else None


@register.filter
def bucket_label(value: str) -> str:
    try:
        return Bucket(value).label
    except ValueError:
        return value


@register.simple_tag
def config_label(config, short: bool = False):
    """A configuration's label, "simulated" when it is, and (unless short) provider and model.

    A tag rather than an included template: the gap table of 50 configurations has 1,225 rows.
    """
    html = format_html('<span class="config-label">{}</span>', config.label)
    if config.simulated:
        html += format_html(
            ' <span class="tag sim-tag" title="{}">{}</span>',
            _("Answers come from the local simulator, not from a real model."),
            _("simulated"),
        )
    if not short:
        html += format_html(
            ' <span class="muted small">{} · {}</span>', config.provider, config.model_name
        )
    return html
