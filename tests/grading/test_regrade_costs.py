"""A re-grade with a new grading prompt version reads the same frozen responses (the models are
not asked again) and lists exactly the verdicts that changed, with the figures that moved; the
costs of the runs and of grading, from each configuration's prices, shown to a lead and
exported, never to a scorer before their reveal."""

import json
from decimal import Decimal

import pytest
from django.urls import reverse

from grading import engine, services
from grading.costs import experiment_costs
from grading.models import Grade, GradeAttempt
from grading.regrade import regrade
from probe.models import Attempt
from tests.collection.conftest import Reply, chat_body
from tests.grading.conftest import grader_config

pytestmark = pytest.mark.django_db

STRICT = "Judge a phrase that only names the key among other words as INCORRECT."


def _replies(replay):
    """The recorded grader: under the stricter prompt it fails "The city of Paris"."""

    def answer(index):
        content = json.loads(replay.received[index].body)["messages"][0]["content"]
        tail = content[content.rfind("[ANSWER]\n") + 9 :].split("\n")[0]
        if tail == "The city of Paris":
            text = (
                "LABEL: INCORRECT\nREASON: More than the key."
                if STRICT in content
                else ("LABEL: CORRECT\nREASON: Names Paris.")
            )
        elif tail == "Lyon":
            text = "LABEL: INCORRECT\nREASON: Lyon is not Paris."
        else:
            text = "LABEL: CORRECT\nREASON: Same header."
        return Reply(body=chat_body(text, model="gpt-grader-1"))(index)

    replay.play([answer])


def _grader(world, replay):
    config = grader_config(
        world, base_url=replay.base_url + "/v1", provider="openai_chat", model_name="gpt-grader"
    )
    config.api_key_env = ""
    config.price_input_per_million = Decimal("2")
    config.price_output_per_million = Decimal("10")
    config.save()
    services.grading_prompt_defaults_ensure(team=world.team)
    first = world.team.grading_prompts.get(language="en")
    grader = services.grader_create(
        team=world.team, user=None, label="Model", model_config=config, prompt=first
    )
    return grader, first


def _graded(world, grader, prompt=None):
    job = services.grading_start(
        experiment=world.grading.experiment, grader=grader, user=None, prompt=prompt
    )
    assert engine.job_grade(job_pk=job.pk, wait=lambda s: None) == "done"
    return job


def test_a_regrade_lists_exactly_the_changed_verdicts(client, graded_world, replay):
    world = graded_world
    _replies(replay)
    grader, first = _grader(world, replay)
    base = _graded(world, grader)
    asked = replay.count
    stricter = services.grading_prompt_new_version(
        prompt=first, user=None, text=first.text + "\n" + STRICT, note="Stricter on phrases."
    )
    new = _graded(world, grader, prompt=stricter)
    assert replay.count == asked + 3, "the grader is asked again; the models never are"
    assert new.prompt_hash == stricter.content_hash != base.prompt_hash
    result = regrade(base, new)
    changed = [
        (c.answer, c.before.bucket, c.after.bucket, c.after.version_prompt) for c in result.changed
    ]
    assert changed == [("The city of Paris", "correct", "confident_wrong", stricter.content_hash)]
    moved = [r for r in result.rows() if r["move"]]
    assert moved and {r["config"] for r in moved} == {"Writer one"}
    assert all(r["after_ci"] for r in result.rows())

    client.force_login(world.users["editor"])
    url = reverse("grading:regrade", kwargs={"experiment_pk": world.grading.experiment.pk})
    page = client.get(url, {"base": base.pk, "new": new.pk})
    body = page.content.decode()
    assert page.status_code == 200 and "1 verdict changed" in body
    assert body.count("<tr data-response=") == 1 and "More than the key." in body


