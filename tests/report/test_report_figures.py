"""The report's figures on real experiments: 30 items, runs, responses, judgements via the services.

Each expectation is worked by hand in the comment beside it.
"""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring import metrics
from scoring.models import Bucket, Judgement
from scoring.queue import services
from scoring.report.build import (
    _calibration,
    judgement_source,
    parse_weight,
    report_build,
    scorer_report,
)
from scoring.schemes import AAScheme, FourBucketScheme
from tests.scoring.factories import score_all

from .conftest import build

EXAMPLE_12 = "C" * 20 + "W" * 8 + "H" * 2  # 20 correct + 8 confidently wrong + 2 others
EXAMPLE_14 = "C" * 16 + "A" * 12 + "W" * 2  # 16 correct + 12 abstained + 2 confidently wrong


def config(report, label):
    return next(c for c in report.configs if c.label == label)


def test_design_worked_examples_on_a_real_experiment(world, scorer):
    built = build(world, {("Twelve", 1): EXAMPLE_12, ("Fourteen", 1): EXAMPLE_14})
    report = scorer_report(score_all(built.experiment, scorer))
    twelve, fourteen = config(report, "Twelve").runs[0], config(report, "Fourteen").runs[0]

    assert (
        twelve.counts.correct,
        twelve.counts.confident_wrong,
        twelve.counts.hedged_wrong,
        twelve.counts.abstained,
    ) == (20, 8, 2, 0)
    assert twelve.figures.net_usable == 12  # 20 - 1 x 8
    assert twelve.figures.knowledge == pytest.approx(20 / 30)
    assert twelve.figures.hallucination_rate == pytest.approx(8 / 30)  # nothing abstained

    assert (
        fourteen.counts.correct,
        fourteen.counts.abstained,
        fourteen.counts.confident_wrong,
    ) == (16, 12, 2)
    assert fourteen.figures.net_usable == 14  # 16 - 1 x 2
    assert fourteen.figures.knowledge == pytest.approx(16 / 30)
    # The denominator leaves the 12 abstentions out: 2 / (30 - 12) = 2 / 18, not 2 / 30.
    assert fourteen.figures.hallucination_rate == pytest.approx(2 / 18)
    assert report.n_items == 30 and report.scored == 60 and report.unscored == 0


def test_w_changes_net_usable(world, scorer):
    built = build(world, {("Twelve", 1): EXAMPLE_12, ("Fourteen", 1): EXAMPLE_14})
    assignment = score_all(built.experiment, scorer)
    report = scorer_report(assignment, w=2)
    assert config(report, "Twelve").runs[0].figures.net_usable == 4  # 20 - 2 x 8
    assert config(report, "Fourteen").runs[0].figures.net_usable == 12  # 16 - 2 x 2
    report = scorer_report(assignment, w=0.5)
    assert config(report, "Twelve").runs[0].figures.net_usable == 16  # 20 - 0.5 x 8
    # w changes nothing but net usable
    assert config(report, "Twelve").runs[0].figures.knowledge == pytest.approx(20 / 30)


def test_repeat_mean_and_range(world, scorer):
    built = build(
        world,
        {
            ("Twelve", 1): EXAMPLE_12,  # net 12
            ("Twelve", 2): "C" * 21 + "W" * 7 + "A" * 2,  # net 14
            ("Twelve", 3): "C" * 19 + "W" * 9 + "A" * 2,  # net 10
        },
    )
    report = scorer_report(score_all(built.experiment, scorer))
    twelve = config(report, "Twelve")
    assert [r.repeat for r in twelve.runs] == [1, 2, 3]
    assert [r.figures.net_usable for r in twelve.runs] == [12, 14, 10]
    net = twelve.summary["net_usable"]
    assert (net.mean, net.min, net.max, net.spread) == (12, 10, 14, 4)
    assert twelve.summary["correct"].mean == 20  # (20 + 21 + 19) / 3
    assert twelve.summary["knowledge"].min == pytest.approx(19 / 30)
    assert report.repeats == 3


