"""The report's interval results, typed, and the bootstrap's columns by name.

``scoring.report.intervals`` builds these from numpy arrays with pure functions: it names the
columns of the bootstrap matrix once (``BootColumns``), asks for every bootstrap interval as a
``BootRequest`` and reads them all in one pass (``bootstrap_intervals``), then builds one frozen
result per run, configuration and slice cell. Nothing here is filled in later: a result holds
its figures' intervals from the moment it exists.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from scoring.report import stats
from scoring.report.stats import Interval, RiskCoveragePoint

__all__ = [
    "BOOTSTRAP",
    "CONFIG_COLUMNS",
    "RUN_COLUMNS",
    "WILSON",
    "BootColumns",
    "BootRequest",
    "ConfigIntervals",
    "FigureInterval",
    "RepeatNoise",
    "RiskRow",
    "SliceIntervals",
    "bootstrap_intervals",
    "figure_map",
]

WILSON = "wilson"  # a share's Wilson interval (stats.wilson, stats.wilson_items)
BOOTSTRAP = "bootstrap"  # the paired bootstrap's expanded percentile interval

# The bootstrap matrix's columns of one configuration (means over its repeats) and of each run.
CONFIG_COLUMNS = (
    "correct",
    "penalised",
    "attempted",
    "correct_high",
    "penalised_high",
    "correct_high_medium",
    "penalised_high_medium",
)
RUN_COLUMNS = ("correct", "penalised")


@dataclass(frozen=True)
class BootColumns:
    """Where each (configuration, figure) and (configuration, repeat, figure) sits in the
    bootstrap matrix, built once from the configurations: code says ``cols.of(boot, key,
    "penalised")``, never an offset."""

    position: Mapping[tuple, int]

    @classmethod
    def build(cls, configs) -> BootColumns:
        names: list[tuple] = []
        for config in configs:
            names += [(config.key, None, name) for name in CONFIG_COLUMNS]
            for k in range(len(config.runs)):
                names += [(config.key, k, name) for name in RUN_COLUMNS]
        return cls(MappingProxyType({name: i for i, name in enumerate(names)}))

    def __len__(self) -> int:
        return len(self.position)

    def index(self, key: int, name: str, repeat: int | None = None) -> int:
        """The column of configuration ``key``'s ``name`` (of its repeat ``repeat``: 0, 1, ...)."""
        return self.position[(key, repeat, name)]

    def of(self, table: np.ndarray, key: int, name: str, repeat: int | None = None):
        """That column of ``table``: a resample's values (boot) or the figure itself (point)."""
        return table[..., self.index(key, name, repeat)]


@dataclass(frozen=True)
class BootRequest:
    """One bootstrap interval asked for: the figure in each resample, the figure itself (the
    interval is stretched to hold it) and the percentile level (None: no interval)."""

    samples: np.ndarray
    point: float | None
    level: float | None


@dataclass(frozen=True)
class FigureInterval:
    """One figure's 95 % interval: its name, the figure, the interval (None: none) and how it
    was found (WILSON or BOOTSTRAP)."""

    name: str
    point: float | None
    interval: Interval | None
    method: str

    @property
    def low(self) -> float | None:
        return self.interval.low if self.interval is not None else None

    @property
    def high(self) -> float | None:
        return self.interval.high if self.interval is not None else None


def figure_map(figures: Iterable[FigureInterval]) -> dict[str, Interval | None]:
    """Figure name -> interval, as the pages and exports read it (``ci``)."""
    return {f.name: f.interval for f in figures}


@dataclass(frozen=True)
class RepeatNoise:
    """Run-to-run variation of one configuration, from its repeats."""

    same: int  # item-repeat pairs given the same bucket
    compared: int
    agreement: float | None  # same / compared
    agreement_ci: Interval | None
    gap: float  # the largest gap in the figure between two repeats
    gap_ci: Interval | None  # paired bootstrap interval of that repeat-vs-repeat gap


@dataclass(frozen=True)
class RiskRow:
    point: RiskCoveragePoint
    coverage_ci: Interval | None
    risk_ci: Interval | None
    score_ci: Interval | None


@dataclass(frozen=True)
class ConfigIntervals:
    """Everything that says how sure one configuration's figures are."""

    key: int
    figures: tuple[FigureInterval, ...]  # means over its repeats
    runs: tuple[tuple[FigureInterval, ...], ...]  # each repeat's, in the configuration's order
    definitions: tuple  # definitions.DefinitionValue, in the definitions' order
    repeat_noise: RepeatNoise | None
    risk_coverage: tuple[RiskRow, ...]
    sweep: Mapping[float, Interval | None]  # net usable at the sweep table's w


@dataclass(frozen=True)
class SliceIntervals:
    """One cell of a slice table (a block or a facet value x a configuration)."""

    figures: tuple[FigureInterval, ...]


def _ci(samples: np.ndarray, level: float) -> Interval | None:
    samples = samples[~np.isnan(samples)]
    if samples.size == 0:
        return None
    return stats.percentile_interval(samples[:, None], level)[0]


def _holding(interval: Interval | None, point) -> Interval | None:
    """The interval, stretched to hold its own figure (a percentile interval of a skewed
    resampling distribution can miss it by a hair; a figure outside its interval reads as an
    error)."""
    if interval is None or point is None or np.isnan(point):
        return interval
    point = float(point)
    return Interval(min(interval.low, point), max(interval.high, point))


def bootstrap_intervals(requests: Sequence[BootRequest]) -> tuple[Interval | None, ...]:
    """Every request's interval, in order: one numpy call per level (hundreds of separate
    percentile calls cost more than the resampling itself). A figure undefined in some
    resamples is read from the resamples where it is defined."""
    out: list[Interval | None] = [None] * len(requests)
    by_level: dict[float, list[int]] = {}
    for k, request in enumerate(requests):
        if request.level is not None:
            by_level.setdefault(request.level, []).append(k)
    for level, members in by_level.items():
        rows = np.empty((len(members), requests[members[0]].samples.shape[0]), dtype=np.float32)
        for r, k in enumerate(members):
            rows[r] = requests[k].samples
        clean = ~np.isnan(rows).any(axis=1)
        intervals: list[Interval | None] = [None] * rows.shape[0]
        if clean.any():
            resolved = stats.row_intervals(np.ascontiguousarray(rows[clean]), level, in_place=True)
            for index, interval in zip(np.flatnonzero(clean), resolved, strict=True):
                intervals[index] = interval
        for index in np.flatnonzero(~clean):
            intervals[index] = _ci(rows[index].astype(np.float64), level)
        for k, interval in zip(members, intervals, strict=True):
            out[k] = _holding(interval, requests[k].point)
    return tuple(out)
