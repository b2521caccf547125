"""Comparison across experiments, and the regression gate: every exit code and message, and
the one JSON shape of the command and the API."""

import json
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from probe.models import Experiment
from scoring.comparison import compare, gate_report
from scoring.reconciliation import services as reconcile_services
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
    """(exit code, stdout, stderr) of the gate command, as a CI step sees them."""
    out, err = StringIO(), StringIO()
    with pytest.raises(SystemExit) as exit_:
        call_command("gate", *[str(a) for a in args], stdout=out, stderr=err)
    return exit_.value.code, out.getvalue(), err.getvalue()


def _gate_json(*args):
    code, out, _err = _gate(*args, "--json")
    return code, json.loads(out)


GOOD = "C" * 20 + "A" * 8 + "H" * 2
WORSE = "C" * 14 + "W" * 14 + "A" * 2  # more willing to answer, and to be confidently wrong


def test_a_candidate_that_is_the_same_passes(world):
    base = _scored(world, {("Model", 1): GOOD, ("Model", 2): GOOD}, "Baseline")
    cand = _scored(world, {("Model", 1): GOOD, ("Model", 2): GOOD}, "Candidate")
    _shared(world, base, cand)
    code, out, _err = _gate("--baseline", base.pk, "--candidate", cand.pk)
    assert code == 0, out
    assert "not separable" in out and "the gate passes" in out and "30 shared items" in out
    code, body = _gate_json("--baseline", base.pk, "--candidate", cand.pk)
    # The verdict is there on success too, with the exit code the command gives.
    assert (code, body["verdict"], body["exit_code"], body["regression"]) == (0, "pass", 0, False)


def test_a_regression_beyond_noise_fails(world):
    base = _scored(world, {("Model", 1): GOOD}, "Baseline")
    cand = _scored(world, {("Model", 1): WORSE}, "Candidate")
    _shared(world, base, cand)
    result = compare.compare(base, cand)
    (row,) = result.rows
    # 20 - 0 = 20 against 14 - 14 = 0: a 20-item drop; the upper bound, at the level Holm's
    # correction tested it at (three hypotheses: the pair, blocks A and B), is below zero.
    assert (row.baseline, row.candidate, row.gap) == (20, 0, -20)
    assert row.high < 0 and row.worse and result.regression
    assert row.test.p_worse_holm <= 0.05 and row.test.high_level == pytest.approx(1 - 0.05 / 3)
    code, data = _gate_json("--baseline", base.pk, "--candidate", cand.pk)
    assert code == 1 and data["verdict"] == "fail" and data["exit_code"] == 1
    assert data["regression"] is True and data["configurations"][0]["verdict"] == "worse"
    # The hallucination rate says the same the other way round (lower is better).
    code, out, _err = _gate(
        "--baseline", base.pk, "--candidate", cand.pk, "--metric", "hallucination_rate"
    )
    assert code == 1 and "WORSE" in out and "the gate fails" in out


def test_a_block_worse_beyond_noise_fails_the_gate_on_its_own(world):
    # Block A (15 items) loses 12 correct answers to confident errors, block B gains 12 correct
    # answers: the overall gap is 0 - 12 x 1 = -12 net; the block is tested in the same family.
    base = _scored(world, {("Model", 1): "C" * 15 + "A" * 15}, "Baseline")
    cand = _scored(world, {("Model", 1): "C" * 3 + "W" * 12 + "C" * 12 + "A" * 3}, "Candidate")
    _shared(world, base, cand)
    result = compare.compare(base, cand)
    (row,) = result.rows
    block_a, block_b = row.blocks
    assert (block_a.gap, block_b.gap) == (-24, 12)
    assert block_a.worse and block_a.high < 0 and block_b.better and block_b.low > 0
    assert result.regression


def test_the_interval_is_paired_and_reproducible(world):
    base = _scored(world, {("Model", 1): GOOD}, "Baseline")
    cand = _scored(world, {("Model", 1): "C" * 19 + "A" * 9 + "H" * 2}, "Candidate")
    _shared(world, base, cand)
    first, again = compare.compare(base, cand), compare.compare(base, cand)
    assert (first.rows[0].low, first.rows[0].high) == (again.rows[0].low, again.rows[0].high)
    # One item moved from correct to abstained: a gap of -1, within the noise, so the worse-side
    # end (the upper one, for net usable) is not below 0.
    assert first.rows[0].gap == -1 and not first.regression
    assert first.rows[0].low <= -1 < 0 <= first.rows[0].high


