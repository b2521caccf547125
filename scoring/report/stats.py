"""Intervals, paired tests and the other figures that say how sure a figure is: pure functions.

Beside scoring.metrics (the figures themselves), this module holds what turns a figure into one
a reader can act on: Wilson intervals for proportions, a paired bootstrap over items (blocks
resampled as clusters when there are several), the exact McNemar test with Holm's correction,
the agreement of repeats, the risk-coverage table and the penalty sweep. Counts may be means
over repeats (fractions): where floating point carries them a hair past a bound, they are
clamped to it (``clamp_count``); a count truly out of bounds is still an error.
No Django and no database: the callers pass arrays and counts. Every formula is written out in
docs/figures.md.

numpy carries the bootstrap: 2,000 resamples of 1,000 items for 50 configurations is a matrix
product of 2,000 x 1,000 by 1,000 x 100, a few milliseconds with numpy and minutes in plain
Python.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import NamedTuple

import numpy as np
from scipy.special import ndtr

from scoring.metrics import CONFIDENCE_LEVELS, CORRECT, Calibration, CalibrationLevel
from scoring.report.stats_wilson import (
    CONFIDENCE,
    Z95,
    Interval,
    clamp_count,
    strata_matrix,
    student_quantile,
    wilson,
    wilson_items,
)

__all__ = [
    "CONFIDENCE",
    "Z95",
    "RESAMPLES",
    "SEED",
    "Crossover",
    "Interval",
    "RiskCoveragePoint",
    "BLOCKS",
    "ITEMS",
    "bootstrap_sums",
    "calibration_from_cells",
    "bootstrap_weights",
    "clamp_count",
    "crossovers",
    "holm",
    "holm_many",
    "mcnemar_exact",
    "penalty_sweep",
    "percentile_interval",
    "percentile_level",
    "repeat_agreement",
    "row_bounds",
    "row_intervals",
    "risk_coverage",
    "strata_matrix",
    "student_quantile",
    "sweep_weights",
    "threshold_for_weight",
    "wilson",
    "wilson_items",
]

RESAMPLES = 2000
# Fixed, so the same data always give the same intervals (a report that changes on reload would
# be read as a change in the data).
SEED = 20240601
# What an interval is about (bootstrap_weights): these blocks, their items a sample (the blocks
# are strata); or the blocks themselves a sample of blocks (clusters).
ITEMS, BLOCKS = "items", "blocks"
# The penalty sweep: w from 0 to 4 in steps of 0.25.
SWEEP_MAX = 4.0
SWEEP_STEP = 0.25


# --------------------------------------------------------------------------------------------
# Exact McNemar test and Holm's correction
# --------------------------------------------------------------------------------------------


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value for b and c discordant pairs.

    Under the null each discordant pair goes either way with probability 1/2, so the p-value is
    that of a two-sided binomial test of min(b, c) in b + c at 1/2: min(1, 2 P(X <= min(b, c))).
    1.0 when there is no discordant pair. The sum runs down from min(b, c) in log space and stops
    once the terms no longer change it, so a large table costs a few hundred terms, not n.
    """
    for name, value in (("b", b), ("c", c)):
        if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 0:
            raise ValueError(f"{name} must be a non-negative int (got {value!r})")
    n, k = int(b) + int(c), min(int(b), int(c))
    if n == 0 or 2 * k == n:
        return 1.0
    log_term = math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1) - n * math.log(2)
    term = math.exp(log_term)
    total = term
    for j in range(k, 0, -1):
        term *= j / (n - j + 1)  # P(X = j - 1) from P(X = j)
        total += term
        if term < total * 1e-17:
            break
    return min(1.0, 2 * total)


def holm_many(pvalues: np.ndarray) -> np.ndarray:
    """holm over a float array with no missing value, as an array (the same arithmetic)."""
    pvalues = np.asarray(pvalues, dtype=np.float64)
    m = pvalues.size
    order = np.argsort(pvalues, kind="stable")  # ties in the order given, as sorted() keeps them
    # fmin and fmax as min() and max() treat a NaN: the running maximum starts at 0 and steps
    # over it.
    scaled = np.fmin(1.0, (m - np.arange(m)) * pvalues[order])
    out = np.empty(m)
    out[order] = np.fmax.accumulate(np.fmax(scaled, 0.0)) if m else scaled
    return out


