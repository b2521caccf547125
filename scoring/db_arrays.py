"""Integer rows from the database as numpy arrays, without a Python object per value.

The report reads one row per bucket (250,000 at 250 runs), each a few small ints; fetching them
as Python tuples costs more than the whole bootstrap. On PostgreSQL the database packs them
into one bytea instead (each value as int8send writes it: eight big-endian bytes), which numpy
reads in place.
"""

from __future__ import annotations

import numpy as np
from django.db import connections

__all__ = ["int_rows"]


def int_rows(query, columns: int) -> np.ndarray:
    """The rows of a values_list query of ``columns`` integers (no NULL), as an (n, columns)
    int64 array, in no particular order."""
    sql, params = query.query.sql_with_params()
    connection = connections[query.db]
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            names = [f"c{k}" for k in range(columns)]
            packed = " || ".join(f"int8send(q.{name}::int8)" for name in names)
            cursor.execute(
                f"SELECT string_agg({packed}, ''::bytea) FROM ({sql}) AS q({', '.join(names)})",
                params,
            )
            blob = cursor.fetchone()[0]  # NULL when there is no row
            values = np.frombuffer(bytes(blob or b""), dtype=">i8").astype(np.int64)
            return values.reshape(-1, columns)
        cursor.execute(sql, params)
        return np.array(cursor.fetchall(), dtype=np.int64).reshape(-1, columns)
