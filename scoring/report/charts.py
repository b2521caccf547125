"""Geometry of the report's charts, drawn by the server as inline SVG (no JS library, no CDN).

Each function turns a Report into plain numbers (coordinates, widths, values); the templates
``scoring/partials/_chart_*.html`` write the SVG elements and the translated words. Every chart
carries a title and a description, and the tables next to it hold the same numbers.
"""

from __future__ import annotations

import math
import unicodedata
from dataclasses import dataclass, field

from django.utils.translation import gettext

from scoring.report.build import Report
from scoring.schemes import bucket_style

WIDTH = 760
GUTTER = 220  # room for the configuration labels, left of the plot
RIGHT = 90  # room for the value written after a bar or a mean
PLOT = WIDTH - GUTTER - RIGHT
ROW = 22
GROUP_GAP = 12
TOP = 34  # the legend or the axis labels


def bucket_colour(bucket: str) -> str:
    """A bucket's colour in the charts: its scheme's (``BucketStyle.chart``, the same hue as
    the bucket's badge)."""
    return bucket_style(bucket).chart


def coord(value: float) -> float:
    """A coordinate of the drawing, to one decimal (as the SVG writes it)."""
    return round(value, 1)


def text_width(text: str) -> int:
    """Width in half-width character cells: a kanji or kana takes two (East Asian wide)."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def short_label(label: str, simulated: bool = False, room: int = 30) -> str:
    """The label as written on the chart: whole (the gutter widens to fit, see ``gutter_for``)."""
    return label


def sim_tag(label: str, simulated: bool) -> bool:
    """Whether the chart writes "simulated" after the label (not when the label says it)."""
    return simulated and "simulat" not in label.casefold()


def gutter_for(report: Report) -> int:
    """Room left of the plot for the longest whole label and its "simulated" tag, in the
    interface's language (about 7 px a half-width character at 12 px; a kanji takes two)."""
    widest = max(
        (
            16
            + 7 * text_width(c.label)
            + (14 + 7 * text_width(gettext("simulated")) if sim_tag(c.label, c.simulated) else 0)
            for c in report.configs
        ),
        default=GUTTER,
    )
    return max(GUTTER, widest)


@dataclass
class Segment:
    bucket: str
    count: int
    x: float
    width: float
    colour: str
    show_count: bool  # wide enough to write the count inside

    @property
    def cx(self) -> float:
        return coord(self.x + self.width / 2)


@dataclass
class BarRow:
    y: float
    label: str  # the configuration's full label
    short: str  # cut to fit the gutter
    first: bool  # the configuration's first run: its label is written on this row
    simulated: bool
    repeat: int
    segments: list[Segment]
    total: int

    @property
    def bar_y(self) -> float:
        return self.y + 2

    @property
    def text_y(self) -> float:
        return self.y + 15

    @property
    def sim_tag(self) -> bool:
        return sim_tag(self.label, self.simulated)


@dataclass
class LegendEntry:
    bucket: str
    x: float
    colour: str

    @property
    def text_x(self) -> float:
        return self.x + 16


@dataclass
class BucketChart:
    width: int
    height: int
    gutter: int
    plot: int
    n_items: int
    rows: list[BarRow]
    legend: list[LegendEntry]

    @property
    def repeat_x(self) -> int:
        return self.gutter - 8

    @property
    def end_x(self) -> int:
        return self.gutter + self.plot

    @property
    def axis_y(self) -> int:
        return self.height - 6


