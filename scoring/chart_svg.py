"""The repeated parts of the report's SVG charts, written out in Python.

scoring.charts computes every coordinate; the templates ``scoring/partials/_chart_*.html`` hold
each chart's frame (title, axes, legend, caption). What repeats once per run, configuration or
confidence level (hundreds of elements at 125 configurations) is written here in one pass of
string formatting: the same markup, character for character, as the template loops it replaces
wrote, with the same translated words (the same message ids as the templates used) and the same
escaping, at a fraction of the template engine's cost per value.
"""

from __future__ import annotations

from django.utils.html import conditional_escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext, gettext_noop, ngettext

from .models import Bucket
from .templatetags.report_tags import num, pct

__all__ = [
    "bucket_desc",
    "bucket_rows",
    "calibration_desc",
    "calibration_groups",
    "net_desc",
    "net_rows",
]

# The templates' message ids (blocktranslate writes a literal % as %%).
INTERVAL = gettext_noop("95 %% interval %(low)s to %(high)s")
MEAN_INTERVAL = gettext_noop("mean %(mean)s, 95 %% interval %(low)s to %(high)s")


def _v(value) -> str:
    """A value as ``{{ value }}`` writes it inside ``{% localize off %}``: escaped text, numbers
    as str() writes them."""
    if isinstance(value, str):
        return conditional_escape(value)
    return str(value)


def _words(translated: str) -> str:
    """``{% translate message %}``: translated, then escaped."""
    return conditional_escape(translated)


def _labels(buckets) -> dict[str, str]:
    out = {}
    for bucket in buckets:
        try:
            out[bucket] = conditional_escape(str(Bucket(bucket).label))
        except ValueError:
            out[bucket] = conditional_escape(bucket)
    return out


def _interval(low, high, decimals: int = 0) -> str:
    """``{% blocktranslate with low=...|pct:0 high=...|pct:0 %}`` of INTERVAL."""
    return gettext(INTERVAL) % {
        "low": _v(pct(low, decimals)),
        "high": _v(pct(high, decimals)),
    }


# --- buckets per run -------------------------------------------------------------------------


def bucket_desc(chart) -> SafeString:
    simulated = _words(gettext("simulated"))
    labels = _labels({s.bucket for row in chart.rows for s in row.segments})
    parts = []
    for row in chart.rows:
        parts.append(" " + _v(row.label))
        if row.simulated:
            parts.append(f" ({simulated})")
        repeat = gettext("repeat %(n)s") % {"n": _v(row.repeat)}
        segments = ",".join(f" {labels[s.bucket]} {_v(s.count)}" for s in row.segments)
        parts.append(f", {repeat}:{segments}.")
    return mark_safe("".join(parts))


def bucket_rows(chart) -> SafeString:
    simulated = _words(gettext("simulated"))
    labels = _labels({s.bucket for row in chart.rows for s in row.segments})
    repeat_x, gutter, plot = _v(chart.repeat_x), _v(chart.gutter), _v(chart.plot)
    parts = []
    for row in chart.rows:
        text_y, bar_y, label = _v(row.text_y), _v(row.bar_y), _v(row.label)
        head = ""
        if row.first:
            tag = f' <tspan class="sim">{simulated}</tspan>' if row.sim_tag else ""
            head = f'<text x="8" y="{text_y}" class="row-label">{_v(row.short)}{tag}</text>'
        parts.append(
            f'\n  <g class="bar-row">\n    {head}\n'
            f'    <text x="{repeat_x}" y="{text_y}" text-anchor="end" class="muted-text">'
            f"#{_v(row.repeat)}</text>\n"
            f'    <rect x="{gutter}" y="{bar_y}" width="{plot}" height="17" class="track"/>\n    '
        )
        for s in row.segments:
            if not s.count:
                continue
            count = _v(s.count)
            parts.append(
                f'\n    <rect x="{_v(s.x)}" y="{bar_y}" width="{_v(s.width)}" height="17" '
                f'fill="{_v(s.colour)}"><title>{label} #{_v(row.repeat)} · {labels[s.bucket]}: '
                f"{count}</title></rect>\n    "
            )
            if s.show_count:
                parts.append(
                    f'<text x="{_v(s.cx)}" y="{text_y}" text-anchor="middle" class="in-bar" '
                    f'aria-hidden="true">{count}</text>'
                )
            parts.append("\n    ")
        parts.append("\n  </g>\n  ")
    return mark_safe("".join(parts))


# --- calibration ---------------------------------------------------------------------------


def calibration_desc(chart) -> SafeString:
    simulated, no_answers = _words(gettext("simulated")), _words(gettext("no answers"))
    one_level = _words(gettext("Every rated answer at one level."))
    parts = []
    for g in chart.groups:
        parts.append(" " + _v(g.label))
        if g.simulated:
            parts.append(f" ({simulated})")
        parts.append(":")
        bars = []
        for b in g.bars:
            if b.count:
                answers = ngettext("of %(n)s answer", "of %(n)s answers", b.count) % {
                    "n": _v(b.count)
                }
                said = f"{_v(pct(b.accuracy, 0))} {answers} ({_interval(b.low, b.high)})"
            else:
                said = no_answers
            bars.append(f" {_v(b.level)} {said}")
        parts.append(",".join(bars))
        parts.append(".")
        if g.single_level:
            parts.append(f" {one_level}")
    return mark_safe("".join(parts))


