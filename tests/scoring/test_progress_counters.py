"""The scorer's progress is kept on the assignment as they decide: it must always equal a count
of their judgements, through decisions, changes, re-checks, undo and key amendments."""

import pytest

from scoring.models import Assignment, Judgement
from scoring.queue import progress, selectors, services
from tests.review.conftest import build_experiment
from tests.scoring.factories import judge, key_decision, responses_in_order

pytestmark = pytest.mark.django_db


def _counted(assignment):
    rows = Judgement.objects.filter(assignment=assignment)
    return {
        "judged": rows.filter(needs_recheck=False).count(),
        "rechecks": rows.filter(needs_recheck=True).count(),
    }


def _check(assignment):
    assert progress.progress_counts_store(assignment) == _counted(assignment)
    stored = Assignment.objects.values_list("progress_judged", "progress_rechecks").get(
        pk=assignment.pk
    )
    assert stored == tuple(_counted(assignment).values())


def test_the_counters_follow_every_change(world):
    experiment = build_experiment(
        world,
        sheets=[
            (world.config, 1, [("a", "HIGH"), ("b", "LOW"), ("UNKNOWN", ""), ("d", "MEDIUM")]),
            (world.config, 2, [("a", "HIGH"), ("x", "HIGH"), ("c", "LOW"), ("d", "MEDIUM")]),
        ],
        keys=["a", "b", "c", "d"],
        name="Counters",
    )
    responses = responses_in_order(experiment)
    assignment = services.assignment_start(experiment=experiment, user=world.users["scorer"])
    _check(assignment)  # the preset UNKNOWN only, counted once and stored
    judge(assignment, {responses[0]: "correct", responses[4]: "correct"})
    _check(assignment)
    judge(assignment, {responses[0]: "hedged_wrong"})  # a change: no new judgement
    _check(assignment)
    judge(assignment, {responses[0]: "hedged_wrong"})  # a second keypress: nothing moves
    _check(assignment)
    services.judgement_undo(assignment=assignment)
    _check(assignment)
    judge(assignment, {responses[1]: "correct", responses[5]: "confident_wrong"})
    key_decision(
        experiment,
        2,
        world.users["editor"],
        outcome="amended",
        source="the manual",
        new_answer="b or x",
    )
    _check(assignment)
    assert selectors.assignment_counts(assignment)["rechecks"] == 2
    judge(assignment, {responses[1]: "correct"})  # re-checked and kept
    judge(assignment, {responses[5]: "correct"})  # re-checked and changed
    _check(assignment)
    assert selectors.assignment_counts(assignment)["rechecks"] == 0
    queue = selectors.queue_item(assignment, 2)
    assert (queue.judged, queue.rechecks) == (_counted(assignment)["judged"], 0)
