"""Which items each scorer judges, the writes: the allocation and the hand-over of a departed
scorer's open items.

The draw (``deal``): a random generator seeded with the stored seed shuffles the items, and
each goes to the ``k`` scorers with the fewest items so far, ties broken by the same generator:
``k`` different scorers per item (k <= pool), and every scorer gets n*k/pool items, rounded down
or up: within one item of each other. The same seed and pool give the same shares.
"""

import random
import secrets

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Count, Q
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from probe.models import Experiment, ExperimentItem, Notification, Response
from probe.services import notifications
from scoring.models import Allocation, Assignment, ItemAllocation, Judgement
from scoring.queue.services import assignment_start
from scoring.reconciliation.finals import final_buckets_sync
from scoring.reconciliation.waits import reconciliation_waits


def deal(item_ids: list[int], pool: list[int], k: int, seed: int) -> dict[int, list[int]]:
    """Pool member -> their item ids: each item to k distinct members, balanced, from seed.

    Items in a shuffled order, each to the k members with the fewest items so far, ties broken
    at random: the loads never differ by more than one, and the pairs of scorers who share an
    item vary (so that every pair has items in common to measure agreement on)."""
    rng = random.Random(seed)
    items = list(item_ids)
    rng.shuffle(items)
    shares: dict[int, list[int]] = {member: [] for member in pool}
    for item in items:
        order = sorted(pool, key=lambda member: (len(shares[member]), rng.random()))
        for member in order[:k]:
            shares[member].append(item)
    return shares


def _drop_presets_outside(assignment: Assignment, item_ids: set[int]) -> None:
    # Presets and carried buckets were made for every item when the scorer started; outside
    # their share nobody judged them, and they would count as this scorer's judgements.
    Judgement.objects.filter(
        assignment=assignment,
        verdict__in=Judgement.NOT_BY_PEOPLE,
    ).exclude(response__item_id__in=item_ids).delete()
    Assignment.objects.filter(pk=assignment.pk).update(progress_judged=None, progress_rechecks=None)


@transaction.atomic
def allocation_create(
    *, experiment: Experiment, by, pool: list, per_item: int | None = None, seed: int | None = None
) -> Allocation:
    """Share the experiment's items among ``pool`` (users who may score it): each item to
    ``per_item`` of them (None: all of them). Made once, before anyone has judged."""
    if Allocation.objects.filter(experiment=experiment).exists():
        raise ValidationError(_("The items of this experiment are already shared out."))
    pool = list(dict.fromkeys(pool))
    if not pool:
        raise ValidationError({"pool": _("Choose at least one scorer.")})
    k = len(pool) if per_item is None else per_item
    if not 1 <= k <= len(pool):
        raise ValidationError(
            {"per_item": _("Choose between 1 and %(n)s scorers per item.") % {"n": len(pool)}}
        )
    judged = Judgement.objects.filter(assignment__experiment=experiment).exclude(
        verdict__in=Judgement.NOT_BY_PEOPLE
    )
    if judged.exists():
        raise ValidationError(_("Scoring has begun: the items can no longer be shared out."))
    assignments = {
        user.pk: assignment_start(experiment=experiment, user=user, invited_by=by) for user in pool
    }
    allocation = Allocation.objects.create(
        experiment=experiment,
        per_item=k,
        seed=secrets.randbits(62) if seed is None else seed,
        created_by=by,
    )
    item_ids = list(
        ExperimentItem.objects.filter(experiment=experiment)
        .order_by("position")
        .values_list("pk", flat=True)
    )
    shares = deal(item_ids, sorted(assignments), k, allocation.seed)
    rows = []
    for user_pk, items in shares.items():
        assignment = assignments[user_pk]
        rows += [
            ItemAllocation(allocation=allocation, assignment=assignment, item_id=i) for i in items
        ]
        _drop_presets_outside(assignment, set(items))
    # Anyone already scoring it but left out of the pool gets no items.
    for other in Assignment.objects.filter(experiment=experiment).exclude(
        pk__in=[a.pk for a in assignments.values()]
    ):
        _drop_presets_outside(other, set())
    ItemAllocation.objects.bulk_create(rows)
    return allocation


