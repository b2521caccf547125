"""Shares over items with their repeats, and the intervals of the report's slices.

``ItemShares`` holds one configuration's buckets per item and repeat and gives the Wilson
interval of any share of them (stats.wilson_items: a ratio of means over the repeats, each item
with its repeats). ``slice_intervals`` gives each block's and each facet value's (topic, answer
format) cells their intervals: the share correct, and an item bootstrap of the compared figure
within the slice's items. scoring.report.intervals calls both; docs/figures.md.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from scoring.report import stats
from scoring.report.interval_results import BOOTSTRAP, WILSON, BootRequest, FigureInterval
from scoring.report.resampling import resampling_weights
from scoring.report.rows import NO_CONFIDENCE
from scoring.report.stats import Interval

__all__ = ["ItemShares", "ShareLayout", "SliceCell", "slice_intervals"]


class ShareLayout:
    """What the ItemShares of every configuration of one report have in common: the buckets'
    places, the attempted buckets, and each share's selector of (level, bucket) cells, made once
    for the report instead of once a configuration (a share's selector depends only on the
    scheme's buckets)."""

    def __init__(self, report) -> None:
        names = list(report.bucket_names)
        self.index = {name: k for k, name in enumerate(names)}
        self.attempted_buckets = tuple(b for b in names if b != report.scheme_obj.abstain)
        self.shape = (NO_CONFIDENCE + 1, len(names))
        self._canonical: dict = {}
        self._selectors: dict = {}

    def canonical(self, fields: tuple[str, ...]) -> tuple[str, ...]:
        if (found := self._canonical.get(fields)) is None:
            out = set()
            for name in fields:
                out.update(self.attempted_buckets if name == "attempted" else (name,))
            found = self._canonical[fields] = tuple(sorted(out))
        return found

    def selector(self, fields: tuple[str, ...], levels=None) -> np.ndarray:
        """Which (level, bucket) cells make the column of ``fields`` ("n": an item,
        "attempted": an attempt), at these confidence level codes only when given."""
        key = (fields, None if levels is None else tuple(levels))
        if (chosen := self._selectors.get(key)) is None:
            chosen = np.zeros(self.shape)
            if fields != ("n",):
                buckets = [self.index[b] for b in self.canonical(fields) if b in self.index]
                if levels is None:
                    chosen[:, buckets] = 1
                else:
                    chosen[np.ix_(list(levels), buckets)] = 1
            chosen = chosen.ravel()
            chosen.flags.writeable = False
            self._selectors[key] = chosen
        return chosen


class ItemShares:
    """Per item, a configuration's columns as means over its repeats, and the Wilson intervals
    of ratios of them (stats.wilson_items), each distinct ratio computed once so that a figure
    shown under two names (Knowledge and AA's accuracy) has one interval. ``layout``: the
    report's ShareLayout, shared by its configurations (made here when not given)."""

    def __init__(self, report, buckets, confidence, strata, rows, layout=None) -> None:
        self.layout = layout if layout is not None else ShareLayout(report)
        self.rows, self.strata = rows, strata
        self.repeats = max(len(rows), 1)
        self.index = self.layout.index
        self.attempted_buckets = self.layout.attempted_buckets
        width = len(self.index)
        # Per item, the mean over repeats of its answers in each (confidence level, bucket):
        # every column asked for below is a sum of these.
        picked, level = buckets[rows], confidence[rows]
        n_items = buckets.shape[1]
        cells = np.zeros((n_items, (NO_CONFIDENCE + 1) * width))
        for r in range(picked.shape[0]):
            known = np.flatnonzero(picked[r] >= 0)
            cells[known, level[r, known].astype(np.int64) * width + picked[r, known]] += 1
        self.cells = (cells / self.repeats).reshape(n_items, NO_CONFIDENCE + 1, width)
        self.cache: dict = {}

    def selector(self, fields: tuple[str, ...], levels=None) -> np.ndarray:
        """The layout's selector (ShareLayout.selector)."""
        return self.layout.selector(fields, levels)

    def columns(self, specs) -> np.ndarray:
        """The (items, len(specs)) columns of [(fields, levels)]: one matrix product."""
        n_items, levels, width = self.cells.shape
        flat = self.cells.reshape(n_items, levels * width)
        out = flat @ np.column_stack([self.selector(f, lv) for f, lv in specs])
        ones = [k for k, (fields, _lv) in enumerate(specs) if fields == ("n",)]
        out[:, ones] = 1.0
        return out

    def canonical(self, fields: tuple[str, ...]) -> tuple[str, ...]:
        return self.layout.canonical(fields)

    def prefetch(self, specs) -> None:
        """The intervals of these shares, in one stats.wilson_items call (a call a share cost
        a fixed 0.1 ms, thousands of times in a large report): [(numerator, denominator,
        levels key, confidence level codes or None)], as ``wilson`` takes them."""
        todo: dict = {}
        for numerator, denominator, mask_key, levels in specs:
            key = (self.canonical(numerator), self.canonical(denominator), mask_key)
            if key not in self.cache:
                todo.setdefault(key, levels)
        if not todo:
            return
        num = self.columns([(key[0], levels) for key, levels in todo.items()])
        den = self.columns([(key[1], levels) for key, levels in todo.items()])
        intervals = stats.wilson_items(num, den, self.strata, self.repeats)
        self.cache.update(zip(todo, intervals, strict=True))

    def wilson(self, numerator, denominator, mask_key=None, levels=None) -> Interval | None:
        key = (self.canonical(numerator), self.canonical(denominator), mask_key)
        if key not in self.cache:
            num, den = self.columns([(key[0], levels), (key[1], levels)]).T
            self.cache[key] = stats.wilson_items(num, den, self.strata, self.repeats)[0]
        return self.cache[key]


@dataclass(frozen=True)
class SliceCell:
    """One slice cell's intervals as found before the bootstrap is read: the share correct's
    Wilson interval (under the names ``shares``) and the compared figure's bootstrap request."""

    shares: tuple[str, ...]
    share: Interval | None
    share_points: tuple[float | None, ...]  # each name's figure (the cell's mean over repeats)
    compared: str
    compared_point: float | None
    boot: BootRequest | None

    def figures(self, compared_ci: Interval | None) -> tuple[FigureInterval, ...]:
        """The cell's intervals, given the compared figure's bootstrap interval."""
        return (
            *(
                FigureInterval(name, point, self.share, WILSON)
                for name, point in zip(self.shares, self.share_points, strict=True)
            ),
            FigureInterval(self.compared, self.compared_point, compared_ci, BOOTSTRAP),
        )


def slice_intervals(report, blocks, item_index, rows, buckets, run_index) -> list[list[SliceCell]]:
    """Per block and per facet value (topic, answer format), in that order, per cell: the share
    correct (Wilson, over the slice's items, their repeats kept with each), an item bootstrap of
    net usable (AA: the index) within the slice's items, read at the slice's own percentile
    level."""
    codes = np.array(blocks, dtype=object)
    known = np.array(item_index, dtype=np.int64)
    slices = [(block, np.flatnonzero(codes == block.code)) for block in report.blocks]
    for facet in report.facets:
        values = np.array(
            [rows.items[i][facet.name] or "" if i >= 0 else None for i in known.tolist()],
            dtype=object,
        )
        for row in facet.rows:
            slices.append((row, np.flatnonzero(values == row.value)))
    return [_slice_cells(report, part, members, buckets, run_index) for part, members in slices]


def _points(cell, names) -> tuple[float | None, ...]:
    summaries = [cell.summary.get(name) if cell.summary else None for name in names]
    return tuple(getattr(summary, "mean", None) for summary in summaries)


def _slice_cells(report, part, members, buckets, run_index) -> list[SliceCell]:
    """One slice's cells. An item of the slice with no bucket row at all has no known facet
    value; it is counted as an item with no bucket, as the figures count it."""
    scheme = report.scheme_obj
    shares = ("knowledge", "accuracy")
    compared = scheme.compared_figure
    m = part.n_items
    padding = max(m - len(members), 0)
    sub_buckets = np.concatenate(
        [buckets[:, members], np.full((buckets.shape[0], padding), -1, dtype=buckets.dtype)],
        axis=1,
    )
    size = sub_buckets.shape[1]
    names = list(report.bucket_names)
    correct_b, pen_b = names.index(scheme.correct), names.index(scheme.penalised)
    # Every cell's columns at once: one Wilson call per number of repeats, one matrix product.
    cells, correct, penalised = [], [], []
    for k, cell in enumerate(part.cells):
        config_rows = [run_index[run.pk] for run in cell.config.runs]
        if not config_rows or not size:
            continue
        picked = sub_buckets[config_rows]
        cells.append((k, len(config_rows)))
        correct.append((picked == correct_b).mean(axis=0))
        penalised.append((picked == pen_b).mean(axis=0))
    found = [
        SliceCell(shares, None, _points(cell, shares), compared, None, None) for cell in part.cells
    ]
    if not cells:
        return found
    correct_m = np.column_stack(correct)
    strata = np.zeros(size, dtype=np.int64)
    share_of = {}
    for repeats in sorted({r for _k, r in cells}):
        index = [j for j, (_k, r) in enumerate(cells) if r == repeats]
        intervals = stats.wilson_items(
            correct_m[:, index], np.ones((size, len(index))), strata, repeats
        )
        share_of.update(zip(index, intervals, strict=True))
    sums = stats.bootstrap_sums(resampling_weights(size), np.column_stack([correct_m, *penalised]))
    level = stats.percentile_level(size)
    for j, (k, _repeats) in enumerate(cells):
        cell = part.cells[k]
        net = scheme.net_from_sums(sums[:, j], sums[:, len(cells) + j], m, report.w)
        point = cell.summary[compared].mean
        found[k] = SliceCell(
            shares,
            share_of[j],
            _points(cell, shares),
            compared,
            point,
            BootRequest(net, point, level),
        )
    return found
