"""A run's attempts and responses copied into a run of another experiment, set-based.

A follow-up includes an earlier run as it was: every attempt (the raw reply, exactly as
received) and the response of every item the follow-up kept. The copy is two INSERT ... SELECT
statements whatever the size of the run, so the database copies the rows without a value
passing through Python: linear in the responses, a fixed number of queries. The SQL is written
once for PostgreSQL and SQLite.

An item of the earlier experiment is kept when the follow-up has an item of the same bank item
in the same words (for an item whose bank item was deleted: the same words alone): the map of
kept items is read once (two reads of plain rows) and given to each copy as a VALUES list. A copied
attempt names the attempt it copies (``copied_from``); the copy of a response points at the
copy of its attempt. The copies say when they were made (``created``); nothing else changes.
"""

from django.db import connection

from ..models import Attempt, ExperimentItem, Response, Run
from .experiments import SNAPSHOT_FIELDS

# Columns the copy sets itself; every other column is copied as it is, whatever columns are
# added later, without a list to keep up to date here.
_ATTEMPT_SET = {"id", "run", "item", "created", "copied_from"}
_RESPONSE_SET = {"id", "run", "item", "attempt", "created"}


def _q(name: str) -> str:
    return connection.ops.quote_name(name)


def _copied_columns(model, set_here: set[str]) -> list[str]:
    return [_q(f.column) for f in model._meta.concrete_fields if f.name not in set_here]


def kept_items(*, source_experiment_id: int, target_experiment_id: int) -> dict[int, int]:
    """Earlier item id -> follow-up item id, for every item the follow-up kept (the same bank
    item in the same words). Two reads of plain rows, whatever the size.

    Worked out here rather than joined in SQL: the follow-up's items were inserted in this very
    transaction, so the database knows nothing yet of how many there are, and a join it plans
    for a handful of rows compares every item with every other one."""
    items = ExperimentItem.objects.order_by("position")
    new = items.filter(experiment_id=target_experiment_id)
    by_question = {(s, q): pk for pk, s, q in new.values_list("pk", "source_item_id", "question")}
    old = items.filter(experiment_id=source_experiment_id)
    return {
        pk: by_question[(s, q)]
        for pk, s, q in old.values_list("pk", "source_item_id", "question")
        if (s, q) in by_question
    }


def _map_sql(item_map: dict[int, int]) -> str:
    """The map as a VALUES list (column1: earlier item, column2: the follow-up's), its whole
    numbers written into the statement: the database knows its size, and no parameter each."""
    rows = ", ".join(f"({old:d}, {new:d})" for old, new in item_map.items()) or "(0, 0)"
    return f"(VALUES {rows})"


def run_copy(*, source: Run, target: Run, now, item_map: dict[int, int]) -> tuple[int, int]:
    """Copy `source`'s attempts and the responses of kept items (`item_map`, from kept_items)
    into `target`, stamped `now`.

    Returns (attempts, responses) copied. `target` must have no attempts copied from `source`
    yet (it is a new run)."""
    stamp = connection.ops.adapt_datetimefield_value(now)
    attempts, responses = _q(Attempt._meta.db_table), _q(Response._meta.db_table)
    items = _map_sql(item_map)
    copied = _copied_columns(Attempt, _ATTEMPT_SET)
    attempt_sql = (
        f"INSERT INTO {attempts} (run_id, item_id, created, copied_from_id, {', '.join(copied)})"
        f" SELECT %s, m.column2, %s, a.id, {', '.join('a.' + c for c in copied)}"
        f" FROM {attempts} a LEFT JOIN {items} AS m ON m.column1 = a.item_id"
        " WHERE a.run_id = %s AND (a.item_id IS NULL OR m.column2 IS NOT NULL)"
        " ORDER BY a.id"
    )
    copied = _copied_columns(Response, _RESPONSE_SET)
    response_sql = (
        f"INSERT INTO {responses} (run_id, item_id, attempt_id, created, {', '.join(copied)})"
        f" SELECT %s, m.column2, c.id, %s, {', '.join('r.' + col for col in copied)}"
        f" FROM {responses} r JOIN {items} AS m ON m.column1 = r.item_id"
        f" JOIN {attempts} c ON c.run_id = %s AND c.copied_from_id = r.attempt_id"
        " WHERE r.run_id = %s ORDER BY r.id"
    )
    with connection.cursor() as cursor:
        cursor.execute(attempt_sql, [target.pk, stamp, source.pk])
        n_attempts = cursor.rowcount
        cursor.execute(response_sql, [target.pk, stamp, target.pk, source.pk])
        n_responses = cursor.rowcount
    return n_attempts, n_responses


def items_copy(*, source_experiment_id: int, target_experiment_id: int, keys: dict[int, str]):
    """Copy every item of one experiment into another, numbered 1..N in the same order, in one
    INSERT ... SELECT; `keys` gives the key text of the items whose key is not the snapshot's
    (a follow-up takes the key in force: those amended in review, a few). The number copied."""
    items = _q(ExperimentItem._meta.db_table)
    copied = [
        _q(ExperimentItem._meta.get_field(name).column)
        for name in SNAPSHOT_FIELDS
        if name != "key_answer"
    ]
    params: list = [target_experiment_id]
    join, key = "", "o.key_answer"
    if keys:
        rows = ", ".join(f"(CAST({pk:d} AS BIGINT), %s)" for pk in keys)
        join = f" LEFT JOIN (VALUES {rows}) AS k ON k.column1 = o.id"
        key = "COALESCE(k.column2, o.key_answer)"
        params += list(keys.values())
    sql = (
        f"INSERT INTO {items} (experiment_id, position, key_answer, {', '.join(copied)})"
        f" SELECT %s, ROW_NUMBER() OVER (ORDER BY o.position, o.id), {key},"
        f" {', '.join('o.' + c for c in copied)} FROM {items} o{join}"
        " WHERE o.experiment_id = %s ORDER BY o.position, o.id"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, source_experiment_id])
        return cursor.rowcount