def test_gaps_under_the_noise_floor_are_noise(world, scorer):
    built = build(
        world,
        {
            ("Alpha", 1): "C" * 20 + "W" * 8 + "A" * 2,  # net 12
            ("Alpha", 2): "C" * 22 + "W" * 8 + "",  # net 14  -> mean 13
            ("Beta", 1): "C" * 16 + "A" * 12 + "W" * 2,  # net 14
            ("Beta", 2): "C" * 14 + "A" * 14 + "W" * 2,  # net 12  -> mean 13
            ("Gamma", 1): "C" * 10 + "W" * 2 + "A" * 18,  # net 8
            ("Gamma", 2): "C" * 10 + "W" * 2 + "A" * 18,  # net 8   -> mean 8
        },
    )
    report = scorer_report(score_all(built.experiment, scorer))
    assert report.noise_floor == 3  # 3 items per 30, the default
    assert report.noise_floor_default
    gaps = {(g.a.label, g.b.label): (g.gap, g.is_noise) for g in report.gaps}
    # Alpha and Beta tie on 13: the mapping order (labels sorted) is kept.
    assert gaps == {
        ("Alpha", "Beta"): (0, True),
        ("Alpha", "Gamma"): (5, False),
        ("Beta", "Gamma"): (5, False),
    }


def test_the_experiments_own_noise_floor(world, scorer):
    built = build(
        world,
        {
            ("Alpha", 1): "C" * 20 + "W" * 8 + "A" * 2,  # 12
            ("Beta", 1): "C" * 14 + "W" * 0 + "A" * 16,
        },  # 14
        noise_floor=1.5,
    )
    report = scorer_report(score_all(built.experiment, scorer))
    assert report.noise_floor == 1.5 and not report.noise_floor_default
    (gap,) = report.gaps
    assert (gap.a.label, gap.b.label, gap.gap, gap.is_noise) == ("Beta", "Alpha", 2, False)


def test_noise_floor_scales_with_the_items(world, scorer):
    built = build(world, {("Alpha", 1): "C" * 10, ("Beta", 1): "C" * 9 + "W"})
    report = scorer_report(score_all(built.experiment, scorer))
    assert report.noise_floor == 1  # 3 x 10 / 30
    (gap,) = report.gaps
    assert gap.gap == 2 and not gap.is_noise  # 10 - 8


def test_per_block_figures(world, scorer):
    # Block A: items 1-10; block B: items 11-30.
    letters = "C" * 8 + "W" * 2 + "C" * 5 + "A" * 10 + "H" * 5
    built = build(
        world,
        {("Alpha", 1): letters, ("Alpha", 2): "C" * 10 + "A" * 20},
        blocks=[("A", "HTTP", 10), ("B", "Python", 20)],
    )
    report = scorer_report(score_all(built.experiment, scorer))
    a, b = report.blocks
    assert (a.code, a.title, a.n_items, b.code, b.n_items) == ("A", "HTTP", 10, "B", 20)
    run1, run2 = config(report, "Alpha").runs
    assert run1.blocks["A"].correct == 8 and run1.blocks["A"].net_usable == 6  # 8 - 2
    assert run1.blocks["B"].correct == 5 and run1.blocks["B"].hedged_wrong == 5
    assert run1.blocks["B"].hallucination_rate == 0  # 0 confident wrong of 10 attempted
    assert run2.blocks["A"].knowledge == 1 and run2.blocks["B"].hallucination_rate is None
    cell = a.cells[0]
    assert cell.summary["net_usable"].mean == 8  # (6 + 10) / 2
    assert cell.summary["knowledge"].mean == pytest.approx(0.9)  # (0.8 + 1.0) / 2
    assert a.floor == pytest.approx(1) and b.floor == pytest.approx(2)  # 3 per 30 items


def test_hallucination_rate_is_none_when_nothing_was_attempted(world, scorer):
    built = build(world, {("Silent", 1): "A" * 30, ("Talker", 1): "C" * 30})
    report = scorer_report(score_all(built.experiment, scorer))
    silent = config(report, "Silent").runs[0]
    assert silent.figures.hallucination_rate is None
    assert silent.figures.knowledge == 0 and silent.figures.net_usable == 0
    assert config(report, "Silent").summary["hallucination_rate"].mean is None


