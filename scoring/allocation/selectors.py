"""Which items each scorer judges, the reads (the writes: scoring/allocation/services.py).

Without an allocation every scorer gets every item, as before; with one, a scorer's queue,
progress and reveal cover only the items in their share, and a judgement outside it is refused.
"""

from django.db.models import Count, F

from probe.models import Experiment, ExperimentItem, Response
from scoring.models import Allocation, Assignment, ItemAllocation, Judgement


def allocation_of(experiment: Experiment) -> Allocation | None:
    return Allocation.objects.filter(experiment=experiment).first()


def allocated_item_ids(assignment: Assignment) -> set[int] | None:
    """The items in this scorer's share (None: no allocation, every item)."""
    if not Allocation.objects.filter(experiment_id=assignment.experiment_id).exists():
        return None
    return set(
        ItemAllocation.objects.filter(assignment=assignment, released=None).values_list(
            "item_id", flat=True
        )
    )


def skipped_responses(assignment: Assignment) -> set[int]:
    """Responses of this scorer's items they do not judge: a departed scorer judged them before
    the item was handed on to this one (it has its k judgements already)."""
    skipped: set[int] = set()
    for row in ItemAllocation.objects.filter(assignment=assignment, released=None).values_list(
        "skipped", flat=True
    ):
        skipped.update(row)
    return skipped


def scorer_totals(experiment: Experiment) -> dict[int, int] | None:
    """Assignment id -> how many responses its share holds (None: no allocation)."""
    if not Allocation.objects.filter(experiment=experiment).exists():
        return None
    per_item = dict(
        Response.objects.filter(run__experiment=experiment)
        .values("item_id")
        .annotate(n=Count("pk"))
        .values_list("item_id", "n")
    )
    totals: dict[int, int] = {}
    for assignment_id, item_id, skipped in ItemAllocation.objects.filter(
        allocation__experiment=experiment, released=None
    ).values_list("assignment_id", "item_id", "skipped"):
        share = per_item.get(item_id, 0) - len(skipped)
        totals[assignment_id] = totals.get(assignment_id, 0) + share
    # What a departed scorer judged on the items handed on stays theirs: it counts in their
    # total as in their judged (never more judged than their total).
    for assignment_id, n in (
        Judgement.objects.filter(
            assignment__experiment=experiment,
            assignment__allocated_items__released__isnull=False,
            assignment__allocated_items__item_id=F("response__item_id"),
        )
        .values("assignment_id")
        .annotate(n=Count("pk", distinct=True))
        .values_list("assignment_id", "n")
    ):
        totals[assignment_id] = totals.get(assignment_id, 0) + n
    return totals


def departed(experiment: Experiment) -> set[int]:
    """The assignments whose open items were handed on: scorers who left."""
    return set(
        ItemAllocation.objects.filter(
            allocation__experiment=experiment, released__isnull=False
        ).values_list("assignment_id", flat=True)
    )


def scorer_total(assignment: Assignment) -> int | None:
    """How many responses this scorer judges (None: no allocation, every response)."""
    items = allocated_item_ids(assignment)
    if items is None:
        return None
    handed_on = Judgement.objects.filter(
        assignment=assignment,
        assignment__allocated_items__released__isnull=False,
        assignment__allocated_items__item_id=F("response__item_id"),
    ).count()  # what they judged on items handed on stays theirs (scorer_totals)
    share = Response.objects.filter(item_id__in=items).count()
    return share - len(skipped_responses(assignment)) + handed_on


def item_counts(experiment: Experiment) -> dict[int, int]:
    """Item id -> how many scorers it is allocated to (released shares not counted)."""
    return dict(
        ItemAllocation.objects.filter(allocation__experiment=experiment, released=None)
        .values("item_id")
        .annotate(n=Count("pk"))
        .values_list("item_id", "n")
    )


def share_place(share: set[int], position: int) -> tuple[int, tuple[int | None, int | None]]:
    """Which of the scorer's own items the one at ``position`` is (1 for their first), and the
    positions of their items before and after it (None at either end)."""
    positions = sorted(
        ExperimentItem.objects.filter(pk__in=share).values_list("position", flat=True)
    )
    number = sum(1 for p in positions if p <= position)
    before = positions[number - 2] if number >= 2 else None
    after = positions[number] if number < len(positions) else None
    return number, (before, after)


def skipped_per_item(assignment: Assignment) -> dict[int, int]:
    """Item id -> how many of its responses this scorer does not judge (``skipped_responses``)."""
    return {
        item_id: len(skipped)
        for item_id, skipped in ItemAllocation.objects.filter(
            assignment=assignment, released=None
        ).values_list("item_id", "skipped")
        if skipped
    }
