"""Judgements carried across experiments.

When a response gives the same answer (after normalising case and spaces) with the same
confidence as a response of an earlier experiment of the team, to the same item version (the
same bank item in the same words) judged against the same key in force, and that earlier
response has a final bucket, the bucket is carried: recorded as a CarriedBucket with its origin.
A carried response is left out of the blind queue unless the team sends carried answers through
it; it reverts to open when its item's key is amended. Abstentions and missing answers are never
carried: they are preset anyway.

The plan is computed in a fixed number of queries whatever the size of the experiment, from
narrow tuples (no model instances, the items' words read once per item, not per response); the
buckets are recorded by INSERT ... SELECT statements of 1,000 rows that name each response, the
response and experiment it carries from, pass its bucket and key, and read the earlier
experiment's name in the database. The match itself stays in Python: the normalisation
(Unicode spaces, case folding) is Python's, and no SQL function of both PostgreSQL and SQLite
gives the same text, so it cannot be a join.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import connection, transaction
from django.db.models import QuerySet
from django.utils import timezone

from probe.models import Experiment, ExperimentItem, Response, Run
from scoring.models import CarriedBucket, FinalBucket, Judgement, KeyDecision
from scoring.review.keys import keys_decided


def normalise(answer: str | None) -> str:
    return " ".join((answer or "").split()).casefold()


@dataclass(frozen=True)
class Carry:
    bucket: str
    from_response: int
    from_experiment: int
    from_experiment_name: str
    key_answer: str


# Buckets recorded a statement at a time: each row is the response, the response it carries
# from and the key, the rest is read by the database itself; statements of 1,000 rows keep it
# linear in the responses.
CARRY_BATCH = 1000


def _keys(items, decisions) -> dict[int, str | None]:
    """Item id -> the text of its key in force, None for an item dropped as ambiguous (nothing
    is carried from or to it). `items` yields (id, snapshot key); `decisions` the key decisions
    of those items (few: only items taken to key review have any)."""
    decided = keys_decided(decisions)
    keys = dict(items)
    for pk, (text, dropped) in decided.items():
        if pk in keys:
            keys[pk] = None if dropped else text
    return keys


def _plan(experiment: Experiment, *, unrecorded: bool = False) -> dict[int, tuple]:
    """Response id -> (bucket, from response, from experiment, its name, key): as Carry.

    Each side is read as narrow rows: the items once (their bank item, words and key), the
    responses and the final buckets by item id alone. Every item version (bank item, words,
    key in force) of this experiment gets a number; an earlier item of another version cannot
    match and its answers are never normalised; the match is on (version, answer, confidence),
    and the newest earlier experiment's bucket wins (then the newest response), kept as the
    rows come: no sort in the database, whose sort of every earlier answer spilled to disk."""
    mine = ExperimentItem.objects.filter(experiment=experiment, source_item__isnull=False)
    # Responses to items without a bank item have no version below: left out there, not here,
    # so that this read needs no join with the items.
    responses = Response.objects.filter(run__experiment=experiment, abstained=False)
    if unrecorded:
        responses = responses.filter(carried__isnull=True)
    rows = list(responses.order_by().values_list("pk", "item_id", "answer", "confidence"))
    if not rows:
        return {}
    my_items = list(mine.order_by().values_list("pk", "source_item_id", "question", "key_answer"))
    keys = _keys(
        ((pk, key) for pk, _s, _q, key in my_items),
        KeyDecision.objects.filter(item__in=mine.values("pk")),
    )
    versions: dict[tuple, int] = {}  # (bank item, question, key in force) -> its number
    my_version: dict[int, int] = {}  # item id -> its version's number
    for pk, source, question, _snapshot in my_items:
        key = keys[pk]
        if key is not None:
            my_version[pk] = versions.setdefault((source, question, key), len(versions))
    earlier = ExperimentItem.objects.filter(
        experiment__team_id=experiment.team_id,
        experiment__status=Experiment.Status.COLLECTED,
        experiment__created__lt=experiment.created,
        # A bucket means something only in its own scheme: an AA experiment never takes a
        # four-bucket "confident wrong", nor the other way round.
        experiment__scheme=experiment.scheme,
        source_item_id__in=mine.values("source_item_id"),
    )
    earlier_items = list(
        earlier.order_by().values_list(
            "pk",
            "source_item_id",
            "question",
            "key_answer",
            "experiment_id",
            "experiment__created",
            "experiment__name",
        )
    )
    earlier_keys = _keys(
        ((i[0], i[3]) for i in earlier_items),
        KeyDecision.objects.filter(item__in=earlier.values("pk")),
    )
    # Earlier item id -> (version, its experiment's creation, id, name, key), for the items
    # whose version is one of this experiment's.
    matching: dict[int, tuple] = {}
    for pk, source, question, _snapshot, exp_id, created, name in earlier_items:
        key = earlier_keys[pk]
        version = versions.get((source, question, key)) if key is not None else None
        if version is not None:
            matching[pk] = (version, created, exp_id, name, key)
    finals = FinalBucket.objects.filter(response__item__in=earlier.values("pk")).order_by()
    # (version, answer, confidence) -> ((created, response id), what it carries): the newest.
    known: dict[tuple, tuple] = {}
    for bucket, response_id, item_id, answer, confidence in finals.values_list(
        "bucket", "response_id", "response__item_id", "response__answer", "response__confidence"
    ):
        item = matching.get(item_id)
        if item is None:
            continue
        answer = normalise(answer)
        if not answer:
            continue
        version, created, exp_id, name, key = item
        match = (version, answer, confidence)
        newest = known.get(match)
        # Plain tuples, not a Carry each: tens of thousands of objects made here would cost
        # the garbage collector more than the rest of the plan.
        if newest is None or newest[0] < (created, response_id):
            known[match] = ((created, response_id), (bucket, response_id, exp_id, name, key))
    plan = {}
    for response_id, item_id, answer, confidence in rows:
        version = my_version.get(item_id)
        if version is None:
            continue
        answer = normalise(answer)
        if not answer:
            continue
        found = known.get((version, answer, confidence))
        if found is not None:
            plan[response_id] = found[1]
    return plan


def carry_plan(experiment: Experiment) -> dict[int, Carry]:
    """Response id -> what it carries, for every response of `experiment` that can carry.

    Six queries whatever the items, each item set given to the database as a subquery (not a
    list of ids), every row read as a tuple: linear in the items and responses."""
    return {pk: Carry(*found) for pk, found in _plan(experiment).items()}


def _insert_sql(rows: list[tuple[int, tuple]]) -> str:
    """INSERT ... SELECT of the carried buckets `rows` (response id, what it carries): the
    earlier experiment's name is read from the experiment carried from.

    The bucket is the plan's (read in the same transaction a moment before), not joined from
    the final buckets: a join of 1,000 ids with the whole table of final buckets was planned
    as a scan of that table, once per statement, which made the carry grow with the square of
    the responses."""
    q = connection.ops.quote_name
    # The ids are written into the statement (whole numbers the database gave, formatted as
    # such): a placeholder costs the driver a parse of its own; the bucket and the key are the
    # parameters.
    row = "(CAST({:d} AS BIGINT), CAST({:d} AS BIGINT), CAST({:d} AS BIGINT), %s, %s)"
    # A VALUES list's columns are column1, column2, ... in both databases; the statement
    # starts with INSERT so that SQLite's driver counts the rows it made.
    return (
        f"INSERT INTO {q(CarriedBucket._meta.db_table)} (response_id, bucket, from_response_id,"
        " from_experiment_id, from_experiment_name, key_answer, created)"
        " SELECT c.column1, c.column4, c.column2, e.id, e.name, c.column5, %s"
        f" FROM (VALUES {', '.join(row.format(pk, c[1], c[2]) for pk, c in rows)}) AS c"
        f" JOIN {q(Experiment._meta.db_table)} e ON e.id = c.column3"
        # The WHERE lets SQLite read ON CONFLICT as the insert's, not as a join's.
        " WHERE 1 = 1 ON CONFLICT DO NOTHING"
    )


@transaction.atomic
def carry_sync(*, experiment: Experiment) -> int:
    """Record every bucket the experiment can carry that is not recorded yet; the number made.

    Idempotent: run it again and nothing changes. Only for a collected experiment (its responses
    are all in) whose scoring has not moved on without them. A fixed number of queries, and one
    insert per CARRY_BATCH buckets carried.
    """
    if experiment.status != Experiment.Status.COLLECTED:
        return 0
    plan = list(_plan(experiment, unrecorded=True).items())
    stamp = connection.ops.adapt_datetimefield_value(timezone.now())
    made = 0
    with connection.cursor() as cursor:
        for start in range(0, len(plan), CARRY_BATCH):
            batch = plan[start : start + CARRY_BATCH]
            params = [stamp]
            for _pk, (bucket, _from, _exp, _name, key) in batch:
                params += (bucket, key)
            cursor.execute(_insert_sql(batch), params)
            made += cursor.rowcount
    return made


def carried_judgements_create(*, assignment) -> int:
    """Each carried bucket of the assignment's experiment as the scorer's judgement (verdict
    "carried"), where the scorer has none yet; the number made. One INSERT ... SELECT whatever
    the size: the carried answers are decided, out of the scorer's queue, in their figures."""
    q = connection.ops.quote_name
    run = Run._meta.db_table
    stamp = connection.ops.adapt_datetimefield_value(timezone.now())
    sql = (
        f"INSERT INTO {q(Judgement._meta.db_table)} (assignment_id, response_id, bucket, verdict,"
        " unblinded, needs_recheck, key_decision_id, note, created, updated)"
        " SELECT %s, c.response_id, c.bucket, %s, %s, %s, NULL, '', %s, %s"
        f" FROM {q(CarriedBucket._meta.db_table)} c"
        f" JOIN {q(Response._meta.db_table)} r ON r.id = c.response_id"
        f" JOIN {q(run)} u ON u.id = r.run_id"
        " WHERE u.experiment_id = %s ORDER BY c.response_id ON CONFLICT DO NOTHING"
    )
    params = [assignment.pk, Judgement.Verdict.CARRIED, False, False, stamp, stamp]
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, assignment.experiment_id])
        return cursor.rowcount


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