def bucket_chart(report: Report) -> BucketChart:
    """One stacked bar per run (N items wide), grouped by configuration."""
    rows: list[BarRow] = []
    y = TOP
    gutter = gutter_for(report)
    scale = PLOT / report.n_items if report.n_items else 0
    for config in report.configs:
        for i, run in enumerate(config.runs):
            x = gutter
            segments = []
            for bucket in report.bucket_names:
                count = getattr(run.counts, bucket)
                width = count * scale
                segments.append(
                    Segment(
                        bucket, count, coord(x), coord(width), bucket_colour(bucket), width >= 22
                    )
                )
                x += width
            rows.append(
                BarRow(
                    coord(y),
                    config.label,
                    short_label(config.label, config.simulated),
                    i == 0,
                    config.simulated,
                    run.repeat,
                    segments,
                    run.counts.n,
                )
            )
            y += ROW
        y += GROUP_GAP
    legend = []
    x = gutter
    for bucket in report.bucket_names:
        legend.append(LegendEntry(bucket, x, bucket_colour(bucket)))
        # about 7 px per half-width character at the legend's 12 px (a kanji takes two): room
        # for the translated label
        x += 16 + 7 * text_width(str(bucket_style(bucket).label)) + 18
    return BucketChart(
        gutter + PLOT + RIGHT, int(y) + 18, gutter, PLOT, report.n_items, rows, legend
    )


@dataclass
class CalibrationBar:
    y: float
    level: str
    width: float
    count: int
    correct: int
    accuracy: float | None
    x_low: float | None = None  # the Wilson interval's ends, as x
    x_high: float | None = None
    low: float | None = None
    high: float | None = None

    @property
    def mid_y(self) -> float:
        return coord(self.y + 7)

    @property
    def cap_top(self) -> float:
        return coord(self.y + 2)

    @property
    def cap_bottom(self) -> float:
        return coord(self.y + 12)

    @property
    def text_y(self) -> float:
        return coord(self.y + 11)

    @property
    def value_x(self) -> float:
        right = max(self.width, (self.x_high or GUTTER) - GUTTER)
        return coord(GUTTER + right + 6)


@dataclass
class CalibrationGroup:
    y: float  # the baseline of the configuration's label, above its three bars
    label: str
    short: str
    simulated: bool
    single_level: bool
    bars: list[CalibrationBar] = field(default_factory=list)

    @property
    def sim_tag(self) -> bool:
        return sim_tag(self.label, self.simulated)


@dataclass
class CalibrationChart:
    width: int
    height: int
    gutter: int
    plot: int
    groups: list[CalibrationGroup]
    ticks: list[tuple[float, int]]  # (x, percent)

    @property
    def level_x(self) -> int:
        return self.gutter - 8

    @property
    def tick_top(self) -> int:
        return TOP - 6

    @property
    def tick_label_y(self) -> int:
        return TOP - 12


def calibration_chart(report: Report) -> CalibrationChart:
    """Accuracy at HIGH, MEDIUM and LOW, per configuration (pooled over its repeats), each with
    its Wilson interval as a whisker."""
    bar = 14
    groups = []
    y = TOP
    for config in report.configs:
        group = CalibrationGroup(
            coord(y + 12),
            config.label,
            short_label(config.label, config.simulated, room=60),
            config.simulated,
            config.calibration.single_level,
        )
        y += 18
        for level in config.calibration.levels:
            width = (level.accuracy or 0) * PLOT
            interval = config.ci.get(f"accuracy_{level.level}")
            group.bars.append(
                CalibrationBar(
                    coord(y),
                    level.level,
                    coord(width),
                    level.count,
                    level.correct,
                    level.accuracy,
                    None if interval is None else coord(GUTTER + interval.low * PLOT),
                    None if interval is None else coord(GUTTER + interval.high * PLOT),
                    None if interval is None else interval.low,
                    None if interval is None else interval.high,
                )
            )
            y += bar + 3
        groups.append(group)
        y += GROUP_GAP
    ticks = [(coord(GUTTER + PLOT * p / 100), p) for p in (0, 25, 50, 75, 100)]
    return CalibrationChart(WIDTH, int(y), GUTTER, PLOT, groups, ticks)


