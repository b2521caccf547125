"""The repeated parts of the report's SVG charts, written out in Python.

scoring.report.charts computes every coordinate; the templates ``scoring/partials/_chart_*.html`` hold
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

from scoring.report.html_out import raw, words
from scoring.schemes import bucket_style
from scoring.templatetags.report_tags import num, pct

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


def _labels(buckets) -> dict[str, str]:
    out = {}
    for bucket in buckets:
        try:
            out[bucket] = conditional_escape(str(bucket_style(bucket).label))
        except KeyError:
            out[bucket] = conditional_escape(bucket)
    return out


def _interval(low, high, decimals: int = 0) -> str:
    """``{% blocktranslate with low=...|pct:0 high=...|pct:0 %}`` of INTERVAL."""
    return gettext(INTERVAL) % {
        "low": raw(pct(low, decimals)),
        "high": raw(pct(high, decimals)),
    }


# --- buckets per run -------------------------------------------------------------------------


def bucket_desc(chart) -> SafeString:
    simulated = words(gettext("simulated"))
    labels = _labels({s.bucket for row in chart.rows for s in row.segments})
    parts = []
    for row in chart.rows:
        parts.append(" " + raw(row.label))
        if row.simulated:
            parts.append(f" ({simulated})")
        repeat = gettext("repeat %(n)s") % {"n": raw(row.repeat)}
        segments = ",".join(f" {labels[s.bucket]} {raw(s.count)}" for s in row.segments)
        parts.append(f", {repeat}:{segments}.")
    return mark_safe("".join(parts))


def bucket_rows(chart) -> SafeString:
    simulated = words(gettext("simulated"))
    labels = _labels({s.bucket for row in chart.rows for s in row.segments})
    repeat_x, gutter, plot = raw(chart.repeat_x), raw(chart.gutter), raw(chart.plot)
    parts = []
    for row in chart.rows:
        text_y, bar_y, label = raw(row.text_y), raw(row.bar_y), raw(row.label)
        head = ""
        if row.first:
            tag = f' <tspan class="sim">{simulated}</tspan>' if row.sim_tag else ""
            head = f'<text x="8" y="{text_y}" class="row-label">{raw(row.short)}{tag}</text>'
        parts.append(
            f'\n  <g class="bar-row">\n    {head}\n'
            f'    <text x="{repeat_x}" y="{text_y}" text-anchor="end" class="muted-text">'
            f"#{raw(row.repeat)}</text>\n"
            f'    <rect x="{gutter}" y="{bar_y}" width="{plot}" height="17" class="track"/>\n    '
        )
        for s in row.segments:
            if not s.count:
                continue
            count = raw(s.count)
            parts.append(
                f'\n    <rect x="{raw(s.x)}" y="{bar_y}" width="{raw(s.width)}" height="17" '
                f'fill="{raw(s.colour)}"><title>{label} #{raw(row.repeat)} · {labels[s.bucket]}: '
                f"{count}</title></rect>\n    "
            )
            if s.show_count:
                parts.append(
                    f'<text x="{raw(s.cx)}" y="{text_y}" text-anchor="middle" class="in-bar" '
                    f'aria-hidden="true">{count}</text>'
                )
            parts.append("\n    ")
        parts.append("\n  </g>\n  ")
    return mark_safe("".join(parts))


# --- calibration ---------------------------------------------------------------------------


def calibration_desc(chart) -> SafeString:
    simulated, no_answers = words(gettext("simulated")), words(gettext("no answers"))
    one_level = words(gettext("Every rated answer at one level."))
    parts = []
    for g in chart.groups:
        parts.append(" " + raw(g.label))
        if g.simulated:
            parts.append(f" ({simulated})")
        parts.append(":")
        bars = []
        for b in g.bars:
            if b.count:
                answers = ngettext("of %(n)s answer", "of %(n)s answers", b.count) % {
                    "n": raw(b.count)
                }
                said = f"{raw(pct(b.accuracy, 0))} {answers} ({_interval(b.low, b.high)})"
            else:
                said = no_answers
            bars.append(f" {raw(b.level)} {said}")
        parts.append(",".join(bars))
        parts.append(".")
        if g.single_level:
            parts.append(f" {one_level}")
    return mark_safe("".join(parts))


def calibration_groups(chart) -> SafeString:
    simulated, no_answers = words(gettext("simulated")), words(gettext("no answers"))
    one_level = words(gettext("⚠ one level only"))
    level_x, gutter, plot = raw(chart.level_x), raw(chart.gutter), raw(chart.plot)
    parts = []
    for g in chart.groups:
        sim = f' <tspan class="sim">{simulated}</tspan>' if g.sim_tag else ""
        warn = f' <tspan class="warn-text">{one_level}</tspan>' if g.single_level else ""
        label = raw(g.label)
        parts.append(
            f'\n  <g class="calibration-group">\n'
            f'    <text x="8" y="{raw(g.y)}" class="row-label">{raw(g.short)}{sim}{warn}</text>\n    '
        )
        for b in g.bars:
            text_y, y, level = raw(b.text_y), raw(b.y), raw(b.level)
            parts.append(
                f'\n    <text x="{level_x}" y="{text_y}" text-anchor="end" class="muted-text">'
                f"{level}</text>\n"
                f'    <rect x="{gutter}" y="{y}" width="{plot}" height="14" class="track"/>\n    '
            )
            if b.count:
                parts.append(
                    f'<rect x="{gutter}" y="{y}" width="{raw(b.width)}" height="14" '
                    f'class="level-{raw(b.level.lower())}"><title>{label} · {level}: '
                    f"{raw(b.correct)} / {raw(b.count)}, {_interval(b.low, b.high)}</title></rect>\n    "
                )
                if b.x_low is not None:
                    low, high = raw(b.x_low), raw(b.x_high)
                    top, bottom, mid = raw(b.cap_top), raw(b.cap_bottom), raw(b.mid_y)
                    parts.append(
                        f'<g class="ci-whisker"><line x1="{low}" x2="{high}" y1="{mid}" '
                        f'y2="{mid}" class="whisker"/><line x1="{low}" x2="{low}" y1="{top}" '
                        f'y2="{bottom}" class="whisker"/><line x1="{high}" x2="{high}" '
                        f'y1="{top}" y2="{bottom}" class="whisker"/></g>'
                    )
                value = f"{raw(pct(b.accuracy, 0))} · {raw(b.correct)}/{raw(b.count)}"
            else:
                value = no_answers
            parts.append(
                f'\n    <text x="{raw(b.value_x)}" y="{text_y}" class="value-text">{value}</text>\n    '
            )
        parts.append("\n  </g>\n  ")
    return mark_safe("".join(parts))


# --- net usable ----------------------------------------------------------------------------


def net_desc(chart) -> SafeString:
    simulated = words(gettext("simulated"))
    parts = []
    for row in chart.rows:
        parts.append(raw(row.label))
        if row.simulated:
            parts.append(f" ({simulated})")
        figures = gettext(MEAN_INTERVAL) % {
            "mean": raw(num(row.mean, 1)),
            "low": raw(num(row.low, 1)),
            "high": raw(num(row.high, 1)),
        }
        parts.append(f": {figures}. ")
    return mark_safe("".join(parts))


def net_rows(chart) -> SafeString:
    simulated = words(gettext("simulated"))
    label_x = raw(chart.label_x)
    parts = []
    for row in chart.rows:
        text_y, label = raw(row.text_y), raw(row.label)
        sim = f' <tspan class="sim">{simulated}</tspan>' if row.sim_tag else ""
        parts.append(
            f'\n  <g class="net-row">\n'
            f'    <text x="{label_x}" y="{text_y}" text-anchor="end" class="row-label">'
            f"{raw(row.short)}{sim}</text>\n    "
        )
        if row.x_mean is not None:
            y = raw(row.y)
            parts.append("\n    ")
            if row.x_low is not None and row.x_low != row.x_high:
                low, high = raw(row.x_low), raw(row.x_high)
                top, bottom = raw(row.cap_top), raw(row.cap_bottom)
                parts.append(
                    f'<g class="ci-whisker"><line x1="{low}" x2="{high}" y1="{y}" y2="{y}" '
                    f'class="whisker"/>\n    <line x1="{low}" x2="{low}" y1="{top}" '
                    f'y2="{bottom}" class="whisker"/>\n    <line x1="{high}" x2="{high}" '
                    f'y1="{top}" y2="{bottom}" class="whisker"/></g>'
                )
            points = "".join(
                f'<circle cx="{raw(px)}" cy="{y}" r="3" class="repeat-point"/>' for px in row.points
            )
            figures = gettext(MEAN_INTERVAL) % {
                "mean": raw(num(row.mean, 2)),
                "low": raw(num(row.low, 2)),
                "high": raw(num(row.high, 2)),
            }
            parts.append(
                f"\n    {points}\n"
                f'    <polygon points="{raw(row.diamond)}" class="mean-marker"><title>{label}: '
                f"{figures}</title></polygon>\n"
                f'    <text x="{raw(row.value_x)}" y="{text_y}" class="value-text">'
                f"{raw(num(row.mean, 1))}</text>\n    "
            )
        parts.append("\n  </g>\n  ")
    return mark_safe("".join(parts))
