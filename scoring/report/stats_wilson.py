"""Wilson intervals: of a share of whole counts, and of a ratio of means over repeats.

The share intervals of the report (scoring.report.stats re-exports these names): ``wilson`` for whole
counts (a run's), ``wilson_items`` for a configuration's shares over its repeats, with the
variance over items, each with its repeats. Counts that are means over repeats are fractions;
``clamp_count`` takes them back inside their bounds where floating point carries them a hair
past one. Formulas and measured coverage: docs/figures.md.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import NamedTuple

import numpy as np
from scipy.stats import t as student_t

__all__ = [
    "CONFIDENCE",
    "Z95",
    "Interval",
    "clamp_count",
    "strata_matrix",
    "student_quantile",
    "wilson",
    "wilson_items",
]

CONFIDENCE = 0.95
Z95 = 1.959963984540054  # the standard normal quantile at 0.975
# Counts that are means over repeats may pass a bound by this much (relative) in floating point.
COUNT_TOLERANCE = 1e-9


class Interval(NamedTuple):
    low: float
    high: float


# --------------------------------------------------------------------------------------------
# Wilson score interval
# --------------------------------------------------------------------------------------------


def clamp_count(value: float, low: float, high: float) -> float:
    """``value`` inside [low, high] when it is out by no more than floating point's rounding of
    a sum of fractions (COUNT_TOLERANCE, relative to the bound); ValueError when it is out by
    more. Means over repeats of counts (22 items, confidences 2/3 + 50/3 + 14/3) add up to
    22.000000000000004, and a difference of two such sums can come out at -4e-15."""
    value = float(value)
    slack = COUNT_TOLERANCE * max(1.0, abs(low), abs(high))
    if value != value or value < low - slack or value > high + slack:  # NaN fails too
        raise ValueError(f"need {low} <= count <= {high} (got {value})")
    return min(max(value, low), high)


def wilson(successes: float, n: float, z: float = Z95) -> Interval | None:
    """The Wilson score interval of successes / n (Wilson 1927); None when n is 0.

    Unlike the normal ("Wald") interval it stays inside [0, 1] and is not empty at 0 or n
    successes. ``successes`` and ``n`` may be fractional (a mean over repeats of counts);
    rounding past 0 or n is clamped (clamp_count), a count truly out of [0, n] is a ValueError.
    """
    if not n >= 0:  # NaN too
        raise ValueError(f"need 0 <= successes <= n (got {successes} of {n})")
    try:
        successes = clamp_count(successes, 0.0, n)
    except ValueError:
        raise ValueError(f"need 0 <= successes <= n (got {successes} of {n})") from None
    if n == 0:
        return None
    p = successes / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z / (1 + z2 / n) * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    # At 0 or n successes the end is 0 or 1 exactly (rounding would leave the point outside).
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == n else min(1.0, centre + half)
    return Interval(low, high)


@lru_cache(maxsize=4096)
def student_quantile(level: float, df: int) -> float:
    """Student's t quantile of a two-sided ``level`` at ``df`` degrees of freedom."""
    return float(student_t.ppf((1 + level) / 2, df))


def strata_matrix(strata) -> np.ndarray:
    """Each item's stratum (block) code as a (strata, n_items) 0/1 matrix, for wilson_items:
    made once, it serves every configuration of a report."""
    codes = np.unique(np.asarray(strata), return_inverse=True)[1].reshape(-1)
    one_hot = np.zeros((int(codes.max()) + 1 if codes.size else 0, codes.size))
    one_hot[codes, np.arange(codes.size)] = 1
    return one_hot


def wilson_items(
    numerators: np.ndarray,
    denominators: np.ndarray,
    strata: np.ndarray,
    repeats: int,
    level: float = CONFIDENCE,
) -> list[Interval | None]:
    """Wilson intervals of ratios of means over repeats, the items resampled with their repeats.

    ``numerators`` and ``denominators`` are (n_items, k): per item, a figure's numerator and
    denominator as means over the configuration's repeats (the denominator 1 for a share of N);
    ``strata``: each item's block code (n_items,), or strata_matrix of them. The figure is the ratio of the sums,
    p = sum(num) / sum(den): the ratio of the means over repeats.

    With one repeat the counts are whole and this is wilson(sum(num), sum(den)). With several,
    the repeats of one item are not independent draws, and neither are they one draw: the
    variance of p over items (each item with all its repeats, drawn within its block) is the
    stratified variance of the ratio, v = sum_h n_h / (n_h - 1) sum_(i in h) (z_i - mean_h z)^2
    / sum(den)^2, z_i = num_i - p den_i (by linearisation, what an item bootstrap estimates
    without its noise). The interval is Wilson's at the effective number of answers
    p (1 - p) / v (at most every response of every repeat; where p is 0 or 1, or nothing
    varies, sum(den), the mean over repeats), with Student's t at n - strata degrees of
    freedom for z (Korn and Graubard 1998). None where the denominator is 0.
    """
    num = np.asarray(numerators, dtype=np.float64)
    den = np.asarray(denominators, dtype=np.float64)
    if num.ndim == 1:
        num, den = num[:, None], den[:, None]
    totals, dens = num.sum(axis=0), den.sum(axis=0)
    if repeats <= 1:
        return [wilson(t, d) for t, d in zip(totals.tolist(), dens.tolist(), strict=True)]
    strata = np.asarray(strata)
    one_hot = strata.astype(np.float64) if strata.ndim == 2 else strata_matrix(strata)
    n_items, n_strata = num.shape[0], one_hot.shape[0]
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(dens > 0, totals / np.where(dens > 0, dens, 1), 0.0)
    z = num - p * den
    size = one_hot.sum(axis=1, keepdims=True)
    sums, squares = one_hot @ z, one_hot @ (z * z)
    within = np.maximum(squares - sums * sums / np.maximum(size, 1), 0)
    scale = np.where(size > 1, size / np.maximum(size - 1, 1), 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        v = (scale * within).sum(axis=0) / (dens * dens)
        effective = np.where((v > 0) & (p > 0) & (p < 1), p * (1 - p) / np.where(v > 0, v, 1), dens)
    effective = np.clip(effective, np.minimum(dens, 1.0), dens * repeats)
    df = n_items - n_strata
    quantile = student_quantile(level, df) if df >= 1 else Z95
    out: list[Interval | None] = []
    for t, d, share, m in zip(
        totals.tolist(), dens.tolist(), p.tolist(), effective.tolist(), strict=True
    ):
        if d <= 0:
            out.append(None)
            continue
        clamp_count(t, 0.0, d)  # a numerator past its denominator is an error, not rounding
        out.append(wilson(min(max(share, 0.0), 1.0) * m, m, quantile))
    return out
