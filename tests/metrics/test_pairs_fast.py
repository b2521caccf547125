"""The report's every-pair tests (stats_pairs.pair_tests) against the straightforward computation
they replace: every pair's swapped gaps laid out as one (swaps, pairs) matrix, the swapped sums
of its differences less their mean beside it, and flip_tests over them (the family's p-values,
Holm's steps, the intervals turned round from the spread and Hoeffding's bound). pair_tests reads
each pair's swapped gaps as the difference of two rows and orders a pair's spread only where
Holm's level leaves it to the swaps; the figures must not move by a bit, nor any verdict.

Small random experiments, several seeds: few items (every swap enumerated) and more (drawn
swaps), repeats of 1 to 3 (means in halves and thirds), ties and configurations that never
differ, and families small enough that Holm's levels are read from the swaps and large enough
that they are beyond them.
"""

import numpy as np
import pytest

from scoring.comparison.stats_pairs import (
    PairTest,
    flip_sums,
    flip_tests,
    pair_tests,
    swap_count,
)
from scoring.report.stats import SEED, Interval

from . import simulated


def straightforward_pairs(keys, values, *, level=0.95, swaps=9_999, seed=SEED):
    """Every pair's test from the whole (swaps, pairs) matrix of its swapped gaps."""
    values = np.asarray(values, dtype=np.float64)
    n = len(keys)
    if n < 2:
        return []
    sums = flip_sums(np.column_stack([values, np.ones(values.shape[0])]), swaps=swaps, seed=seed)
    by_config, sign_sums = sums[:, :n], sums[:, n]
    estimates = by_config[0]
    left, right = np.triu_indices(n, 1)
    swap = estimates[left] < estimates[right]
    first, second = np.where(swap, right, left), np.where(swap, left, right)
    exact = swap_count(values.shape[0], swaps)[1]
    null = by_config[:, first] - by_config[:, second]
    mean = null[0] / max(values.shape[0], 1)
    spread = null - sign_sums[:, None] * mean[None, :]
    squares = spread_squares = None
    if not exact:
        d = values[:, first] - values[:, second]
        gram = values.T @ values
        squares = np.maximum(
            gram[first, first] + gram[second, second] - 2 * gram[first, second], 0.0
        )
        spread_squares = np.maximum(squares - null[0] * mean, 0.0)
        assert np.allclose(squares, (d * d).sum(axis=0))
    found = flip_tests(
        null,
        alpha=1 - level,
        exact=exact,
        squares=squares,
        spread=spread,
        spread_squares=spread_squares,
    )
    return [
        PairTest(
            keys[int(i)],
            keys[int(j)],
            float(gap),
            Interval(float(lo), float(hi)),
            float(lv),
            float(p),
            float(ph),
            bool(r),
            exact,
        )
        for i, j, gap, lo, hi, lv, p, ph, r in zip(
            first,
            second,
            found.observed,
            found.low,
            found.high,
            found.level,
            found.p,
            found.p_holm,
            found.rejected,
            strict=True,
        )
    ]


def experiment(rng, n_items: int, n_configs: int, repeats: int) -> np.ndarray:
    """(items, configurations): each configuration's net usable per item, the mean over its
    repeats; a few configurations better, one a copy of another (a gap of 0 on every item)."""
    profile = simulated.profiles(rng, n_items)
    columns = []
    for j in range(n_configs):
        shift = (0.0, 0.0, 0.15, -0.1, 0.4)[j % 5]
        runs = simulated.answers(rng, simulated.shifted(profile, shift), repeats)
        columns.append(simulated.net(runs).mean(axis=0))
    values = np.column_stack(columns)
    if n_configs > 3:
        values[:, 3] = values[:, 1]
    return values


@pytest.mark.parametrize(
    ("n_items", "n_configs", "repeats", "swaps"),
    [
        (12, 5, 1, 9_999),  # every swap enumerated
        (13, 9, 3, 9_999),
        (40, 6, 2, 9_999),  # few pairs: Holm's levels read from the swaps
        (120, 12, 3, 999),  # 66 pairs at 1,000 swaps: some levels beyond them, some not
        (200, 36, 2, 9_999),  # 630 pairs: past 500, every level beyond the swaps
    ],
)
def test_pair_tests_equal_the_whole_matrix_bit_for_bit(n_items, n_configs, repeats, swaps):
    for seed in range(4):
        rng = np.random.default_rng(1000 * seed + n_configs)
        values = experiment(rng, n_items, n_configs, repeats)
        keys = [f"c{j}" for j in range(n_configs)]
        fast = pair_tests(keys, values, swaps=swaps)
        plain = straightforward_pairs(keys, values, swaps=swaps)
        assert fast == plain  # every field, floats compared exactly
        assert len(fast) == n_configs * (n_configs - 1) // 2
        # The experiments hold both verdicts, so the equality covers both sides of the rule.
        if n_items >= 40:
            assert any(t.separable for t in fast) and not all(t.separable for t in fast)


def test_pair_tests_equal_the_whole_matrix_with_no_item_and_one_configuration():
    assert pair_tests(["a"], np.zeros((30, 1))) == []
    empty = np.zeros((0, 3))
    assert pair_tests(list("abc"), empty) == straightforward_pairs(list("abc"), empty)