def test_unfinished_scoring_cannot_tell_yet(world):
    base = _scored(world, {("Model", 1): GOOD}, "Baseline")
    cand = build(world, {("Model", 1): WORSE}, name="Candidate", blocks=[("A", "HTTP", 30)])
    _shared(world, base, cand.experiment)
    code, out, _err = _gate("--baseline", base.pk, "--candidate", cand.experiment.pk)
    assert code == 2 and out == "Cannot tell yet: Scoring of Candidate is not finished.\n"
    cand.experiment.status = Experiment.Status.COLLECTING
    cand.experiment.save()
    code, body = _gate_json("--baseline", base.pk, "--candidate", cand.experiment.pk)
    assert code == 2 and body["verdict"] == "cannot tell yet" and body["exit_code"] == 2
    assert body["detail"] == "Candidate is not collected yet." and body["configurations"] == []


def test_different_prompts_cannot_be_judged_unless_accepted(world):
    base = _scored(world, {("Model", 1): GOOD}, "Baseline")
    cand = _scored(world, {("Model", 1): GOOD}, "Candidate")
    cand.prompt_version = factories.PromptVersionFactory(team=world.team, name="Tuned")
    cand.save()
    _shared(world, base, cand)
    code, out, _err = _gate("--baseline", base.pk, "--candidate", cand.pk)
    # No waiting changes a prompt: not "Cannot tell yet".
    assert code == 2 and out.startswith("Cannot judge: ") and "different prompt versions" in out
    code, out, _err = _gate("--baseline", base.pk, "--candidate", cand.pk, "--allow-prompt-change")
    assert code == 0 and "prompt versions differ" in out


def _share_only(world, base, cand, count):
    """The two experiments share their first ``count`` items; the others are different items."""
    _shared(world, base, cand)
    block = world.blocks[0]
    for item in cand.items.filter(position__gt=count):
        item.source_item = factories.ItemFactory(block=block, question=f"Other {item.position}?")
        item.save()


def test_too_few_shared_items_cannot_be_judged_and_the_minimum_is_settable(world):
    base = _scored(world, {("Model", 1): GOOD}, "Baseline")
    cand = _scored(world, {("Model", 1): WORSE}, "Candidate")
    _share_only(world, base, cand, 1)
    code, out, _err = _gate("--baseline", base.pk, "--candidate", cand.pk)
    assert code == 2 and out == (
        "Cannot judge: The two experiments share 1 items; the gate judges from 30 shared items "
        "on, and more scoring will not add any.\n"
    )
    _share_only(world, base, cand, 20)
    code, body = _gate_json("--baseline", base.pk, "--candidate", cand.pk)
    assert (code, body["verdict"], body["min_items"]) == (2, "cannot judge", 30)
    assert "share 20 items" in body["detail"]
    code, body = _gate_json("--baseline", base.pk, "--candidate", cand.pk, "--min-items", "20")
    assert code in (0, 1) and body["items"] == 20 and body["min_items"] == 20


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
    result = compare.compare(base, cand, min_items=29)
    assert result.items == N - 1
    assert any("Item 3 is judged against another key" in why for why in result.left_out)
    with pytest.raises(compare.NotComparable, match="share 29 items"):
        compare.compare(base, cand)


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
    with pytest.raises(compare.Refused, match="no configuration labelled"):
        compare.compare(base.experiment, cand.experiment, pair=("Old model", "Nope"))
    code, _out, err = _gate(
        "--baseline",
        base.experiment.pk,
        "--candidate",
        cand.experiment.pk,
        "--pair",
        "Old model=Nope",
    )
    assert code == 3 and err == "Refused: Candidate has no configuration labelled Nope.\n"


W_REFUSED = "Refused: w must be a number from 0 to 100.\n"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--w", "-3"], W_REFUSED),
        (["--w", "nan"], W_REFUSED),
        (["--w", "inf"], W_REFUSED),
        (["--w", "101"], W_REFUSED),
        (["--w", "x"], W_REFUSED),
        (["--pair", "no equals sign"], "Refused: pair takes BASELINE_LABEL=CANDIDATE_LABEL.\n"),
        (["--pair", "a=b=c"], "Refused: pair takes BASELINE_LABEL=CANDIDATE_LABEL.\n"),
        (["--metric", "knowledge"], "Refused: Choose net_usable or hallucination_rate.\n"),
        (
            ["--min-items", "0"],
            "Refused: The minimum of shared items must be a whole number from 1.\n",
        ),
        (
            ["--min-items", "ten"],
            "Refused: The minimum of shared items must be a whole number from 1.\n",
        ),
    ],
)
def test_a_mistyped_command_exits_3_with_its_own_message(world, args, message):
    base = _scored(world, {("Model", 1): GOOD}, "Baseline")
    code, out, err = _gate("--baseline", base.pk, "--candidate", base.pk, *args)
    assert (code, out, err) == (3, "", message)
    code, body = _gate_json("--baseline", base.pk, "--candidate", base.pk, *args)
    assert (code, body["verdict"], body["exit_code"]) == (3, "refused", 3)
    assert body["detail"] == message.removeprefix("Refused: ").strip()
    assert body["problems"][0]["message"] == body["detail"]


