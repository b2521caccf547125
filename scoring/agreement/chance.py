"""Gwet's AC1 and bootstrap intervals of agreement between scorers, as pure functions.

Beside scoring.agreement.figures (percent agreement, Cohen, Fleiss, Krippendorff): Gwet's AC1, whose
chance agreement does not grow with one dominant category, so that it stays near the percent
agreement where kappa collapses (most answers Correct, every scorer agreeing: kappa near 0, AC1
near 1); and a bootstrap interval over units for Krippendorff's alpha and for AC1.

Ratings are as in scoring.agreement.figures: a sequence of units, each a sequence of labels, None where a
rater did not rate. Definitions and the published example the tests check: docs/figures.md.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable, Sequence
from typing import NamedTuple

import numpy as np

from scoring.report.stats import RESAMPLES, SEED, Interval, percentile_interval

__all__ = ["AgreementIntervals", "agreement_intervals", "gwet_ac1"]

Ratings = Sequence[Sequence[Hashable | None]]


def _present(ratings: Ratings) -> list[list[Hashable]]:
    return [[label for label in unit if label is not None] for unit in ratings]


def _categories(units: list[list[Hashable]], categories: Iterable[Hashable] | None) -> list:
    seen = {label for unit in units for label in unit}
    if categories is None:
        try:
            return sorted(seen)
        except TypeError:
            return list(seen)
    order = list(dict.fromkeys(categories))
    unknown = seen - set(order)
    if unknown:
        raise ValueError(f"label(s) {sorted(map(repr, unknown))} are not in categories {order}")
    return order


def ac1_from_sums(pa_sum, pairable, pi_sums, rated, q):
    """AC1 from its additive parts (arrays allowed): the sum of each pairable unit's agreement,
    their number, per category the sum of r_ik / r_i over rated units, and their number."""
    with np.errstate(divide="ignore", invalid="ignore"):
        pa = pa_sum / pairable
        pi = pi_sums / np.expand_dims(rated, -1)
        pe = (pi * (1 - pi)).sum(axis=-1) / (q - 1)
        return (pa - pe) / (1 - pe)


def gwet_ac1(ratings: Ratings, categories: Iterable[Hashable] | None = None) -> float | None:
    """Gwet's AC1 for any number of raters, missing ratings allowed (Gwet 2008; 2014, ch. 2).

    With r_i the ratings of unit i and r_ik those in category k, over the q categories:
    p_a = mean over units with r_i >= 2 of sum_k r_ik (r_ik - 1) / (r_i (r_i - 1));
    pi_k = mean over units with r_i >= 1 of r_ik / r_i; p_e = sum_k pi_k (1 - pi_k) / (q - 1);
    AC1 = (p_a - p_e) / (1 - p_e). ``categories`` is the scale (pass the scheme's buckets: a
    bucket nobody used still counts in q); by default the labels seen. None when no unit has two
    ratings or there are fewer than two categories.
    """
    units = _present(ratings)
    order = _categories(units, categories)
    patterns = Counter(tuple(sorted(unit, key=order.index)) for unit in units if unit)
    if len(order) < 2 or not patterns:
        return None
    kinds = list(patterns)
    weights = np.array([patterns[kind] for kind in kinds], dtype=float)
    pa, pairable, shares, rated = _unit_parts(kinds, order)
    if weights @ pairable == 0:
        return None
    value = float(
        ac1_from_sums(
            weights @ pa, weights @ pairable, weights @ shares, weights @ rated, len(order)
        )
    )
    return None if np.isnan(value) else value


def _unit_parts(units, order):
    """Per unit: its p_a term (0 if not pairable), 1 if pairable, its r_ik / r_i, 1 if rated."""
    rated_units = [unit for unit in units if unit]
    if not rated_units:
        return None
    index = {label: k for k, label in enumerate(order)}
    pa = np.zeros(len(rated_units))
    pairable = np.zeros(len(rated_units))
    shares = np.zeros((len(rated_units), len(order)))
    for i, unit in enumerate(rated_units):
        counts = Counter(unit)
        r = len(unit)
        for label, n in counts.items():
            shares[i, index[label]] = n / r
        if r >= 2:
            pairable[i] = 1
            pa[i] = sum(n * (n - 1) for n in counts.values()) / (r * (r - 1))
    return pa, pairable, shares, np.ones(len(rated_units))


class AgreementIntervals(NamedTuple):
    krippendorff_alpha: Interval | None
    gwet_ac1: Interval | None


def _alpha_parts(units, order):
    """Per pairable unit, its coincidence counts o_ck (flattened): 1 / (m_u - 1) per ordered
    pair of values from different raters."""
    index = {label: k for k, label in enumerate(order)}
    q = len(order)
    rows = []
    for unit in units:
        m = len(unit)
        if m < 2:
            continue
        counts = Counter(index[label] for label in unit)
        o = np.zeros((q, q))
        for c, nc in counts.items():
            for k, nk in counts.items():
                o[c, k] += (nc * (nc - 1) if c == k else nc * nk) / (m - 1)
        rows.append(o.ravel())
    return np.array(rows).reshape(-1, q * q)


def alpha_from_coincidences(o: np.ndarray, q: int) -> np.ndarray:
    """Nominal alpha = 1 - (n - 1) sum_{c != k} o_ck / sum_{c != k} n_c n_k, per row of o."""
    o = o.reshape(-1, q, q)
    n_c = o.sum(axis=2)
    n = n_c.sum(axis=1)
    off = ~np.eye(q, dtype=bool)
    observed = o[:, off].sum(axis=1)
    expected = (n_c[:, :, None] * n_c[:, None, :])[:, off].sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(expected > 0, 1 - (n - 1) * observed / expected, np.nan)


def agreement_intervals(
    ratings: Ratings,
    categories: Iterable[Hashable] | None = None,
    *,
    resamples: int = RESAMPLES,
    seed: int = SEED,
) -> AgreementIntervals:
    """95 % bootstrap intervals of Krippendorff's alpha (nominal) and Gwet's AC1.

    The units are resampled with replacement (fixed seed). Units with the same multiset of
    labels contribute alike to both coefficients, so a resample is drawn as counts over the
    distinct patterns: exact, and as fast for 100,000 units as for 100. A resample in which a
    coefficient is undefined (every value in one category) is left out of its interval; None
    when the coefficient itself is undefined.
    """
    units = _present(ratings)
    order = _categories(units, categories)
    q = len(order)
    patterns = Counter(tuple(sorted(unit, key=order.index)) for unit in units if unit)
    if q < 2 or not patterns:
        return AgreementIntervals(None, None)
    kinds = [list(p) for p in patterns]
    weights = np.array([patterns[tuple(k)] for k in kinds], dtype=float)
    rng = np.random.default_rng(seed)
    draws = rng.multinomial(int(weights.sum()), weights / weights.sum(), size=resamples)

    pairable = [i for i, kind in enumerate(kinds) if len(kind) >= 2]
    alpha_ci = ac1_ci = None
    if pairable:
        o = _alpha_parts([kinds[i] for i in pairable], order)
        alpha = alpha_from_coincidences(draws[:, pairable] @ o, q)
        alpha = alpha[~np.isnan(alpha)]
        if alpha.size and not np.isnan(alpha_from_coincidences(weights[pairable] @ o, q)[0]):
            alpha_ci = percentile_interval(alpha[:, None])[0]
        pa, pair_flag, shares, rated = _unit_parts(kinds, order)
        ac1 = ac1_from_sums(draws @ pa, draws @ pair_flag, draws @ shares, draws @ rated, q)
        ac1 = ac1[~np.isnan(ac1)]
        if ac1.size:
            ac1_ci = percentile_interval(ac1[:, None])[0]
    return AgreementIntervals(alpha_ci, ac1_ci)
