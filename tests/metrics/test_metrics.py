"""The report's figures (scoring/metrics.py) against hand-worked cases: pure, no database.

The worked example is the one in docs/design.md ("The figures"); every other expectation is
worked by hand in the comment beside it.
"""

import math
import subprocess
import sys
from dataclasses import fields
from itertools import permutations
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring import metrics as m
from scoring.metrics import (
    ABSTAINED,
    CONFIDENT_WRONG,
    CORRECT,
    HEDGED_WRONG,
    HIGH,
    INCORRECT,
    LOW,
    MEDIUM,
    NOT_ATTEMPTED,
    PARTIAL,
    AACounts,
    BucketCounts,
    Gap,
    RepeatSummary,
    aa_figures,
    calibration,
    four_bucket_figures,
    noise_floor,
    pairwise_gaps,
    repeat_summary,
)
from scoring.schemes import AA, FOUR

PROPERTY = settings(max_examples=200, deadline=None)
counts_st = st.integers(min_value=0, max_value=500)


# --------------------------------------------------------------------------------------------
# The worked example in docs/design.md
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("others", ["hedged_wrong", "abstained"])
def test_design_example_20_correct_8_confidently_wrong_scores_12(others):
    # 20 correct + 8 confidently wrong + 2 others (either kind) = 30 items: 20 - 8 = 12.
    counts = BucketCounts(correct=20, confident_wrong=8, **{others: 2})
    figures = four_bucket_figures(counts)
    assert figures.n == 30
    assert figures.net_usable == 12
    assert figures.knowledge == pytest.approx(20 / 30)


def test_design_example_16_correct_12_abstained_2_confidently_wrong_scores_14():
    counts = BucketCounts(correct=16, confident_wrong=2, abstained=12)
    figures = four_bucket_figures(counts)
    assert figures.n == 30
    assert figures.net_usable == 14
    assert figures.knowledge == pytest.approx(16 / 30)


def test_the_abstaining_model_wins_on_net_usable_while_knowing_less():
    bold = four_bucket_figures(BucketCounts(correct=20, confident_wrong=8, hedged_wrong=2))
    careful = four_bucket_figures(BucketCounts(correct=16, confident_wrong=2, abstained=12))
    assert careful.net_usable > bold.net_usable
    assert careful.knowledge < bold.knowledge


def test_hallucination_denominator_leaves_abstentions_out():
    # 16 correct + 2 confidently wrong + 12 abstained: 18 attempted, so 2 / 18, not 2 / 30.
    figures = four_bucket_figures(BucketCounts(correct=16, confident_wrong=2, abstained=12))
    assert figures.attempted == 18
    assert figures.hallucination_rate == pytest.approx(2 / 18)
    assert figures.hallucination_rate == pytest.approx(0.1111111)
    assert figures.hallucination_rate != pytest.approx(2 / 30)


def test_hallucination_rate_counts_hedged_wrong_as_attempted_but_not_as_hallucination():
    # 20 correct + 8 confidently wrong + 2 hedged wrong: 30 attempted, 8 / 30.
    figures = four_bucket_figures(BucketCounts(correct=20, confident_wrong=8, hedged_wrong=2))
    assert figures.attempted == 30
    assert figures.hallucination_rate == pytest.approx(8 / 30)


def test_nothing_attempted_gives_no_hallucination_rate():
    figures = four_bucket_figures(BucketCounts(abstained=30))
    assert figures.attempted == 0
    assert figures.hallucination_rate is None  # the page shows a dash
    assert figures.knowledge == 0
    assert figures.net_usable == 0


def test_empty_counts_give_no_fractions():
    figures = four_bucket_figures(BucketCounts())
    assert figures.n == 0
    assert figures.knowledge is None
    assert figures.hallucination_rate is None
    assert figures.net_usable == 0


@pytest.mark.parametrize(
    ("w", "first", "second"),
    [
        (1, 12, 14),  # the default
        (2, 4, 12),  # 20 - 2 x 8; 16 - 2 x 2
        (0, 20, 16),  # the user verifies everything: net usable is just the correct count
        (0.5, 16, 15),  # 20 - 4; 16 - 1
        (3, -4, 10),  # nobody checks: net usable can go negative
    ],
)
def test_w_is_adjustable(w, first, second):
    a = four_bucket_figures(BucketCounts(correct=20, confident_wrong=8, hedged_wrong=2), w=w)
    b = four_bucket_figures(BucketCounts(correct=16, confident_wrong=2, abstained=12), w=w)
    assert a.net_usable == pytest.approx(first)
    assert b.net_usable == pytest.approx(second)
    assert a.w == w
    # w moves net usable only
    assert a.knowledge == pytest.approx(20 / 30)
    assert a.hallucination_rate == pytest.approx(8 / 30)


