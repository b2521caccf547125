"""Grading an experiment: the rules first, then a simulated model grader over real HTTP, and an
OpenAI-compatible grader against a local server replaying recorded replies."""

import json

import pytest

from grading import engine, services
from grading.models import Grade, GradeAttempt, GradingJob
from grading.rules import RULES_VERSION
from probe.models import Response
from tests.collection.conftest import Reply, chat_body
from tests.grading.conftest import grader_config

pytestmark = pytest.mark.django_db


def _prompt(world):
    services.grading_prompt_defaults_ensure(team=world.team)
    return world.team.grading_prompts.get(language="en")


def _grades(job):
    return {
        (g.response.run.model_config.label, g.response.item.position): g
        for g in Grade.objects.filter(job=job).select_related(
            "response__run__model_config", "response__item"
        )
    }


def test_the_rules_alone_decide_what_is_certain_and_leave_the_rest(graded_world):
    world = graded_world
    grader = services.grader_create(team=world.team, user=None, label="Rules")
    job = services.grading_start(experiment=world.grading.experiment, grader=grader, user=None)
    assert engine.job_grade(job_pk=job.pk) == "done"
    grades = _grades(job)
    assert len(grades) == Response.objects.filter(run__experiment=world.grading.experiment).count()
    decided = {k: (g.label, g.bucket) for k, g in grades.items() if g.state == Grade.State.DECIDED}
    assert decided == {
        ("Writer one", 1): ("CORRECT", "correct"),
        ("Writer one", 2): ("CORRECT", "correct"),
        ("Writer one", 3): ("INCORRECT", "confident_wrong"),
        ("Writer one", 4): ("CORRECT", "correct"),
        ("Writer one", 6): ("NOT_ATTEMPTED", "abstained"),
        ("Writer two", 1): ("INCORRECT", "confident_wrong"),
        ("Writer two", 3): ("CORRECT", "correct"),
        ("Writer two", 4): ("INCORRECT", "confident_wrong"),
        ("Writer two", 6): ("INCORRECT", "confident_wrong"),
    }
    left = {k for k, g in grades.items() if g.state == Grade.State.UNDECIDED}
    assert left == {("Writer one", 5), ("Writer two", 2), ("Writer two", 5)}
    assert {g.version for g in grades.values()} == {("", "", "", RULES_VERSION)}
    assert GradingJob.objects.get(pk=job.pk).status == GradingJob.Status.DONE
    assert not GradeAttempt.objects.exists(), "the rules ask no model"


def test_a_simulated_grader_grades_what_the_rules_left_over_http(graded_world, simulator):
    world = graded_world
    config = grader_config(world, base_url=simulator.base_url)
    prompt = _prompt(world)
    grader = services.grader_create(
        team=world.team, user=None, label="Sim", model_config=config, prompt=prompt
    )
    job = services.grading_start(experiment=world.grading.experiment, grader=grader, user=None)
    assert engine.job_grade(job_pk=job.pk) == "done"
    grades = _grades(job)
    by_model = {k: g for k, g in grades.items() if g.by == Grade.By.MODEL}
    assert set(by_model) == {("Writer one", 5), ("Writer two", 2), ("Writer two", 5)}
    assert simulator.count == 3, "one request per answer the rules left"
    for grade in by_model.values():
        assert grade.state == Grade.State.DECIDED
        assert grade.version == ("sim-grader", job.config_hash, prompt.content_hash, "strict-2")
        assert (
            grade.attempt.raw_body
            and grade.attempt.input_tokens
            and grade.attempt.latency_ms is not None
        )
        assert "simulated" in grade.reason
        sent = grade.attempt.request_sent["body"]["messages"][0]["content"]
        assert "Writer" not in sent, "the grader is never told which configuration wrote it"
    # Run again: nothing is asked twice.
    GradingJob.objects.filter(pk=job.pk).update(status=GradingJob.Status.RUNNING)
    assert engine.job_grade(job_pk=job.pk) == "done"
    assert simulator.count == 3


def test_an_openai_compatible_grader_against_recorded_replies(graded_world, replay):
    world = graded_world
    config = grader_config(
        world,
        base_url=replay.base_url + "/v1",
        provider="openai_chat",
        model_name="gpt-grader",
        label="Compatible grader",
    )
    config.api_key_env = ""
    config.save()
    prompt = _prompt(world)
    grader = services.grader_create(
        team=world.team, user=None, label="Compat", model_config=config, prompt=prompt
    )
    replies = {
        "The city of Paris": "LABEL: CORRECT\nREASON: Names Paris.",
        "the Retry-After header": "I would say it is correct.",
        "Lyon": "LABEL: INCORRECT\nREASON: Lyon is not Paris.",
    }

    def answer(index):
        content = json.loads(replay.received[index].body)["messages"][0]["content"]
        tail = content[content.rfind("[ANSWER]\n") + 9 :].split("\n")[0]
        return Reply(body=chat_body(replies[tail], model="gpt-grader-2026-01-01"))(index)

    limited = Reply(
        status=429, body='{"error": {"message": "slow down"}}', headers={"retry-after": "0"}
    )
    replay.play([limited, answer])
    job = services.grading_start(experiment=world.grading.experiment, grader=grader, user=None)
    assert engine.job_grade(job_pk=job.pk, wait=lambda s: None) == "done"
    grades = {k: g for k, g in _grades(job).items() if g.by == Grade.By.MODEL}
    assert grades[("Writer one", 5)].label == "CORRECT"
    assert grades[("Writer two", 5)].bucket == "hedged_wrong"  # LOW confidence
    unreadable = grades[("Writer two", 2)]
    assert unreadable.state == Grade.State.PARSE_FAILURE and unreadable.bucket == ""
    assert unreadable.attempt.text == "I would say it is correct."
    assert {g.version_model for g in grades.values()} == {"gpt-grader-2026-01-01"}
    assert GradeAttempt.objects.filter(job=job, outcome="retryable").count() == 1
