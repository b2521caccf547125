"""The paired comparison of every pair of configurations: bootstrap interval, McNemar, Holm.

At 125 configurations that is 7,750 pairs, each with the percentile interval of 2,000 resampled
gaps and an exact McNemar test: everything here runs on whole arrays (the gaps of a slice of
pairs at once, every McNemar tail in one pass, Holm's correction by one sort), with no Python
loop over pairs but the one that builds the results. The figures are those of the formulas in
docs/figures.md, as scoring.stats writes them for one value at a time.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np

from .stats import CONFIDENCE, Interval, holm_many, mcnemar_exact, row_bounds

__all__ = ["PairTest", "mcnemar_exact_many", "pair_intervals", "pair_tests"]

# Gaps of this many pairs are ordered at once: 2,000 float32 resamples make 2 MB a slice.
PAIRS_PER_SLICE = 256


def mcnemar_exact_many(b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """mcnemar_exact of every (b[i], c[i]) at once, as a float array: the same values, bit for
    bit, computed for thousands of tables in a few numpy operations.

    mcnemar_exact sums P(X = j) from j = min(b, c) down, each term the one before times
    j / (n - j + 1), and stops once a term no longer changes the sum. Here every table's terms
    are one row of a running product and its sums one running sum (numpy's accumulate works left
    to right, as the loop does), and each row is read where the loop stops. Going down, each
    term is at most the first ratio times the one before, which bounds how many terms a table
    can need before it stops: rows are only that long.
    """
    b, c = np.asarray(b), np.asarray(c)
    if b.shape != c.shape:
        raise ValueError("b and c must have the same shape")
    for name, values in (("b", b), ("c", c)):
        if values.size and (not np.issubdtype(values.dtype, np.integer) or values.min() < 0):
            raise ValueError(f"{name} must hold non-negative ints")
    shape = b.shape
    b, c = b.astype(np.int64).ravel(), c.astype(np.int64).ravel()
    n, k = b + c, np.minimum(b, c)
    out = np.ones(n.shape, dtype=np.float64)
    todo = np.flatnonzero((n > 0) & (2 * k != n))
    if todo.size:
        out[todo] = _binomial_tails(n[todo], k[todo])
    return out.reshape(shape)


_LOG_NEGLIGIBLE = math.log(1e-20)  # below the 1e-17 at which mcnemar_exact stops
_TERMS_PER_SLICE = 1 << 20


def _binomial_tails(n: np.ndarray, k: np.ndarray) -> np.ndarray:
    """min(1, 2 P(X <= k)) for X ~ Binomial(n, 1/2), 0 < 2k < n, as mcnemar_exact sums it."""
    log_factorial = np.array([math.lgamma(m + 1) for m in range(int(n.max()) + 1)])
    log_first = log_factorial[n] - log_factorial[k] - log_factorial[n - k] - n * math.log(2)
    first = np.array([math.exp(x) for x in log_first.tolist()])  # math.exp, as mcnemar_exact
    with np.errstate(divide="ignore"):
        log_ratio = np.log(k / (n - k + 1))
    need = np.where(k > 0, np.ceil(_LOG_NEGLIGIBLE / np.minimum(log_ratio, -1e-300)), 0)
    width = (np.minimum(need, k) + 1).astype(np.int64)  # columns: the first term, then steps
    total = np.empty(len(n))
    # Tables by width, in slices of about a million terms (rows x the widest row).
    order = np.argsort(width, kind="stable")
    widths = width[order]
    start = 0
    while start < len(order):
        cost = np.arange(1, len(order) - start + 1) * widths[start:]
        stop = start + max(1, int(np.searchsorted(cost, _TERMS_PER_SLICE, "right")))
        part = order[start:stop]
        total[part] = _tail_rows(n[part], k[part], first[part], int(widths[stop - 1]))
        start = stop
    return np.minimum(1.0, 2 * total)


def _tail_rows(n: np.ndarray, k: np.ndarray, first: np.ndarray, cols: int) -> np.ndarray:
    if cols == 1:  # k = 0: the one term
        return first
    j = k[:, None] - np.arange(cols - 1)[None, :]  # j = k, k - 1, ... for the steps
    steps = np.where(j > 0, j / (n[:, None] - j + 1), 0.0)
    terms = np.multiply.accumulate(np.column_stack([first, steps]), axis=1)
    sums = np.add.accumulate(terms, axis=1)
    stopped = terms[:, 1:] < sums[:, 1:] * 1e-17
    at = np.where(stopped.any(axis=1), stopped.argmax(axis=1) + 1, cols - 1)
    total = sums[np.arange(len(n)), at]
    # A first term that underflows to 0 makes every term 0, as in the loop, which never stops
    # then either. A row that did not stop within its columns with terms left (never, by the
    # bound on the terms): the loop itself.
    left = ~stopped.any(axis=1) & (k > cols - 1) & (first > 0)
    for r in np.flatnonzero(left).tolist():
        total[r] = mcnemar_exact(int(n[r] - k[r]), int(k[r])) / 2
    return total


@dataclass(frozen=True)
class PairTest:
    """Two configurations on the same items, a ahead of (or level with) b."""

    a: Hashable
    b: Hashable
    gap: float  # figure[a] - figure[b], >= 0
    interval: Interval  # paired bootstrap interval of the gap
    p_bootstrap: float  # two-sided, from the bootstrap standard error
    p_bootstrap_holm: float  # Holm-adjusted over all pairs
    discordant_a: int  # pairs a correct and b not
    discordant_b: int  # pairs b correct and a not
    p_mcnemar: float  # exact McNemar on correct vs not
    p_mcnemar_holm: float
    separable: bool  # interval excludes 0 and Holm-adjusted p < 0.05


def p_from_se(gap: float, se: float) -> float:
    """Two-sided p-value of a gap from its standard error: 2 (1 - Phi(|gap| / se))."""
    if se <= 0:
        return 1.0 if abs(gap) < 1e-12 else 0.0
    return math.erfc(abs(gap) / se / math.sqrt(2))


def pair_intervals(
    by_config: np.ndarray, first: np.ndarray, second: np.ndarray, level: float = CONFIDENCE
) -> np.ndarray:
    """(pairs, 2) percentile intervals of by_config[first] - by_config[second], row by row.

    ``by_config`` is (configurations, resamples); the gaps are made and ordered a slice of
    pairs at a time, so memory stays at a few megabytes whatever the number of pairs."""
    out = np.empty((len(first), 2))
    for start in range(0, len(first), PAIRS_PER_SLICE):
        part = slice(start, start + PAIRS_PER_SLICE)
        gaps = by_config[first[part]]
        gaps -= by_config[second[part]]
        out[part] = row_bounds(gaps, level, in_place=True)
    return out


def pair_tests(
    keys: Sequence[Hashable],
    estimates: Sequence[float],
    samples: np.ndarray,
    correct: np.ndarray,
    *,
    level: float = CONFIDENCE,
    interval_level: float | None = None,
) -> list[PairTest]:
    """Every pair of configurations once, in the order of ``keys``, each turned larger first.

    ``estimates[j]``: configuration j's figure; ``samples[:, j]``: its bootstrap resamples (the
    same weights for all, so differences are paired); ``correct[:, j]``: its 0/1 correctness on
    each matched (item, repeat) pair. The bootstrap p-value is 2 (1 - Phi(|gap| / se)), se the
    standard deviation of the resampled gaps; Holm's correction runs over all pairs, separately
    for the bootstrap and for McNemar. A pair is separable when its bootstrap interval excludes 0
    and its Holm-adjusted bootstrap p-value is under 1 - level. ``interval_level``: the level
    the percentiles are read at (stats.percentile_level, so that the interval covers ``level`` at
    small N); ``level`` by default.
    """
    n = len(keys)
    if n < 2:
        return []
    # The pairs in the order of itertools.combinations, the larger figure first (ties stay).
    left, right = np.triu_indices(n, 1)
    values = np.array([float(e) for e in estimates])
    swap = values[left] < values[right]
    first, second = np.where(swap, right, left), np.where(swap, left, right)
    correct = np.asarray(correct, dtype=float)
    # b[i, j]: matched pairs where i is correct and j is not, for every i, j at once.
    discordant = correct.T @ (1 - correct) if correct.size else np.zeros((n, n))
    only_first = np.rint(discordant[first, second]).astype(np.int64)
    only_second = np.rint(discordant[second, first]).astype(np.int64)
    by_config = np.ascontiguousarray(np.asarray(samples, dtype=np.float32).T)
    # var(a - b) = var a + var b - 2 cov(a, b), from one small covariance matrix
    cov = np.atleast_2d(np.cov(by_config.astype(np.float64), bias=True))
    spreads = np.sqrt(
        np.maximum(cov[first, first] + cov[second, second] - 2 * cov[first, second], 0)
    )
    intervals = pair_intervals(by_config, first, second, interval_level or level)
    gaps = (values[first] - values[second]).tolist()
    p_boot = [p_from_se(gap, se) for gap, se in zip(gaps, spreads.tolist(), strict=True)]
    p_boot_holm = holm_many(np.array(p_boot)).tolist()
    p_mc = mcnemar_exact_many(only_first, only_second)
    p_mc_holm = holm_many(p_mc).tolist()
    excludes_zero = ((intervals[:, 0] > 0) | (intervals[:, 1] < 0)).tolist()
    return [
        PairTest(
            keys[i],
            keys[j],
            gap,
            Interval(low, high),
            pb,
            pb_holm,
            b,
            c,
            pm,
            pm_holm,
            bool(excluded and pb_holm < 1 - level),
        )
        for i, j, gap, (low, high), pb, pb_holm, b, c, pm, pm_holm, excluded in zip(
            first.tolist(),
            second.tolist(),
            gaps,
            intervals.tolist(),
            p_boot,
            p_boot_holm,
            only_first.tolist(),
            only_second.tolist(),
            p_mc.tolist(),
            p_mc_holm,
            excludes_zero,
            strict=True,
        )
    ]