def test_default_w_is_one():
    figures = four_bucket_figures(BucketCounts(correct=5, confident_wrong=3))
    assert figures.w == 1.0
    assert figures.net_usable == 2


@pytest.mark.parametrize("w", [-1, float("nan"), float("inf")])
def test_w_must_be_finite_and_not_negative(w):
    with pytest.raises(ValueError, match="w must be"):
        four_bucket_figures(BucketCounts(correct=1), w=w)


def test_w_must_be_a_number():
    with pytest.raises(TypeError):
        four_bucket_figures(BucketCounts(correct=1), w="2")


def test_n_items_counts_unscored_responses_as_not_known_and_not_as_attempts():
    # 30 items, 27 scored: 16 correct, 2 confidently wrong, 9 abstained, 3 missing/unscored.
    figures = four_bucket_figures(
        BucketCounts(correct=16, confident_wrong=2, abstained=9), n_items=30
    )
    assert figures.n == 30
    assert figures.unscored == 3
    assert figures.knowledge == pytest.approx(16 / 30)
    assert figures.attempted == 18  # counted attempts only, not 30 - 9 = 21
    assert figures.hallucination_rate == pytest.approx(2 / 18)
    assert figures.net_usable == 14


def test_n_items_equal_to_the_count_changes_nothing():
    counts = BucketCounts(correct=16, confident_wrong=2, abstained=12)
    assert four_bucket_figures(counts, n_items=30) == four_bucket_figures(counts)


def test_n_items_smaller_than_the_counted_responses_is_an_error():
    with pytest.raises(ValueError, match="n_items"):
        four_bucket_figures(BucketCounts(correct=10), n_items=9)


def test_counts_must_be_a_bucket_counts():
    with pytest.raises(TypeError):
        four_bucket_figures({"correct": 3})


@pytest.mark.parametrize("bad", [-1, 1.5, "3", True, None])
def test_bucket_counts_reject_what_is_not_a_count(bad):
    with pytest.raises((TypeError, ValueError)):
        BucketCounts(correct=bad)


def test_bucket_counts_n_and_attempted():
    counts = BucketCounts(correct=3, confident_wrong=2, hedged_wrong=1, abstained=4)
    assert counts.n == 10
    assert counts.attempted == 6


def test_bucket_counts_from_buckets_and_mapping():
    buckets = [CORRECT] * 3 + [CONFIDENT_WRONG] * 2 + [HEDGED_WRONG] + [ABSTAINED] * 4
    expected = BucketCounts(3, 2, 1, 4)
    assert BucketCounts.from_buckets(buckets) == expected
    assert (
        BucketCounts.from_mapping(
            {"correct": 3, "confident_wrong": 2, "hedged_wrong": 1, "abstained": 4}
        )
        == expected
    )
    assert BucketCounts.from_mapping({"correct": 3}) == BucketCounts(correct=3)
    assert BucketCounts(1, 0, 0, 1) + BucketCounts(0, 2, 1, 0) == BucketCounts(1, 2, 1, 1)


def test_bucket_counts_refuse_buckets_of_the_other_scheme():
    with pytest.raises(ValueError, match="unknown bucket"):
        BucketCounts.from_buckets([CORRECT, PARTIAL])
    with pytest.raises(ValueError, match="unknown bucket"):
        BucketCounts.from_mapping({INCORRECT: 1})


def test_bucket_values_match_the_scoring_model_choices():
    # The model's Bucket choices (scoring/models.py) use these very strings.
    # The counts classes count the registered schemes' buckets, field by field, in their order.
    assert FOUR.buckets == ("correct", "confident_wrong", "hedged_wrong", "abstained")
    assert AA.buckets == ("correct", "incorrect", "partial", "not_attempted")
    assert tuple(f.name for f in fields(m.BucketCounts)) == FOUR.buckets
    assert tuple(f.name for f in fields(m.AACounts)) == AA.buckets
    assert m.CONFIDENCE_LEVELS == ("HIGH", "MEDIUM", "LOW")


# --------------------------------------------------------------------------------------------
# Calibration
# --------------------------------------------------------------------------------------------