def holm(pvalues: Sequence[float | None]) -> list[float | None]:
    """Holm's step-down adjusted p-values, in the order given (None stays None).

    The i-th smallest of m p-values is multiplied by m - i + 1, then made non-decreasing along
    the sorted order and capped at 1. Rejecting where the adjusted p < 0.05 keeps the chance of
    any false "separable" among all the pairs under 5 %.
    """
    present = [i for i, p in enumerate(pvalues) if p is not None]
    out: list[float | None] = [None] * len(pvalues)
    adjusted = holm_many(np.array([pvalues[i] for i in present], dtype=np.float64))
    for i, p in zip(present, adjusted.tolist(), strict=True):
        out[i] = p
    return out


# --------------------------------------------------------------------------------------------
# Paired bootstrap over items
# --------------------------------------------------------------------------------------------


def bootstrap_weights(
    n_items: int,
    blocks: Sequence[Hashable] | None = None,
    *,
    resamples: int = RESAMPLES,
    seed: int = SEED,
    target: str = ITEMS,
) -> np.ndarray:
    """How often each item is drawn in each resample: a (resamples, n_items) float array.

    What is resampled follows from what the interval is about (``target``):

    - ITEMS, "these blocks": the bank's blocks are fixed and their items a sample of the items
      such blocks could hold. Each block is a stratum: its items are drawn with replacement
      within it and every resample keeps each block's size. One block (or ``blocks`` None) is
      the plain item bootstrap. The same whatever the number of blocks: a fifth block changes
      an interval only by what its items add.
    - BLOCKS, "blocks as a sample": the blocks are themselves a sample of topics. Whole blocks
      are drawn with replacement, as many as there are, each bringing its items once (no second
      stage: drawing items again within a drawn block would count the variation within blocks
      twice). Only worth it with many blocks (docs/figures.md gives its coverage).

    Every configuration is resampled with the same weights: that is what makes a difference
    between two of them paired.
    """
    if target not in (ITEMS, BLOCKS):
        raise ValueError(f"target must be {ITEMS!r} or {BLOCKS!r} (got {target!r})")
    rng = np.random.default_rng(seed)
    if n_items == 0:
        return np.zeros((resamples, 0), dtype=np.float32)
    groups: dict[Hashable, list[int]] = {}
    for index, block in enumerate(blocks if blocks is not None else [None] * n_items):
        groups.setdefault(block, []).append(index)
    if target == BLOCKS:
        k = len(groups)
        chosen = rng.multinomial(k, np.full(k, 1 / k), size=resamples)  # (resamples, k)
        of_item = np.empty(n_items, dtype=np.int64)
        for column, members in enumerate(groups.values()):
            of_item[members] = column
        return chosen[:, of_item].astype(np.float32)
    offsets = np.arange(resamples) * n_items
    flat = []
    for members in groups.values():
        # Resample b draws len(members) items of this block, with replacement.
        members = np.asarray(members)
        rows = np.repeat(offsets, len(members))
        flat.append(rows + members[rng.integers(0, len(members), size=rows.size)])
    counts = np.bincount(np.concatenate(flat), minlength=resamples * n_items)
    # float32: a product in it takes half the time, and its rounding (1e-7 relative) is far
    # below anything an interval shows.
    return counts.reshape(resamples, n_items).astype(np.float32)


