"""The scoring schemes: each existing scheme's mapping as it always was, and a third scheme added as
one class (the tests' two-bucket scheme, scoring/schemes/rightwrong.py) working through decisions, the report's
figures, the report page and the figures export without any other code knowing of it."""

import csv
import io
from itertools import product
from types import SimpleNamespace

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from probe.models import Experiment, Response
from scoring import metrics, schemes
from scoring.models import Bucket, Judgement
from scoring.queue import services
from scoring.report import exports
from scoring.report.build import report_build, scorer_report
from scoring.report.source import judgement_source
from scoring.schemes import AA, FOUR, AAScheme, FourBucketScheme, RightWrongScheme, scheme_for
from tests.report.conftest import build
from tests.report.test_report_page import rows_after, tables, url
from tests.scoring.factories import score_all

# ------------------------------------------------------------------------------------------------
# The two schemes against the branches they replace
# ------------------------------------------------------------------------------------------------


def branch_abstain_bucket(scheme: str) -> str:
    """What the code said before the schemes had a class of their own."""
    return Bucket.NOT_ATTEMPTED if scheme == "aa" else Bucket.ABSTAINED


def branch_derive(scheme: str, verdict: str, response) -> str | None:
    if verdict == "correct":
        return Bucket.CORRECT
    if response.abstained or response.answer is None:
        return branch_abstain_bucket(scheme)
    if scheme == "aa":
        return Bucket.INCORRECT
    if response.hedged:
        return None
    if response.confidence in {"HIGH", "MEDIUM"}:
        return Bucket.CONFIDENT_WRONG
    if response.confidence == "LOW":
        return Bucket.HEDGED_WRONG
    return None


RESPONSES = [
    SimpleNamespace(abstained=abstained, answer=answer, hedged=hedged, confidence=confidence)
    for abstained, answer, hedged, confidence in product(
        (False, True), ("an answer", None), (False, True), ("HIGH", "MEDIUM", "LOW", "", "high")
    )
]


@pytest.mark.parametrize("key", ["four", "aa"])
def test_each_scheme_derives_the_bucket_the_branches_did(key):
    scheme = scheme_for(key)
    for verdict, response in product(("correct", "wrong"), RESPONSES):
        assert scheme.derive(verdict, response) == branch_derive(key, verdict, response)
        assert services.derive_bucket(scheme=key, verdict=verdict, response=response) == (
            branch_derive(key, verdict, response)
        )
    assert scheme.preset_bucket == branch_abstain_bucket(key)
    assert services.abstain_bucket(key) == branch_abstain_bucket(key)


def test_the_buckets_and_their_keys_are_those_the_pages_had():
    assert FOUR.buckets == (
        Bucket.CORRECT,
        Bucket.CONFIDENT_WRONG,
        Bucket.HEDGED_WRONG,
        Bucket.ABSTAINED,
    )
    assert AA.buckets == (Bucket.CORRECT, Bucket.INCORRECT, Bucket.PARTIAL, Bucket.NOT_ATTEMPTED)
    for scheme in (FOUR, AA):
        assert scheme.bucket_keys == [
            (str(i), b, Bucket(b).label) for i, b in enumerate(scheme.buckets, start=1)
        ]
        assert scheme.allows(Bucket.CORRECT)
    assert not FOUR.allows(Bucket.PARTIAL) and not AA.allows(Bucket.CONFIDENT_WRONG)
    # The stored values are the experiment's choices, each with its scheme.
    assert {s.key for s in schemes.registered()} >= {FourBucketScheme.key, AAScheme.key}
    assert dict(Experiment._meta.get_field("scheme").choices) == {
        s.key: s.label for s in schemes.registered()
    }
    with pytest.raises(schemes.UnknownScheme):
        scheme_for("nope")


def test_each_scheme_figures_and_report_settings_as_the_branches_had():
    counts = {"correct": 16, "confident_wrong": 2, "abstained": 12}
    _counts, figures = FOUR.figures(counts, 30, 2.0)
    assert figures == metrics.four_bucket_figures(metrics.BucketCounts(16, 2, 0, 12), 30, 2.0)
    assert FOUR.compared(figures) == 12 and FOUR.summary_names[-1] == "unscored"
    _counts, aa = AA.figures({"correct": 12, "incorrect": 6, "partial": 3}, 30, 2.0)
    assert aa == metrics.aa_figures(12, 6, 3, 0, n_items=30)
    assert AA.compared(aa) == aa.index and AA.summary_values(aa)["net"] == 6
    # w: the four-bucket scheme's only; the floor: items, or index points per item for AA.
    assert (FOUR.weight(2.0), AA.weight(2.0)) == (2.0, None)
    assert (FOUR.risk_weight(2.0), AA.risk_weight(2.0)) == (2.0, 1.0)
    assert FOUR.noise_floor(3, 30) == 3 and AA.noise_floor(3, 30) == 10
    assert FOUR.slice_floor(3, 3, 6, 30) == pytest.approx(0.6)
    assert AA.slice_floor(10, 3, 6, 30) == 10
    assert [h[0] for h in FOUR.headlines] == ["knowledge", "hallucination_rate", "net_usable"]
    assert [h[0] for h in AA.headlines] == ["index", "accuracy", "hallucination_rate"]
    assert (FOUR.hallucination_column, AA.hallucination_column) == (
        "hallucination_rate_probe",
        "hallucination_rate_aa",
    )
    assert FOUR.export_intervals == (
        ("knowledge", "knowledge"),
        ("hallucination_rate_probe", "hallucination_rate"),
        ("net_usable", "net"),
    )
    assert AA.export_intervals[0] == ("index", "net")
    assert AA.export_slice_intervals == ("accuracy", "index")
    assert FOUR.export_slice_intervals == ("knowledge", "net_usable")
    assert (FOUR.summary_width, AA.summary_width) == (8, 11)
    assert FOUR.uses_weight and not AA.uses_weight