def test_calibration_accuracy_per_level():
    rows = (
        [(HIGH, True, False)] * 9
        + [(HIGH, False, False)] * 1  # HIGH: 9 / 10
        + [(MEDIUM, True, False)] * 3
        + [(MEDIUM, False, False)] * 3  # MEDIUM: 3 / 6
        + [(LOW, False, False)] * 4  # LOW: 0 / 4
        + [(None, False, True)] * 5  # abstentions: left out
        + [("UNKNOWN", False, True)]  # an abstention's confidence is never looked at
    )
    result = calibration(rows)
    assert result.attempted == 20
    assert result.unrated == 0
    assert [(lv.level, lv.count, lv.correct) for lv in result.levels] == [
        (HIGH, 10, 9),
        (MEDIUM, 6, 3),
        (LOW, 4, 0),
    ]
    assert result[HIGH].accuracy == pytest.approx(0.9)
    assert result[MEDIUM].accuracy == pytest.approx(0.5)
    assert result[LOW].accuracy == 0
    assert result.single_level is False
    assert result.single_level_name is None


def test_calibration_level_with_no_answers_has_no_accuracy():
    result = calibration([(HIGH, True, False), (HIGH, False, False), (LOW, True, False)])
    assert result[MEDIUM].count == 0
    assert result[MEDIUM].accuracy is None
    with pytest.raises(KeyError):
        result["VERY HIGH"]


def test_calibration_warns_when_every_attempted_answer_is_at_one_level():
    rows = [(HIGH, True, False)] * 20 + [(HIGH, False, False)] * 8 + [(None, False, True)] * 2
    result = calibration(rows)
    assert result.single_level is True
    assert result.single_level_name == HIGH
    assert result[HIGH].accuracy == pytest.approx(20 / 28)


def test_calibration_single_level_needs_at_least_two_rated_answers():
    assert calibration([]).single_level is False
    assert calibration([(HIGH, True, False)]).single_level is False
    assert calibration([(LOW, True, False), (LOW, False, False)]).single_level is True
    # abstentions are not answers at a level
    assert calibration([(HIGH, True, False), (None, False, True)]).single_level is False


def test_calibration_counts_unrated_answers_apart():
    rows = [(None, True, False), ("", False, False), (HIGH, True, False), (HIGH, False, False)]
    result = calibration(rows)
    assert result.attempted == 4
    assert result.unrated == 2
    assert result.unrated_correct == 1
    assert result.rated == 2
    assert result[HIGH].count == 2
    # the rated answers all sit at HIGH: the warning stands, unrated answers do not lift it
    assert result.single_level is True


def test_calibration_reads_confidence_case_insensitively():
    result = calibration([("high", True, False), (" Medium ", False, False)])
    assert result[HIGH].count == 1
    assert result[MEDIUM].count == 1


def test_calibration_refuses_an_unknown_confidence():
    with pytest.raises(ValueError, match="unknown confidence"):
        calibration([("SURE", True, False)])


# --------------------------------------------------------------------------------------------
# Repeats, noise floor, gaps
# --------------------------------------------------------------------------------------------


def test_repeat_summary():
    assert repeat_summary([12, 14]) == RepeatSummary(13.0, 12.0, 14.0, 2.0)
    mean, low, high, spread = repeat_summary([0.1, None, 0.3])
    assert mean == pytest.approx(0.2)
    assert (low, high) == (0.1, 0.3)
    assert spread == pytest.approx(0.2)
    assert repeat_summary([5]) == RepeatSummary(5.0, 5.0, 5.0, 0.0)


def test_repeat_summary_of_nothing_is_all_none():
    assert repeat_summary([]) == RepeatSummary(None, None, None, None)
    assert repeat_summary([None, None]) == RepeatSummary(None, None, None, None)


@pytest.mark.parametrize(
    ("n_items", "expected"), [(30, 3.0), (60, 6.0), (10, 1.0), (0, 0.0), (45, 4.5)]
)
def test_noise_floor_defaults_to_3_items_per_30(n_items, expected):
    assert noise_floor(n_items) == pytest.approx(expected)


def test_noise_floor_setting_wins():
    assert noise_floor(30, floor=5) == 5.0
    assert noise_floor(30, floor=0) == 0.0
    with pytest.raises(ValueError):
        noise_floor(30, floor=-1)
    with pytest.raises(ValueError):
        noise_floor(-30)


def test_pairwise_gaps_larger_first_and_noise_marked():
    gaps = pairwise_gaps({"x": 12, "y": 14, "z": 20}, floor=3)
    assert gaps == [
        Gap("y", "x", 2.0, True),  # under 3 items: noise
        Gap("z", "x", 8.0, False),
        Gap("z", "y", 6.0, False),
    ]


