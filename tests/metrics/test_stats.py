"""scoring.report.stats and scoring.agreement.chance against published values and scipy.

- Wilson intervals: Newcombe (1998), "Two-sided confidence intervals for the single proportion:
  comparison of seven methods", Statistics in Medicine 17, 857-872, Table II, method 3 (score
  interval without continuity correction), and scipy's ``proportion_ci(method="wilson")``.
- Exact McNemar: scipy's two-sided exact binomial test of min(b, c) in b + c at 1/2.
- The paired bootstrap: deterministic for its seed, and covering a known difference in about
  95 % of simulated experiments.
- Risk-coverage and the penalty sweep on the probe's worked examples (20 correct + 8
  confidently wrong scores 12; 16 correct + 12 abstained + 2 confidently wrong scores 14).
- Gwet's AC1: Gwet (2014), Handbook of Inter-Rater Reliability, 4th ed., pp. 55-56 (the
  4 raters x 12 units example with missing ratings, which is Krippendorff's 2011 example C):
  p_a = 0.8182, p_e = 0.1903, AC1 = 0.7754; R irrCAC gives 0.77544 on the same data.
"""

import random

import numpy as np
import pytest
from scipy.stats import binomtest

from scoring.agreement.chance import agreement_intervals, gwet_ac1
from scoring.agreement.figures import agreement_summary, cohen_kappa, krippendorff_alpha_nominal
from scoring.metrics import simpleqa_figures
from scoring.report.stats import (
    BLOCKS,
    bootstrap_sums,
    bootstrap_weights,
    crossovers,
    holm,
    mcnemar_exact,
    penalty_sweep,
    percentile_interval,
    repeat_agreement,
    risk_coverage,
    threshold_for_weight,
    wilson,
)

from .test_agreement import KRIPPENDORFF_C, transpose

# --- Wilson ---

NEWCOMBE_1998 = [  # successes, n, published lower, upper (4 places)
    (81, 263, 0.2553, 0.3662),
    (15, 148, 0.0624, 0.1605),
    (0, 20, 0.0000, 0.1611),
    (1, 29, 0.0061, 0.1718),
]


@pytest.mark.parametrize(("k", "n", "low", "high"), NEWCOMBE_1998)
def test_wilson_matches_newcombe_1998(k, n, low, high):
    interval = wilson(k, n)
    assert (round(interval.low, 4), round(interval.high, 4)) == (low, high)


def test_wilson_matches_scipy_on_random_counts():
    rng = random.Random(7)
    for _ in range(200):
        n = rng.randint(1, 400)
        k = rng.randint(0, n)
        expected = binomtest(k, n).proportion_ci(method="wilson")
        got = wilson(k, n)
        assert got.low == pytest.approx(expected.low, abs=1e-12)
        assert got.high == pytest.approx(expected.high, abs=1e-12)


def test_wilson_degenerate_and_bad_input():
    assert wilson(0, 0) is None  # no denominator: no figure, no interval
    assert wilson(5, 5).high == 1.0 and wilson(5, 5).low > 0.5  # never empty at n of n
    assert wilson(10.5, 30).low < 10.5 / 30 < wilson(10.5, 30).high  # a mean over repeats
    with pytest.raises(ValueError, match="successes <= n"):
        wilson(3, 2)


# --- McNemar and Holm ---


def test_mcnemar_exact_matches_scipy_on_random_tables():
    rng = random.Random(11)
    tables = [(rng.randint(0, 80), rng.randint(0, 80)) for _ in range(300)]
    tables += [(0, 0), (0, 1), (5, 5), (0, 25), (900, 1000), (1, 2000)]
    for b, c in tables:
        expected = binomtest(min(b, c), b + c, 0.5).pvalue if b + c else 1.0
        assert mcnemar_exact(b, c) == pytest.approx(expected, rel=1e-9, abs=1e-300), (b, c)


def test_mcnemar_rejects_bad_counts():
    for bad in (-1, 1.5, True):
        with pytest.raises(ValueError, match="non-negative int"):
            mcnemar_exact(bad, 3)


def test_holm_by_hand():
    # sorted: 0.005 x 4 = 0.02, 0.01 x 3 = 0.03, 0.03 x 2 = 0.06, 0.04 x 1 -> max(0.06, 0.04)
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm([0.5, None, 0.9]) == [pytest.approx(1.0), None, pytest.approx(1.0)]
    assert holm([]) == []


# --- The bootstrap ---


def test_bootstrap_is_deterministic_for_its_seed():
    blocks = ["A"] * 30 + ["B"] * 30
    first = bootstrap_weights(60, blocks, seed=5)
    assert np.array_equal(first, bootstrap_weights(60, blocks, seed=5))
    assert not np.array_equal(first, bootstrap_weights(60, blocks, seed=6))
    assert first.shape == (2000, 60)


