"""Export text: rows as CSV or JSON, written in chunks so that a large export streams.

CSV cells that a spreadsheet would evaluate as a formula are neutralised (see ``csv_cell``).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Iterator

# A spreadsheet evaluates a cell that starts with one of these as a formula (an answer such as
# "=HYPERLINK(...)" would run when the file is opened); such a cell is written with an apostrophe
# before it, which the spreadsheet shows as text and does not evaluate.
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
# CSV starts with a byte-order mark: a spreadsheet then reads the file as UTF-8 (Japanese text
# shows as written); Python's csv module reads it with encoding="utf-8-sig", pandas as is.
BOM = "\ufeff"
# Rows written per chunk of a streamed response.
CHUNK_LINES = 500


def csv_cell(text: str) -> str:
    """A text cell a spreadsheet will show as text, never evaluate."""
    return "'" + text if text.startswith(FORMULA_START) else text


def _csv_value(value) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return csv_cell(";".join(str(v) for v in value))
    if isinstance(value, float):
        # 12.0 -> "12"; fractions to 6 decimals, no float noise such as 0.30000000000000004.
        # A number is a number: a negative gap keeps its minus sign.
        value = round(float(value), 6)  # a numpy float's repr is "np.float64(0.5)"
        return str(int(value)) if value.is_integer() else repr(value)
    if isinstance(value, int):
        return str(value)
    return csv_cell(str(value))


def csv_chunks(rows: Iterable[dict], columns: list[str]) -> Iterator[str]:
    """The CSV (BOM, header, rows) in chunks of CHUNK_LINES rows, for a streamed response."""
    buffer = io.StringIO()
    # RFC 4180 line ends: with "\r\n" as the terminator the writer quotes a cell holding a
    # lone CR too (with "\n" it would not, and a reader would split the row there).
    writer = csv.writer(buffer, lineterminator="\r\n")
    buffer.write(BOM)
    writer.writerow(columns)
    for n, row in enumerate(rows, start=1):
        writer.writerow([_csv_value(row.get(column)) for column in columns])
        if n % CHUNK_LINES == 0:
            yield buffer.getvalue()
            buffer.seek(0)
            buffer.truncate()
    yield buffer.getvalue()


def write_csv(rows: Iterable[dict], columns: list[str], stream) -> None:
    for chunk in csv_chunks(rows, columns):
        stream.write(chunk)


def csv_text(rows: Iterable[dict], columns: list[str]) -> str:
    return "".join(csv_chunks(rows, columns))


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