def test_a_gap_exactly_at_the_floor_is_not_noise():
    (gap,) = pairwise_gaps({"x": 12, "y": 15}, floor=3)
    assert gap == Gap("y", "x", 3.0, False)


def test_a_gap_at_the_floor_up_to_rounding_is_not_noise():
    # w = 0.1 net usables whose difference is 3 items only up to float rounding
    a = four_bucket_figures(BucketCounts(correct=20, confident_wrong=3), w=0.1).net_usable
    b = four_bucket_figures(BucketCounts(correct=17, confident_wrong=3), w=0.1).net_usable
    (gap,) = pairwise_gaps({"a": a, "b": b}, floor=3)
    assert gap.gap == pytest.approx(3)
    assert gap.is_noise is False


def test_pairwise_gaps_tie_keeps_input_order_and_is_noise():
    assert pairwise_gaps({"x": 10, "y": 10}, floor=3) == [Gap("x", "y", 0.0, True)]


def test_pairwise_gaps_skip_configurations_without_figures():
    assert pairwise_gaps({"x": 10, "y": None, "z": 4}, floor=3) == [Gap("x", "z", 6.0, False)]
    assert pairwise_gaps({"x": 10}, floor=3) == []
    assert pairwise_gaps({}, floor=3) == []


def test_pairwise_gaps_refuse_a_negative_floor():
    with pytest.raises(ValueError):
        pairwise_gaps({"x": 1, "y": 2}, floor=-1)


def test_pairwise_gaps_with_zero_floor_mark_nothing_as_noise_but_ties():
    gaps = pairwise_gaps({"x": 10, "y": 10.5}, floor=0)
    assert gaps == [Gap("y", "x", 0.5, False)]


# --------------------------------------------------------------------------------------------
# AA-Omniscience-style scheme
# --------------------------------------------------------------------------------------------


def test_aa_figures_hand_worked():
    # 30 items: 12 correct, 6 incorrect, 3 partial, 9 not attempted.
    figures = aa_figures(12, 6, 3, 9)
    assert figures.n == 30
    assert figures.index == pytest.approx(20.0)  # 100 x (12 - 6) / 30
    assert figures.accuracy == pytest.approx(0.4)  # 12 / 30
    assert figures.attempt_rate == pytest.approx(0.7)  # 21 / 30
    assert figures.partial_rate == pytest.approx(0.1)  # 3 / 30
    assert figures.abstention_rate == pytest.approx(0.3)  # 9 / 30
    assert figures.hallucination_rate == pytest.approx(1 / 3)  # 6 / (6 + 3 + 9)


def test_aa_index_is_negative_when_wrong_answers_outnumber_correct_ones():
    # 5 correct, 20 incorrect, 0 partial, 5 not attempted: 100 x (5 - 20) / 30 = -50.
    figures = aa_figures(5, 20, 0, 5)
    assert figures.index == pytest.approx(-50.0)
    assert figures.hallucination_rate == pytest.approx(20 / 25)


def test_aa_bounds():
    assert aa_figures(30, 0, 0, 0).index == 100
    assert aa_figures(0, 30, 0, 0).index == -100
    assert aa_figures(0, 0, 0, 30).index == 0  # abstaining on everything scores 0
    assert aa_figures(0, 0, 30, 0).index == 0


def test_aa_hallucination_rate_undefined_when_everything_is_correct():
    figures = aa_figures(30, 0, 0, 0)
    assert figures.hallucination_rate is None
    assert figures.accuracy == 1


def test_aa_empty():
    figures = aa_figures(0, 0, 0, 0)
    assert figures.index is None
    assert figures.accuracy is None
    assert figures.attempt_rate is None
    assert figures.hallucination_rate is None


def test_aa_with_unscored_items():
    figures = aa_figures(12, 6, 3, 6, n_items=30)
    assert figures.unscored == 3
    assert figures.index == pytest.approx(20.0)
    assert figures.hallucination_rate == pytest.approx(6 / 15)
    with pytest.raises(ValueError):
        aa_figures(12, 6, 3, 9, n_items=29)


def test_aa_counts_from_buckets():
    counts = AACounts.from_buckets([CORRECT, CORRECT, INCORRECT, PARTIAL, NOT_ATTEMPTED])
    assert counts == AACounts(2, 1, 1, 1)
    assert counts.n == 5
    with pytest.raises(ValueError):
        AACounts.from_buckets([CONFIDENT_WRONG])
    with pytest.raises(ValueError):
        aa_figures(1, -1, 0, 0)