def test_the_experiment_and_the_report_carry_their_scheme(world, scorer):
    built = build(world, {("Alpha", 1): "C" * 4 + "A"}, scheme=AAScheme.key)
    assert built.experiment.scheme_obj is AA
    report = scorer_report(score_all(built.experiment, scorer))
    assert report.scheme == "aa" and report.scheme_obj is AA
    assert report.bucket_names == AA.buckets


# ------------------------------------------------------------------------------------------------
# A third scheme, one class
# ------------------------------------------------------------------------------------------------


@pytest.fixture
def right_wrong():
    return scheme_for("rw")


@pytest.fixture
def scorer(world):
    return world.users["scorer"]


def test_a_registered_scheme_decides_its_buckets(right_wrong, world, scorer):
    assert isinstance(right_wrong, RightWrongScheme)
    for response in RESPONSES:
        assert right_wrong.derive("correct", response) == Bucket.CORRECT
        assert right_wrong.derive("wrong", response) == Bucket.INCORRECT  # never left open
    built = build(world, {("Alpha", 1): "CWHA"}, scheme="rw")
    assert built.experiment.scheme_obj is right_wrong
    assignment = services.assignment_start(experiment=built.experiment, user=scorer)
    preset = Judgement.objects.get(assignment=assignment)
    assert (preset.bucket, preset.verdict) == (Bucket.INCORRECT, Judgement.Verdict.PRESET)
    responses = list(Response.objects.filter(run__experiment=built.experiment).order_by("item"))
    services.judgement_decide(assignment=assignment, responses=responses[2:3], verdict="wrong")
    assert Judgement.objects.get(response=responses[2]).bucket == Bucket.INCORRECT
    with pytest.raises(ValidationError):
        services.judgement_decide(
            assignment=assignment, responses=responses[:1], bucket=Bucket.HEDGED_WRONG
        )
    services.judgement_decide(assignment=assignment, responses=responses[:1], bucket="correct")
    assert Judgement.objects.get(response=responses[0]).bucket == Bucket.CORRECT


def test_a_registered_scheme_has_its_figures_page_and_export(right_wrong, world, scorer, client):
    built = build(
        world,
        {
            ("Alpha", 1): "C" * 6 + "W" * 2 + "H" + "A",  # 6 right, 4 wrong: balance 2
            ("Alpha", 2): "C" * 7 + "W" * 2 + "A",  # 7 right, 3 wrong: balance 4
            ("Beta", 1): "C" * 3 + "M" * 7,  # 3 right, 7 wrong: balance -4
        },
        blocks=[("A", "First", 5), ("B", "Second", 5)],
        scheme="rw",
    )
    assignment = score_all(built.experiment, scorer)
    report = scorer_report(assignment)
    alpha = next(c for c in report.configs if c.label == "Alpha")
    assert [run.figures.balance for run in alpha.runs] == [2, 4]
    assert [run.net for run in alpha.runs] == [2, 4]
    assert alpha.summary["balance"].mean == 3
    assert alpha.summary["accuracy"].mean == pytest.approx(0.65)
    assert alpha.ci["net"] is not None and alpha.ci["accuracy"] is not None
    assert report.gaps[0].gap == 7 and report.gaps[0].test is not None
    assert report.blocks[0].cells[0].ci["balance"] is not None
    assert report.inference.sweep is not None  # it has a weight, so a sweep
    # w = 2: 6 - 2 x 4 = -2 and 7 - 2 x 3 = 1
    assert (
        report_build(judgement_source(assignment), w=2).configs[0].summary["balance"].mean == -0.5
    )

    client.force_login(scorer)
    response = client.get(url(assignment))
    assert response.status_code == 200
    body = response.content.decode()
    assert "scheme: right or wrong." in body and "Balance: which differ" in body
    assert 'id="id_w"' in body
    summary = tables(body)["summary-table"]
    assert summary[0] == ["Configuration / repeat", "Correct", "Incorrect", "Accuracy", "Balance"]
    assert rows_after(summary, "Alpha")[0] == ["Repeat 1", "6", "4", "60 %", "2"]
    blocks = tables(body)["block-table"]
    assert blocks[1] == ["Correct", "Accuracy", "Balance"] * 2

    export = reverse(
        "scoring:export",
        kwargs={"assignment_token": assignment.token, "what": "figures", "fmt": "csv"},
    )
    rows = list(csv.DictReader(io.StringIO(client.get(export).content.decode())))
    configuration = next(
        r for r in rows if r["row"] == "configuration" and r["configuration"] == "Alpha"
    )
    assert configuration["scheme"] == "rw" and float(configuration["w"]) == 1
    assert float(configuration["balance"]) == 3 and float(configuration["balance_max"]) == 4
    assert float(configuration["accuracy"]) == pytest.approx(0.65)
    assert exports.figure_columns(report)[-3:] == ["balance", "balance_min", "balance_max"]


def test_the_test_scheme_is_offered_only_with_its_setting(settings):
    assert "rw" in {s.key for s in schemes.registered()}  # stored experiments keep working
    assert "rw" in {s.key for s in schemes.offered()}  # the test settings turn it on
    settings.SCORING_TEST_SCHEMES = False
    assert [s.key for s in schemes.offered()] == ["four", "aa"]