def test_an_unknown_experiment_exits_3(world):
    base = _scored(world, {("Model", 1): GOOD}, "Baseline")
    code, out, err = _gate("--baseline", "999999", "--candidate", base.pk)
    assert (code, err) == (3, "Refused: No experiment with id 999999 (baseline).\n")
    code, out, err = _gate("--baseline", base.pk, "--candidate", "12x")
    assert (code, err) == (3, "Refused: The candidate must be an experiment id (a whole number).\n")
    # An option argparse does not know is refused with 3 too (argparse alone would exit 2).
    with pytest.raises(CommandError) as error:
        call_command("gate", "--baseline", base.pk, "--candidate", base.pk, "--bogus")
    assert error.value.returncode == 3 and "unrecognized arguments: --bogus" in str(error.value)


def test_the_gate_over_the_api_answers_what_the_command_prints(world, api_for):
    """Every kind of answer: the API's body is the command's --json, key for key."""
    base = _scored(world, {("Model", 1): GOOD}, "Baseline")
    cand = _scored(world, {("Model", 1): WORSE}, "Candidate")
    _shared(world, base, cand)
    unscored = build(world, {("Model", 1): GOOD}, name="Later", blocks=[("A", "HTTP", 30)])
    _shared(world, unscored.experiment)
    viewer = api_for("viewer")
    cases = [
        ({"baseline": base.pk, "candidate": cand.pk}, 200, "fail"),
        ({"baseline": base.pk, "candidate": base.pk}, 200, "pass"),
        ({"baseline": base.pk, "candidate": cand.pk, "metric": "hallucination_rate"}, 200, "fail"),
        ({"baseline": base.pk, "candidate": unscored.experiment.pk}, 409, "cannot tell yet"),
        ({"baseline": base.pk, "candidate": cand.pk, "min_items": "31"}, 422, "cannot judge"),
        ({"baseline": base.pk, "candidate": cand.pk, "w": "nan"}, 422, "refused"),
        ({"baseline": base.pk, "candidate": cand.pk, "w": "-3"}, 422, "refused"),
        ({"baseline": base.pk, "candidate": cand.pk, "pair": "x"}, 422, "refused"),
        ({"baseline": 999999, "candidate": cand.pk}, 404, "refused"),
    ]
    options = {"metric": "--metric", "w": "--w", "pair": "--pair", "min_items": "--min-items"}
    for query, status, verdict in cases:
        answer = viewer.get("/compare", **query)
        assert answer.status_code == status, (query, answer.content)
        body = answer.json()
        assert body["verdict"] == verdict, query
        args = ["--baseline", query["baseline"], "--candidate", query["candidate"]]
        for key, option in options.items():
            if key in query:
                args += [option, query[key]]
        code, printed = _gate_json(*args)
        assert printed == body, query
        assert code == body["exit_code"] == gate_report.EXIT[verdict]
    # A yes/no that is neither is refused in the same shape (the command has a plain switch).
    answer = viewer.get("/compare", baseline=base.pk, candidate=cand.pk, allow_prompt_change="x")
    assert answer.status_code == 422 and answer.json()["verdict"] == "refused"
    assert answer.json()["detail"] == "allow_prompt_change takes true or false."
    assert (
        viewer.get(
            "/compare", baseline=base.pk, candidate=cand.pk, allow_prompt_change="true"
        ).json()["verdict"]
        == "fail"
    )
    failed = viewer.get("/compare", baseline=base.pk, candidate=cand.pk).json()
    assert failed["configurations"][0]["gap"] == -20
    assert [b["block"] for b in failed["configurations"][0]["blocks"]] == ["A", "B"]
    # Another team's experiment reads as a missing one.
    rival = factories.ExperimentFactory(team=world.other_team, bank=None)
    answer = viewer.get("/compare", baseline=base.pk, candidate=rival.pk)
    assert answer.status_code == 404
    assert answer.json()["detail"] == f"No experiment with id {rival.pk} (candidate)."