# --------------------------------------------------------------------------------------------
# Properties
# --------------------------------------------------------------------------------------------


@PROPERTY
@given(counts_st, counts_st, counts_st, counts_st, st.floats(min_value=0, max_value=10))
def test_four_bucket_properties(c, cw, hw, ab, w):
    counts = BucketCounts(c, cw, hw, ab)
    f = four_bucket_figures(counts, w=w)
    assert f.n == c + cw + hw + ab
    assert f.attempted == f.n - ab
    if f.n:
        assert 0 <= f.knowledge <= 1
    else:
        assert f.knowledge is None
    if f.attempted:
        assert 0 <= f.hallucination_rate <= 1
    else:
        assert f.hallucination_rate is None
    assert f.net_usable == pytest.approx(c - w * cw)
    assert f.net_usable <= c


@PROPERTY
@given(counts_st, counts_st, counts_st, counts_st, st.integers(min_value=0, max_value=50))
def test_aa_properties(c, i, p, na, extra):
    f = aa_figures(c, i, p, na)
    n = c + i + p + na
    if n == 0:
        assert f.index is None
        return
    assert -100 <= f.index <= 100
    assert f.attempt_rate + f.abstention_rate == pytest.approx(1)
    assert f.accuracy + i / n + f.partial_rate == pytest.approx(f.attempt_rate)
    assert f.index == pytest.approx(100 * (f.accuracy - i / n))
    assert f.partial_rate <= f.attempt_rate
    if i + p + na:
        assert 0 <= f.hallucination_rate <= 1
    # unscored items lower every N-based rate but leave the hallucination rate alone
    g = aa_figures(c, i, p, na, n_items=n + extra)
    assert g.accuracy <= f.accuracy
    assert g.hallucination_rate == f.hallucination_rate


rows_st = st.lists(
    st.tuples(st.sampled_from([HIGH, MEDIUM, LOW, None, ""]), st.booleans(), st.booleans()),
    max_size=60,
)


@PROPERTY
@given(rows_st)
def test_calibration_properties(rows):
    result = calibration(rows)
    attempted = [row for row in rows if not row[2]]
    assert result.attempted == len(attempted)
    assert sum(level.count for level in result.levels) + result.unrated == result.attempted
    for level in result.levels:
        assert 0 <= level.correct <= level.count
        if level.count:
            assert 0 <= level.accuracy <= 1
        else:
            assert level.accuracy is None
    used = {level.level for level in result.levels if level.count}
    assert result.single_level == (result.rated >= 2 and len(used) == 1)


@PROPERTY
@given(st.lists(st.one_of(st.none(), st.floats(min_value=-100, max_value=100)), max_size=8))
def test_repeat_summary_properties(values):
    summary = repeat_summary(values)
    present = [v for v in values if v is not None]
    if not present:
        assert summary == RepeatSummary(None, None, None, None)
        return
    assert summary.min - 1e-9 <= summary.mean <= summary.max + 1e-9
    assert summary.spread == pytest.approx(summary.max - summary.min)
    assert summary.spread >= 0
    reversed_summary = repeat_summary(list(reversed(values)))
    assert reversed_summary.min == summary.min and reversed_summary.max == summary.max


@PROPERTY
@given(
    st.dictionaries(
        st.text(min_size=1, max_size=4), st.floats(min_value=-30, max_value=30), max_size=6
    ),
    st.floats(min_value=0, max_value=10),
)
def test_pairwise_gaps_properties(nets, floor):
    gaps = pairwise_gaps(nets, floor)
    k = len(nets)
    assert len(gaps) == k * (k - 1) // 2
    for gap in gaps:
        assert gap.gap >= 0
        assert gap.gap == nets[gap.a] - nets[gap.b]
        assert gap.is_noise == (gap.gap < floor - m.NOISE_TOLERANCE)
    assert {frozenset((g.a, g.b)) for g in gaps} == {
        frozenset(pair) for pair in permutations(nets, 2)
    }


def test_noise_floor_scales_linearly():
    for n in range(0, 200, 7):
        assert math.isclose(noise_floor(n), n / 10)


def test_the_modules_import_no_django():
    # Pure functions: importable without settings, apps or models.
    code = (
        "import sys, scoring.metrics, scoring.agreement.figures; "
        "sys.exit(any(name == 'django' or name.startswith('django.') for name in sys.modules))"
    )
    root = Path(__file__).resolve().parents[2]
    result = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr or "django was imported"
