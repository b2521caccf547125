"""Reads for the blind queue: where a scorer is across the items (every item's state on the
overview, the next open item, where to resume). What one item shows is ``selectors.py``."""

from dataclasses import dataclass

import numpy as np
from django.db.models import Count, F, Q

from probe.models import ExperimentItem, Response
from scoring.allocation import selectors as shares
from scoring.models import Assignment, Judgement, KeyDispute
from scoring.report.db_arrays import int_rows
from scoring.review.keys import keys_in_force


@dataclass
class OverviewItem:
    position: int
    block_code: str
    open: int  # responses not judged yet
    rechecks: int
    flagged: bool  # a (!) still in force, or disputed by this scorer
    disputed: bool

    @property
    def state(self) -> str:
        if self.rechecks:
            return "recheck"
        if self.open:
            return "open"
        return "done"


def item_overview(assignment: Assignment) -> list[OverviewItem]:
    """Every item with this scorer's state on it: open, done, re-check, flagged (5 queries)."""
    experiment = assignment.experiment
    share = shares.allocated_item_ids(assignment)
    items = ExperimentItem.objects.filter(experiment=experiment)
    if share is not None:
        items = items.filter(pk__in=share)
    items = list(
        items.order_by("position")
        .values("pk", "position", "block_code")
        .annotate(n=Count("responses"))
    )
    skipped = shares.skipped_per_item(assignment) if share is not None else {}
    for row in items:
        row["n"] -= skipped.get(row["pk"], 0)  # judged by a departed scorer before a hand-on
    judged = {
        item_id: (done, recheck)
        for item_id, done, recheck in Judgement.objects.filter(assignment=assignment)
        .values("response__item_id")
        .annotate(
            done=Count("pk", filter=Q(needs_recheck=False)),
            recheck=Count("pk", filter=Q(needs_recheck=True)),
        )
        .values_list("response__item_id", "done", "recheck")
    }
    keys = keys_in_force(experiment)
    disputed = set(
        KeyDispute.objects.filter(assignment=assignment).values_list("item_id", flat=True)
    )
    return [
        OverviewItem(
            position=row["position"],
            block_code=row["block_code"],
            open=row["n"] - sum(judged.get(row["pk"], (0, 0))),
            rechecks=judged.get(row["pk"], (0, 0))[1],
            flagged=keys[row["pk"]].flagged or row["pk"] in disputed,
            disputed=row["pk"] in disputed,
        )
        for row in items
    ]


def next_open_position(assignment: Assignment, after: int) -> int | None:
    """The next item after ``after`` (wrapping round) with a response to judge or re-check."""
    positions = [o.position for o in item_overview(assignment) if o.state in ("open", "recheck")]
    later = [p for p in positions if p > after]
    if later:
        return later[0]
    earlier = [p for p in positions if p != after]
    return earlier[0] if earlier else None


def first_open_position(assignment: Assignment) -> int:
    """Where to resume: a re-check first, else the first item with an unjudged response."""
    recheck = (
        Judgement.objects.filter(assignment=assignment, needs_recheck=True)
        .order_by("response__item__position")
        .values_list("response__item__position", flat=True)
        .first()
    )
    if recheck:
        return recheck
    responses = Response.objects.filter(run__experiment=assignment.experiment)
    share = shares.allocated_item_ids(assignment)
    if share is not None:
        responses = responses.filter(item_id__in=share).exclude(
            pk__in=shares.skipped_responses(assignment)
        )
    # The responses and the scorer's judged ones as two arrays, compared in numpy: the same
    # question as an anti-join ("a response with no judgement of this assignment"), which
    # PostgreSQL planned as a nested loop over every pair (quadratic, tens of seconds) right
    # after a follow-up's carry had written tens of thousands of judgements it had no
    # statistics for yet.
    rows = int_rows(responses.annotate(position=F("item__position")), ["id", "position"])
    done = int_rows(Judgement.objects.filter(assignment=assignment), ["response_id"])[:, 0]
    open_rows = rows[~np.isin(rows[:, 0], done)]
    if len(open_rows):
        return int(open_rows[:, 1].min())
    return assignment.last_position or 1
