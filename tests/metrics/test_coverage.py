"""Coverage of the report's 95 % intervals on simulated experiments with a known truth.

Each cell draws thousands of experiments from a known model: N items in k blocks whose items
differ from block to block (the blocks are strata: their mix of easy and hard items is fixed,
the items within each are a sample), two configurations answering every item twice, each answer
correct, confidently wrong or something else with probabilities fixed per kind of item. The true
gap in net usable is exact (a sum over the kinds of items). Each experiment gets the interval
the report gives it, by the report's own functions with the report's fixed seed: the same
bootstrap weights for every experiment of a cell, as for every report of that size. Coverage is
the share of experiments whose interval holds the truth; a 95 % interval must cover between
0.93 and 0.97. 2,000 experiments a cell: the standard error of a coverage near 0.95 is 0.005.
Numbers measured with these seeds are in docs/figures.md ("Measured coverage").
"""

import numpy as np
import pytest

from scoring.comparison.stats_pairs import pair_intervals
from scoring.report import stats

EXPERIMENTS = 2000
REPEATS = 2
W = 1.0
# Kinds of item, easy to very hard: per configuration, P(correct) and P(confidently wrong).
KINDS = 4
STRONG = (np.array([0.95, 0.75, 0.45, 0.15]), np.array([0.03, 0.15, 0.35, 0.55]))
WEAK = (np.array([0.90, 0.62, 0.30, 0.08]), np.array([0.05, 0.22, 0.45, 0.62]))


def block_mixes(k: int, seed: int) -> np.ndarray:
    """Each block's mix of the kinds of item (k, KINDS): blocks differ (some easy, some hard)."""
    rng = np.random.default_rng(seed)
    return rng.dirichlet(np.full(KINDS, 0.7), size=k)


def block_sizes(n: int, k: int) -> np.ndarray:
    sizes = np.full(k, n // k)
    sizes[: n % k] += 1
    return sizes


def answers(rng, kinds: np.ndarray, config) -> np.ndarray:
    """Per item (n, experiments), correct - w x confidently wrong as a mean over the repeats."""
    p_correct, p_wrong = config[0][kinds], config[1][kinds]
    total = np.zeros(kinds.shape)
    for _ in range(REPEATS):
        draw = rng.random(kinds.shape)
        total += (draw < p_correct) - W * ((draw >= p_correct) & (draw < p_correct + p_wrong))
    return total / REPEATS


def simulate_gaps(n: int, k: int, shifted: bool, seed: int):
    """(blocks per item, the gap per item and experiment (n, EXPERIMENTS), the true gap)."""
    rng = np.random.default_rng(seed)
    sizes, mixes = block_sizes(n, k), block_mixes(k, seed + 1)
    blocks = np.repeat(np.arange(k), sizes)
    kinds = np.empty((n, EXPERIMENTS), dtype=np.int64)
    for h in range(k):
        rows = blocks == h
        kinds[rows] = rng.choice(KINDS, size=(int(rows.sum()), EXPERIMENTS), p=mixes[h])
    other = WEAK if shifted else STRONG  # equal: the same model answering again
    gaps = answers(rng, kinds, STRONG) - answers(rng, kinds, other)
    per_kind = (STRONG[0] - W * STRONG[1]) - (other[0] - W * other[1])
    truth = float(sum(sizes[h] * mixes[h] @ per_kind for h in range(k)))
    return blocks, gaps, truth


def report_gap_intervals(blocks: np.ndarray, gaps: np.ndarray) -> np.ndarray:
    """The report's interval of each experiment's gap: its bootstrap over these blocks (the
    report's seed), its percentile level, the paired intervals of scoring.comparison.stats_pairs."""
    n = len(blocks)
    weights = stats.bootstrap_weights(n, blocks.tolist())
    sums = stats.bootstrap_sums(weights, gaps)  # (resamples, experiments)
    level = stats.percentile_level(n, len(set(blocks.tolist())))
    by_config = np.ascontiguousarray(sums.T.astype(np.float32))
    zero = np.zeros_like(by_config[:1])
    stacked = np.concatenate([by_config, zero])  # gap - 0: the interval of the gap itself
    experiments = np.arange(gaps.shape[1])
    return pair_intervals(stacked, experiments, np.full_like(experiments, len(experiments)), level)


@pytest.mark.parametrize("shifted", [False, True], ids=["equal", "shifted"])
@pytest.mark.parametrize("k", [1, 3, 5, 10])
@pytest.mark.parametrize("n", [30, 100, 300])
def test_the_gap_interval_covers_95_percent(n, k, shifted):
    blocks, gaps, truth = simulate_gaps(n, k, shifted, seed=1000 * n + 10 * k + shifted)
    intervals = report_gap_intervals(blocks, gaps)
    points = gaps.sum(axis=0)
    # Every interval holds its own point as the report shows it (report_intervals stretches
    # one that would not; here none needs it by more than float32's rounding).
    assert ((intervals[:, 0] <= points + 1e-3) & (points - 1e-3 <= intervals[:, 1])).mean() > 0.99
    covered = (intervals[:, 0] <= truth) & (truth <= intervals[:, 1])
    assert 0.93 <= covered.mean() <= 0.97, (n, k, shifted, truth, covered.mean())


def simulate_shares(n: int, k: int, seed: int, repeats: int):
    """Per item the share correct over the repeats (n, EXPERIMENTS), blocks, the true share."""
    rng = np.random.default_rng(seed)
    sizes, mixes = block_sizes(n, k), block_mixes(k, seed + 1)
    blocks = np.repeat(np.arange(k), sizes)
    kinds = np.empty((n, EXPERIMENTS), dtype=np.int64)
    for h in range(k):
        rows = blocks == h
        kinds[rows] = rng.choice(KINDS, size=(int(rows.sum()), EXPERIMENTS), p=mixes[h])
    p = WEAK[0][kinds]
    correct = sum((rng.random(kinds.shape) < p).astype(float) for _ in range(repeats)) / repeats
    truth = float(sum(sizes[h] * mixes[h] @ WEAK[0] for h in range(k)) / n)
    return blocks, correct, truth


@pytest.mark.parametrize("repeats", [1, 3])
@pytest.mark.parametrize("k", [1, 5])
@pytest.mark.parametrize("n", [30, 100])
def test_the_share_interval_over_repeats_covers_95_percent(n, k, repeats):
    blocks, correct, truth = simulate_shares(n, k, seed=7 * n + k + repeats, repeats=repeats)
    intervals = stats.wilson_items(correct, np.ones_like(correct), blocks, repeats)
    low = np.array([i.low for i in intervals])
    high = np.array([i.high for i in intervals])
    covered = (low <= truth) & (truth <= high)
    assert 0.93 <= covered.mean() <= 0.97, (n, k, repeats, truth, covered.mean())
