"""Agreement between scorers over a matrix of codes, with numpy: the same figures as
scoring.agreement.figures and scoring.agreement.chance, without a Python loop over units.

``codes`` is an (units, raters) integer array: the category's index in ``categories`` (the
scheme's buckets, in order), -1 where a rater has no rating. Every coefficient is counted in
integers and divided once at the end with exact rationals (as figures.py does), so the values
are those of the pure functions, and a degenerate case is recognised exactly. Gwet's AC1 and the
bootstrap intervals weigh the distinct patterns of ratings in the order they first appear, as
chance.py does, so their resamples are the same draws. A block's figures come from the rows of
its units: ``codes[mask]``.

tests/metrics/test_agreement_arrays.py checks every figure against the pure functions on random
data.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations

import numpy as np

from scoring.agreement.chance import (
    AgreementIntervals,
    ac1_from_sums,
    alpha_from_coincidences,
)
from scoring.agreement.figures import AgreementSummary, ConfusionRow, ConfusionRows
from scoring.report.stats import RESAMPLES, SEED, percentile_interval

__all__ = [
    "MISSING",
    "PairFigures",
    "category_counts",
    "pair_figures",
    "summary",
]

MISSING = -1


def category_counts(codes: np.ndarray, q: int) -> np.ndarray:
    """(units, q) int64: how many raters put each unit in each category."""
    codes = np.asarray(codes)
    counts = np.zeros((codes.shape[0], q), dtype=np.int64)
    for j in range(codes.shape[1]):
        column = codes[:, j]
        present = column >= 0
        np.add.at(counts, (np.nonzero(present)[0], column[present]), 1)
    return counts


def _float(value: Fraction | None) -> float | None:
    return None if value is None else float(value)


def _cohen(a: np.ndarray, b: np.ndarray, q: int) -> tuple[float | None, np.ndarray]:
    """Cohen's kappa of two columns, and their confusion counts (q, q)."""
    both = (a >= 0) & (b >= 0)
    table = np.bincount(a[both] * q + b[both], minlength=q * q).reshape(q, q)
    n = int(both.sum())
    if n == 0:
        return None, table
    agree = int(np.trace(table))
    chance = int(table.sum(axis=1) @ table.sum(axis=0))
    if chance == n * n:
        return None, table
    return float(Fraction(n * agree - chance, n * n - chance)), table


def _percent(counts: np.ndarray, present: np.ndarray) -> float | None:
    pairable = present >= 2
    total = int(pairable.sum())
    if total == 0:
        return None
    agreeing = int(((counts.max(axis=1) == present) & pairable).sum())
    return agreeing / total


def _pairwise(codes: np.ndarray) -> float | None:
    shares = []
    for i, j in combinations(range(codes.shape[1]), 2):
        a, b = codes[:, i], codes[:, j]
        both = (a >= 0) & (b >= 0)
        n = int(both.sum())
        if n:
            shares.append(Fraction(int((a[both] == b[both]).sum()), n))
    if not shares:
        return None
    return float(sum(shares) / len(shares))


def _fleiss(counts: np.ndarray, m: int) -> float | None:
    """Fleiss' kappa over complete units (each row sums to m >= 2), as figures._fleiss."""
    total = counts.shape[0] * m
    observed = Fraction(int((counts * counts).sum()) - total, total * (m - 1))
    columns = counts.sum(axis=0)
    expected = Fraction(int(columns @ columns), total * total)
    if expected == 1:
        return None
    return float((observed - expected) / (1 - expected))


def _krippendorff(counts: np.ndarray, present: np.ndarray) -> float | None:
    """Nominal alpha from the coincidences, exact: integer pair counts per unit size, one
    division per size (as figures.coincidence_matrix)."""
    q = counts.shape[1]
    matrix = [[Fraction(0)] * q for _ in range(q)]
    for m in np.unique(present[present >= 2]).tolist():
        rows = counts[present == m]
        pairs = rows.T @ rows - np.diag(rows.sum(axis=0))
        for c in range(q):
            for k in range(q):
                if pairs[c, k]:
                    matrix[c][k] += Fraction(int(pairs[c, k]), m - 1)
    margins = [sum(row, Fraction(0)) for row in matrix]
    n = sum(margins, Fraction(0))
    if n < 2:
        return None
    observed = sum((matrix[c][k] for c in range(q) for k in range(q) if c != k), Fraction(0))
    expected = n * n - sum((v * v for v in margins), Fraction(0))
    if expected == 0:
        return None
    return float(1 - (n - 1) * observed / expected)


