"""Export text: rows as JSON and JSON Lines, written in chunks so that a large export streams.

CSV is written by the one CSV writer of every download, probe.csvfile.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator

from probe.csvfile import CHUNK_LINES


def _json(value) -> str:
    return json.dumps(value, ensure_ascii=False)


def json_chunks(rows: Iterable[dict], columns: list[str], key: str = "responses") -> Iterator[str]:
    """``{"columns": [...], key: [row, ...]}``, one row a line, in chunks of CHUNK_LINES rows."""
    lines = [f'{{"columns": {_json(columns)},\n "{key}": [']
    first = True
    for row in rows:
        lines.append(("\n  " if first else ",\n  ") + _json(row))
        first = False
        if len(lines) >= CHUNK_LINES:
            yield "".join(lines)
            lines = []
    lines.append("\n ]\n}\n")
    yield "".join(lines)


def jsonl_chunks(rows: Iterable[dict]) -> Iterator[str]:
    """JSON Lines: one row (an object with every column) a line, in chunks."""
    lines = []
    for row in rows:
        lines.append(_json(row) + "\n")
        if len(lines) >= CHUNK_LINES:
            yield "".join(lines)
            lines = []
    if lines:
        yield "".join(lines)