def test_bootstrap_resamples_items_strata_or_clusters():
    plain = bootstrap_weights(50)
    assert (plain.sum(axis=1) == 50).all()  # 50 draws of items each time
    # Two blocks: strata, each block keeps its size in every resample.
    strata = bootstrap_weights(50, ["A"] * 20 + ["B"] * 30)
    assert (strata[:, :20].sum(axis=1) == 20).all() and (strata[:, 20:].sum(axis=1) == 30).all()
    # Five blocks of ten, about these blocks: still strata, whatever the number of blocks.
    blocks = [code for code in "ABCDE" for _ in range(10)]
    per_block = bootstrap_weights(50, blocks).reshape(2000, 5, 10).sum(axis=2)
    assert (per_block == 10).all()
    # Blocks as a sample: whole blocks drawn 0..5 times, each bringing its items once (no
    # second stage: every item of a drawn block has the block's weight).
    clusters = bootstrap_weights(50, blocks, target=BLOCKS).reshape(2000, 5, 10)
    assert (clusters == clusters[:, :, :1]).all() and (clusters == 0).any()
    assert (clusters.sum(axis=(1, 2)) == 50).all()
    with pytest.raises(ValueError, match="target"):
        bootstrap_weights(50, blocks, target="clusters")


def test_bootstrap_sums_are_on_the_scale_of_the_figure():
    values = np.column_stack([np.ones(40), np.arange(40) % 2])
    sums = bootstrap_sums(bootstrap_weights(40, [c for c in "ABCDE" for _ in range(8)]), values)
    assert np.allclose(sums[:, 0], 40)  # a constant stays itself whatever is drawn
    assert sums[:, 1].mean() == pytest.approx(20, abs=0.5)


def test_percentile_interval_matches_numpy():
    samples = np.random.default_rng(1).normal(size=(2001, 4))
    expected = np.percentile(samples, [2.5, 97.5], axis=0).T
    assert np.allclose(np.array(percentile_interval(samples)), expected)


def test_repeat_agreement():
    buckets = np.array([[0, 1, 2, 3, -1], [0, 1, 3, 3, 0], [0, 2, 2, 3, 0]])
    # pairs (1,2): 3 of 4 scored alike; (1,3): 3 of 4; (2,3): 3 of 5
    assert repeat_agreement(buckets) == (9, 13)
    assert repeat_agreement(buckets[:1]) is None  # one repeat: nothing to measure


# --- Risk-coverage and the sweep on the worked examples ---


def test_risk_coverage_on_the_worked_examples():
    # 20 correct (16 at HIGH, 4 at MEDIUM) + 8 confidently wrong (2 HIGH, 6 MEDIUM) + 2 hedged
    # wrong (LOW), N = 30: answering always scores 20 - 8 = 12; only at HIGH, 16 - 2 = 14.
    cells = {"HIGH": (18, 16, 2), "MEDIUM": (10, 4, 6), "LOW": (2, 0, 0)}
    high, high_medium, every = risk_coverage(cells, 30, 1.0)
    assert (high.levels, high.answered, high.score) == (("HIGH",), 18, 14)
    assert high.coverage == pytest.approx(18 / 30) and high.risk == pytest.approx(2 / 18)
    assert (high_medium.answered, high_medium.score) == (28, 12)
    assert (every.answered, every.wrong, every.score) == (30, 10, 12)  # hedged wrong: no penalty
    # 16 correct + 12 abstained + 2 confidently wrong, all at HIGH: 14 at every threshold.
    scores = [p.score for p in risk_coverage({"HIGH": (18, 16, 2)}, 30, 1.0)]
    assert scores == [14, 14, 14]
    # no answer at all: coverage 0, risk undefined
    (none, _, _) = risk_coverage({}, 30, 1.0)
    assert none.coverage == 0 and none.risk is None


def test_the_sweep_crosses_at_two_thirds():
    lines = {"twelve": (20, 8), "fourteen": (16, 2)}
    sweep = penalty_sweep(lines)
    assert dict(sweep["twelve"])[1.0] == 12 and dict(sweep["fourteen"])[1.0] == 14
    assert dict(sweep["twelve"])[0.0] == 20 and dict(sweep["twelve"])[4.0] == -12
    (cross,) = crossovers(lines)
    assert (cross.a, cross.b) == ("twelve", "fourteen")  # more correct ahead below, fewer CW above
    assert cross.w == pytest.approx(0.667, abs=5e-4) and cross.t == pytest.approx(0.4)
    assert cross.net == pytest.approx(20 - 8 * 4 / 6)
    assert threshold_for_weight(1) == 0.5 and threshold_for_weight(4) == pytest.approx(0.8)
    # parallel lines and a crossing beyond w = 4 are not crossings
    assert crossovers({"x": (20, 5), "y": (10, 5)}) == []
    assert [x.w for x in crossovers({"x": (30, 10), "y": (10, 5)})] == [4]  # at the edge
    assert crossovers({"x": (31, 10), "y": (10, 5)}) == []  # at w = 4.2, beyond the sweep


