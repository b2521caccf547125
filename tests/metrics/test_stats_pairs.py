"""The array versions of McNemar and Holm, and pair_tests, against straightforward computations.

pair_tests runs every pair of configurations at once (7,750 pairs at 125 configurations); each
figure it gives must be what the textbook computation, one pair at a time, gives on the same
numbers: the exact binomial tail summed with Python's integers, Holm's step-down written out,
numpy's own percentile of the resampled gaps.
"""

import math
import random
from fractions import Fraction

import numpy as np
import pytest

from scoring.stats import (
    Interval,
    holm,
    holm_many,
    mcnemar_exact,
    row_bounds,
    row_intervals,
)
from scoring.stats_pairs import mcnemar_exact_many, pair_tests


def reference_mcnemar(b: int, c: int) -> float:
    """min(1, 2 P(X <= min(b, c))), X ~ Binomial(b + c, 1/2), in exact arithmetic."""
    n, k = b + c, min(b, c)
    if n == 0:
        return 1.0
    tail = Fraction(sum(math.comb(n, j) for j in range(k + 1)), 2**n)
    return float(min(Fraction(1), 2 * tail))


def reference_holm(pvalues: list[float]) -> list[float]:
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: (pvalues[i], i))
    out = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * pvalues[i]))
        out[i] = running
    return out