def calibration_groups(chart) -> SafeString:
    simulated, no_answers = _words(gettext("simulated")), _words(gettext("no answers"))
    one_level = _words(gettext("⚠ one level only"))
    level_x, gutter, plot = _v(chart.level_x), _v(chart.gutter), _v(chart.plot)
    parts = []
    for g in chart.groups:
        sim = f' <tspan class="sim">{simulated}</tspan>' if g.sim_tag else ""
        warn = f' <tspan class="warn-text">{one_level}</tspan>' if g.single_level else ""
        label = _v(g.label)
        parts.append(
            f'\n  <g class="calibration-group">\n'
            f'    <text x="8" y="{_v(g.y)}" class="row-label">{_v(g.short)}{sim}{warn}</text>\n    '
        )
        for b in g.bars:
            text_y, y, level = _v(b.text_y), _v(b.y), _v(b.level)
            parts.append(
                f'\n    <text x="{level_x}" y="{text_y}" text-anchor="end" class="muted-text">'
                f"{level}</text>\n"
                f'    <rect x="{gutter}" y="{y}" width="{plot}" height="14" class="track"/>\n    '
            )
            if b.count:
                parts.append(
                    f'<rect x="{gutter}" y="{y}" width="{_v(b.width)}" height="14" '
                    f'class="level-{_v(b.level.lower())}"><title>{label} · {level}: '
                    f"{_v(b.correct)} / {_v(b.count)}, {_interval(b.low, b.high)}</title></rect>\n    "
                )
                if b.x_low is not None:
                    low, high = _v(b.x_low), _v(b.x_high)
                    top, bottom, mid = _v(b.cap_top), _v(b.cap_bottom), _v(b.mid_y)
                    parts.append(
                        f'<g class="ci-whisker"><line x1="{low}" x2="{high}" y1="{mid}" '
                        f'y2="{mid}" class="whisker"/><line x1="{low}" x2="{low}" y1="{top}" '
                        f'y2="{bottom}" class="whisker"/><line x1="{high}" x2="{high}" '
                        f'y1="{top}" y2="{bottom}" class="whisker"/></g>'
                    )
                value = f"{_v(pct(b.accuracy, 0))} · {_v(b.correct)}/{_v(b.count)}"
            else:
                value = no_answers
            parts.append(
                f'\n    <text x="{_v(b.value_x)}" y="{text_y}" class="value-text">{value}</text>\n    '
            )
        parts.append("\n  </g>\n  ")
    return mark_safe("".join(parts))


# --- net usable ----------------------------------------------------------------------------


def net_desc(chart) -> SafeString:
    simulated = _words(gettext("simulated"))
    parts = []
    for row in chart.rows:
        parts.append(_v(row.label))
        if row.simulated:
            parts.append(f" ({simulated})")
        figures = gettext(MEAN_INTERVAL) % {
            "mean": _v(num(row.mean, 1)),
            "low": _v(num(row.low, 1)),
            "high": _v(num(row.high, 1)),
        }
        parts.append(f": {figures}. ")
    return mark_safe("".join(parts))


def net_rows(chart) -> SafeString:
    simulated = _words(gettext("simulated"))
    label_x = _v(chart.label_x)
    parts = []
    for row in chart.rows:
        text_y, label = _v(row.text_y), _v(row.label)
        sim = f' <tspan class="sim">{simulated}</tspan>' if row.sim_tag else ""
        parts.append(
            f'\n  <g class="net-row">\n'
            f'    <text x="{label_x}" y="{text_y}" text-anchor="end" class="row-label">'
            f"{_v(row.short)}{sim}</text>\n    "
        )
        if row.x_mean is not None:
            y = _v(row.y)
            parts.append("\n    ")
            if row.x_low is not None and row.x_low != row.x_high:
                low, high = _v(row.x_low), _v(row.x_high)
                top, bottom = _v(row.cap_top), _v(row.cap_bottom)
                parts.append(
                    f'<g class="ci-whisker"><line x1="{low}" x2="{high}" y1="{y}" y2="{y}" '
                    f'class="whisker"/>\n    <line x1="{low}" x2="{low}" y1="{top}" '
                    f'y2="{bottom}" class="whisker"/>\n    <line x1="{high}" x2="{high}" '
                    f'y1="{top}" y2="{bottom}" class="whisker"/></g>'
                )
            points = "".join(
                f'<circle cx="{_v(px)}" cy="{y}" r="3" class="repeat-point"/>' for px in row.points
            )
            figures = gettext(MEAN_INTERVAL) % {
                "mean": _v(num(row.mean, 2)),
                "low": _v(num(row.low, 2)),
                "high": _v(num(row.high, 2)),
            }
            parts.append(
                f"\n    {points}\n"
                f'    <polygon points="{_v(row.diamond)}" class="mean-marker"><title>{label}: '
                f"{figures}</title></polygon>\n"
                f'    <text x="{_v(row.value_x)}" y="{text_y}" class="value-text">'
                f"{_v(num(row.mean, 1))}</text>\n    "
            )
        parts.append("\n  </g>\n  ")
    return mark_safe("".join(parts))
