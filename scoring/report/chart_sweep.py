"""The penalty sweep chart: net usable as w goes from 0 to 4, drawn by the server as inline SVG.

Like scoring.report.charts, plain numbers for the template ``scoring/partials/_chart_sweep.html``; the
lines come from the report's sweep (scoring.report.intervals) and the crossings from
scoring.report.stats.crossovers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from django.utils.translation import gettext

from scoring.report.build import Report
from scoring.report.charts import WIDTH, coord, nice_step, short_label, text_width

SWEEP_HEIGHT = 300
SWEEP_LEFT = 70  # room for the value axis
SWEEP_RIGHT = 190  # room for the configuration labels at the end of the lines
SWEEP_TOP = 24
SWEEP_BOTTOM = 56  # room for w and t under the axis


@dataclass
class SweepLine:
    key: int
    label: str
    short: str
    simulated: bool
    series: int  # 0..7: the line's class (its colour and dash)
    points: str  # SVG polyline points
    end_x: float
    end_y: float
    label_y: float


@dataclass
class SweepMark:
    x: float
    y: float
    w: float
    t: float
    net: float
    a: str  # ahead below w
    b: str  # ahead above w


@dataclass
class SweepChart:
    width: int
    height: int
    left: int
    right: float
    top: int
    bottom: float
    lines: list[SweepLine]
    marks: list[SweepMark]
    x_ticks: list[tuple[float, float, float]]  # (x, w, t)
    y_ticks: list[tuple[float, float]]  # (y, net usable)
    current_x: float | None  # the report's own w, when it is within 0..4
    hidden: int  # configurations not drawn (in the tables and the export)
    zero_y: float | None  # the line of net usable 0, when it is in range

    @property
    def w_label_y(self) -> float:
        return coord(self.bottom + 16)

    @property
    def t_label_y(self) -> float:
        return coord(self.bottom + 30)

    @property
    def axis_label_y(self) -> float:
        return coord(self.bottom + 48)

    @property
    def label_x(self) -> float:
        return coord(self.right + 8)


def _label_room(line) -> int:
    """Room right of the plot for a line's label and its "simulated" tag, in the interface's
    language (about 7 px a half-width character; a kanji takes two)."""
    tag = 14 + 7 * text_width(gettext("simulated")) if line.simulated else 0
    return 7 * text_width(line.short) + tag


def sweep_chart(report: Report) -> SweepChart | None:
    """Net usable as w goes from 0 to 4, a line per configuration (the best few at the report's
    w), the crossings marked. Under the w axis, t = w / (1 + w): the confidence at which answering
    pays. None for the AA scheme (its index has no w) or without a sweep."""
    inference = report.inference
    if not report.scheme_obj.uses_weight or inference is None or inference.sweep is None:
        return None
    sweep = inference.sweep
    by_key = {c.key: c for c in report.configs}
    shown = [k for k in sweep.shown if k in by_key]
    values = [v for k in shown for _w, v in sweep.lines[k]] or [0.0]
    lo, hi = min([*values, 0.0]), max([*values, 0.0])
    step = nice_step(hi - lo)
    lo, hi = math.floor(lo / step) * step, math.ceil(hi / step) * step
    if hi == lo:
        hi = lo + step
    right = WIDTH - SWEEP_RIGHT
    bottom = SWEEP_HEIGHT - SWEEP_BOTTOM
    w_max = sweep.weights[-1] if sweep.weights else 4.0

    def px(w: float) -> float:
        return coord(SWEEP_LEFT + w / w_max * (right - SWEEP_LEFT))

    def py(v: float) -> float:
        return coord(bottom - (v - lo) / (hi - lo) * (bottom - SWEEP_TOP))

    lines = []
    for series, key in enumerate(shown):
        config = by_key[key]
        pts = sweep.lines[key]
        lines.append(
            SweepLine(
                key,
                config.label,
                short_label(config.label, config.simulated, room=24),
                config.simulated,
                series % 8,
                " ".join(f"{px(w)},{py(v)}" for w, v in pts),
                px(pts[-1][0]),
                py(pts[-1][1]),
                py(pts[-1][1]),
            )
        )
    # Labels at the lines' ends, pushed apart so that they do not overlap.
    placed = sorted(lines, key=lambda line: line.end_y)
    for before, line in zip(placed, placed[1:], strict=False):
        line.label_y = max(line.label_y, coord(before.label_y + 13))
    shown_set = set(shown)
    marks = [
        SweepMark(px(x.w), py(x.net), x.w, x.t, x.net, by_key[x.a].label, by_key[x.b].label)
        for x in sweep.crossovers
        if x.a in shown_set and x.b in shown_set
    ]
    x_ticks = [(px(w), w, w / (1 + w)) for w in sweep.weights if float(w).is_integer() or w == 0.5]
    y_ticks = []
    value = lo
    while value <= hi + step / 1000:
        y_ticks.append((py(value), round(value, 6)))
        value += step
    return SweepChart(
        max(WIDTH, round(right + 16 + max(map(_label_room, lines), default=0))),
        SWEEP_HEIGHT,
        SWEEP_LEFT,
        right,
        SWEEP_TOP,
        bottom,
        lines,
        marks,
        x_ticks,
        y_ticks,
        px(report.w) if 0 <= report.w <= w_max else None,
        len(report.configs) - len(shown),
        py(0.0) if lo <= 0 <= hi else None,
    )
