"""A run's attempts and responses copied into a run of another experiment, set-based.

A follow-up includes an earlier run as it was: every attempt (the raw reply, exactly as
received) and the response of every item the follow-up kept. The copy is two INSERT ... SELECT
statements whatever the size of the run, so the database copies the rows without a value
passing through Python: linear in the responses, a fixed number of queries. The SQL is written
once for PostgreSQL and SQLite.

An item of the earlier experiment is kept when the follow-up has an item of the same bank item
in the same words (for an item whose bank item was deleted: the same words alone). A copied
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


def _item_map_sql() -> str:
    """(old_id, new_id) of every kept item: the earlier experiment's item, the follow-up's.

    Two parameters: the follow-up's experiment, the earlier one; twice (two branches, each
    one an equality join the database can index or hash)."""
    items = _q(ExperimentItem._meta.db_table)
    return (
        f"SELECT o.id AS old_id, n.id AS new_id FROM {items} o JOIN {items} n"
        " ON n.experiment_id = %s AND n.source_item_id = o.source_item_id"
        " AND n.question = o.question WHERE o.experiment_id = %s"
        f" UNION ALL SELECT o.id, n.id FROM {items} o JOIN {items} n"
        " ON n.experiment_id = %s AND n.source_item_id IS NULL AND n.question = o.question"
        " WHERE o.experiment_id = %s AND o.source_item_id IS NULL"
    )


def run_copy(*, source: Run, target: Run, now) -> tuple[int, int]:
    """Copy `source`'s attempts and the responses of kept items into `target`, stamped `now`.

    Returns (attempts, responses) copied. `target` must have no attempts copied from `source`
    yet (it is a new run)."""
    items = [target.experiment_id, source.experiment_id] * 2
    stamp = connection.ops.adapt_datetimefield_value(now)
    attempts, responses = _q(Attempt._meta.db_table), _q(Response._meta.db_table)
    copied = _copied_columns(Attempt, _ATTEMPT_SET)
    attempt_sql = (
        f"INSERT INTO {attempts} (run_id, item_id, created, copied_from_id, {', '.join(copied)})"
        f" SELECT %s, m.new_id, %s, a.id, {', '.join('a.' + c for c in copied)}"
        f" FROM {attempts} a LEFT JOIN ({_item_map_sql()}) m ON m.old_id = a.item_id"
        " WHERE a.run_id = %s AND (a.item_id IS NULL OR m.new_id IS NOT NULL)"
        " ORDER BY a.id"
    )
    copied = _copied_columns(Response, _RESPONSE_SET)
    response_sql = (
        f"INSERT INTO {responses} (run_id, item_id, attempt_id, created, {', '.join(copied)})"
        f" SELECT %s, m.new_id, c.id, %s, {', '.join('r.' + col for col in copied)}"
        f" FROM {responses} r JOIN ({_item_map_sql()}) m ON m.old_id = r.item_id"
        f" JOIN {attempts} c ON c.run_id = %s AND c.copied_from_id = r.attempt_id"
        " WHERE r.run_id = %s ORDER BY r.id"
    )
    with connection.cursor() as cursor:
        cursor.execute(attempt_sql, [target.pk, stamp, *items, source.pk])
        n_attempts = cursor.rowcount
        cursor.execute(response_sql, [target.pk, stamp, *items, target.pk, source.pk])
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
