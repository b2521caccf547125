"""What the queue costs the database: the batched decision endpoint in a fixed number of
queries whatever the number of decisions it carries, nothing every scorer writes to, and no
write at all when a scorer only looks at a page."""

import json
import uuid

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from scoring.models import Bucket, Judgement, JudgementChange
from scoring.queue import progress, selectors, services
from tests.conftest import scored_experiment
from tests.probe import factories

pytestmark = pytest.mark.django_db

N_SHEETS = 12


@pytest.fixture
def wide(world):
    """12 sheets x 3 items, every answer different: a decision a sheet."""
    configs = [factories.ModelConfigFactory(team=world.team) for _ in range(N_SHEETS)]
    answers = [[(f"answer {i}-{s}", "MEDIUM") for i in range(3)] for s in range(N_SHEETS)]
    return scored_experiment(world, configs, answers, name="Wide")


def start(client, world, experiment, *, counted=True):
    client.force_login(world.users["scorer"])
    assignment = services.assignment_start(experiment=experiment, user=world.users["scorer"])
    if counted:  # the progress counters known, as after the first decision
        progress.progress_counts_store(assignment)
    return assignment


def batch(assignment, position, n, verdict="correct"):
    queue = selectors.queue_item(assignment, position)
    key_seen = selectors.key_version(assignment, queue.item.pk, None)
    return [
        {
            "key": uuid.uuid4().hex,
            "op": "decide",
            "position": position,
            "tokens": g.tokens,
            "verdict": verdict,
            "expect": g.state,
            "key_seen": key_seen,
            "blind": True,
        }
        for g in queue.groups[:n]
    ]


def send(client, assignment, decisions):
    url = reverse("scoring:record", kwargs={"assignment_token": assignment.token})
    with CaptureQueriesContext(connection) as queries:
        response = client.post(
            url, json.dumps({"decisions": decisions}), content_type="application/json"
        )
    assert response.status_code == 200, response.content
    assert all(o["status"] == "saved" for o in response.json()["outcomes"])
    return [q["sql"] for q in queries.captured_queries]


def test_one_decision_and_ten_cost_the_same_queries(client, world, wide):
    assignment = start(client, world, wide)
    one = send(client, assignment, batch(assignment, 1, 1))
    ten = send(client, assignment, batch(assignment, 2, 10))
    # Nine new decisions on one item and a change on another.
    mixed = batch(assignment, 3, 9) + batch(assignment, 1, 1, verdict="wrong")
    mixed[-1]["expect"] = "*"
    eleven = send(client, assignment, mixed)
    assert len(one) == len(ten), "\n".join(q[:90] for q in one + ["--"] + ten)
    # A change of a judgement already made adds its one bulk update, however many there are.
    assert len(eleven) == len(one) + 1
    assert len(one) <= 13  # session, user, the assignment by its token, then the batch's own
    assert Judgement.objects.filter(assignment=assignment).count() == 20
    assert JudgementChange.objects.filter(assignment=assignment).count() == 21
    changed = Judgement.objects.get(
        assignment=assignment, response__item__position=1, bucket=Bucket.CONFIDENT_WRONG
    )
    assert changed.verdict == "wrong"
    assignment.refresh_from_db()
    assert (assignment.progress_judged, assignment.last_position) == (20, 1)
    assert selectors.assignment_counts(assignment) == {"judged": 20, "rechecks": 0}


def test_a_batch_reads_what_the_rules_need_in_two_queries_and_writes_in_bulk(client, world, wide):
    assignment = start(client, world, wide)
    sql = send(client, assignment, batch(assignment, 1, 10))
    reads = [q for q in sql if q.startswith("SELECT") and "scoring_" in q]
    # The assignment's row locked, the receipts, the responses with their newest key decision,
    # the judgements (locked): whatever the number of decisions.
    assert len([q for q in reads if "FOR UPDATE" in q]) == 2
    assert len([q for q in sql if q.startswith("INSERT")]) == 3  # judgements, changes, receipts
    updates = [q for q in sql if q.startswith("UPDATE")]
    # One update, of this scorer's own row: no counter row or lock every scorer shares.
    assert len(updates) == 1 and updates[0].startswith('UPDATE "scoring_assignment"')
    assert f'"scoring_assignment"."id" = {assignment.pk}' in updates[0]
    assert not [q for q in sql if "advisory" in q.lower() or "LOCK TABLE" in q.upper()]


def test_changes_of_a_batch_are_one_bulk_update(client, world, wide):
    assignment = start(client, world, wide)
    send(client, assignment, batch(assignment, 1, 10))
    again = batch(assignment, 1, 10, verdict="wrong")
    sql = send(client, assignment, again)
    assert len([q for q in sql if q.startswith('UPDATE "scoring_judgement"')]) == 1
    assert set(
        Judgement.objects.filter(assignment=assignment, response__item__position=1)
        .values_list("bucket", flat=True)
        .distinct()
    ) == {Bucket.CONFIDENT_WRONG}


def queue_pages(assignment, experiment):
    token = {"assignment_token": assignment.token}
    return [
        reverse("scoring:start", kwargs={"experiment_pk": experiment.pk}),
        reverse("scoring:item", kwargs={**token, "position": 2}),
        reverse("scoring:item", kwargs={**token, "position": 3}) + "?prefetch=1",
        reverse("scoring:overview", kwargs=token),
        reverse("scoring:next_open", kwargs=token) + "?from=1",
        reverse("scoring:reveal", kwargs=token),
    ]


@pytest.mark.parametrize("htmx", [False, True])
def test_looking_at_a_queue_page_writes_nothing(client, world, wide, htmx):
    # The counters unknown (as after an undo or a key amendment): a page counts, stores nothing.
    assignment = start(client, world, wide, counted=False)
    headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}
    pages = [
        *queue_pages(assignment, wide),
        reverse("scoring:times", kwargs={"experiment_pk": wide.pk}),
        reverse("scoring:lead_queue", kwargs={"team_slug": world.team.slug}),
    ]
    for url in pages:
        if "scorer-times" in url or "lead-queue" in url:
            client.force_login(world.users["editor"])
        with CaptureQueriesContext(connection) as queries:
            response = client.get(url, **headers)
        assert response.status_code in (200, 302), (url, response.status_code)
        writes = [
            q["sql"]
            for q in queries.captured_queries
            if q["sql"].startswith(("INSERT", "UPDATE", "DELETE"))
            and "django_session" not in q["sql"]
        ]
        assert writes == [], url
    assignment.refresh_from_db()
    assert assignment.last_position == 1  # looking is not where the scorer decided


def test_where_the_scorer_is_is_remembered_by_decisions_not_by_looking(client, world, wide):
    assignment = start(client, world, wide)
    client.get(
        reverse("scoring:item", kwargs={"assignment_token": assignment.token, "position": 3})
    )
    assignment.refresh_from_db()
    assert assignment.last_position == 1
    send(client, assignment, batch(assignment, 3, 1))
    assignment.refresh_from_db()
    assert assignment.last_position == 3
