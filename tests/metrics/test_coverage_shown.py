"""Coverage of the gap interval the report shows beside "separable" (scoring.comparison.stats_pairs's
permutation test turned round), on simulated experiments with a known truth.

Another model than tests/metrics/test_coverage.py's: each item has its own chances of the four
buckets (a Dirichlet draw, tests/metrics/simulated.py), the blocks differ in how hard their items
are (each block its own Dirichlet), and the better configuration moves a share of the chance of
a confident error to a correct answer on every item. The interval's target is the gap on *these*
items (docs/figures.md, "Separable"): the truth of an experiment is the sum over its items of the
expected gap, exact from the chances. One pair of configurations: the interval at 95 %, as the
report shows it for a single pair. 1,000 experiments a cell (standard error near 0.95: 0.007);
a 95 % interval must cover between 0.93 and 0.97. Numbers measured with these seeds are in
docs/figures.md ("Measured coverage of the interval shown beside separable").
"""

import numpy as np
import pytest

from scoring.comparison import stats_pairs
from scoring.comparison.stats_pairs import pair_tests

from . import simulated

EXPERIMENTS = 1000
REPEATS = 2
SHIFT = 0.2


def block_profiles(rng, n: int, k: int) -> np.ndarray:
    """(experiments, n, 4) chances per item; block h's items are drawn from its own Dirichlet
    (the correct bucket's weight scaled from easy to hard blocks)."""
    sizes = np.full(k, n // k)
    sizes[: n % k] += 1
    scale = np.linspace(1.6, 0.5, k) if k > 1 else np.ones(1)
    parts = []
    for h in range(k):
        alpha = np.array(simulated.PROFILE)
        alpha[0] *= scale[h]
        parts.append(rng.dirichlet(alpha, size=(EXPERIMENTS, int(sizes[h]))))
    return np.concatenate(parts, axis=1)


def simulate(n: int, k: int, shift: float, seed: int):
    """(the gap per item and experiment (n, experiments), the truth of each experiment)."""
    rng = np.random.default_rng(seed)
    chances = block_profiles(rng, n, k)
    gaps = np.empty((n, EXPERIMENTS))
    truth = np.empty(EXPERIMENTS)
    for e in range(EXPERIMENTS):
        base = chances[e]
        better = simulated.shifted(base, shift)
        a = simulated.net(simulated.answers(rng, better, REPEATS)).mean(axis=0)
        b = simulated.net(simulated.answers(rng, base, REPEATS)).mean(axis=0)
        gaps[:, e] = a - b
        truth[e] = ((better[:, 0] - better[:, 1]) - (base[:, 0] - base[:, 1])).sum()
    return gaps, truth


def shown_intervals(gaps: np.ndarray) -> np.ndarray:
    """(experiments, 2): for each experiment, the interval pair_tests gives the gap of a single
    pair (a - b), from the same functions and swaps, every experiment a column at once."""
    n = gaps.shape[0]
    sums = stats_pairs.flip_sums(np.column_stack([gaps, np.ones(n)]))
    null, sign_sums = sums[:, :-1], sums[:, -1]
    exact = stats_pairs.swap_count(n)[1]
    squares = None if exact else (gaps**2).sum(axis=0)
    observed = null[0].copy()
    count = stats_pairs._extreme(null, observed, stats_pairs.TWO_SIDED)
    p = stats_pairs._p_values(count, null.shape[0], observed, squares, stats_pairs.TWO_SIDED)
    rejected = p <= 0.05
    one = np.ones_like(observed)
    low, high = stats_pairs.gap_bounds(null, sign_sums, n, one, 0.05, squares)
    low, high = stats_pairs._agree(low, high, observed, rejected)
    return np.column_stack([low, high])


def test_the_vectorised_interval_is_the_one_pair_tests_gives():
    gaps, _ = simulate(40, 3, SHIFT, seed=91)
    intervals = shown_intervals(gaps[:, :6])
    for e in range(6):
        test = pair_tests(["a", "b"], np.column_stack([gaps[:, e], np.zeros(40)]))[0]
        low, high = test.interval.low, test.interval.high
        if test.a == "b":  # turned larger first: the interval of b - a
            low, high = -high, -low
        assert (low, high) == pytest.approx(tuple(intervals[e]), abs=1e-9)


@pytest.mark.parametrize("shifted", [False, True], ids=["equal", "shifted"])
@pytest.mark.parametrize("k", [1, 3, 5, 10])
@pytest.mark.parametrize("n", [30, 100, 300])
def test_the_shown_gap_interval_covers_95_percent(n, k, shifted):
    gaps, truth = simulate(n, k, SHIFT if shifted else 0.0, seed=7919 * n + 31 * k + shifted)
    intervals = shown_intervals(gaps)
    covered = (intervals[:, 0] <= truth) & (truth <= intervals[:, 1])
    assert 0.93 <= covered.mean() <= 0.97, (n, k, shifted, covered.mean())