def nice_step(span: float, target: int = 5) -> float:
    """A 1-2-5 step that cuts ``span`` into about ``target`` intervals."""
    if span <= 0:
        return 1.0
    raw = span / target
    power = 10 ** math.floor(math.log10(raw))
    for multiple in (1, 2, 5, 10):
        if raw <= multiple * power:
            return multiple * power
    return 10 * power


@dataclass
class NetRow:
    y: float
    label: str
    short: str
    simulated: bool
    mean: float | None
    low: float | None
    high: float | None
    x_mean: float | None
    x_low: float | None
    x_high: float | None
    points: list[float]  # x of each repeat

    @property
    def text_y(self) -> float:
        return coord(self.y + 4)

    @property
    def cap_top(self) -> float:
        return coord(self.y - 6)

    @property
    def cap_bottom(self) -> float:
        return coord(self.y + 6)

    @property
    def value_x(self) -> float | None:
        right = self.x_high if self.x_high is not None else self.x_mean
        return None if right is None else coord(right + 10)

    @property
    def diamond(self) -> str:
        """The mean's marker, a diamond, as SVG polygon points."""
        x, y = self.x_mean, self.y
        return f"{x},{coord(y - 6)} {coord(x + 6)},{y} {x},{coord(y + 6)} {coord(x - 6)},{y}"

    @property
    def sim_tag(self) -> bool:
        return sim_tag(self.label, self.simulated)


@dataclass
class NetChart:
    width: int
    height: int
    gutter: int
    plot: int
    rows: list[NetRow]
    ticks: list[tuple[float, float]]  # (x, value)
    band: tuple[float, float] | None  # x from, x to: within the noise floor of the best mean
    floor: float
    best: float | None
    axis_y: float
    zero_x: float | None

    @property
    def label_x(self) -> int:
        return self.gutter - 8

    @property
    def tick_top(self) -> int:
        return TOP - 6

    @property
    def tick_label_y(self) -> int:
        return TOP - 12

    @property
    def band_width(self) -> float:
        return coord(self.band[1] - self.band[0]) if self.band else 0

    @property
    def band_height(self) -> float:
        return coord(self.axis_y - self.tick_top)

    @property
    def band_label_x(self) -> float:
        return self.band[0] if self.band else 0


def net_chart(report: Report) -> NetChart:
    """Mean net usable (AA: index) per configuration with its 95 % bootstrap interval as a
    whisker, and each repeat as a circle."""
    values = []
    for c in report.configs:
        interval = c.ci.get("net")
        values.extend(v for v in (c.net.min, c.net.max) if v is not None)
        if interval is not None:
            values.extend(interval)
    means = [c.net.mean for c in report.configs if c.net.mean is not None]
    best = max(means) if means else None
    lo, hi = min([*values, 0.0]), max([*values, 0.0])
    step = nice_step(hi - lo)
    lo = math.floor(lo / step) * step
    hi = math.ceil(hi / step) * step
    if hi == lo:
        hi = lo + step

    gutter = gutter_for(report)

    def x(v: float) -> float:
        return coord(gutter + (v - lo) / (hi - lo) * PLOT)

    rows = []
    y = TOP + 8
    for config in report.configs:
        s = config.net
        interval = config.ci.get("net")
        low = None if interval is None else interval.low
        high = None if interval is None else interval.high
        rows.append(
            NetRow(
                coord(y),
                config.label,
                short_label(config.label, config.simulated),
                config.simulated,
                s.mean,
                low,
                high,
                None if s.mean is None else x(s.mean),
                None if low is None else x(low),
                None if high is None else x(high),
                [x(r.net) for r in config.runs if r.net is not None],
            )
        )
        y += ROW + 6
    ticks = []
    value = lo
    while value <= hi + step / 1000:
        ticks.append((x(value), round(value, 6)))
        value += step
    return NetChart(
        gutter + PLOT + RIGHT,
        int(y + 6),
        gutter,
        PLOT,
        rows,
        ticks,
        None,
        report.noise_floor,
        best,
        coord(y),
        x(0) if lo <= 0 <= hi else None,
    )
