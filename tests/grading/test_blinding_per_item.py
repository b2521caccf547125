"""Blinding item by item, end to end: a scorer who has committed item 1 sees the grader's
second opinion there, and nothing they can fetch says anything of the grader on the items they
have not committed: whether it graded them (its progress), what it said, or why. Their pages
and fragments (items 2 and 3, the overview, the start and reveal pages), the scoring API's
answers and the grading pages and exports are the same bytes, with the same queries, whether
the grader graded items 2 and 3, did not reach them yet, or said the opposite there."""

import json
import re

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from api.models import ApiToken
from grading import engine, services
from grading.models import Grade
from probe.models import Response
from scoring.queue import services as scoring

pytestmark = pytest.mark.django_db

CSRF = re.compile(r'(name="csrfmiddlewaretoken" value="|"X-CSRFToken": ")[^"]+"')


def _responses(experiment, position):
    return list(
        Response.objects.filter(run__experiment=experiment, item__position=position).order_by(
            "run__order", "pk"
        )
    )


def _fetch(client, api, experiment, assignment):
    """Everything the scorer can fetch that might tell of items 2 and 3: (what, status,
    body with CSRF tokens masked, number of queries)."""
    token = assignment.token
    pages = [
        (reverse("scoring:item", kwargs={"assignment_token": token, "position": p}), h)
        for p in (2, 3)
        for h in ({}, {"HTTP_HX_REQUEST": "true"})
    ]
    pages += [
        (reverse("scoring:overview", kwargs={"assignment_token": token}), {}),
        (reverse("scoring:start", kwargs={"experiment_pk": experiment.pk}), {}),
        (reverse("scoring:reveal", kwargs={"assignment_token": token}), {}),
        (reverse("probe:experiment_detail", kwargs={"experiment_pk": experiment.pk}), {}),
    ]
    for name, kwargs in (
        ("grading:experiment", {}),
        ("grading:agreement", {}),
        ("grading:regrade", {}),
        ("grading:export", {"fmt": "csv"}),
        ("grading:export", {"fmt": "json"}),
    ):
        pages.append((reverse(name, kwargs={"experiment_pk": experiment.pk, **kwargs}), {}))
    out = []
    for url, headers in pages:
        with CaptureQueriesContext(connection) as queries:
            response = client.get(url, **headers)
        body = CSRF.sub(r"\1…", response.content.decode("utf-8", "replace"))
        out.append((url, bool(headers), response.status_code, body, len(queries)))
    for path in (
        f"/api/experiments/{experiment.pk}",
        f"/api/experiments/{experiment.pk}/grading",
        f"/api/experiments/{experiment.pk}/results/figures",
        f"/api/experiments/{experiment.pk}/results/responses",
    ):
        response = api.get(path, headers=api.headers)
        body = json.loads(response.content)
        if isinstance(body, dict):  # the collection progress carries the time it was read
            body.pop("now", None)
        out.append((path, False, response.status_code, json.dumps(body, sort_keys=True), 0))
    return out


def test_an_item_not_committed_shows_nothing_of_the_grader(graded_world, client):
    world = graded_world
    experiment = world.grading.experiment
    grader = services.grader_create(team=world.team, user=None, label="Rules-grader-zork")
    job = services.grading_start(experiment=experiment, grader=grader, user=None, queue=False)
    assert engine.job_grade(job_pk=job.pk) == "done"
    later = {r.pk for p in (2, 3) for r in _responses(experiment, p)}  # the items not committed
    assert Grade.objects.filter(job=job, response__in=later, state="decided").exists()

    scorer = world.users["scorer"]
    client.force_login(scorer)
    assignment = scoring.assignment_start(experiment=experiment, user=scorer)
    # Item 1 committed: the grader's opinion shows there (so the scorer knows a grader exists).
    scoring.judgement_decide(
        assignment=assignment, responses=_responses(experiment, 1), verdict="correct"
    )
    item1 = client.get(
        reverse("scoring:item", kwargs={"assignment_token": assignment.token, "position": 1})
    ).content.decode()
    assert "Second opinion" in item1
    # Item 2 half decided, item 3 untouched: neither committed.
    scoring.judgement_decide(
        assignment=assignment, responses=_responses(experiment, 2)[:1], verdict="correct"
    )
    _row, text = ApiToken.issue(user=scorer, team=world.team, access="read", name="scorer")
    api = Client()
    api.headers = {"Authorization": f"Bearer {text}"}
    api_get = api.get
    api.get = lambda path, headers: api_get(path, headers=headers)

    _fetch(client, api, experiment, assignment)  # the first visits record where the scorer is
    graded = _fetch(client, api, experiment, assignment)
    # The grader said the opposite on items 2 and 3, with other reasons ...
    for grade in Grade.objects.filter(job=job, response__in=later, state="decided"):
        grade.bucket = "correct" if grade.bucket != "correct" else "confident_wrong"
        grade.reason = "a reason nobody may read before committing"
        grade.save(update_fields=["bucket", "reason"])
    flipped = _fetch(client, api, experiment, assignment)
    # ... or has not reached them yet.
    Grade.objects.filter(job=job, response__in=later).delete()
    unreached = _fetch(client, api, experiment, assignment)

    for a, b, c in zip(graded, flipped, unreached, strict=True):
        assert a == b == c, f"{a[0]}{' (htmx)' if a[1] else ''} differs"
    for url, _htmx, _status, body, _queries in graded:
        assert "zork" not in body.lower() and "nobody may read" not in body, url
        if "/score/" in url and url.rstrip("/").split("/")[-1] in ("2", "3"):
            assert not re.search(r"grader|second opinion|自動採点|セカンドオピニオン", body, re.I)
    grading_answers = {url: status for url, _h, status, _b, _q in graded if "grad" in url}
    assert set(grading_answers.values()) <= {302, 409}, grading_answers
