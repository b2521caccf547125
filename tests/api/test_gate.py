"""Comparison across experiments and the regression gate's three exit codes."""

import json
from io import StringIO

import pytest
from django.core.management import call_command

from probe.models import Experiment
from scoring import compare, reconcile_services
from tests.probe import factories
from tests.report.conftest import build
from tests.scoring.factories import key_decision, score_all

pytestmark = pytest.mark.django_db

N = 30


def _shared(world, *experiments):
    """Give the experiments' items the same bank items, position by position (one version)."""
    block = world.blocks[0]
    bank_items = [
        block.items.filter(question=f"Report question {n}?").first()
        or factories.ItemFactory(block=block, question=f"Report question {n}?", order=n)
        for n in range(1, N + 1)
    ]
    for experiment in experiments:
        for item in experiment.items.all():
            item.source_item = bank_items[item.position - 1]
            item.save()


def _scored(world, sheets, name):
    built = build(world, sheets, name=name, blocks=[("A", "HTTP", 15), ("B", "Python", 15)])
    score_all(built.experiment, world.users["scorer"])
    return built.experiment


def _gate(*args):
    out = StringIO()
    with pytest.raises(SystemExit) as exit_:
        call_command("gate", *[str(a) for a in args], stdout=out)
    return exit_.value.code, out.getvalue()


GOOD = "C" * 20 + "A" * 8 + "H" * 2
WORSE = "C" * 14 + "W" * 14 + "A" * 2  # more willing to answer, and to be confidently wrong


def test_a_candidate_that_is_the_same_passes(world):
    base = _scored(world, {("Model", 1): GOOD, ("Model", 2): GOOD}, "Baseline")
    cand = _scored(world, {("Model", 1): GOOD, ("Model", 2): GOOD}, "Candidate")
    _shared(world, base, cand)
    code, out = _gate("--baseline", base.pk, "--candidate", cand.pk)
    assert code == 0, out
    assert "not separable" in out and "gate passes" in out and "30 shared items" in out


def test_a_regression_beyond_the_interval_fails(world):
    base = _scored(world, {("Model", 1): GOOD}, "Baseline")
    cand = _scored(world, {("Model", 1): WORSE}, "Candidate")
    _shared(world, base, cand)
    result = compare.compare(base, cand)
    (row,) = result.rows
    # 20 - 0 = 20 against 14 - 14 = 0: a 20-item drop, the interval well below zero.
    assert (row.baseline, row.candidate, row.gap) == (20, 0, -20)
    assert row.high < 0 and row.worse and result.regression
    code, out = _gate("--baseline", base.pk, "--candidate", cand.pk, "--json")
    assert code == 1
    data = json.loads(out)
    assert data["regression"] is True and data["configurations"][0]["verdict"] == "worse"
    # The hallucination rate says the same the other way round (lower is better).
    code, out = _gate(
        "--baseline", base.pk, "--candidate", cand.pk, "--metric", "hallucination_rate"
    )
    assert code == 1 and "WORSE" in out


def test_the_interval_is_paired_and_reproducible(world):
    base = _scored(world, {("Model", 1): GOOD}, "Baseline")
    cand = _scored(world, {("Model", 1): "C" * 19 + "A" * 9 + "H" * 2}, "Candidate")
    _shared(world, base, cand)
    first, again = compare.compare(base, cand), compare.compare(base, cand)
    assert (first.rows[0].low, first.rows[0].high) == (again.rows[0].low, again.rows[0].high)
    # One item moved from correct to abstained: a gap of -1, within the noise.
    assert first.rows[0].gap == -1 and not first.regression
    assert first.rows[0].low <= -1 <= first.rows[0].high <= 0


def test_unfinished_scoring_cannot_tell(world):
    base = _scored(world, {("Model", 1): GOOD}, "Baseline")
    cand = build(world, {("Model", 1): WORSE}, name="Candidate", blocks=[("A", "HTTP", 30)])
    _shared(world, base, cand.experiment)
    code, out = _gate("--baseline", base.pk, "--candidate", cand.experiment.pk)
    assert code == 2 and "Scoring of Candidate is not finished" in out
    cand.experiment.status = Experiment.Status.COLLECTING
    cand.experiment.save()
    code, out = _gate("--baseline", base.pk, "--candidate", cand.experiment.pk, "--json")
    assert code == 2 and json.loads(out)["verdict"] == "cannot tell"


def test_different_prompts_are_refused_unless_accepted(world):
    base = _scored(world, {("Model", 1): GOOD}, "Baseline")
    cand = _scored(world, {("Model", 1): GOOD}, "Candidate")
    cand.prompt_version = factories.PromptVersionFactory(team=world.team, name="Tuned")
    cand.save()
    _shared(world, base, cand)
    code, out = _gate("--baseline", base.pk, "--candidate", cand.pk)
    assert code == 2 and "different prompt versions" in out
    code, out = _gate("--baseline", base.pk, "--candidate", cand.pk, "--allow-prompt-change")
    assert code == 0 and "prompt versions differ" in out