def test_simpleqa_figures():
    # 16 correct, 2 incorrect, 12 not attempted: overall 16/30, given attempted 16/18
    f = simpleqa_figures(16, 2, 12)
    assert f.overall_correct == pytest.approx(16 / 30)
    assert f.correct_given_attempted == pytest.approx(16 / 18)
    harmonic = 2 * (16 / 30) * (16 / 18) / (16 / 30 + 16 / 18)
    assert f.f_score == pytest.approx(harmonic)
    assert simpleqa_figures(0, 0, 5).f_score is None  # nothing attempted
    assert simpleqa_figures(0, 3, 0).f_score == 0.0


# --- Gwet's AC1 and the agreement intervals ---


def test_gwet_ac1_matches_gwet_2014():
    units = transpose(KRIPPENDORFF_C)
    assert round(gwet_ac1(units), 4) == 0.7754
    assert gwet_ac1(units) == pytest.approx(0.77544, abs=5e-6)  # irrCAC, the same data
    assert gwet_ac1(units, categories=[1, 2, 3, 4, 5]) == gwet_ac1(units)
    # p_a = 0.8182 and p_e = 0.1903 (Gwet's intermediate values): AC1 = (pa - pe) / (1 - pe)
    assert (0.8182 - 0.1903) / (1 - 0.1903) == pytest.approx(gwet_ac1(units), abs=1e-4)


def test_ac1_stays_high_where_kappa_collapses():
    # 90 both Correct, 5 + 5 disagreements, no unit both Wrong: kappa < 0, AC1 = 0.805 / 0.905
    a = ["C"] * 95 + ["W"] * 5
    b = ["C"] * 90 + ["W"] * 5 + ["C"] * 5
    assert cohen_kappa(a, b) == pytest.approx((0.9 - 0.905) / (1 - 0.905))
    assert gwet_ac1(list(zip(a, b, strict=True))) == pytest.approx(0.805 / 0.905)
    # a category on the scale nobody used lowers chance agreement: q = 4, not 2
    four = gwet_ac1(list(zip(a, b, strict=True)), categories=["C", "W", "H", "U"])
    assert four == pytest.approx((0.9 - 0.095 / 3) / (1 - 0.095 / 3))


def test_ac1_degenerate_and_bad_input():
    assert gwet_ac1([]) is None
    assert gwet_ac1([("C", None), (None, "C")]) is None  # no unit with two ratings
    assert gwet_ac1([("C", "C"), ("C", "C")]) is None  # one category only: q < 2
    assert gwet_ac1([("C", "C"), ("C", "C")], categories=["C", "W"]) == 1.0
    with pytest.raises(ValueError, match="not in categories"):
        gwet_ac1([("C", "X")], categories=["C", "W"])


def test_agreement_intervals_hold_the_coefficients_and_shrink_with_more_units():
    units = transpose(KRIPPENDORFF_C)
    intervals = agreement_intervals(units)
    assert intervals == agreement_intervals(units)  # fixed seed
    alpha = krippendorff_alpha_nominal(units)
    assert intervals.krippendorff_alpha.low < alpha <= intervals.krippendorff_alpha.high
    assert intervals.gwet_ac1.low < gwet_ac1(units) <= intervals.gwet_ac1.high
    wide = intervals.krippendorff_alpha.high - intervals.krippendorff_alpha.low
    many = agreement_intervals(units * 16).krippendorff_alpha
    assert many.high - many.low < wide / 2  # 16 times the units: about a quarter of the width


def test_agreement_intervals_match_resampling_units_one_by_one():
    rng = random.Random(5)
    units = [
        (x := rng.choice("CWHA"), x if rng.random() < 0.7 else rng.choice("CWHA"))
        for _ in range(80)
    ]
    fast = agreement_intervals(units).krippendorff_alpha
    draws = np.random.default_rng(9).integers(0, len(units), size=(1000, len(units)))
    slow = [krippendorff_alpha_nominal([units[i] for i in row]) for row in draws[:300]]
    low, high = np.percentile(slow, [2.5, 97.5])
    assert fast.low == pytest.approx(low, abs=0.05) and fast.high == pytest.approx(high, abs=0.05)


def test_agreement_summary_carries_ac1_and_intervals():
    summary = agreement_summary(transpose(KRIPPENDORFF_C))
    assert summary.gwet_ac1 == pytest.approx(0.77544, abs=5e-6)
    assert summary.krippendorff_alpha_ci.low < summary.krippendorff_alpha
    # every scorer agreeing on one bucket: the coefficients are undefined, and so their intervals
    constant = agreement_summary([("C", "C")] * 5)
    assert constant.krippendorff_alpha is None and constant.krippendorff_alpha_ci is None
    assert constant.gwet_ac1 is None and constant.percent == 1


def test_the_shared_resampling_table_is_the_bootstrap_table_drawn_once():
    from scoring.report.resampling import resampling_weights

    blocks = [c for c in "ABCDE" for _ in range(12)]
    shared = resampling_weights(60, blocks, seed=9)
    assert np.array_equal(shared, bootstrap_weights(60, blocks, seed=9))
    assert resampling_weights(60, tuple(blocks), seed=9) is shared  # made once
    assert resampling_weights(60, blocks, seed=10) is not shared
    with pytest.raises(ValueError):
        shared[0, 0] = 5  # read-only: no caller can change another's draws
