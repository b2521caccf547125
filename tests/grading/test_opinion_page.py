"""The second opinion on the scoring page: before the scorer commits an item, its page is the
same bytes (CSRF tokens aside) and the same queries whether or not a grader graded it; once
committed, each answer shows the grader's bucket and reason, and "keep" or "take the grader's"
is recorded with its cause while the bucket given before stays the one agreement uses."""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from grading import engine, services
from grading.models import SecondOpinion
from probe.models import Response
from scoring.models import Judgement
from scoring.queue import selectors
from scoring.queue import services as scoring

pytestmark = pytest.mark.django_db

CSRF = re.compile(r'(name="csrfmiddlewaretoken" value="|"X-CSRFToken": ")[^"]+"')


def _item(client, assignment, position, **headers):
    url = reverse(
        "scoring:item", kwargs={"assignment_token": assignment.token, "position": position}
    )
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url, **headers)
    assert response.status_code == 200
    body = CSRF.sub(r"\1…", response.content.decode())
    return body, len(queries), response.get("Content-Type")


def _pages(client, assignment):
    return [
        _item(client, assignment, position, **headers)
        for position in (1, 2)
        for headers in ({}, {"HTTP_HX_REQUEST": "true"})
    ]


def _rules_graded(world, experiment):
    grader = services.grader_create(team=world.team, user=None, label="Rules-grader-qwerty")
    job = services.grading_start(experiment=experiment, grader=grader, user=None, queue=False)
    assert engine.job_grade(job_pk=job.pk) == "done"
    return job


def _responses(experiment, position):
    return list(
        Response.objects.filter(run__experiment=experiment, item__position=position).order_by(
            "run__order", "pk"
        )
    )


def test_before_commit_the_item_is_the_same_with_or_without_a_grader(client, graded_world):
    experiment = graded_world.grading.experiment
    scorer = graded_world.users["scorer"]
    client.force_login(scorer)
    assignment = scoring.assignment_start(experiment=experiment, user=scorer)
    # Half of item 1 decided, item 2 untouched: neither is committed.
    scoring.judgement_decide(
        assignment=assignment, responses=_responses(experiment, 1)[:1], verdict="correct"
    )
    _pages(client, assignment)  # the first visit records where the scorer is
    before = _pages(client, assignment)
    _rules_graded(graded_world, experiment)
    after = _pages(client, assignment)
    for (body, queries, kind), (body2, queries2, kind2) in zip(before, after, strict=True):
        assert body == body2
        assert queries == queries2, "the same queries, so no difference in time either"
        assert kind == kind2
    assert "Second opinion" not in after[0][0]