def percentile_level(n: int, strata: int = 1, level: float = CONFIDENCE) -> float | None:
    """The level to read the percentile interval at so that it covers ``level`` at small N:
    the expanded percentile interval (Hesterberg 2015, "What teachers should know about the
    bootstrap", section 4.3).

    A bootstrap over n items drawn within ``strata`` strata spreads as if the variance within
    each stratum were (n_h - 1) / n_h of what it is, and its percentiles stand for the normal
    quantile where Student's t with n - strata degrees of freedom belongs. Both shrink an
    interval at small N (95 % intervals over 30 items in 10 blocks covered 0.87). Reading the
    percentiles at 1 - 2 Phi(-sqrt(n / df) t_df) instead undoes both: 0.9625 for 30 items in
    one block, 0.9995 for 30 in 10; it tends to ``level`` as N grows. None when there are no
    degrees of freedom left (every stratum a single item): nothing varies to be measured.
    """
    df = int(n) - int(strata)
    if df < 1:
        return None
    return float(1 - 2 * ndtr(-math.sqrt(n / df) * student_quantile(level, df)))


def bootstrap_sums(weights: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Each resample's total of each column of ``values`` (n_items, k), scaled to n_items items.

    A resample of whole blocks (target BLOCKS) may hold more or fewer than n_items items; its
    totals are scaled back to n_items so that they are on the scale of the figure (a ratio
    estimator). Within strata every resample holds n_items items and nothing is scaled.
    """
    n_items = weights.shape[1]
    drawn = weights.sum(axis=1, keepdims=True, dtype=np.float64)
    drawn[drawn == 0] = 1
    sums = weights @ np.asarray(values, dtype=weights.dtype)
    return sums.astype(np.float64) * (n_items / drawn)


def percentile_interval(samples: np.ndarray, level: float = CONFIDENCE) -> list[Interval]:
    """The percentile interval of each column of ``samples`` (resamples, k).

    The same values as ``np.percentile(samples, [2.5, 97.5], axis=0)`` (linear interpolation
    between order statistics), by a partition of each column's copy laid out as a row: ten times
    faster for the 1,225 pairs of 50 configurations.
    """
    return row_intervals(np.ascontiguousarray(np.asarray(samples, dtype=float).T), level)


def row_intervals(
    rows: np.ndarray, level: float = CONFIDENCE, *, in_place: bool = False
) -> list[Interval]:
    """percentile_interval of each row of ``rows`` (k, resamples). ``in_place`` reorders each
    row of ``rows`` itself (an array the caller made for this) instead of a copy."""
    return [
        Interval(low, high) for low, high in row_bounds(rows, level, in_place=in_place).tolist()
    ]


def row_bounds(
    rows: np.ndarray, level: float = CONFIDENCE, *, in_place: bool = False
) -> np.ndarray:
    """row_intervals as a (k, 2) float array of (low, high).

    The interpolation reads four order statistics of each row, two in each tail. They are the
    same values however they are found: here from the few values beyond a threshold taken in
    a sample of the row (sorting a hundred values instead of 2,000), or, for a row where the
    threshold leaves too few or too many values or that holds a NaN, by sorting the whole row
    (in place with ``in_place``)."""
    count = rows.shape[1]
    tail = (1 - level) / 2
    position = np.array([tail, 1 - tail]) * (count - 1)
    below = np.floor(position).astype(int)
    above = np.minimum(below + 1, count - 1)
    ordered = np.empty(
        (rows.shape[0], 4), dtype=rows.dtype
    )  # below[0], above[0], below[1], above[1]
    rest = np.arange(rows.shape[0])
    if count >= _SAMPLE * 2 and rows.shape[0] and np.issubdtype(rows.dtype, np.floating):
        rest = _tails(rows, below, above, ordered)
    if rest.size:
        if in_place and rest.size == rows.shape[0]:
            rows.sort(axis=1)
            whole = rows
        else:
            whole = np.sort(rows[rest], axis=1)
        ordered[rest] = whole[:, [below[0], above[0], below[1], above[1]]]
    low, high = ordered[:, [0, 2]], ordered[:, [1, 3]]
    return low + (high - low) * (position - below)


_SAMPLE = 256  # values of a row sorted to set its thresholds


def _tails(rows: np.ndarray, below: np.ndarray, above: np.ndarray, ordered: np.ndarray):
    """Fill ``ordered`` with the four order statistics of each row that its thresholds serve;
    return the indices of the rows left to sort whole."""
    count = rows.shape[1]
    need_low, need_high = int(above[0]) + 1, count - int(below[1])  # values in each tail
    cap = 4 * max(need_low, need_high) + 64  # a tail wider than this is sorted whole
    # Thresholds from the first _SAMPLE resamples of each row (resamples are independent
    # draws), at twice the tail's share: about twice the values the tail needs fall beyond.
    sample = np.sort(rows[:, :_SAMPLE], axis=1)
    pick = max(1, round(2 * need_low * _SAMPLE / count))
    low_t = sample[:, pick]
    high_t = sample[:, _SAMPLE - 1 - max(1, round(2 * need_high * _SAMPLE / count))]
    done = ~np.isnan(rows.max(axis=1))  # a NaN sorts last, and max keeps it: sort whole
    for side, need in ((0, need_low), (1, need_high)):
        beyond = rows < low_t[:, None] if side == 0 else rows > high_t[:, None]
        found = np.count_nonzero(beyond, axis=1)
        done &= (found >= need) & (found <= cap)
        beyond[~done] = False
        keep = np.flatnonzero(done)
        found = found[keep]
        values = np.compress(beyond.ravel(), rows.ravel())  # row by row, in order
        r = np.repeat(np.arange(keep.size), found)
        starts = np.cumsum(found) - found
        tails = np.full((keep.size, cap), np.inf, dtype=rows.dtype)
        tails[r, np.arange(r.size) - starts[r]] = values if side == 0 else -values
        tails.sort(axis=1)
        if side == 0:
            ordered[keep, 0], ordered[keep, 1] = tails[:, below[0]], tails[:, above[0]]
        else:  # the largest first: position p from the top is count - 1 - p from the bottom
            ordered[keep, 2] = -tails[:, count - 1 - below[1]]
            ordered[keep, 3] = -tails[:, count - 1 - above[1]]
    return np.flatnonzero(~done)


# --------------------------------------------------------------------------------------------
# Repeats
# --------------------------------------------------------------------------------------------


def repeat_agreement(buckets: np.ndarray) -> tuple[int, int] | None:
    """How often two repeats put an item in the same bucket: (same, compared) over every pair of
    repeats and every item both scored. ``buckets`` is (repeats, n_items) of bucket codes, -1
    where a repeat has no bucket for the item. None with fewer than two repeats."""
    buckets = np.asarray(buckets)
    if buckets.ndim != 2 or buckets.shape[0] < 2:
        return None
    same = compared = 0
    for r, s in combinations(range(buckets.shape[0]), 2):
        both = (buckets[r] >= 0) & (buckets[s] >= 0)
        compared += int(both.sum())
        same += int((both & (buckets[r] == buckets[s])).sum())
    return same, compared


# --------------------------------------------------------------------------------------------
# Risk and coverage, the penalty sweep
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RiskCoveragePoint:
    levels: tuple[str, ...]  # the confidence levels answered at; the rest counts as abstained
    answered: float
    correct: float
    wrong: float  # answered and not correct
    penalised: float  # of which confidently wrong (four-bucket) or incorrect (AA)
    coverage: float | None  # answered / N
    risk: float | None  # wrong / answered
    score: float  # correct - w x penalised, in items


def risk_coverage(
    cells: Mapping[str | None, tuple[float, float, float]], n_items: float, w: float
) -> list[RiskCoveragePoint]:
    """Three points: answer only at HIGH; at HIGH and MEDIUM; every attempted answer.

    ``cells[level] = (answered, correct, penalised)`` per confidence level (None: answers without
    one, kept only in the last point). Answers below the threshold count as abstentions: they
    leave the numerator and the penalty, and the score is what net usable would have been.
    """
    thresholds = (("HIGH",), ("HIGH", "MEDIUM"), ("HIGH", "MEDIUM", "LOW", None))
    out = []
    for kept in thresholds:
        # Means over repeats: sums of fractions, clamped where rounding takes them past a bound.
        answered = clamp_count(sum(cells.get(lv, (0, 0, 0))[0] for lv in kept), 0, n_items)
        correct = clamp_count(sum(cells.get(lv, (0, 0, 0))[1] for lv in kept), 0, answered)
        wrong = clamp_count(answered - correct, 0, answered)
        penalised = clamp_count(sum(cells.get(lv, (0, 0, 0))[2] for lv in kept), 0, wrong)
        out.append(
            RiskCoveragePoint(
                tuple(level for level in kept if level),
                answered,
                correct,
                wrong,
                penalised,
                answered / n_items if n_items else None,
                wrong / answered if answered else None,
                correct - w * penalised,
            )
        )
    return out


def sweep_weights(w_max: float = SWEEP_MAX, step: float = SWEEP_STEP) -> list[float]:
    return [round(i * step, 6) for i in range(int(round(w_max / step)) + 1)]


def threshold_for_weight(w: float) -> float:
    """The confidence above which answering pays at penalty w: t = w / (1 + w).

    An answer that is right with probability p earns p - w (1 - p); that is positive when
    p > w / (1 + w).
    """
    return w / (1 + w)


def penalty_sweep(
    lines: Mapping[Hashable, tuple[float, float]], weights: Sequence[float] | None = None
) -> dict[Hashable, list[tuple[float, float]]]:
    """Net usable = correct - w x penalised at each w, per configuration: {key: [(w, net)]}."""
    weights = sweep_weights() if weights is None else list(weights)
    return {key: [(w, c - w * p) for w in weights] for key, (c, p) in lines.items()}


class Crossover(NamedTuple):
    a: Hashable  # ahead below w
    b: Hashable  # ahead above w
    w: float
    t: float  # w / (1 + w)
    net: float  # the common net usable there


def crossovers(
    lines: Mapping[Hashable, tuple[float, float]], w_max: float = SWEEP_MAX
) -> list[Crossover]:
    """Where two configurations' lines cross for 0 < w <= w_max, by w. Line: correct - w x pen.

    c_a - w p_a = c_b - w p_b at w = (c_a - c_b) / (p_a - p_b). Parallel lines never cross;
    a crossing at w = 0 exactly is a tie at w = 0, not a change of order, and is left out.
    """
    out = []
    for (ka, (ca, pa)), (kb, (cb, pb)) in combinations(lines.items(), 2):
        if pa == pb:
            continue
        w = (ca - cb) / (pa - pb)
        if 0 < w <= w_max + 1e-12:
            # Below w the one with more correct answers leads; above, the one with fewer penalties.
            first, second = (ka, kb) if ca > cb else (kb, ka)
            out.append(Crossover(first, second, w, threshold_for_weight(w), ca - w * pa))
    return sorted(out, key=lambda x: x.w)


# --------------------------------------------------------------------------------------------
# Calibration from grouped counts
# --------------------------------------------------------------------------------------------


def calibration_from_cells(
    cells: Mapping[tuple[str | None, str], int], abstain: str
) -> Calibration:
    """metrics.calibration over grouped (confidence, bucket) -> count cells.

    The same figures as ``metrics.calibration(rows)`` with one row per answer (a test holds the
    two together), without building 100,000 rows to count what the database already counted.
    ``abstain`` is the scheme's abstention bucket; confidence is None or a level.
    """
    per_level = {level: [0, 0] for level in CONFIDENCE_LEVELS}
    attempted = unrated = unrated_correct = 0
    for (confidence, bucket), n in cells.items():
        if bucket == abstain or n == 0:
            continue
        correct = n if bucket == CORRECT else 0
        attempted += n
        if confidence is None:
            unrated += n
            unrated_correct += correct
        else:
            per_level[confidence][0] += n
            per_level[confidence][1] += correct
    levels = tuple(
        CalibrationLevel(level, count, correct, correct / count if count else None)
        for level, (count, correct) in per_level.items()
    )
    used = [entry.level for entry in levels if entry.count]
    single = attempted - unrated >= 2 and len(used) == 1
    return Calibration(
        levels=levels,
        attempted=attempted,
        unrated=unrated,
        unrated_correct=unrated_correct,
        single_level=single,
        single_level_name=used[0] if single else None,
    )
