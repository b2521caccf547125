"""Paired tests of configurations on the same items: sign-flip permutation tests, Holm's
step-down correction, the intervals that agree with them, and the noise floor of the repeats.

The report calls two configurations *separable*, and the gate calls a candidate *worse*, from one
kind of test: under "the two are the same", each item's pair of values (one per configuration,
each the mean over its repeats) is exchangeable, so swapping the two on any set of items gives
an equally likely experiment. The p-value is the share of swaps (the observed one included)
whose statistic is at least as extreme as the observed one: every swap when there are few items
(the exact distribution), else the observed one and SWAPS random ones, drawn from a fixed seed,
with Hoeffding's bound where no drawn swap is as extreme. Either way P(p <= a) <= a for every a,
at any N, so Holm's correction over the family keeps the chance of any false call under its
level. The interval shown beside a test is the test turned
round (a value is inside when the test would not reject a gap of that size, the swaps' spread
taken as the statistic's), at the level Holm used for that hypothesis: it excludes 0 exactly
when the hypothesis is rejected, so a row never says one thing with its interval and another
with its verdict. docs/gate.md gives the measured error rates and power.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np

from scoring.report.stats import CONFIDENCE, SEED, Z95, Interval, holm_many, row_bounds

__all__ = [
    "SWAPS",
    "FlipTests",
    "PairTest",
    "flip_sums",
    "flip_tests",
    "gap_bounds",
    "holm_steps",
    "pair_tests",
    "repeat_floor",
    "repeat_variance",
    "swap_count",
    "tail_bound",
]

# Random swaps beside the observed assignment: the smallest drawn p-value is 1 / 10,000, enough
# for Holm's first step over 500 hypotheses at 5 % (0.0001); beyond the draws, for a sum of item
# differences, Hoeffding's bound (_p_values) reaches the far tail.
SWAPS = 9_999
# Up to this many items every swap is enumerated (2 ** 13 = 8,192 <= SWAPS + 1): the exact test.
EXACT_ITEMS = 13
# Statistics within this much (relative) of the observed one count as equally extreme: sums of
# the same values in another order differ in their last bits.
TIE = 1e-9
# Swapped sums are made this many (swap x item) signs at a time (4 MB), and the last few chunks
# kept (32 MB at most): every swap of a 300-item experiment.
CELLS_PER_CHUNK = 1 << 19
SIGN_CHUNKS_KEPT = 8
PAIRS_PER_SLICE = 256
FEW_COLUMNS = 8
TWO_SIDED, LESS, GREATER = "two-sided", "less", "greater"


# ------------------------------------------------------------------------------------------------
# Swapped sums
# ------------------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=SIGN_CHUNKS_KEPT)
def _signs(n: int, start: int, stop: int, exact: bool, seed: int) -> np.ndarray:
    """Rows start..stop of the swap matrix: +1 keeps an item's pair, -1 swaps it. Row 0 is the
    observed assignment (all +1). The same arguments always give the same rows, so the last
    few chunks are kept: a report or a gate run again on the same items draws nothing."""
    rows = np.arange(start, stop)
    if exact:
        bits = (rows[:, None] >> np.arange(n)[None, :]) & 1
    else:
        rng = np.random.default_rng([seed, n, start])
        cells = len(rows) * n
        raw = np.frombuffer(rng.bytes(cells // 8 + 1), dtype=np.uint8)
        bits = np.unpackbits(raw)[:cells].reshape(len(rows), n)
        if start == 0:
            bits[0] = 0
    out = 1.0 - 2.0 * bits
    out.flags.writeable = False
    return out


def swap_count(n: int, swaps: int = SWAPS) -> tuple[int, bool]:
    """How many assignments a test of n items weighs (the observed one included), and whether
    that is every one of them."""
    if n <= EXACT_ITEMS and 2**n <= swaps + 1:
        return 2**n, True
    return swaps + 1, False


def flip_sums(values: np.ndarray, *, swaps: int = SWAPS, seed: int = SEED) -> np.ndarray:
    """(assignments, columns): sum over items of sign x value for every assignment of signs,
    row 0 the observed one. ``values`` is (items, columns), each column an item-by-item
    difference (or any quantity that changes sign when an item's pair is swapped)."""
    values = np.asarray(values, dtype=np.float64)
    n = values.shape[0]
    total, exact = swap_count(n, swaps)
    out = np.empty((total, values.shape[1]))
    step = max(1, CELLS_PER_CHUNK // max(n, 1))
    for start in range(0, total, step):
        stop = min(total, start + step)
        signs = _signs(n, start, stop, exact, seed)
        if values.shape[1] <= FEW_COLUMNS:
            # One matrix-vector product per column: a threaded matrix product of these shapes
            # costs ten times more on a busy machine.
            for j in range(values.shape[1]):
                out[start:stop, j] = signs @ values[:, j]
        else:
            out[start:stop] = signs @ values
    return out


# ------------------------------------------------------------------------------------------------
# Holm's steps, p-values and the intervals that agree with them
# ------------------------------------------------------------------------------------------------


def holm_steps(p: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Holm's step-down over p: (adjusted p, multiplier, rejected).

    The i-th smallest p (from 0) is tested at alpha / (m - i); testing stops at the first that
    fails, and every hypothesis from there on is kept at that step's level. ``multiplier`` is
    m - i of the step each hypothesis was decided at: a hypothesis is rejected exactly when
    multiplier x p <= alpha, and its interval is drawn at 1 - alpha / multiplier."""
    p = np.asarray(p, dtype=np.float64)
    m = p.size
    order = np.argsort(p, kind="stable")
    scaled = (m - np.arange(m)) * p[order]
    adjusted = holm_many(p)  # the one Holm of the project (scoring.report.stats)
    passed = np.cumprod(scaled <= alpha).astype(bool)
    first_kept = int(passed.sum())
    multiplier = np.empty(m)
    steps = (m - np.arange(m)).astype(np.float64)
    if first_kept < m:
        steps[first_kept:] = m - first_kept
    multiplier[order] = steps
    rejected = np.empty(m, dtype=bool)
    rejected[order] = passed
    return adjusted, multiplier, rejected


def _extreme(null: np.ndarray, observed: np.ndarray, alternative: str) -> np.ndarray:
    """Per column, how many assignments are at least as extreme as the observed one."""
    tie = TIE * (1.0 + np.abs(observed))
    if alternative == TWO_SIDED:
        return (np.abs(null) >= np.abs(observed) - tie).sum(axis=0)
    if alternative == LESS:
        return (null <= observed + tie).sum(axis=0)
    return (null >= observed - tie).sum(axis=0)


def tail_bound(observed: np.ndarray, squares: np.ndarray, alternative: str) -> np.ndarray:
    """Hoeffding's bound on the share of all sign assignments at least as extreme as the
    observed sum: P(sum s_i d_i >= t) <= exp(-t^2 / (2 sum d_i^2)) for fair random signs, twice
    that for both sides. Never below the exact permutation p, so valid at any N."""
    with np.errstate(divide="ignore", invalid="ignore"):
        bound = np.exp(-(observed**2) / (2 * squares))
    bound = np.where(squares > 0, bound, 1.0)
    if alternative == TWO_SIDED:
        return np.minimum(1.0, 2 * bound)
    wrong_side = observed >= 0 if alternative == LESS else observed <= 0
    return np.where(wrong_side, 1.0, bound)


def _p_values(count, total, observed, squares, alternative) -> np.ndarray:
    """The permutation p: the share of assignments as extreme (the observed one among them).

    Where no drawn swap is as extreme (count 1: the observed one only), the draws can only say
    "under 1 / total", too coarse for Holm's first steps over hundreds of pairs; there the
    smaller of that and Hoeffding's bound is used. Still valid: below 1 / total it is the bound,
    never below the exact p; from 1 / total up, it is never below the drawn p."""
    p = count / total
    if squares is None:
        return p
    return np.where(count <= 1, np.minimum(p, tail_bound(observed, squares, alternative)), p)


def _bounds(
    null, observed, alternative, multiplier, alpha, squares=None
) -> tuple[np.ndarray, np.ndarray]:
    """The ends of {d : the test of "the gap is d" is not rejected at alpha / multiplier}, the
    swaps' statistics taken as the spread of the statistic around its value: an end is the
    observed value less the order statistic at which the count of extreme assignments reaches
    the level. -inf or inf where a side is not tested. (The ties of _extreme are left to _agree:
    an end within them of 0 is put on the verdict's side.)"""
    total = null.shape[0]
    # Not rejected while the count of extreme assignments is at least `need`.
    need = np.floor(alpha * total / multiplier).astype(np.int64) + 1
    need = np.clip(need, 1, total)
    low = np.full(observed.shape, -np.inf)
    high = np.full(observed.shape, np.inf)
    spread = np.abs(null) if alternative == TWO_SIDED else null
    for k in np.unique(need).tolist():
        cols = np.flatnonzero(need == k)
        part = spread[:, cols]
        if alternative == LESS:  # the k-th smallest
            high[cols] = observed[cols] - np.partition(part, k - 1, axis=0)[k - 1]
            continue
        at = np.partition(part, total - k, axis=0)[total - k]  # the k-th largest
        low[cols] = observed[cols] - at
        if alternative == TWO_SIDED:
            high[cols] = observed[cols] + at
    if squares is not None:
        # Levels beyond what the draws resolve: Hoeffding's bound turned round, as the p-value.
        fine = alpha * total / multiplier < 1
        sides = 2 if alternative == TWO_SIDED else 1
        half = np.sqrt(2 * squares * np.log(sides * multiplier / alpha))
        if alternative != LESS:
            low = np.where(fine, observed - half, low)
        if alternative != GREATER:
            high = np.where(fine, observed + half, high)
    return low, high


def gap_bounds(
    null: np.ndarray,
    sign_sums: np.ndarray,
    items: int,
    multiplier: np.ndarray,
    alpha: float,
    squares: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """The two-sided interval of each column's gap (a sum of item differences; ``null`` its
    swapped sums, row 0 the observed one), before _agree puts its ends on the verdict's side.

    The interval is the test of "the gap is d" turned round, and under that hypothesis it is the
    differences less their mean that change sign: their swapped sums (the swapped gap less the
    assignment's count of kept minus swapped items, ``sign_sums``, times the mean difference)
    are the spread. The uncentred ones overstate it by the gap itself: a large gap's interval
    covered 97-98 % on simulated experiments, centred 0.95 (docs/figures.md)."""
    observed = np.array(null[0], dtype=np.float64)
    mean = observed / max(items, 1)
    centred = null - sign_sums[:, None] * mean[None, :]
    if squares is not None:
        squares = np.maximum(squares - observed * mean, 0.0)
    return _bounds(centred, observed, TWO_SIDED, multiplier, alpha, squares)


def _agree(low, high, observed, rejected, alternative=TWO_SIDED):
    """The interval's ends moved to the verdict's side of 0 where the last bits of a sum put one
    on the other side: the verdict is the test's, and the interval must not say otherwise."""
    low, high = low.copy(), high.copy()
    excludes = (low > 0) | (high < 0)
    wrong = excludes & ~rejected
    low[wrong & (low > 0)] = 0.0
    high[wrong & (high < 0)] = 0.0
    missing = rejected & ~excludes
    up = missing & ((observed > 0) if alternative == TWO_SIDED else (alternative == GREATER))
    down = missing & ~up
    low[up] = math.ulp(0.0)
    high[down] = -math.ulp(0.0)
    return low, high


@dataclass(frozen=True)
class FlipTests:
    """A family of permutation tests, Holm-corrected, with their intervals (arrays by column)."""

    observed: np.ndarray
    p: np.ndarray
    p_holm: np.ndarray
    rejected: np.ndarray
    level: np.ndarray  # the confidence of each interval: 1 - alpha / Holm's multiplier
    low: np.ndarray
    high: np.ndarray
    assignments: int
    exact: bool


def flip_tests(
    null: np.ndarray,
    alternative: str = TWO_SIDED,
    *,
    alpha: float = 1 - CONFIDENCE,
    exact=False,
    squares: np.ndarray | None = None,
    spread: np.ndarray | None = None,
    spread_squares: np.ndarray | None = None,
) -> FlipTests:
    """Holm-corrected tests from each column's statistic under every assignment (row 0 the
    observed one), with the intervals that agree with the verdicts. ``squares``: for a sum of
    item differences, each column's sum of squared differences (Hoeffding's bound in the far
    tail, _p_values); None for any other statistic.

    ``spread`` (same shape as ``null``): the statistic under every assignment in the world where
    the gap is what was observed (the differences less their mean flipped, as gap_bounds does),
    which the intervals are drawn from; ``spread_squares`` its sums of squares. Without it the
    intervals come from ``null`` itself, which overstates the spread by the gap."""
    null = np.asarray(null, dtype=np.float64)
    observed = null[0].copy()
    if exact:
        squares = spread_squares = None
    count = _extreme(null, observed, alternative)
    p = _p_values(count, null.shape[0], observed, squares, alternative)
    p_holm, multiplier, rejected = holm_steps(p, alpha)
    if spread is None:
        spread, spread_squares = null, squares
    low, high = _bounds(spread, observed, alternative, multiplier, alpha, spread_squares)
    low, high = _agree(low, high, observed, rejected, alternative)
    return FlipTests(
        observed, p, p_holm, rejected, 1 - alpha / multiplier, low, high, null.shape[0], exact
    )


# ------------------------------------------------------------------------------------------------
# Every pair of configurations (the report)
# ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PairTest:
    """Two configurations on the same items, a ahead of (or level with) b."""

    a: Hashable
    b: Hashable
    gap: float  # figure[a] - figure[b], >= 0
    interval: Interval  # the test's interval at Holm's level for this pair
    level: float  # that interval's confidence (0.95 for a single pair, higher in a family)
    p: float  # two-sided sign-flip permutation p
    p_holm: float  # Holm-adjusted over all pairs
    separable: bool  # p_holm <= 0.05, and so the interval excludes 0
    exact: bool  # every assignment enumerated (few items), else SWAPS random ones


def pair_tests(
    keys: Sequence[Hashable],
    values: np.ndarray,
    *,
    level: float = CONFIDENCE,
    swaps: int = SWAPS,
    seed: int = SEED,
) -> list[PairTest]:
    """Every pair of configurations once, in the order of ``keys``, each turned larger first.

    ``values[i, j]``: configuration j's contribution to its figure from item i (its mean over
    repeats), so that a column's sum is the figure. The same swaps serve every pair, so the pairs
    are tested on one draw and Holm's correction runs over all of them at once.

    The figures are flip_tests' over every pair's swapped gaps, found without laying those out
    pair by pair twice (7,750 pairs x 10,000 swaps at 125 configurations): a pair's swapped gaps
    are read once, as the difference of two contiguous rows of the configurations' swapped sums,
    to count the swaps as extreme as the observed gap; Holm's step then says which pairs' ends
    come from Hoeffding's bound (their level is finer than the swaps resolve) and only the
    others' spreads are ordered. tests/metrics/test_pairs_fast.py holds them equal, bit for
    bit, to that computation written out."""
    values = np.asarray(values, dtype=np.float64)
    n = len(keys)
    if n < 2:
        return []
    # One more column, every item 1: each assignment's count of kept minus swapped items, which
    # turns a pair's swapped sums into those of its differences centred on their mean.
    with_signs = flip_sums(
        np.column_stack([values, np.ones(values.shape[0])]), swaps=swaps, seed=seed
    )
    sums = np.ascontiguousarray(with_signs[:, :n].T)  # (configurations, assignments)
    sign_sums = with_signs[:, n]
    estimates = with_signs[0, :n]
    items = max(values.shape[0], 1)
    left, right = np.triu_indices(n, 1)
    swap = estimates[left] < estimates[right]
    first, second = np.where(swap, right, left), np.where(swap, left, right)
    alpha = 1 - level
    exact = swap_count(values.shape[0], swaps)[1]
    squares = None
    if not exact:  # sum over items of the squared difference, pair by pair, from one Gram matrix
        gram = values.T @ values
        squares = np.maximum(
            gram[first, first] + gram[second, second] - 2 * gram[first, second], 0.0
        )
    gaps = estimates[first] - estimates[second]
    count = _extreme_pairs(sums, gaps)
    p = _p_values(count, sums.shape[1], gaps, squares, TWO_SIDED)
    p_holm, multiplier, rejected = holm_steps(p, alpha)
    low, high = _pair_bounds(
        sums, sign_sums, first, second, gaps, items, multiplier, alpha, squares
    )
    low, high = _agree(low, high, gaps, rejected)
    return [
        PairTest(keys[i], keys[j], gap, Interval(lo, hi), lv, pk, ph, r, exact)
        for i, j, gap, lo, hi, lv, pk, ph, r in zip(
            first.tolist(),
            second.tolist(),
            gaps.tolist(),
            low.tolist(),
            high.tolist(),
            (1 - alpha / multiplier).tolist(),
            p.tolist(),
            p_holm.tolist(),
            rejected.tolist(),
            strict=True,
        )
    ]


def _extreme_pairs(sums: np.ndarray, gaps: np.ndarray) -> np.ndarray:
    """_extreme (two-sided) of every pair in np.triu_indices order: per pair (i, j), how many
    assignments' |sums[i] - sums[j]| reach |gap| less the ties, a few thousand cells at a time
    (the order of a difference does not change its size)."""
    n, total = sums.shape
    observed = np.abs(gaps)
    reach = observed - TIE * (1.0 + observed)
    count = np.empty(len(gaps), dtype=np.int64)
    rows = max(1, CELLS_PER_CHUNK // 2 // max(total, 1))
    diff = np.empty((min(rows, n), total))
    above = np.empty(diff.shape, dtype=bool)
    at = 0
    for i in range(n - 1):
        for start in range(i + 1, n, rows):
            stop = min(n, start + rows)
            d, a = diff[: stop - start], above[: stop - start]
            np.subtract(sums[start:stop], sums[i], out=d)
            np.abs(d, out=d)
            np.greater_equal(d, reach[at : at + stop - start, None], out=a)
            count[at : at + stop - start] = np.count_nonzero(a, axis=1)
            at += stop - start
    return count


def _pair_bounds(sums, sign_sums, first, second, gaps, items, multiplier, alpha, squares):
    """gap_bounds (two-sided) of every pair: the ends where Hoeffding's bound gives them
    (``squares`` known and the pair's level finer than the swaps resolve), else from the
    order statistic of the pair's centred spread, read only for those pairs."""
    total = sums.shape[1]
    mean = gaps / items
    need = np.clip(np.floor(alpha * total / multiplier).astype(np.int64) + 1, 1, total)
    low, high = np.full(gaps.shape, -np.inf), np.full(gaps.shape, np.inf)
    fine = np.zeros(gaps.shape, dtype=bool)
    if squares is not None:
        fine = alpha * total / multiplier < 1
        half = np.sqrt(2 * np.maximum(squares - gaps * mean, 0.0) * np.log(2 * multiplier / alpha))
        low, high = np.where(fine, gaps - half, low), np.where(fine, gaps + half, high)
    for k in np.unique(need[~fine]).tolist():
        cols = np.flatnonzero((need == k) & ~fine)
        for start in range(0, len(cols), PAIRS_PER_SLICE):
            part = cols[start : start + PAIRS_PER_SLICE]
            spread = sums[first[part]] - sums[second[part]]
            spread -= mean[part, None] * sign_sums[None, :]
            np.abs(spread, out=spread)
            at = np.partition(spread, total - k, axis=1)[:, total - k]
            low[part], high[part] = gaps[part] - at, gaps[part] + at
    return low, high


# ------------------------------------------------------------------------------------------------
# The repeats' own noise
# ------------------------------------------------------------------------------------------------


def repeat_variance(runs: np.ndarray) -> float | None:
    """The run-to-run variance of one repeat's figure on these items, from the repeats.

    ``runs`` is (repeats, items), each row one repeat's contribution per item. Per item, the
    sample variance over the repeats; summed over the items: the variance of a repeat's total
    around what the configuration would score on these items on average. Half the mean square of
    the paired difference between two repeats, generalised to any number of them. None with
    fewer than two repeats."""
    runs = np.asarray(runs, dtype=np.float64)
    if runs.ndim != 2 or runs.shape[0] < 2:
        return None
    return float(runs.var(axis=0, ddof=1).sum())


def repeat_floor(
    variance_a: float | None, repeats_a: int, variance_b: float | None, repeats_b: int
) -> float | None:
    """The gap between two configurations' means over their repeats that their repeats alone
    would stay under 95 % of the time, on the same items: 1.96 x sqrt(V_a / R_a + V_b / R_b).

    It grows with the square root of the number of items, as a sum of independent run-to-run
    variations does. None when either configuration has one repeat (nothing to measure)."""
    if variance_a is None or variance_b is None or repeats_a < 2 or repeats_b < 2:
        return None
    return Z95 * math.sqrt(variance_a / repeats_a + variance_b / repeats_b)


def pair_intervals(
    by_config: np.ndarray, first: np.ndarray, second: np.ndarray, level: float = CONFIDENCE
) -> np.ndarray:
    """(pairs, 2) paired percentile intervals of by_config[first] - by_config[second], row by row
    (``by_config``: configurations x bootstrap resamples), a slice of pairs at a time so that
    memory stays at a few megabytes whatever the number of pairs."""
    out = np.empty((len(first), 2))
    for start in range(0, len(first), PAIRS_PER_SLICE):
        part = slice(start, start + PAIRS_PER_SLICE)
        gaps = by_config[first[part]]
        gaps -= by_config[second[part]]
        out[part] = row_bounds(gaps, level, in_place=True)
    return out