def test_calibration_per_level_and_the_single_level_warning(world, scorer):
    built = build(
        world,
        {
            # HIGH: 10 correct + 5 wrong; MEDIUM: 4 correct + 4 wrong; LOW: 1 correct + 3 wrong; 3 UNKNOWN
            ("Spread", 1): "C" * 10 + "W" * 5 + "m" * 4 + "M" * 4 + "c" + "H" * 3 + "A" * 3,
            ("Flat", 1): "C" * 18 + "W" * 10 + "A" * 2,  # every attempted answer at HIGH
        },
    )
    report = scorer_report(score_all(built.experiment, scorer))
    spread = config(report, "Spread").calibration
    assert [(lv.level, lv.count, lv.correct) for lv in spread.levels] == [
        ("HIGH", 15, 10),
        ("MEDIUM", 8, 4),
        ("LOW", 4, 1),
    ]
    assert spread["HIGH"].accuracy == pytest.approx(10 / 15)
    assert spread.attempted == 27 and not spread.single_level
    flat = config(report, "Flat").calibration
    assert flat.single_level and flat.single_level_name == "HIGH"
    assert flat["MEDIUM"].accuracy is None


def test_format_compliance_and_its_most_common_issues(world, scorer):
    built = build(
        world,
        {("Alpha", 1): "C" * 30, ("Alpha", 2): "C" * 30, ("Beta", 1): "C" * 30},
        issues={
            ("Alpha", 1): {1: ["missing_confidence"], 2: ["missing_confidence", "markdown"]},
            ("Alpha", 2): {5: ["markdown"], 6: ["markdown"], 7: ["label_case"]},
        },
    )
    report = scorer_report(score_all(built.experiment, scorer))
    alpha = config(report, "Alpha").compliance
    assert (alpha.responses, alpha.clean) == (60, 55)
    assert alpha.share == pytest.approx(55 / 60)
    assert [(code, n) for code, _label, n in alpha.top_issues] == [
        ("markdown", 3),
        ("missing_confidence", 2),
        ("label_case", 1),
    ]
    assert alpha.top_issues[0][1] == "Markdown formatting"
    assert config(report, "Beta").compliance.share == 1
    assert config(report, "Alpha").runs[1].compliance.clean == 27


def test_decisions_changed_after_the_reveal_are_counted(world, scorer):
    built = build(world, {("Alpha", 1): EXAMPLE_12, ("Beta", 1): EXAMPLE_14})
    assignment = score_all(built.experiment, scorer)
    assert scorer_report(assignment).unblinded == 0
    wrong = Judgement.objects.get(
        assignment=assignment, response__run=built.runs[("Alpha", 1)], response__item__position=21
    ).response
    services.judgement_decide(assignment=assignment, responses=[wrong], bucket=Bucket.CORRECT)
    report = scorer_report(assignment)
    assert report.unblinded == 1
    alpha = config(report, "Alpha")
    assert alpha.unblinded == 1 and alpha.runs[0].unblinded == 1
    assert alpha.runs[0].figures.net_usable == 14  # 21 - 7
    assert config(report, "Beta").unblinded == 0


def test_second_scheme(world, scorer):
    # 15 correct, 6 incorrect, 4 partial, 5 not attempted
    built = build(
        world,
        {
            ("Alpha", 1): "C" * 15 + "W" * 6 + "P" * 4 + "A" * 5,
            ("Beta", 1): "C" * 12 + "W" * 3 + "P" * 0 + "A" * 15,
        },
        scheme=AAScheme.key,
    )
    report = scorer_report(score_all(built.experiment, scorer))
    assert report.scheme == AAScheme.key
    alpha = config(report, "Alpha").runs[0]
    assert (
        alpha.counts.correct,
        alpha.counts.incorrect,
        alpha.counts.partial,
        alpha.counts.not_attempted,
    ) == (15, 6, 4, 5)
    f = alpha.figures
    assert f.index == pytest.approx(30)  # 100 x (15 - 6) / 30
    assert f.accuracy == pytest.approx(0.5)
    assert f.attempt_rate == pytest.approx(25 / 30)
    assert f.partial_rate == pytest.approx(4 / 30)
    assert f.abstention_rate == pytest.approx(5 / 30)
    assert f.hallucination_rate == pytest.approx(6 / 15)  # 6 / (6 + 4 + 5)
    beta = config(report, "Beta").runs[0]
    assert beta.figures.index == pytest.approx(30)  # 100 x (12 - 3) / 30
    assert beta.figures.hallucination_rate == pytest.approx(3 / 18)
    # AA gaps are in index points; the floor of 3 items of 30 is 10 points.
    assert report.noise_floor == pytest.approx(10)
    (gap,) = report.gaps
    assert gap.gap == 0 and gap.is_noise