def test_after_commit_the_opinion_shows_and_taking_it_is_recorded(client, graded_world):
    experiment = graded_world.grading.experiment
    job = _rules_graded(graded_world, experiment)
    scorer = graded_world.users["scorer"]
    client.force_login(scorer)
    assignment = scoring.assignment_start(experiment=experiment, user=scorer)
    right, wrong = _responses(experiment, 1)  # "429" and "428" against the key 429
    scoring.judgement_decide(assignment=assignment, responses=[right, wrong], verdict="correct")

    body, _queries, _kind = _item(client, assignment, 1, HTTP_HX_REQUEST="true")
    reason = job.grades.get(response=wrong).reason
    assert body.count("data-opinion") >= 2 and "data-opinion-pending" in body
    assert "Second opinion" in body and reason in body
    assert "Take the grader" in body
    assert SecondOpinion.objects.filter(assignment=assignment).count() == 2

    url = reverse(
        "grading:opinion_respond", kwargs={"assignment_token": assignment.token, "position": 1}
    )
    token = selectors.answer_token(assignment, wrong.pk)
    assert client.post(url, {"tokens": "", "action": "change"}).status_code == 400
    response = client.post(url, {"tokens": token, "action": "change"}, HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    opinion = SecondOpinion.objects.get(assignment=assignment, response=wrong)
    assert (opinion.action, opinion.first_bucket, opinion.new_bucket) == (
        "change",
        "correct",
        "confident_wrong",
    )
    assert reason in opinion.cause
    assert Judgement.objects.get(assignment=assignment, response=wrong).bucket == "confident_wrong"
    body = response.content.decode()
    assert "data-opinion-pending" not in body and "You changed your bucket" in body


def test_keep_leaves_the_bucket(client, graded_world):
    experiment = graded_world.grading.experiment
    _rules_graded(graded_world, experiment)
    scorer = graded_world.users["scorer"]
    client.force_login(scorer)
    assignment = scoring.assignment_start(experiment=experiment, user=scorer)
    right, wrong = _responses(experiment, 1)
    scoring.judgement_decide(assignment=assignment, responses=[right, wrong], verdict="correct")
    _item(client, assignment, 1)
    url = reverse(
        "grading:opinion_respond", kwargs={"assignment_token": assignment.token, "position": 1}
    )
    token = selectors.answer_token(assignment, wrong.pk)
    assert client.post(url, {"tokens": token, "action": "keep"}).status_code == 200
    assert SecondOpinion.objects.get(assignment=assignment, response=wrong).action == "keep"
    assert Judgement.objects.get(assignment=assignment, response=wrong).bucket == "correct"


def test_with_three_graders_the_page_says_which_gave_the_opinion_and_why(
    client, graded_world, simulator
):
    """Two rules graders and the simulated model grader finished on the experiment: the item
    names the grader whose opinion it shows, with its version in short, and why that one."""
    from tests.grading.conftest import grader_config

    world, experiment = graded_world, graded_world.grading.experiment
    first = _rules_graded(world, experiment)
    second = services.grader_create(team=world.team, user=None, label="Rules-grader-second")
    job = services.grading_start(experiment=experiment, grader=second, user=None, queue=False)
    assert engine.job_grade(job_pk=job.pk) == "done"
    services.grading_prompt_defaults_ensure(team=world.team)
    model = services.grader_create(
        team=world.team,
        user=None,
        label="Simulated-grader-azerty",
        model_config=grader_config(world, base_url=simulator.base_url),
        prompt=world.team.grading_prompts.get(language="en"),
    )
    newest = services.grading_start(experiment=experiment, grader=model, user=None, queue=False)
    assert engine.job_grade(job_pk=newest.pk, wait=lambda s: None) == "done"
    newest.refresh_from_db()
    scorer = world.users["scorer"]
    client.force_login(scorer)
    assignment = scoring.assignment_start(experiment=experiment, user=scorer)
    scoring.judgement_decide(
        assignment=assignment, responses=_responses(experiment, 1), verdict="correct"
    )
    body, _queries, _kind = _item(client, assignment, 1, HTTP_HX_REQUEST="true")
    version = f"{newest.config_hash[:7]} · {newest.prompt_hash[:7]} · strict-2 · rules-2"
    assert newest.short_version == version and first.short_version == "rules-2"
    assert (
        f"From the grader “Simulated-grader-azerty” ({version}): the newest of the 3 graders "
        "that finished on this experiment."
    ) in body
    assert "Rules-grader-qwerty" not in body and "Rules-grader-second" not in body
    opinions = SecondOpinion.objects.filter(assignment=assignment)
    assert {o.grade.job_id for o in opinions} == {newest.pk}


def test_with_one_grader_the_page_names_it(client, graded_world):
    experiment = graded_world.grading.experiment
    _rules_graded(graded_world, experiment)
    scorer = graded_world.users["scorer"]
    client.force_login(scorer)
    assignment = scoring.assignment_start(experiment=experiment, user=scorer)
    scoring.judgement_decide(
        assignment=assignment, responses=_responses(experiment, 1), verdict="correct"
    )
    body, _queries, _kind = _item(client, assignment, 1)
    assert "From the grader “Rules-grader-qwerty” (rules-2)." in body
    assert "graders that finished" not in body