def test_an_item_judged_against_another_key_is_left_out_and_said(world):
    base = _scored(world, {("Model", 1): GOOD}, "Baseline")
    cand = build(world, {("Model", 1): GOOD}, name="Candidate", blocks=[("A", "HTTP", 30)])
    cand = cand.experiment
    _shared(world, base, cand)
    key_decision(
        cand,
        3,
        world.users["editor"],
        outcome="amended",
        source="the manual",
        new_answer="another key",
    )
    score_all(cand, world.users["scorer"])
    result = compare.compare(base, cand)
    assert result.items == N - 1
    assert any("Item 3 is judged against another key" in why for why in result.left_out)


def test_reconciled_final_buckets_are_used_and_a_new_model_pairs_with_the_old(world):
    base = build(world, {("Old model", 1): GOOD}, name="Baseline", blocks=[("A", "HTTP", 30)])
    cand = build(world, {("New model", 1): WORSE}, name="Candidate", blocks=[("A", "HTTP", 30)])
    _shared(world, base.experiment, cand.experiment)
    for built in (base, cand):
        score_all(built.experiment, world.users["scorer"])
        score_all(built.experiment, world.users["owner"])
        reconcile_services.reconciliation_start(
            experiment=built.experiment, user=world.users["editor"]
        )
    result = compare.compare(base.experiment, cand.experiment)
    assert result.sources == ("final", "final")
    assert [(r.baseline_label, r.candidate_label) for r in result.rows] == [
        ("Old model", "New model")
    ]
    assert result.regression
    with pytest.raises(compare.NotComparable, match="no configuration labelled"):
        compare.compare(base.experiment, cand.experiment, pair=("Old model", "Nope"))


def test_bad_arguments_are_clear(world):
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="No experiment with id 999999"):
        call_command("gate", "--baseline", "999999", "--candidate", "999998")


def test_the_gate_over_the_api(world, api_for):
    base = _scored(world, {("Model", 1): GOOD}, "Baseline")
    cand = _scored(world, {("Model", 1): WORSE}, "Candidate")
    _shared(world, base, cand)
    viewer = api_for("viewer")
    answer = viewer.get("/compare", baseline=base.pk, candidate=cand.pk)
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert body["verdict"] == "fail" and body["configurations"][0]["gap"] == -20
    assert [b["block"] for b in body["configurations"][0]["blocks"]] == ["A", "B"]
    same = viewer.get("/compare", baseline=base.pk, candidate=base.pk).json()
    assert same["verdict"] == "pass"
    unscored = build(world, {("Model", 1): GOOD}, name="Later", blocks=[("A", "HTTP", 30)])
    _shared(world, unscored.experiment)
    waiting = viewer.get("/compare", baseline=base.pk, candidate=unscored.experiment.pk)
    assert waiting.status_code == 409 and "not finished" in waiting.json()["detail"]
    assert viewer.get("/compare", baseline=base.pk, candidate=cand.pk, w="x").status_code == 422


def test_a_blinded_scorer_cannot_compare(world, api_for):
    base = _scored(world, {("Model", 1): GOOD}, "Baseline")
    cand = build(world, {("Model", 1): GOOD}, name="Candidate", blocks=[("A", "HTTP", 30)])
    from scoring import services

    services.assignment_start(experiment=cand.experiment, user=world.users["scorer"])
    answer = api_for("scorer").get("/compare", baseline=base.pk, candidate=cand.experiment.pk)
    assert answer.status_code == 409 and "Model" not in answer.content.decode()


def test_the_comparison_page(client, world):
    from tests.conftest import login

    base = _scored(world, {("Model", 1): GOOD}, "Baseline")
    cand = _scored(world, {("Model", 1): WORSE}, "Candidate")
    _shared(world, base, cand)
    login(client, world.users["viewer"])
    page = client.get(f"/t/{world.team.slug}/compare/", {"baseline": base.pk, "candidate": cand.pk})
    assert page.status_code == 200
    body = page.content.decode()
    assert "worse beyond noise" in body and "30 shared items" in body
    assert "Block B (15 items)" in body
    tuned = factories.PromptVersionFactory(team=world.team, name="Tuned")
    cand.prompt_version = tuned
    cand.save()
    refused = client.get(
        f"/t/{world.team.slug}/compare/", {"baseline": base.pk, "candidate": cand.pk}
    ).content.decode()
    assert "different prompt versions" in refused and "allow_prompt_change" in refused
    accepted = client.get(
        f"/t/{world.team.slug}/compare/",
        {"baseline": base.pk, "candidate": cand.pk, "allow_prompt_change": "1"},
    ).content.decode()
    assert "The prompt versions differ" in accepted and "worse beyond noise" in accepted
    # Another team's experiment is not offered, and not compared.
    rival = client.get(
        f"/t/{world.team.slug}/compare/", {"baseline": base.pk, "candidate": world.scored.pk + 999}
    )
    assert "Choose two experiments" in rival.content.decode()
