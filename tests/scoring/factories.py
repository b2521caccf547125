"""Scoring as the tests do it, through the services: assignments, judgements in the buckets a
test names, a scorer who decides everything, a key decision.

The experiments they work on come from tests/builders.py (or the world's ``scored``).
"""

from probe.models import Response
from scoring.models import Assignment, Bucket
from scoring.queue import services
from scoring.review import services as review_services


def responses_in_order(experiment, *, position=None, answer=None) -> list[Response]:
    """Responses by run order, then item position: unit 1, 2, ... of the tests' tables
    (position and answer keep those of one item, or with one answer)."""
    responses = Response.objects.filter(run__experiment=experiment).order_by(
        "run__order", "item__position"
    )
    if position is not None:
        responses = responses.filter(item__position=position)
    if answer is not None:
        responses = responses.filter(answer=answer)
    return list(responses)


def judge(assignment: Assignment, buckets: dict) -> None:
    """Set each response's bucket directly (a scorer pressing 1-4), through judgement_decide."""
    for response, bucket in buckets.items():
        services.judgement_decide(assignment=assignment, responses=[response], bucket=bucket)


def judge_everything(assignment: Assignment, bucket=Bucket.CORRECT) -> None:
    """Judge every response this scorer has not judged yet (UNKNOWNs stay at their preset)."""
    open_responses = Response.objects.filter(run__experiment=assignment.experiment).exclude(
        judgements__assignment=assignment
    )
    judge(assignment, {r: bucket for r in open_responses})


def decide_group(assignment: Assignment, position: int, answer, confidence=None, **decision):
    """One decision (verdict= or bucket=) on the item's responses that gave this answer (with
    this confidence, if one is given)."""
    responses = [
        r
        for r in Response.objects.filter(
            item__experiment=assignment.experiment, item__position=position
        )
        if r.answer == answer and confidence in (None, r.confidence)
    ]
    services.judgement_decide(assignment=assignment, responses=responses, **decision)


def score_all(experiment, user, *, reveal: bool = True) -> Assignment:
    """Start an assignment and decide every response the way its answer says (the answers of
    builders.LETTERS: "key ...", "wrong ...", "partial ..."), then reveal it."""
    assignment = services.assignment_start(experiment=experiment, user=user)
    responses = Response.objects.filter(run__experiment=experiment).exclude(answer="UNKNOWN")
    by_kind: dict[tuple[int, str], list[Response]] = {}
    for response in responses.select_related("item"):
        kind = response.answer.split(" ")[0]
        by_kind.setdefault((response.item.position, kind), []).append(response)
    for (_position, kind), group in sorted(by_kind.items()):
        if kind == "key":
            services.judgement_decide(assignment=assignment, responses=group, verdict="correct")
        elif kind == "wrong":
            services.judgement_decide(assignment=assignment, responses=group, verdict="wrong")
        else:
            services.judgement_decide(assignment=assignment, responses=group, bucket=Bucket.PARTIAL)
    if reveal:
        services.assignment_reveal(assignment=assignment)
    assignment.refresh_from_db()
    return assignment


def key_decision(experiment, position: int, user, *, outcome="amended", source="the manual", **kw):
    """A key decision on the experiment's item at this position (new_answer=, note=, ...)."""
    return review_services.key_decision_create(
        item=experiment.items.get(position=position),
        user=user,
        outcome=outcome,
        source=source,
        **kw,
    )