def _patterns(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of ``counts`` among rated units, in the order they first appear, and
    how many units hold each (chance.py's Counter of patterns, in its order)."""
    rated = counts[counts.sum(axis=1) > 0]
    if rated.shape[0] == 0:
        return rated, np.zeros(0)
    kinds, first, weights = np.unique(rated, axis=0, return_index=True, return_counts=True)
    order = np.argsort(first, kind="stable")
    return kinds[order], weights[order].astype(float)


def _unit_parts(kinds: np.ndarray):
    """As chance._unit_parts, per pattern: p_a term, pairable, r_ik / r_i, rated."""
    r = kinds.sum(axis=1)
    pairable = (r >= 2).astype(float)
    pa = np.zeros(len(kinds))
    many = r >= 2
    pa[many] = (kinds[many] * (kinds[many] - 1)).sum(axis=1) / (r[many] * (r[many] - 1))
    shares = kinds / r[:, None]
    return pa, pairable, shares, np.ones(len(kinds))


def _alpha_parts(kinds: np.ndarray) -> np.ndarray:
    q = kinds.shape[1]
    m = kinds.sum(axis=1)
    o = kinds[:, :, None] * kinds[:, None, :] - kinds[:, :, None] * np.eye(q, dtype=np.int64)
    return (o / (m - 1)[:, None, None]).reshape(-1, q * q)


def _ac1(kinds: np.ndarray, weights: np.ndarray, q: int) -> float | None:
    if q < 2 or not len(kinds):
        return None
    pa, pairable, shares, rated = _unit_parts(kinds)
    if weights @ pairable == 0:
        return None
    value = float(
        ac1_from_sums(weights @ pa, weights @ pairable, weights @ shares, weights @ rated, q)
    )
    return None if np.isnan(value) else value


def _intervals(
    kinds: np.ndarray, weights: np.ndarray, q: int, resamples: int, seed: int
) -> AgreementIntervals:
    """chance.agreement_intervals from the patterns."""
    if q < 2 or not len(kinds):
        return AgreementIntervals(None, None)
    rng = np.random.default_rng(seed)
    draws = rng.multinomial(int(weights.sum()), weights / weights.sum(), size=resamples)
    pairable = np.nonzero(kinds.sum(axis=1) >= 2)[0].tolist()
    alpha_ci = ac1_ci = None
    if pairable:
        o = _alpha_parts(kinds[pairable])
        alpha = alpha_from_coincidences(draws[:, pairable] @ o, q)
        alpha = alpha[~np.isnan(alpha)]
        if alpha.size and not np.isnan(alpha_from_coincidences(weights[pairable] @ o, q)[0]):
            alpha_ci = percentile_interval(alpha[:, None])[0]
        pa, pair_flag, shares, rated = _unit_parts(kinds)
        ac1 = ac1_from_sums(draws @ pa, draws @ pair_flag, draws @ shares, draws @ rated, q)
        ac1 = ac1[~np.isnan(ac1)]
        if ac1.size:
            ac1_ci = percentile_interval(ac1[:, None])[0]
    return AgreementIntervals(alpha_ci, ac1_ci)


def summary(
    codes: np.ndarray, q: int, *, resamples: int = RESAMPLES, seed: int = SEED
) -> AgreementSummary:
    """figures.agreement_summary(ratings, categories) of the ratings the codes stand for, the
    categories being the q codes in order."""
    codes = np.asarray(codes, dtype=np.int64)
    width = codes.shape[1] if len(codes) else 0
    counts = category_counts(codes, q)
    present = counts.sum(axis=1)
    complete = present == width
    cohen = None
    if width == 2:
        cohen = _cohen(codes[:, 0], codes[:, 1], q)[0]
    fleiss = None
    if width >= 2 and complete.any():
        fleiss = _fleiss(counts[complete], width)
    kinds, weights = _patterns(counts)
    intervals = _intervals(kinds, weights, q, resamples, seed)
    return AgreementSummary(
        raters=width,
        units=len(codes),
        pairable_units=int((present >= 2).sum()),
        complete_units=int(complete.sum()) if width >= 2 else 0,
        percent=_percent(counts, present),
        pairwise=_pairwise(codes),
        cohen_kappa=cohen,
        fleiss_kappa=fleiss,
        krippendorff_alpha=_krippendorff(counts, present),
        gwet_ac1=_ac1(kinds, weights, q),
        krippendorff_alpha_ci=intervals.krippendorff_alpha,
        gwet_ac1_ci=intervals.gwet_ac1,
    )


class PairFigures:
    """Two raters' confusion rows (figures.confusion_rows), Cohen's kappa and percent
    agreement, from their two columns of codes."""

    def __init__(self, a: np.ndarray, b: np.ndarray, labels: tuple):
        q = len(labels)
        a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
        self.cohen_kappa, table = _cohen(a, b, q)
        total = int(table.sum())
        agreements = int(np.trace(table))
        self.percent = agreements / total if total else None
        self.table = ConfusionRows(
            labels=tuple(labels),
            rows=tuple(
                ConfusionRow(label, tuple(int(v) for v in table[x]), int(table[x].sum()))
                for x, label in enumerate(labels)
            ),
            column_totals=tuple(int(v) for v in table.sum(axis=0)),
            total=total,
            agreements=agreements,
        )


def pair_figures(codes: np.ndarray, i: int, j: int, labels: tuple) -> PairFigures:
    return PairFigures(codes[:, i], codes[:, j], labels)
