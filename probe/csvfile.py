"""The one CSV writer of every CSV download (bank files and result exports), and its reader's inverse.

Every CSV the application writes is UTF-8 with a byte-order mark (a spreadsheet then reads it as
UTF-8, so Japanese shows as written; Python's csv module reads it with encoding="utf-8-sig",
pandas as is), has RFC 4180 line ends (CRLF), and never holds a cell a spreadsheet would evaluate:
a text cell starting with a formula character is written with an apostrophe in front of it.
docs/export-columns.md ("Cells a spreadsheet would evaluate") is the specification.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

# A spreadsheet evaluates a cell that starts with one of these as a formula (an answer such as
# "=HYPERLINK(...)" would run when the file is opened).
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
BOM = "\ufeff"
LINE_END = "\r\n"
# Rows written per chunk of a streamed response.
CHUNK_LINES = 500

# A neutralised cell: apostrophes, then a formula character. The writer adds one apostrophe to a
# text starting so, and to a text that already starts with apostrophes and a formula character,
# so that dropping one apostrophe (csv_uncell) always gives back the text as it was.
_NEUTRALISED = re.compile(r"'+[=+\-@\t\r]")


def csv_cell(text: str) -> str:
    """A text cell a spreadsheet will show as text, never evaluate."""
    if text.startswith(FORMULA_START) or _NEUTRALISED.match(text):
        return "'" + text
    return text


def csv_uncell(text: str) -> str:
    """The text a cell written by ``csv_cell`` holds (a reader's side of the neutralisation)."""
    return text[1:] if _NEUTRALISED.match(text) else text


def csv_value(value) -> str:
    """One cell: none empty, booleans true/false, numbers as numbers, text neutralised."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        return csv_cell(";".join(str(v) for v in value))
    if isinstance(value, float):
        # 12.0 -> "12"; fractions to 6 decimals, no float noise such as 0.30000000000000004.
        # A number is a number: a negative gap keeps its minus sign.
        value = round(float(value), 6)  # a numpy float's repr is "np.float64(0.5)"
        return str(int(value)) if value.is_integer() else repr(value)
    if isinstance(value, int):
        return str(value)
    return csv_cell(str(value))


@dataclass(frozen=True)
class CsvLabels:
    """A CSV as a person reads it in the interface's language: each column's heading, and each
    row with its machine values (bucket, scheme, true/false...) turned into their names.

    Made while the request's language is active and holding plain text only, so a streamed file
    keeps that language after the view has returned. Without one (``labels=None``) a CSV has the
    stable machine names, as the JSON exports and the API do."""

    headers: Mapping[str, str]
    row: Callable[[dict], dict]


def csv_chunks(
    rows: Iterable[dict], columns: Sequence[str], labels: CsvLabels | None = None
) -> Iterator[str]:
    """The CSV (BOM, header, rows) in chunks of CHUNK_LINES rows, for a streamed response."""
    buffer = io.StringIO()
    # With "\r\n" as the terminator the writer quotes a cell holding a lone CR too (with "\n"
    # it would not, and a reader would split the row there).
    writer = csv.writer(buffer, lineterminator=LINE_END)
    buffer.write(BOM)
    headers = labels.headers if labels else {}
    writer.writerow([csv_cell(headers.get(column, column)) for column in columns])
    if labels:
        rows = map(labels.row, rows)
    for n, row in enumerate(rows, start=1):
        writer.writerow([csv_value(row.get(column)) for column in columns])
        if n % CHUNK_LINES == 0:
            yield buffer.getvalue()
            buffer.seek(0)
            buffer.truncate()
    yield buffer.getvalue()


def csv_text(rows: Iterable[dict], columns: Sequence[str], labels: CsvLabels | None = None) -> str:
    return "".join(csv_chunks(rows, columns, labels))
