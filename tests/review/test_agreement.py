"""Agreement figures end to end: scorers judge through judgement_decide, the page shows the
coefficients of scoring.agreement.figures, and they match values worked out by hand below."""

from fractions import Fraction

import pytest
from django.urls import reverse

from scoring.agreement import figures as agreement
from scoring.agreement import report as agreement_report
from scoring.queue import services
from scoring.reconciliation import services as reconcile_services
from tests.probe import factories
from tests.scoring.factories import judge, responses_in_order

from .conftest import build_experiment

C, W, H = "correct", "confident_wrong", "hedged_wrong"
# Twelve responses (4 sheets x 3 items, by sheet then item), as three scorers bucket them.
SCORER_A = [C, C, C, C, C, C, W, W, W, H, H, C]
SCORER_B = [C, C, C, C, C, W, W, W, H, H, C, C]
SCORER_C = [C, C, C, C, C, W, W, W, W, H, C, C]

# By hand, A and B: 9 of 12 agree -> p_o = 3/4. Margins A = B = (C 7, W 3, H 2) of 12, so
# p_e = (49 + 9 + 4) / 144 = 62/144 and kappa = (108 - 62) / (144 - 62) = 46/82. Fleiss with
# equal margins is the same. Alpha: 24 values (C 14, W 6, H 4); 3 disagreeing units give 6
# off-diagonal coincidences; expected = 24^2 - (196 + 36 + 16) = 328; alpha = 1 - 23 * 6 / 328.
TWO = {
    "percent": Fraction(3, 4),
    "cohen": Fraction(46, 82),
    "fleiss": Fraction(46, 82),
    "alpha": 1 - Fraction(23 * 6, 328),
}
# By hand, A, B and C: 9 units unanimous, 3 split 2-1 -> P_i = 1 or 1/3, P_bar = 10/12.
# Totals C 21, W 10, H 5 of 36: P_e = 566/1296; kappa = (1080 - 566) / (1296 - 566) = 514/730.
# Alpha: each split unit gives 4 ordered off pairs x 1/(3-1) = 2; 6 in all; expected
# 36^2 - 566 = 730; alpha = 1 - 35 * 6 / 730.
THREE = {
    "percent": Fraction(3, 4),
    "fleiss": Fraction(514, 730),
    "alpha": 1 - Fraction(35 * 6, 730),
}


@pytest.fixture
def scored_by(world):
    """The experiment and a function that has the named users score it with given buckets."""
    configs = [factories.ModelConfigFactory(team=world.team, label=f"agree-{i}") for i in range(5)]
    sheets = [(configs[i], 1, [(f"answer {i}-{j}", "MEDIUM") for j in range(3)]) for i in range(4)]
    # A fifth sheet answers UNKNOWN throughout: preset for everyone, judged by nobody, left out.
    sheets.append((configs[4], 1, [("UNKNOWN", "LOW")] * 3))
    experiment = build_experiment(
        world, sheets=sheets, keys=["k1", "k2", "k3"], name="Agreement", blocks=["A", "A", "B"]
    )
    units = [r for r in responses_in_order(experiment) if not r.abstained]

    def score(role, buckets):
        assignment = services.assignment_start(experiment=experiment, user=world.users[role])
        judge(assignment, dict(zip(units, buckets, strict=True)))
        return assignment

    return experiment, units, score


def close(value, fraction):
    return value == pytest.approx(float(fraction), abs=1e-12)


def test_two_scorers_match_the_functions_and_the_hand_computation(client, world, scored_by):
    experiment, units, score = scored_by
    score("scorer", SCORER_A)
    score("editor", SCORER_B)
    report = agreement_report.agreement_report(experiment)
    overall = report.overall
    assert overall.units == 12 and report.left_out == 3 and overall.raters == 2
    assert close(overall.percent, TWO["percent"])
    assert close(overall.cohen_kappa, TWO["cohen"])
    assert close(overall.fleiss_kappa, TWO["fleiss"])
    assert close(overall.krippendorff_alpha, TWO["alpha"])
    # ... and the library's functions on the same columns say the same.
    assert overall.cohen_kappa == agreement.cohen_kappa(SCORER_A, SCORER_B)
    ratings = list(zip(SCORER_A, SCORER_B, strict=True))
    assert overall.fleiss_kappa == agreement.fleiss_kappa(ratings)
    assert overall.krippendorff_alpha == agreement.krippendorff_alpha_nominal(ratings)

    # Per block: items 1-2 are block A, item 3 block B (units 3, 6, 9, 12).
    block_b = [i for i in range(12) if i % 3 == 2]
    block_a = [i for i in range(12) if i % 3 != 2]
    by_code = {b.code: b.summary for b in report.blocks}
    for code, idx in (("A", block_a), ("B", block_b)):
        a = [SCORER_A[i] for i in idx]
        b = [SCORER_B[i] for i in idx]
        assert by_code[code].units == len(idx)
        assert by_code[code].cohen_kappa == agreement.cohen_kappa(a, b)
        assert by_code[code].percent == agreement.percent_agreement(list(zip(a, b, strict=True)))

    # The confusion table, bucket by bucket: A's Confidently wrong against B's Hedged wrong is 1.
    (pair,) = report.pairs
    cells = {
        (row.label, label): count
        for row in pair.table.rows
        for label, count in zip(pair.table.labels, row.cells, strict=True)
    }
    assert cells[(W, H)] == 1 and cells[(C, W)] == 1 and cells[(H, C)] == 1
    assert cells[(C, C)] == 6 and pair.table.agreements == 9 and pair.table.total == 12

    # The page: closed until reconciliation, then the figures as printed.
    client.force_login(world.users["owner"])
    url = reverse("scoring:agreement", kwargs={"experiment_pk": experiment.pk})
    closed = client.get(url).content.decode()
    assert "0.561" not in closed and "Begin reconciliation" in closed
    reconcile_services.reconciliation_start(experiment=experiment, user=world.users["owner"])
    body = client.get(url).content.decode()
    assert "75.0 %" in body and "0.561" in body and "0.579" in body
    assert "Confidently wrong" in body and "Hedged wrong" in body


