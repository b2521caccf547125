"""Integer rows from the database as numpy arrays, without a Python object per value.

The report reads one row per bucket (250,000 at 250 runs); fetching them as Python tuples costs
more than the whole bootstrap, and so does asking the database to code each row's text columns
as ints (a CASE per row). Instead the database groups the rows by their few distinct keys (the
bucket, the confidence as stored, ...) and writes each group's integers into one value: on
PostgreSQL a bytea of eight big-endian bytes a value (int8send), which numpy reads in place; on
SQLite the decimal numbers joined by commas.
"""

from __future__ import annotations

import numpy as np
from django.db import connections
from django.db.models import IntegerField, Value

__all__ = ["grouped_int_rows", "int_rows"]


def grouped_int_rows(query, keys: list[str], ints: list[str]) -> list[tuple[tuple, np.ndarray]]:
    """The rows of ``query`` grouped by the fields ``keys``: for each distinct combination of
    their values, that tuple and an (n, len(ints)) int64 array of the integer fields ``ints``
    (no NULL) of its n rows, in no particular order. ``query``: a queryset whose rows have
    those fields (annotations or fields, by those names)."""
    sql, params = query.values(*keys, *ints).query.sql_with_params()
    connection = connections[query.db]
    quote = connection.ops.quote_name
    group = ", ".join(f"q.{quote(name)}" for name in keys)
    if connection.vendor == "postgresql":
        packed = " || ".join(f"int8send(q.{quote(name)}::int8)" for name in ints)
        aggregate = f"string_agg({packed}, ''::bytea)"
    else:
        packed = " || ',' || ".join(f"q.{quote(name)}" for name in ints)
        aggregate = f"group_concat({packed}, ',')"
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {group}, {aggregate} FROM ({sql}) AS q GROUP BY {group}", params)
        fetched = cursor.fetchall()
    groups = []
    for *key, blob in fetched:
        if connection.vendor == "postgresql":
            values = np.frombuffer(bytes(blob), dtype=">i8").astype(np.int64)
        else:
            values = np.array(blob.split(","), dtype=np.int64)
        groups.append((tuple(key), values.reshape(-1, len(ints))))
    return groups


def int_rows(query, ints: list[str]) -> np.ndarray:
    """Every row of ``query`` as one (n, len(ints)) int64 array of the integer fields ``ints``,
    in no particular order (grouped_int_rows with a single group)."""
    groups = grouped_int_rows(
        query.annotate(one_group=Value(1, IntegerField())), ["one_group"], ints
    )
    if not groups:
        return np.zeros((0, len(ints)), dtype=np.int64)
    return np.concatenate([values for _key, values in groups])