def test_a_blinded_scorer_cannot_compare(world, api_for):
    base = _scored(world, {("Model", 1): GOOD}, "Baseline")
    cand = build(world, {("Model", 1): GOOD}, name="Candidate", blocks=[("A", "HTTP", 30)])
    from scoring.queue import services

    services.assignment_start(experiment=cand.experiment, user=world.users["scorer"])
    answer = api_for("scorer").get("/compare", baseline=base.pk, candidate=cand.experiment.pk)
    assert answer.status_code == 409 and "Model" not in answer.content.decode()
    assert answer.json()["verdict"] == "cannot tell yet"
    assert answer.json()["configurations"] == []


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
    assert "Block B (15 items)" in body and "one-sided bounds at 98.3 % and 98.3 %" in body
    tuned = factories.PromptVersionFactory(team=world.team, name="Tuned")
    cand.prompt_version = tuned
    cand.save()
    refused = client.get(
        f"/t/{world.team.slug}/compare/", {"baseline": base.pk, "candidate": cand.pk}
    ).content.decode()
    assert "Cannot judge: " in refused and "different prompt versions" in refused
    assert "allow_prompt_change" in refused
    accepted = client.get(
        f"/t/{world.team.slug}/compare/",
        {"baseline": base.pk, "candidate": cand.pk, "allow_prompt_change": "1"},
    ).content.decode()
    assert "The prompt versions differ" in accepted and "worse beyond noise" in accepted
    # Fewer shared items than the gate's minimum: the page still compares, and says so.
    cand.prompt_version = base.prompt_version
    cand.save()
    _share_only(world, base, cand, 20)
    few = client.get(
        f"/t/{world.team.slug}/compare/", {"baseline": base.pk, "candidate": cand.pk}
    ).content.decode()
    assert "20 shared items" in few and "The gate judges from 30 shared items on" in few
    # Another team's experiment is not offered, and not compared.
    rival = client.get(
        f"/t/{world.team.slug}/compare/", {"baseline": base.pk, "candidate": world.scored.pk + 999}
    )
    assert "Choose two experiments" in rival.content.decode()


@pytest.mark.parametrize(
    "args, message",
    [
        (["--baseline", "1", "--candidate", "2", "--frobnicate"], "unrecognized arguments"),
        (["--baseline", "1"], "the following arguments are required: --candidate"),
    ],
)
def test_an_unknown_or_missing_option_exits_3_from_the_command_line(args, message):
    """As a CI step runs it: a typo in the gate's command line is refused (3), never read as a
    regression (1), with a message and no traceback; with --json, the refusal in the one shape."""
    manage = Path(__file__).resolve().parents[2] / "manage.py"
    done = subprocess.run(
        [sys.executable, str(manage), "gate", *args], capture_output=True, text=True
    )
    assert done.returncode == 3, done.stderr
    assert message in done.stderr and "Traceback" not in done.stderr
    done = subprocess.run(
        [sys.executable, str(manage), "gate", *args, "--json"], capture_output=True, text=True
    )
    assert done.returncode == 3
    body = json.loads(done.stdout)
    assert (body["verdict"], body["exit_code"]) == ("refused", 3)
    assert message in body["detail"] and body["configurations"] == []


def test_every_configuration_read_at_once_equals_one_at_a_time(world):
    """side_rows (both sides' configurations in one query each) gives what item_values gives
    one configuration at a time: the means over repeats, with a missing bucket counting 0."""
    sheets = {
        ("Model", 1): GOOD,
        ("Model", 2): WORSE,
        ("Other", 1): "C" * 10 + "W" * 10 + "H" * 5 + "A" * 5,
    }
    base = _scored(world, sheets, "Baseline")
    cand = _scored(world, {("Model", 1): WORSE, ("Other", 1): GOOD}, "Candidate")
    _shared(world, base, cand)
    _source, buckets = compare.experiment_buckets(base)
    del buckets[next(iter(buckets))]  # a response without its bucket
    configs = sorted(set(base.runs.values_list("model_config_id", flat=True)))
    items = list(base.items.order_by("-position").values_list("pk", flat=True))[:25]
    together = compare.side_rows(base, buckets, configs, items)
    for config in configs:
        one = compare.item_values(base, buckets, config)
        expected = [
            [one.correct.get(i, 0.0), one.wrong.get(i, 0.0), one.attempted.get(i, 0.0)]
            for i in items
        ]
        assert together[config].tolist() == expected
    result = compare.compare(base, cand)
    assert [r.baseline_label for r in result.rows] == ["Model", "Other"]
    assert result.rows[0].baseline == 17 - 7  # (20 + 14) / 2 correct - (0 + 14) / 2 wrong