def test_costs_per_run_and_of_grading(client, graded_world, replay):
    world = graded_world
    experiment = world.grading.experiment
    _replies(replay)
    grader, _first = _grader(world, replay)
    job = _graded(world, grader)
    Attempt.objects.filter(run__experiment=experiment).update(
        input_tokens=1000, output_tokens=500, latency_ms=1200
    )
    one, two = world.grading.configs["Writer one"], world.grading.configs["Writer two"]
    one.price_input_per_million, one.price_output_per_million = Decimal("1"), Decimal("4")
    one.save()
    costs = experiment_costs(experiment)
    by_label = {line.label: line for line in costs.runs}
    assert by_label["Writer one · 1"].cost == Decimal("0.003")  # (1000 * 1 + 500 * 4) / 1e6
    assert by_label["Writer two · 1"].cost is None, "no price: no cost, never a cost of zero"
    assert costs.runs_cost is None and costs.total is None
    (line,) = costs.grading
    assert (line.requests, line.input_tokens, line.output_tokens) == (3, 360, 90)
    assert line.cost == Decimal("0.00162")  # 3 x (120 x 2 + 30 x 10) / 1e6
    # Per response: over the 3 responses that made a request, never over those the rules
    # decided without one (they would spread the same tokens and latency thinner).
    grades = Grade.objects.filter(job=job)
    by_rules = grades.filter(attempt__isnull=True).count()
    assert by_rules > 0 and grades.count() == 3 + by_rules
    latencies = list(GradeAttempt.objects.filter(job=job).values_list("latency_ms", flat=True))
    assert len(latencies) == 3 and all(x is not None for x in latencies)
    assert line.responses == 3
    assert line.tokens_per_response == pytest.approx((360 + 90) / 3)  # 150, not 450 / 6
    assert line.latency_per_response_ms == pytest.approx(sum(latencies) / 3)
    two.price_input_per_million, two.price_output_per_million = Decimal("1"), Decimal("4")
    two.save()
    costs = experiment_costs(experiment)
    assert costs.total == Decimal("0.00762")
    assert costs.grading_share == pytest.approx(0.00162 / 0.00762)
    assert by_label["Writer one · 1"].latency_per_response_ms == pytest.approx(1200 / 6)

    client.force_login(world.users["editor"])
    url = reverse("grading:export", kwargs={"experiment_pk": experiment.pk, "fmt": "json"})
    exported = json.loads(client.get(url).content)
    assert exported["costs"]["total_cost_usd"] == "0.007620"
    (exported_line,) = exported["costs"]["grading"]
    assert exported_line["responses"] == 3
    assert exported_line["tokens_per_response"] == pytest.approx(150)
    page = client.get(reverse("grading:experiment", kwargs={"experiment_pk": experiment.pk}))
    assert "over the responses that made a request" in page.content.decode()
    assert {g["version_prompt"] for g in exported["grades"] if g["by"] == "model"} == {
        grader.prompt.content_hash
    }
    assert exported["agreement"][0]["prompt_hash"] == grader.prompt.content_hash
    csv_url = reverse("grading:export", kwargs={"experiment_pk": experiment.pk, "fmt": "csv"})
    costs = client.get(csv_url, {"what": "costs"})
    text = costs.content.decode("utf-8-sig")
    assert "Writer one · 1" in text and "0.003000" in text
    # Written the one way every CSV download is (BOM, CRLF, formula cells neutralised), and
    # named by the shared helper (an ASCII name beside the user's).
    from tests.report.test_csv_downloads import assert_written_the_one_way

    assert_written_the_one_way(costs.content, "grading costs")
    assert_written_the_one_way(client.get(csv_url).content, "grades")
    assert "filename=" in costs["Content-Disposition"]
    assert "filename*=UTF-8''" in costs["Content-Disposition"]

    # A scorer before their reveal is sent to the experiment's page, and sees no cost.
    from scoring.queue import services as scoring

    scorer = world.users["scorer"]
    scoring.assignment_start(experiment=experiment, user=scorer)
    client.force_login(scorer)
    for name, kwargs in (
        ("grading:experiment", {}),
        ("grading:export", {"fmt": "json"}),
        ("grading:agreement", {}),
    ):
        page = client.get(reverse(name, kwargs={"experiment_pk": experiment.pk, **kwargs}))
        assert page.status_code == 302
        assert page["Location"] == reverse(
            "probe:experiment_detail", kwargs={"experiment_pk": experiment.pk}
        )


def test_the_grades_join_the_responses_on_the_response_id(client, graded_world, replay, tmp_path):
    """The grades CSV names each response by its id, and the responses export (the command and
    the web download alike) carries the same id: every grade joins exactly one response, of the
    same item, with the answer the grader read."""
    import csv
    import io

    from django.core.management import call_command

    from probe.models import Response
    from scoring.queue import services as scoring
    from tests import builders

    world = graded_world
    experiment = world.grading.experiment
    _replies(replay)
    grader, _first = _grader(world, replay)
    _graded(world, grader)
    scorer = world.users["scorer"]
    assignment = scoring.assignment_start(experiment=experiment, user=scorer)
    builders.bulk_judgements(assignment, lambda unit: "correct")

    client.force_login(world.users["editor"])
    url = reverse("grading:export", kwargs={"experiment_pk": experiment.pk, "fmt": "csv"})
    grades = list(csv.DictReader(io.StringIO(client.get(url).content.decode("utf-8-sig"))))
    out = tmp_path / "responses.csv"
    call_command("export_results", str(experiment.pk), "--what", "responses", "--output", str(out))
    responses = list(csv.DictReader(out.open(encoding="utf-8-sig")))
    by_id = {row["response_id"]: row for row in responses}
    assert (
        len(by_id) == len(responses) == Response.objects.filter(run__experiment=experiment).count()
    )
    assert grades and all(g["response_id"] in by_id for g in grades), "every grade joins"
    answers = dict(Response.objects.filter(run__experiment=experiment).values_list("pk", "answer"))
    for grade in grades:
        joined = by_id[grade["response_id"]]
        assert joined["item"] == grade["item_position"]
        assert joined["answer"] == (answers[int(grade["response_id"])] or "")
    # The scorer's own web download carries the same ids.
    scoring.assignment_reveal(assignment=assignment)
    client.force_login(scorer)
    kwargs = {"assignment_token": assignment.token, "what": "responses", "fmt": "json"}
    web = client.get(reverse("scoring:export", kwargs=kwargs))
    content = b"".join(web.streaming_content) if web.streaming else web.content
    rows = json.loads(content)["responses"]
    assert {str(r["response_id"]) for r in rows} == set(by_id)