def test_three_scorers_fleiss_and_alpha_by_hand(world, scored_by):
    experiment, units, score = scored_by
    score("scorer", SCORER_A)
    score("editor", SCORER_B)
    score("owner", SCORER_C)
    report = agreement_report.agreement_report(experiment)
    overall = report.overall
    assert overall.raters == 3 and overall.cohen_kappa is None
    assert close(overall.percent, THREE["percent"])
    assert close(overall.fleiss_kappa, THREE["fleiss"])
    assert close(overall.krippendorff_alpha, THREE["alpha"])
    ratings = list(zip(SCORER_A, SCORER_B, SCORER_C, strict=True))
    assert overall.fleiss_kappa == agreement.fleiss_kappa(ratings)
    assert overall.krippendorff_alpha == agreement.krippendorff_alpha_nominal(ratings)
    # Pairwise tables for more than two scorers, each with its own kappa.
    assert [(p.a, p.b) for p in report.pairs] == [
        ("Scorer A", "Scorer B"),
        ("Scorer A", "Scorer C"),
        ("Scorer B", "Scorer C"),
    ]
    assert close(report.pairs[0].cohen_kappa, TWO["cohen"])
    assert report.pairs[2].cohen_kappa == agreement.cohen_kappa(SCORER_B, SCORER_C)


def test_agreement_waits_for_two_finished_scorers(world, scored_by):
    experiment, units, score = scored_by
    score("scorer", SCORER_A)
    assert agreement_report.agreement_report(experiment) is None
    partial = services.assignment_start(experiment=experiment, user=world.users["editor"])
    judge(partial, dict(zip(units[:5], SCORER_B[:5], strict=True)))
    assert agreement_report.agreement_report(experiment) is None


def test_ac1_counts_every_bucket_of_the_scheme(world):
    """Gwet's chance agreement depends on how many buckets there were to choose from: two
    scorers who used only Correct and Hedged wrong still chose among the scheme's four."""
    from scoring.agreement.chance import gwet_ac1
    from scoring.models import Bucket
    from scoring.queue import services
    from tests.review.conftest import build_experiment
    from tests.scoring.factories import judge, responses_in_order

    config = world.config
    experiment = build_experiment(
        world,
        sheets=[(config, 1, [("a", "HIGH"), ("b", "LOW"), ("c", "HIGH"), ("d", "LOW")])],
        keys=["a", "x", "c", "x"],
        name="AC1 scale",
    )
    responses = responses_in_order(experiment)
    one = services.assignment_start(experiment=experiment, user=world.users["scorer"])
    two = services.assignment_start(experiment=experiment, user=world.users["owner"])
    judge(
        one,
        dict(zip(responses, ["correct", "hedged_wrong", "correct", "hedged_wrong"], strict=True)),
    )
    judge(
        two,
        dict(
            zip(responses, ["correct", "hedged_wrong", "hedged_wrong", "hedged_wrong"], strict=True)
        ),
    )
    report = agreement_report.agreement_report(experiment)
    ratings = [
        ["correct", "correct"],
        ["hedged_wrong", "hedged_wrong"],
        ["correct", "hedged_wrong"],
        ["hedged_wrong", "hedged_wrong"],
    ]
    four = gwet_ac1(ratings, list(experiment.scheme_obj.buckets))
    assert report.overall.gwet_ac1 == pytest.approx(four)
    assert four != pytest.approx(gwet_ac1(ratings, [Bucket.CORRECT, Bucket.HEDGED_WRONG]))


def test_blocks_are_listed_in_the_experiments_order(world):
    """By each block's first item, as the bank has them, not by their codes sorted."""
    configs = [factories.ModelConfigFactory(team=world.team, label=f"order-{i}") for i in range(2)]
    sheets = [(configs[i], 1, [(f"answer {i}-{j}", "MEDIUM") for j in range(3)]) for i in range(2)]
    experiment = build_experiment(
        world, sheets=sheets, keys=["k1", "k2", "k3"], name="Order", blocks=["B", "2", "A"]
    )
    units = [r for r in responses_in_order(experiment) if not r.abstained]
    for role in ("scorer", "editor"):
        assignment = services.assignment_start(experiment=experiment, user=world.users[role])
        judge(assignment, dict.fromkeys(units, "correct"))
    report = agreement_report.agreement_report(experiment)
    assert [b.code for b in report.blocks] == ["B", "2", "A"]
