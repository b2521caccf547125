"""Judgements carried across experiments.

When a response gives the same answer (after normalising case and spaces) with the same
confidence as a response of an earlier experiment of the team, to the same item version (the
same bank item in the same words) judged against the same key in force, and that earlier
response has a final bucket, the bucket is carried: recorded as a CarriedBucket with its origin.
A carried response is left out of the blind queue unless the team sends carried answers through
it; it reverts to open when its item's key is amended. Abstentions and missing answers are never
carried: they are preset anyway.

The plan is computed in a fixed number of queries whatever the size of the experiment.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction
from django.db.models import QuerySet

from probe.models import Experiment, ExperimentItem, Response
from scoring.models import CarriedBucket, FinalBucket
from scoring.review.keys import keys_in_force


def normalise(answer: str | None) -> str:
    return " ".join((answer or "").split()).casefold()


@dataclass(frozen=True)
class Carry:
    bucket: str
    from_response: int
    from_experiment: int
    from_experiment_name: str
    key_answer: str


# Buckets recorded a statement at a time: linear in the responses (see followups.COPY_BATCH).
CARRY_BATCH = 1000


def _keys_in_force(item_ids) -> dict[int, str | None]:
    """Experiment item id -> the text of its key in force, None for an item dropped as
    ambiguous (nothing is carried from or to it); items of any experiments."""
    return {
        pk: None if key.dropped else key.answer
        for pk, key in keys_in_force(None, item_ids=item_ids).items()
    }


def carry_plan(experiment: Experiment) -> dict[int, Carry]:
    """Response id -> what it carries, for every response of `experiment` that can carry.

    A fixed number of queries whatever the items, each item set given to the database as a
    subquery (not a list of ids): linear in the items and responses."""
    mine = ExperimentItem.objects.filter(experiment=experiment, source_item__isnull=False)
    items = {i["pk"]: i for i in mine.values("pk", "source_item_id", "question")}
    if not items:
        return {}
    keys = _keys_in_force(mine.values("pk"))
    earlier = ExperimentItem.objects.filter(
        experiment__team_id=experiment.team_id,
        experiment__status=Experiment.Status.COLLECTED,
        experiment__created__lt=experiment.created,
        source_item_id__in=mine.values("source_item_id"),
    )
    earlier_items = {
        i["pk"]: i
        for i in earlier.values(
            "pk", "source_item_id", "question", "experiment_id", "experiment__name"
        )
    }
    earlier_keys = _keys_in_force(earlier.values("pk"))
    # (item version, key, answer, confidence) -> the newest earlier final bucket
    known: dict[tuple, Carry] = {}
    finals = (
        FinalBucket.objects.filter(response__item__in=earlier.values("pk"))
        .order_by("response__item__experiment__created", "response_id")
        .values_list(
            "bucket", "response_id", "response__item_id", "response__answer", "response__confidence"
        )
    )
    for bucket, response_id, item_id, answer, confidence in finals:
        item = earlier_items[item_id]
        key = earlier_keys.get(item_id)
        if key is None or not normalise(answer):
            continue
        version = (item["source_item_id"], item["question"], key, normalise(answer), confidence)
        known[version] = Carry(
            bucket=bucket,
            from_response=response_id,
            from_experiment=item["experiment_id"],
            from_experiment_name=item["experiment__name"],
            key_answer=key,
        )
    plan = {}
    responses = Response.objects.filter(
        run__experiment=experiment, item__source_item__isnull=False, abstained=False
    ).values_list("pk", "item_id", "answer", "confidence")
    for response_id, item_id, answer, confidence in responses:
        key = keys.get(item_id)
        if key is None or not normalise(answer):
            continue
        item = items[item_id]
        found = known.get(
            (item["source_item_id"], item["question"], key, normalise(answer), confidence)
        )
        if found is not None:
            plan[response_id] = found
    return plan


@transaction.atomic
def carry_sync(*, experiment: Experiment) -> int:
    """Record every bucket the experiment can carry that is not recorded yet; the number made.

    Idempotent: run it again and nothing changes. Only for a collected experiment (its responses
    are all in) whose scoring has not moved on without them.
    """
    if experiment.status != Experiment.Status.COLLECTED:
        return 0
    plan = carry_plan(experiment)
    have = set(
        CarriedBucket.objects.filter(response__run__experiment=experiment).values_list(
            "response_id", flat=True
        )
    )
    made = CarriedBucket.objects.bulk_create(
        [
            CarriedBucket(
                response_id=response_id,
                bucket=c.bucket,
                from_response_id=c.from_response,
                from_experiment_id=c.from_experiment,
                from_experiment_name=c.from_experiment_name,
                key_answer=c.key_answer,
            )
            for response_id, c in plan.items()
            if response_id not in have
        ],
        ignore_conflicts=True,
        batch_size=CARRY_BATCH,
    )
    return len(made)


def carried_of(experiment: Experiment) -> QuerySet[CarriedBucket]:
    return CarriedBucket.objects.filter(response__run__experiment=experiment)


def carried_by_run(experiment: Experiment) -> dict[int, list[tuple[str, int]]]:
    """Run id -> [(earlier experiment's name, answers carried from it)], for the reveal."""
    found: dict[int, dict[str, int]] = {}
    rows = carried_of(experiment).values_list("response__run_id", "from_experiment_name")
    for run_id, name in rows:
        found.setdefault(run_id, {}).setdefault(name, 0)
        found[run_id][name] += 1
    return {run_id: sorted(names.items()) for run_id, names in found.items()}


def carry_reopen(*, item: ExperimentItem) -> int:
    """The item's key was amended: its carried buckets no longer hold. The number reopened."""
    deleted, _by_model = CarriedBucket.objects.filter(response__item=item).delete()
    return deleted


@dataclass
class CarryCounts:
    carried: int
    to_judge: int
    through_queue: bool


def carry_counts(experiment: Experiment) -> CarryCounts:
    """How many responses carry a bucket and how many go to the scorers (shown before scoring).

    Before the first scorer starts, nothing is recorded yet: the count is the plan's."""
    total = Response.objects.filter(run__experiment=experiment).count()
    carried = carried_of(experiment).count() or len(carry_plan(experiment))
    through = experiment.team.recheck_carried
    return CarryCounts(
        carried=carried, to_judge=total if through else total - carried, through_queue=through
    )