def random_tables(seed: int, count: int) -> list[tuple[int, int]]:
    rng = random.Random(seed)
    tables = [(rng.randint(0, 60), rng.randint(0, 60)) for _ in range(count)]
    tables += [(rng.randint(0, 2000), rng.randint(0, 2000)) for _ in range(count // 4)]
    close = [(x, x + rng.randint(-3, 3)) for x in (rng.randint(3, 1500) for _ in range(count // 4))]
    tables += close
    tables += [(0, 0), (0, 1), (1, 0), (5, 5), (0, 25), (900, 1000), (1, 2000), (3, 1900)]
    return tables


def test_mcnemar_many_equals_the_one_table_function_bit_for_bit():
    tables = random_tables(7, 2000)
    b = np.array([t[0] for t in tables])
    c = np.array([t[1] for t in tables])
    assert mcnemar_exact_many(b, c).tolist() == [mcnemar_exact(x, y) for x, y in tables]


def test_mcnemar_many_matches_the_exact_binomial_tail():
    tables = random_tables(8, 400)
    got = mcnemar_exact_many(np.array([t[0] for t in tables]), np.array([t[1] for t in tables]))
    for (b, c), p in zip(tables, got.tolist(), strict=True):
        assert p == pytest.approx(reference_mcnemar(b, c), rel=1e-9, abs=1e-300), (b, c)


def test_mcnemar_many_shapes_and_bad_input():
    assert mcnemar_exact_many(np.array([], dtype=int), np.array([], dtype=int)).shape == (0,)
    assert mcnemar_exact_many(np.array([[3, 0]]), np.array([[3, 9]])).tolist() == [
        [1.0, mcnemar_exact(0, 9)]
    ]
    with pytest.raises(ValueError):
        mcnemar_exact_many(np.array([-1]), np.array([2]))
    with pytest.raises(ValueError):
        mcnemar_exact_many(np.array([1.5]), np.array([2]))


def test_holm_many_equals_holm_written_out():
    rng = np.random.default_rng(9)
    for m in (0, 1, 2, 7, 500):
        pvalues = rng.random(m) ** 3
        if m > 2:
            pvalues[: m // 3] = pvalues[m // 3]  # ties
        expected = reference_holm(pvalues.tolist())
        assert holm_many(pvalues).tolist() == expected
        assert holm(pvalues.tolist()) == expected


def reference_pair_tests(keys, estimates, samples, correct, level=0.95):
    """pair_tests one pair at a time: numpy's percentile, mcnemar_exact, Holm written out."""
    rows = []
    for i in range(len(keys)):
        for j in range(i + 1, len(keys)):
            a, b = (j, i) if estimates[i] < estimates[j] else (i, j)
            gaps = samples[:, a].astype(np.float32) - samples[:, b].astype(np.float32)
            low, high = np.percentile(gaps.astype(np.float64), [2.5, 97.5])
            only_a = int(((correct[:, a] == 1) & (correct[:, b] == 0)).sum())
            only_b = int(((correct[:, b] == 1) & (correct[:, a] == 0)).sum())
            gap = float(estimates[a] - estimates[b])
            se = float(np.std(samples[:, a] - samples[:, b]))
            p = 1.0 if se <= 0 and abs(gap) < 1e-12 else math.erfc(abs(gap) / se / math.sqrt(2))
            rows.append((keys[a], keys[b], gap, low, high, p, only_a, only_b))
    p_boot_holm = reference_holm([r[5] for r in rows])
    p_mc = [reference_mcnemar(r[6], r[7]) for r in rows]
    return rows, p_boot_holm, p_mc, reference_holm(p_mc)


def test_pair_tests_equal_the_pairs_one_by_one():
    rng = np.random.default_rng(10)
    k = 12
    samples = rng.normal(size=(2000, k)).cumsum(axis=1) + rng.integers(0, 4, size=k)
    samples[:, 5] = samples[:, 4]  # two configurations that never differ
    correct = (rng.random((600, k)) < rng.uniform(0.3, 0.8, size=k)).astype(float)
    estimates = samples.mean(axis=0).round(0)  # ties between figures, turned as given
    tests = pair_tests(list("abcdefghijkl"), estimates, samples, correct)
    rows, p_boot_holm, p_mc, p_mc_holm = reference_pair_tests(
        list("abcdefghijkl"), estimates, samples, correct
    )
    assert len(tests) == len(rows) == k * (k - 1) // 2
    for test, row, pbh, pm, pmh in zip(tests, rows, p_boot_holm, p_mc, p_mc_holm, strict=True):
        a, b, gap, low, high, p, only_a, only_b = row
        assert (test.a, test.b, test.gap) == (a, b, gap)
        assert test.interval.low == pytest.approx(low, rel=1e-6, abs=1e-6)
        assert test.interval.high == pytest.approx(high, rel=1e-6, abs=1e-6)
        assert (test.discordant_a, test.discordant_b) == (only_a, only_b)
        assert test.p_bootstrap == pytest.approx(p, rel=1e-6, abs=1e-12)
        assert test.p_bootstrap_holm == pytest.approx(pbh, rel=1e-6, abs=1e-12)
        assert test.p_mcnemar == pytest.approx(pm, rel=1e-9, abs=1e-300)
        assert test.p_mcnemar_holm == pytest.approx(pmh, rel=1e-9, abs=1e-300)
        excludes_zero = test.interval.low > 0 or test.interval.high < 0
        assert test.separable == (excludes_zero and test.p_bootstrap_holm < 0.05)


def test_row_bounds_equal_numpy_percentiles_on_awkward_rows():
    """The tails found beyond a threshold give the same order statistics as sorting the row."""
    rng = np.random.default_rng(12)
    rows = rng.normal(size=(400, 2000)).astype(np.float32)
    rows[:20] = 3.0  # constant: no value beyond either threshold
    rows[20:40] = rng.exponential(size=(20, 2000)).astype(np.float32) ** 4  # one long tail
    rows[40:60] = np.round(rows[40:60] * 2)  # many ties
    rows[60:80, :300] = -50  # a sample whose threshold says little about the rest
    rows[80, 7] = np.nan  # NaN sorts last, as in np.sort
    rows[81, 1999] = np.inf
    expected = np.percentile(rows.astype(np.float64), [2.5, 97.5], axis=1).T
    finite = np.isfinite(rows).all(axis=1)  # np.percentile gives NaN for a row with one
    for got in (row_bounds(rows), row_bounds(rows.copy(), in_place=True)):
        assert np.allclose(got[finite], expected[finite], rtol=1e-6, atol=1e-6)
    sorted_rows = np.sort(rows, axis=1)
    tail = (1 - 0.95) / 2
    position = np.array([tail, 1 - tail]) * 1999
    below = np.floor(position).astype(int)
    exact = sorted_rows[:, below] + (sorted_rows[:, below + 1] - sorted_rows[:, below]) * (
        position - below
    )
    assert np.array_equal(row_bounds(rows), exact, equal_nan=True)
    assert row_intervals(rows[:3]) == [Interval(low, high) for low, high in exact[:3].tolist()]
