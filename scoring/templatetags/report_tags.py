"""The report's template filters: numbers as scoring.report.numbers writes them, labels."""

from django import template
from django.utils.formats import number_format
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _

from probe.provider_labels import provider_label
from scoring.report.definitions import definitions
from scoring.report.numbers import DASH, numbers
from scoring.schemes import bucket_style

register = template.Library()


@register.filter
def num(value, decimals: int = 2) -> str:
    """12.0 -> "12"; 12.333 -> "12.33"; None -> "–"."""
    return numbers().num(value, decimals)


@register.filter
def pct(value, decimals: int = 1) -> str:
    """A fraction as a percentage: 0.6667 -> "66.7 %", 0.5 -> "50 %"; None -> "–"."""
    return numbers().pct(value, decimals)


@register.filter
def level(value) -> str:
    """A confidence level: "95.0 %", and never "100 %" for one under 1 ("99.98 %")."""
    return numbers().level(value)


@register.filter
def figure(value, fmt: str = "num") -> str:
    """A figure written as a scheme's column says: "pct", "pct:0", "num" or "num:1"."""
    return numbers().figure(value, fmt)


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
    return numbers().span(summary, kind)


@register.simple_tag
def num_range(low, high, decimals: int = 2) -> str:
    """Two ends as a range, as the report writes one: "0.35–0.70", 「−0.2〜0.4」; an end that is
    None is unbounded (−∞, ∞)."""
    writer = numbers()
    low_text = "\u2212∞" if low is None else writer.num(low, decimals)
    high_text = "∞" if high is None else writer.num(high, decimals)
    return writer.between(low_text, high_text)


@register.filter
def ci(interval, kind: str = "num") -> str:
    """A 95 % interval written after its figure: " (0.35–0.70)", " (35.1–70.2 %)"; "" when the
    figure has no interval (it is then a dash itself). ``kind``: "num", "num:1" or "pct"."""
    return numbers().ci(interval, kind)


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
    """Every definition shown side by side: name, source, formula (scoring.report.intervals)."""
    return definitions()


@register.filter
def mean_of(summary, name: str):
    """The mean over repeats of one figure or bucket, from a summary mapping (RepeatSummary)."""
    found = summary.get(name) if summary else None
    return getattr(found, "mean", None) if found is not None else None


@register.simple_tag
def definition_rows(report, definitions) -> list:
    """[(definition, [its value in each configuration, or None])], for the definitions table."""
    values = [{v.key: v for v in config.definitions or ()} for config in report.configs]
    return [(d, [by_key.get(d.key) for by_key in values]) for d in definitions]


@register.filter
def attr(obj, name: str):
    return getattr(obj, name, None)


@register.filter
def lookup(mapping, key):
    return mapping.get(key) if mapping else None


@register.filter
def bucket_label(value: str) -> str:
    try:
        return bucket_style(value).label
    except KeyError:
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
            ' <span class="muted small">{} · {}</span>',
            provider_label(config.provider),
            config.model_name,
        )
    return html
