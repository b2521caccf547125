"""An answer the grader decided goes back to people when its item's key is doubted after
routing: a scorer disputes it, the key review amends it, or a person puts an answer two
configurations gave in a wrong bucket (a key suspect). The item's answers are open again in the
queue of every scorer (those who started before and those who start later), the grader decides
them no more, the figures count them as people's, and the routing page says so."""

import pytest
from django.urls import reverse

from grading import routing
from grading.models import RoutedAnswer
from probe.models import Response
from probe.sheetparser import normalise_answer
from scoring.comparison.routed import corrections
from scoring.models import Judgement
from scoring.queue import selectors
from scoring.queue import services as scoring
from scoring.report.source import grader_decided
from scoring.review.services import key_decision_create
from tests.grading import routing_world

pytestmark = pytest.mark.django_db


def _routed(world, simulator):
    rw = routing_world.build(world, simulator)
    routing.routing_plan_create(experiment=rw.fresh, job=rw.fresh_job, user=None, seed=20261203)
    return rw


def _graded_items(experiment) -> dict[int, set[int]]:
    """Item id -> the answers the grader decides there (not the audit)."""
    found: dict[int, set[int]] = {}
    for pk, item_id in RoutedAnswer.objects.filter(
        plan__experiment=experiment, route=RoutedAnswer.Route.GRADER
    ).values_list("response_id", "response__item_id"):
        found.setdefault(item_id, set()).add(pk)
    return found


def _shown(assignment, position) -> set[int]:
    item = selectors.queue_item(assignment, position)
    return {m.response.pk for g in item.groups for m in g.members}


def _graded(assignment, item_id) -> set[int]:
    return set(
        Judgement.objects.filter(
            assignment=assignment, verdict=Judgement.Verdict.GRADED, response__item_id=item_id
        ).values_list("response_id", flat=True)
    )


def test_a_disputed_key_sends_the_grader_decided_answers_of_its_item_back_to_people(
    world, simulator, client
):
    rw = _routed(world, simulator)
    graded = _graded_items(rw.fresh)
    item_id = min(graded, key=lambda pk: Response.objects.filter(item_id=pk).first().item.position)
    item = Response.objects.filter(item_id=item_id).first().item
    scorer = scoring.assignment_start(experiment=rw.fresh, user=world.users["scorer"])
    editor = scoring.assignment_start(experiment=rw.fresh, user=world.users["editor"])
    assert _graded(scorer, item_id) == graded[item_id] == _graded(editor, item_id)
    assert not graded[item_id] & _shown(scorer, item.position)
    before = selectors.assignment_counts(scorer)["judged"]

    # The scorer disputes the key from the scoring page.
    client.force_login(world.users["scorer"])
    answer = client.post(
        reverse(
            "scoring:dispute",
            kwargs={"assignment_token": scorer.token, "position": item.position},
        ),
        {"note": "The gateway was renamed last year.", "tokens": ""},
    )
    assert answer.status_code in (200, 302), answer.content.decode()[:1000]

    # Open again for both scorers, counted as still to judge, and recorded on the plan.
    for assignment in (scorer, editor):
        assert _graded(assignment, item_id) == set()
        assert graded[item_id] <= _shown(assignment, item.position)
    assert selectors.assignment_counts(scorer)["judged"] == before - len(graded[item_id])
    returned = RoutedAnswer.objects.filter(plan__experiment=rw.fresh).exclude(returned="")
    assert set(returned.values_list("returned", flat=True)) == {RoutedAnswer.Returned.DISPUTED}
    assert set(returned.values_list("response__item_id", flat=True)) == {item_id}
    assert graded[item_id] <= set(returned.values_list("response_id", flat=True))
    assert returned.filter(returned_at__isnull=True).count() == 0
    # The grader decides them no more, for a scorer who starts now too, even once the dispute
    # is settled by confirming the key.
    key_decision_create(item=item, user=world.users["owner"], outcome="confirmed", source="RFC 1")
    decided = {pk for pk, _b in routing.grader_decided(rw.fresh)}
    assert not decided & graded[item_id]
    assert not set(routing.audit_answers(rw.fresh)) & {
        r.pk for r in Response.objects.filter(item_id=item_id)
    }
    # The routing page says so (to the owner, who does not score it yet).
    client.force_login(world.users["owner"])
    page = client.get(reverse("grading:experiment", kwargs={"experiment_pk": rw.fresh.pk}))
    body = page.content.decode()
    assert 'id="routing-returned"' in body
    assert "went back to people" in body
    assert f"{returned.count()} answer" in body and "its key was disputed" in body

    # A scorer who starts now.
    owner = scoring.assignment_start(experiment=rw.fresh, user=world.users["owner"])
    assert _graded(owner, item_id) == set()
    assert graded[item_id] <= _shown(owner, item.position)


