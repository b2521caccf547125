"""Bank files: reading and writing a bank as JSON (lossless) or as plain text (as probes are published).

Pure Python: no database, no models. The import service calls :func:`load` (or :func:`preview`,
which also returns the warnings and suggested readings of a plain-text file) and turns the
returned :class:`BankData` into rows; the export service builds a :class:`BankData` and calls
:func:`dump_json` or :func:`dump_text`. The grammar of every format is documented in
``docs/bank-format.md``; keep that file and this package in step.

The stages live in small modules: ``decode`` (bytes to text), ``detect`` (which format),
``lexicon`` (the kinds of line of plain text), ``textunits`` / ``textread`` / ``textparse`` (reading
plain text: what is kept of a block, item or key entry; the reader fed line by line; checking and
building the bank), ``textdump`` (writing it), ``jsonformat`` (JSON), ``tabular`` and
``tabular_write`` (reading and writing CSV and JSON Lines), ``readings`` and ``warnings`` (what a person would read otherwise in a pasted document),
``preview`` (all of it, for a page).

The names this package exports below are its API. The modules share further names among
themselves (``data.fail``, ``decode.prepare``, the patterns and helpers of ``lexicon`` such as
``FLAG_RE`` or ``split_sources``, ``jsonformat.JSON_REASONS``, the reader's ``TextReader`` and
its units): they have public names so that the stages can import one another, but they are
internal to the package; code outside it imports from ``probe.bankformat`` only.

Every problem found in a file is collected and raised together as one :class:`BankFormatError`
whose ``problems`` each name the line and say in plain words what is wrong. The messages are
translatable (named placeholders, so translators can reorder them).
"""

from __future__ import annotations

from .data import (
    ANSWER_KINDS,
    DEFAULT_MAX_ITEMS,
    MAX_BYTES,
    MAX_FORMAT_CHARS,
    MAX_TITLE_CHARS,
    SCHEMA,
    SCHEMA_VERSION,
    BankData,
    BankFormatError,
    BlockData,
    FormatProblem,
    ItemData,
    KeyData,
    check_item_limit,
    max_items,
)
from .decode import decode
from .detect import detect_format
from .jsonformat import dump_json, parse_json
from .preview import Preview, preview, preview_suggested, suggested_name
from .readings import NO_READINGS, FormatWarning, ReadingError, Readings
from .readings import describe as describe_reading
from .tabular import parse_csv, parse_jsonl
from .tabular_write import dump_csv, dump_jsonl
from .textdump import dump_text
from .textparse import parse_text

__all__ = [
    "ANSWER_KINDS",
    "DEFAULT_MAX_ITEMS",
    "MAX_BYTES",
    "MAX_FORMAT_CHARS",
    "MAX_TITLE_CHARS",
    "SCHEMA",
    "SCHEMA_VERSION",
    "BankData",
    "BankFormatError",
    "BlockData",
    "FormatProblem",
    "FormatWarning",
    "NO_READINGS",
    "Preview",
    "ReadingError",
    "Readings",
    "ItemData",
    "KeyData",
    "decode",
    "describe_reading",
    "detect_format",
    "dump_csv",
    "dump_json",
    "dump_jsonl",
    "dump_text",
    "load",
    "max_items",
    "parse_csv",
    "parse_json",
    "parse_jsonl",
    "parse_text",
    "preview",
    "preview_suggested",
    "suggested_name",
]


PARSERS = {"json": parse_json, "jsonl": parse_jsonl, "csv": parse_csv, "text": parse_text}
DUMPERS = {"json": dump_json, "jsonl": dump_jsonl, "csv": dump_csv, "text": dump_text}


def load(data: bytes, filename: str = "") -> BankData:
    """decode + detect_format + parse: the one call the import service needs (a bank over the
    item limit is refused with its count)."""
    text = decode(data)
    return check_item_limit(PARSERS[detect_format(text, filename)](text))