def test_the_bucket_source_seam_takes_any_rows_with_a_response_and_a_bucket(world, scorer):
    built = build(world, {("Alpha", 1): EXAMPLE_12})
    assignment = score_all(built.experiment, scorer)
    source = judgement_source(assignment)
    # Another source of the same shape (here: only the correct ones) needs no other code.
    partial = type(source)(
        experiment=built.experiment,
        rows=Judgement.objects.filter(assignment=assignment, bucket="correct"),
    )
    report = report_build(partial)
    run = report.configs[0].runs[0]
    assert run.counts.correct == 20 and run.figures.unscored == 10
    assert not report.has_unblinded_field and report.scorer == ""


def test_another_experiments_rows_are_never_counted(world, scorer):
    one = build(world, {("Alpha", 1): EXAMPLE_12}, name="One")
    two = build(world, {("Alpha2", 1): EXAMPLE_14}, name="Two")
    a1, a2 = score_all(one.experiment, scorer), score_all(two.experiment, scorer)
    source = judgement_source(a1)
    mixed = type(source)(
        experiment=one.experiment, rows=Judgement.objects.filter(assignment__in=[a1, a2])
    )
    assert report_build(mixed).scored == 30


def test_parse_weight():
    assert parse_weight(None) == 1 and parse_weight("") == 1 and parse_weight("2") == 2
    assert parse_weight("0,5") == 0.5
    for bad in ("-1", "101", "nan", "inf", "x"):
        with pytest.raises(ValueError):
            parse_weight(bad)


@pytest.mark.parametrize("scheme", [FourBucketScheme.key, AAScheme.key])
def test_query_count_does_not_grow_with_the_items(world, scorer, scheme):
    def queries(n_items):
        letters = ("CWHAm" * 10)[:n_items]
        built = build(
            world,
            {("Alpha", 1): letters, ("Alpha", 2): letters, ("Beta", 1): letters},
            name=f"{n_items} items",
            scheme=scheme,
            blocks=[("A", "a", n_items // 2), ("B", "b", n_items - n_items // 2)],
        )
        assignment = score_all(built.experiment, scorer)
        with CaptureQueriesContext(connection) as ctx:
            report = scorer_report(assignment)
        assert report.n_items == n_items
        return len(ctx)

    assert queries(10) == queries(30) <= 7  # experiment, user, four counts, the bucket rows


@given(
    st.dictionaries(
        st.tuples(
            st.sampled_from([None, "HIGH", "MEDIUM", "LOW"]),
            st.sampled_from(["correct", "confident_wrong", "hedged_wrong", "abstained"]),
        ),
        st.integers(min_value=0, max_value=40),
        max_size=16,
    )
)
@settings(max_examples=200, deadline=None)
def test_calibration_from_grouped_counts_equals_metrics_calibration(cells):
    # report._calibration counts what the database grouped; metrics.calibration takes one row per
    # answer. They must agree.
    rows = [
        (confidence, bucket == "correct", bucket == "abstained")
        for (confidence, bucket), n in cells.items()
        for _ in range(n)
    ]
    assert _calibration(cells, FourBucketScheme.key) == metrics.calibration(rows)


def test_the_final_buckets_make_a_report_through_the_same_seam(world, scorer):
    from scoring.models import FinalBucket
    from scoring.report.build import final_source

    built = build(world, {("Alpha", 1): EXAMPLE_14, ("Beta", 1): EXAMPLE_12})
    assignment = score_all(built.experiment, scorer)
    # Final buckets as a reconciliation would leave them: here, one scorer's, one changed.
    FinalBucket.objects.bulk_create(
        FinalBucket(response_id=j.response_id, bucket=j.bucket, unanimous=True)
        for j in Judgement.objects.filter(assignment=assignment)
    )
    FinalBucket.objects.filter(
        response__run=built.runs[("Beta", 1)], response__item__position=21
    ).update(bucket="correct")
    report = report_build(final_source(built.experiment))
    assert config(report, "Alpha").runs[0].figures.net_usable == 14
    assert config(report, "Beta").runs[0].figures.net_usable == 14  # 21 - 7
    assert report.scorer == "" and not report.has_unblinded_field