def test_an_amended_key_is_recorded_as_returned(world, simulator):
    rw = _routed(world, simulator)
    graded = _graded_items(rw.fresh)
    item_id = next(iter(graded))
    item = Response.objects.filter(item_id=item_id).first().item
    scorer = scoring.assignment_start(experiment=rw.fresh, user=world.users["scorer"])
    key_decision_create(
        item=item,
        user=world.users["owner"],
        outcome="amended",
        source="RFC 2",
        new_answer="Omega gateway",
    )
    assert _graded(scorer, item_id) == set()
    assert set(
        RoutedAnswer.objects.filter(
            plan__experiment=rw.fresh, response__item_id=item_id, route="grader"
        ).values_list("returned", flat=True)
    ) == {RoutedAnswer.Returned.AMENDED}


def test_a_shared_answer_a_person_marks_wrong_makes_a_key_suspect(
    world, simulator, django_capture_on_commit_callbacks
):
    rw = _routed(world, simulator)
    graded = _graded_items(rw.fresh)
    route = dict(
        RoutedAnswer.objects.filter(plan__experiment=rw.fresh).values_list("response_id", "route")
    )
    # An item the grader decided answers of, where an answer people judge (routed to them, or
    # of the audit) was given by two configurations (the same words around the key).
    people = (RoutedAnswer.Route.PEOPLE, RoutedAnswer.Route.AUDIT)
    found = None
    for item_id in graded:
        responses = list(Response.objects.filter(item_id=item_id).select_related("run", "item"))
        for r in responses:
            if route.get(r.pk) not in people or r.answer is None:
                continue
            same = [
                o
                for o in responses
                if normalise_answer(o.answer or "") == normalise_answer(r.answer)
                and o.run.model_config_id != r.run.model_config_id
            ]
            if same:
                found = (item_id, r)
                break
        if found:
            break
    assert found, "the routing world has a shared answer routed to people on a graded item"
    item_id, response = found
    scorer = scoring.assignment_start(experiment=rw.fresh, user=world.users["scorer"])
    editor = scoring.assignment_start(experiment=rw.fresh, user=world.users["editor"])
    # Another item's answer marked correct changes nothing.
    with django_capture_on_commit_callbacks(execute=True):
        scoring.judgement_decide(assignment=scorer, responses=[response], verdict="correct")
    assert _graded(editor, item_id) == graded[item_id]
    with django_capture_on_commit_callbacks(execute=True):
        scoring.judgement_decide(assignment=scorer, responses=[response], verdict="wrong")
    for assignment in (scorer, editor):
        assert _graded(assignment, item_id) == set()
    assert set(
        RoutedAnswer.objects.filter(
            plan__experiment=rw.fresh, response__item_id=item_id, route="grader"
        ).values_list("returned", flat=True)
    ) == {RoutedAnswer.Returned.SUSPECT}
    # Nothing else went back.
    others = RoutedAnswer.objects.filter(plan__experiment=rw.fresh).exclude(returned="")
    assert set(others.values_list("response__item_id", flat=True)) == {item_id}
    # The figures take them as people's: neither the report's nor the gate's grader stratum
    # holds an answer of the item any more, nor its audit.
    item_answers = set(Response.objects.filter(item_id=item_id).values_list("pk", flat=True))
    assert not set(grader_decided(rw.fresh).values_list("response_id", flat=True)) & item_answers
    assert not set(corrections(rw.fresh, {}).graded.tolist()) & item_answers
    assert not set(routing.audit_answers(rw.fresh)) & item_answers