def _open_items(assignment: Assignment) -> dict[int, set[int]]:
    """The scorer's items with a response of theirs they have not judged (presets count as
    judged), each with the responses that need no other judgement: those this scorer judged,
    and those they were spared themselves (judged before the item came to them)."""
    rows = dict(
        ItemAllocation.objects.filter(assignment=assignment, released=None).values_list(
            "item_id", "skipped"
        )
    )
    responses: dict[int, set[int]] = {}
    for item_id, pk in Response.objects.filter(item_id__in=rows).values_list("item_id", "pk"):
        responses.setdefault(item_id, set()).add(pk)
    done: dict[int, set[int]] = {item: set(skipped) for item, skipped in rows.items()}
    for item_id, pk in Judgement.objects.filter(
        assignment=assignment, response__item_id__in=rows, needs_recheck=False
    ).values_list("response__item_id", "response_id"):
        done[item_id].add(pk)
    return {item: done[item] for item in rows if responses.get(item, set()) - done[item]}


@transaction.atomic
def allocation_reassign(*, assignment: Assignment, by) -> int:
    """Hand a departed scorer's open items to the other scorers of the pool, each to the one
    with the fewest items who does not have it yet; the judgements they made stay. Returns how
    many items moved."""
    allocation = (
        Allocation.objects.select_for_update()
        .filter(experiment_id=assignment.experiment_id)
        .first()
    )
    if allocation is None:
        raise ValidationError(_("This experiment's scorers each judge every item."))
    others = list(
        Assignment.objects.filter(
            experiment_id=assignment.experiment_id, allocated_items__isnull=False
        )
        .exclude(pk=assignment.pk)
        .distinct()
    )
    loads = dict(
        ItemAllocation.objects.filter(allocation=allocation, released=None, assignment__in=others)
        .values("assignment_id")
        .annotate(n=Count("pk"))
        .values_list("assignment_id", "n")
    )
    rng = random.Random(f"{allocation.seed}:{assignment.pk}")
    moved = 0
    now = timezone.now()
    received: dict[int, Assignment] = {}
    for item_id, spared in _open_items(assignment).items():
        holders = set(
            ItemAllocation.objects.filter(item_id=item_id, released=None).values_list(
                "assignment_id", flat=True
            )
        )
        free = [a for a in others if a.pk not in holders]
        if not free:
            continue  # everyone left already has it: it keeps one judgement fewer
        fewest = min(loads.get(a.pk, 0) for a in free)
        target = rng.choice([a for a in free if loads.get(a.pk, 0) == fewest])
        ItemAllocation.objects.filter(assignment=assignment, item_id=item_id).update(released=now)
        # What the departed scorer judged keeps its judgement: the new scorer judges only the
        # rest, so that every response ends with exactly k.
        ItemAllocation.objects.update_or_create(
            assignment=target,
            item_id=item_id,
            defaults={"allocation": allocation, "released": None, "skipped": sorted(spared)},
        )
        _preset_item(target, item_id, spared)
        loads[target.pk] = loads.get(target.pk, 0) + 1
        received[target.pk] = target
        moved += 1
    Assignment.objects.filter(pk__in=[a.pk for a in others] + [assignment.pk]).update(
        progress_judged=None, progress_rechecks=None
    )
    experiment = assignment.experiment
    notifications.notify(
        users=[a.user for a in received.values()],
        kind=Notification.Kind.TO_SCORE,
        experiment=experiment,
        url=reverse("scoring:start", kwargs={"experiment_pk": experiment.pk}),
        key=f"handed_on:{experiment.pk}:{assignment.pk}",
    )
    final_buckets_sync(experiment=experiment)  # the presets handed on may change unanimity
    reconciliation_waits(experiment)
    return moved


def _preset_item(assignment: Assignment, item_id: int, spared: set[int]) -> None:
    preset = assignment.experiment.scheme_obj.preset_bucket
    Judgement.objects.bulk_create(
        [
            Judgement(
                assignment=assignment, response=r, bucket=preset, verdict=Judgement.Verdict.PRESET
            )
            for r in Response.objects.filter(item_id=item_id)
            .filter(Q(abstained=True) | Q(answer__isnull=True))
            .exclude(pk__in=spared)
        ],
        ignore_conflicts=True,
    )
