"""Number formatting for the report: fractions as percentages, None as a dash."""

from django import template
from django.conf import settings
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.utils.formats import get_format, number_format
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import mark_safe
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from scoring.models import Bucket
from scoring.report_definitions import definitions

register = template.Library()

DASH = "–"

# Per language: the decimal mark and the intervals' title (escaped). The report writes tens of
# thousands of numbers, and each lookup of the locale costs as much as formatting one.
_LOCALE: dict[str | None, tuple[str, str]] = {}


def _locale() -> tuple[str, str]:
    language = get_language()
    found = _LOCALE.get(language)
    if found is None:
        found = (get_format("DECIMAL_SEPARATOR"), conditional_escape(_("95 % interval")))
        _LOCALE[language] = found
    return found


@receiver(setting_changed)
def _locale_reset(**kwargs) -> None:
    """Formats and translations follow the settings (tests override them): start afresh."""
    _LOCALE.clear()


def _number(value: float, decimals: int) -> str:
    value = round(float(value), decimals)
    if settings.USE_THOUSAND_SEPARATOR:  # grouping by locale: Django's own, slower, formatter
        if value.is_integer():
            return number_format(int(value))
        return number_format(value, decimal_pos=decimals).rstrip("0")
    # The report writes tens of thousands of numbers: format them directly, with the locale's
    # decimal mark (12.50 -> 12.5), as number_format would without grouping.
    if value.is_integer():
        return str(int(value))
    text = f"{value:.{decimals}f}".rstrip("0")
    mark = _locale()[0]
    return text if mark == "." else text.replace(".", mark)


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
def figure(value, fmt: str = "num") -> str:
    """A figure written as a scheme's column says: "pct", "pct:0", "num" or "num:1"."""
    kind, _sep, places = str(fmt).partition(":")
    write = pct if kind == "pct" else num
    return write(value, places) if places else write(value)


@register.simple_tag
def scheme_text(scheme, name: str, **values) -> str:
    """One of the scheme's report texts (Scheme.texts), translated, its placeholders filled in
    with ``values``; "" when the scheme has none by that name."""
    message = scheme.texts.get(name)
    if not message:
        return ""
    filled = {key: conditional_escape(value) for key, value in values.items()}
    return mark_safe(_(message) % filled)


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
def ci(interval, kind: str = "num") -> str:
    """A 95 % interval written after its figure: " (0.35–0.70)", " (35.1–70.2 %)"; "" when the
    figure has no interval (it is then a dash itself). ``kind``: "num", "num:1" or "pct"."""
    if interval is None:
        return ""
    kind, _sep, places = str(kind).partition(":")
    if kind == "pct":
        low = _number(interval.low * 100, int(places or 1))
        high = _number(interval.high * 100, int(places or 1))
        unit = " %"
    else:
        low, high = num(interval.low, places or 2), num(interval.high, places or 2)
        unit = ""
    title = _locale()[1]
    if interval.low < 0:  # "-3–-1" reads badly: true minus signs and a spaced "to"
        # Translators: a 95 % interval whose ends are negative, as in "−3.00 to −1.00".
        text = _("%(low)s to %(high)s") % {
            "low": low.replace("-", "−"),
            "high": high.replace("-", "−"),
        }
    else:
        text = f"{low}–{high}"
    # format_html's output, written directly: the report has thousands of these.
    return mark_safe(f' <span class="ci" title="{title}">({conditional_escape(text)}{unit})</span>')


@register.filter
def level_ci(intervals, level: str):
    """The Wilson interval of the accuracy at one confidence level, from a ``ci`` mapping."""
    return intervals.get(f"accuracy_{level}") if intervals else None


@register.filter
def pvalue(value) -> str:
    """0.0312 -> "0.031"; under 0.001 -> "< 0.001"; None -> "–"."""
    if value is None or value == "":
        return DASH
    if value < 0.001:
        return f"< {number_format(0.001, decimal_pos=3)}"
    return number_format(round(float(value), 3), decimal_pos=3)


@register.filter
def sweep_cells(sweep, key) -> list:
    """[(w, net usable, interval)] of one configuration at the sweep table's weights."""
    if sweep is None or key not in sweep.counts:
        return []
    intervals = sweep.table.get(key, {})
    return [(w, sweep.value(key, w), intervals.get(w)) for w in sweep.table_weights]


@register.filter
def threshold(w) -> float:
    """t = w / (1 + w): the confidence above which answering pays at penalty w."""
    return float(w) / (1 + float(w))


@register.filter
def config_of(key, report) -> str:
    """A configuration's label from its key."""
    for config in report.configs:
        if config.key == key:
            return config.label
    return str(key)


@register.filter
def definition(values, key: str):
    """One definition's value (value, ci) from a configuration's list."""
    for entry in values or ():
        if entry.key == key:
            return entry
    return None


@register.simple_tag
def report_definitions():
    """Every definition shown side by side: name, source, formula (scoring.report_intervals)."""
    return definitions()


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
