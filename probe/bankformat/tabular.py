"""CSV and JSON Lines: one item per row, in the shape abstention-aware benchmarks use.

Columns (CSV header) or fields (one JSON object per line): the benchmark's ``id``, ``domain``
(the block's title), ``topic``, ``question``, ``target`` (the key's answer), ``source_refs`` and
``answer_format``, then the application's own (``COLUMNS``); the names older exports wrote
(``block_title``, ``key``) are read too. Only ``question`` is required. All or nothing, like the
other formats: every problem is listed with its line. docs/bank-format.md, "CSV and JSON Lines",
is the specification; ``tabular_write`` writes these files.
"""

from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import dataclass, field

from django.utils.translation import gettext as _

from ..csvfile import csv_uncell
from ..wording import word_list
from .data import (
    ANSWER_KINDS,
    MAX_FORMAT_CHARS,
    MAX_REF_CHARS,
    MAX_TITLE_CHARS,
    MAX_TOPIC_CHARS,
    BankData,
    BankFormatError,
    BlockData,
    FormatProblem,
    ItemData,
    KeyData,
    answer_kind_of,
    checked_date,
    fail,
)
from .decode import prepare
from .jsonformat import JSON_REASONS, LANGUAGES, loads
from .lexicon import CODE_RE, split_sources

# The columns in the order an export writes them: the benchmark's first, then the app's own.
COLUMNS = (
    "id",
    "domain",
    "topic",
    "question",
    "target",
    "source_refs",
    "answer_format",
    "block",
    "block_description",
    "answer_kind",
    "flagged",
    "flag_note",
    "sources_checked",
    "retired",
    "retired_reason",
    "version",
    "bank_name",
    "bank_description",
    "bank_language",
)
# Other names read as one of COLUMNS: older exports' block_title and key, and common spellings.
ALIASES = {"block_title": "domain", "key": "target", "answer": "target", "sources": "source_refs"}
KNOWN_NAMES = frozenset(COLUMNS) | frozenset(ALIASES)
_TRUE = {"true", "yes", "1", "y", "x"}
_FALSE = {"false", "no", "0", "n", ""}
_CSV_HEADER_RE = re.compile(r"^\ufeff?\s*\"?[a-z_]+\"?\s*(,\s*\"?[a-z_]+\"?\s*)+$", re.IGNORECASE)


@dataclass
class _Row:
    """One item's values by column, with the line its record starts on."""

    line: int
    values: dict = field(default_factory=dict)
    written: dict = field(default_factory=dict)  # a column's name as the file writes it

    def label(self, name: str) -> str:
        return self.written.get(name, name)


def looks_like_csv(text: str) -> bool:
    """A first line that is a header of known columns, one of them ``question``."""
    first = text.lstrip("\ufeff \t\n").split("\n", 1)[0]
    if not _CSV_HEADER_RE.match(first):
        return False
    names = [_fold(name) for name in first.split(",")]
    return "question" in names and all(name in KNOWN_NAMES for name in names)


def looks_like_jsonl(text: str) -> bool:
    """A first line that is one JSON object with a "question" field (a bank file has "schema")."""
    lines = [line for line in text.lstrip("\ufeff").split("\n") if line.strip()]
    if not lines:
        return False
    try:
        first = loads(lines[0])
    except ValueError:
        return False
    return isinstance(first, dict) and "question" in first and "schema" not in first


def _fold(name: str) -> str:
    return name.strip().strip('"').strip().lower()


def _columns(names) -> list[str]:
    """The header's names as COLUMNS. Without a ``block`` column, ``domain`` is the block itself
    (a code, or a name that becomes its title), as older versions read it: so a file with
    ``domain`` and ``block_title`` columns still reads as it was written."""
    folded = [_fold(name) for name in names]
    legacy = "block" not in folded
    return ["block" if name == "domain" and legacy else ALIASES.get(name, name) for name in folded]


# Reading ---------------------------------------------------------------------------------


def _csv_rows(text: str, problems: list[FormatProblem]) -> list[_Row]:
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    try:
        header = next(reader)
    except StopIteration:
        return []
    except csv.Error as error:
        raise fail(1, _("the CSV header cannot be read: %(reason)s.") % {"reason": error}) from None
    columns = _columns(header)
    _check_columns(columns, 1, problems)
    written = {column: _fold(name) for column, name in zip(columns, header, strict=True)}
    rows: list[_Row] = []
    start = reader.line_num + 1
    try:
        for record in reader:
            line, start = start, reader.line_num + 1
            if not any(cell.strip() for cell in record):
                continue
            if len(record) != len(columns):
                problems.append(_width_problem(line, len(record), len(columns)))
                continue
            cells = [csv_uncell(cell) for cell in record]  # the writer's apostrophes taken off
            rows.append(_Row(line, dict(zip(columns, cells, strict=True)), written))
    except csv.Error as error:
        problems.append(
            FormatProblem(start, _("the CSV cannot be read here: %(reason)s.") % {"reason": error})
        )
    return rows


def _width_problem(line: int, found: int, expected: int) -> FormatProblem:
    return FormatProblem(
        line,
        _("the row has %(found)s cells, but the header has %(expected)s columns.")
        % {"found": found, "expected": expected},
    )


def _check_columns(columns: list[str], line: int, problems: list[FormatProblem]) -> None:
    seen: set[str] = set()
    for name in columns:
        if name not in COLUMNS:
            problems.append(
                FormatProblem(
                    line,
                    _("unknown column '%(column)s' (the columns are %(columns)s).")
                    % {"column": name, "columns": word_list(COLUMNS)},
                )
            )
        elif name in seen:
            problems.append(
                FormatProblem(line, _("the column '%(column)s' appears twice.") % {"column": name})
            )
        seen.add(name)
    if "question" not in columns:
        problems.append(FormatProblem(line, _("the required column 'question' is missing.")))


def _jsonl_rows(text: str, problems: list[FormatProblem]) -> list[_Row]:
    rows: list[_Row] = []
    for line, raw in enumerate(text.split("\n"), start=1):
        if not raw.strip():
            continue
        try:
            value = loads(raw)
        except json.JSONDecodeError as error:
            explain = JSON_REASONS.get(error.msg)
            reason = explain() if explain else error.msg
            problems.append(
                FormatProblem(
                    line,
                    _("the line is not valid JSON: %(reason)s (column %(column)s).")
                    % {"reason": reason, "column": error.colno},
                )
            )
            continue
        except ValueError as error:  # e.g. an integer with thousands of digits
            problems.append(
                FormatProblem(
                    line, _("the line is not valid JSON: %(reason)s.") % {"reason": error}
                )
            )
            continue
        if not isinstance(value, dict):
            problems.append(FormatProblem(line, _("the line must be a JSON object (one item).")))
            continue
        columns = _columns(value)
        _check_columns(columns, line, problems)
        written = {column: _fold(name) for column, name in zip(columns, value, strict=True)}
        rows.append(_Row(line, dict(zip(columns, value.values(), strict=True)), written))
    return rows


class _Builder:
    """Rows to a bank: blocks in the order they first appear, items in file order."""

    def __init__(self, problems: list[FormatProblem], *, json_values: bool) -> None:
        self.problems = problems
        self.json_values = json_values
        self.blocks: list[BlockData] = []
        self.by_code: dict[str, BlockData] = {}
        self.by_title: dict[str, BlockData] = {}
        self.ids: dict[str, int] = {}
        self.bank = BankData(blocks=self.blocks)
        self.bank_lines: dict[str, int] = {}

    def problem(self, line: int, message: str) -> None:
        self.problems.append(FormatProblem(line, message))

    def text(self, row: _Row, name: str, *, one_line=False, limit=None) -> str:
        value = row.values.get(name, "")
        if value is None:
            return ""
        if not isinstance(value, str):
            self.problem(row.line, _("%(column)s: must be text.") % {"column": row.label(name)})
            return ""
        value = value.strip()
        if one_line and "\n" in value:
            self.problem(
                row.line, _("%(column)s: must be one line of text.") % {"column": row.label(name)}
            )
        if limit is not None and len(value) > limit:
            self.problem(
                row.line,
                _("%(column)s: is %(length)s characters long; the limit is %(limit)s.")
                % {"column": row.label(name), "length": len(value), "limit": limit},
            )
        if "\x00" in value:
            self.problem(
                row.line, _("%(column)s: contains a NUL character.") % {"column": row.label(name)}
            )
        return value

    def kind(self, row: _Row) -> str:
        """The answer_kind column; without one, an answer_format that names a kind ("number")."""
        if "answer_kind" not in row.values:
            return answer_kind_of(self.text(row, "answer_format"))
        value = self.text(row, "answer_kind")
        kind = answer_kind_of(value)
        if value and not kind:
            self.problem(
                row.line,
                _("answer_kind: must be one of %(kinds)s, or empty (found %(found)s).")
                % {"kinds": word_list(ANSWER_KINDS), "found": value[:40]},
            )
        return kind

    def checked(self, row: _Row) -> str:
        value = self.text(row, "sources_checked")
        checked = checked_date(value)
        if checked is None:
            self.problem(
                row.line,
                _("sources_checked: must be a date written YYYY-MM-DD (found %(found)s).")
                % {"found": value[:40]},
            )
            return ""
        return checked

    def boolean(self, row: _Row, name: str) -> bool:
        value = row.values.get(name, "")
        if isinstance(value, bool):
            return value
        if value is None or (isinstance(value, str) and value.strip().lower() in _FALSE):
            return False
        if isinstance(value, str) and value.strip().lower() in _TRUE:
            return True
        self.problem(
            row.line,
            _("%(column)s: must be true or false (found %(found)s).")
            % {"column": row.label(name), "found": json.dumps(value, ensure_ascii=False)[:40]},
        )
        return False

    def sources(self, row: _Row) -> list[str]:
        value = row.values.get("source_refs", "")
        if isinstance(value, list):
            if all(isinstance(part, str) for part in value):
                return [part.strip() for part in value if part.strip()]
            self.problem(row.line, _("source_refs: must be a list of strings."))
            return []
        text = self.text(row, "source_refs")
        if text.startswith("[") and not self.json_values:
            try:
                listed = loads(text)
            except ValueError:
                listed = None
            if isinstance(listed, list) and all(isinstance(part, str) for part in listed):
                return [part.strip() for part in listed if part.strip()]
        return split_sources(text.replace("\n", " "))

    def block(self, row: _Row) -> BlockData:
        code = self.text(row, "block", one_line=True)
        title = self.text(row, "domain", one_line=True, limit=MAX_TITLE_CHARS)
        description = self.text(row, "block_description")
        if code and not CODE_RE.match(code):
            if "domain" in row.values:
                self.problem(
                    row.line,
                    _("block: must be one or two letters or digits, such as A (found %(found)s).")
                    % {"found": code[:40]},
                )
            code, title = "", code  # a domain such as "Web platform" names the block
        if code:
            block = self.by_code.get(code.casefold())
        else:
            block = self.by_title.get(title.casefold())
        if block is None:
            block = BlockData(code=code or self.next_code(), title=title, line=row.line)
            self.by_code[block.code.casefold()] = block
            self.by_title.setdefault(title.casefold(), block)
            self.blocks.append(block)
        elif code and title and block.title and title != block.title:
            self.problem(
                row.line,
                _("block %(block)s is called “%(title)s” here but “%(first)s” on line %(line)s.")
                % {"block": block.code, "title": title, "first": block.title, "line": block.line},
            )
        elif title and not block.title:
            block.title = title
        # Every row of a block may repeat its description (an export does); an empty cell
        # says nothing, two different ones are a mistake to show.
        if description and block.description and description != block.description:
            self.problem(
                row.line,
                _("block %(block)s has another description here than on line %(line)s.")
                % {"block": block.code, "line": block.line},
            )
        elif description:
            block.description = description
        return block

    def bank_value(self, row: _Row, name: str, text: str) -> None:
        """The bank's name, description or language, which each row may repeat (an export
        does): the first non-empty cell gives it, a different one later is a problem."""
        attribute = {"bank_name": "name", "bank_description": "description"}.get(name, "language")
        if not text:
            return
        if name not in self.bank_lines:
            self.bank_lines[name] = row.line
            setattr(self.bank, attribute, text)
        elif getattr(self.bank, attribute) != text:
            self.problem(
                row.line,
                _("%(column)s: differs from the one on line %(line)s.")
                % {"column": name, "line": self.bank_lines[name]},
            )

    def bank_fields(self, row: _Row) -> None:
        self.bank_value(row, "bank_name", self.text(row, "bank_name", one_line=True, limit=200))
        self.bank_value(row, "bank_description", self.text(row, "bank_description"))
        language = self.text(row, "bank_language")
        if language and language not in LANGUAGES:
            self.problem(
                row.line,
                _("bank_language: must be one of %(choices)s, or empty (found %(found)s).")
                % {"choices": word_list(LANGUAGES), "found": language[:40]},
            )
            return
        self.bank_value(row, "bank_language", language)

    def version(self, row: _Row) -> int:
        value = row.values.get("version", "")
        if isinstance(value, int) and not isinstance(value, bool) and value >= 1:
            return value
        if value is None or value == "":
            return 1
        if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
            if int(value.strip()) >= 1:
                return int(value.strip())
        self.problem(
            row.line,
            _("version: must be a whole number from 1 up (found %(found)s).")
            % {"found": json.dumps(value, ensure_ascii=False)[:40]},
        )
        return 1

    def next_code(self) -> str:
        used = set(self.by_code)
        letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
        for code in [*letters, *(a + b for a in letters for b in letters)]:
            if code.casefold() not in used:
                return code
        raise fail(None, _("The file has more blocks than two-letter codes can name."))

    def item(self, row: _Row) -> None:
        self.bank_fields(row)
        block = self.block(row)
        ref = self.text(row, "id", one_line=True, limit=MAX_REF_CHARS)
        if ref and ref in self.ids:
            self.problem(
                row.line,
                _("the id %(id)s appears twice (first on line %(first)s).")
                % {"id": ref, "first": self.ids[ref]},
            )
        elif ref:
            self.ids[ref] = row.line
        question = self.text(row, "question")
        if not question and "question" in row.values:  # a missing column is reported once
            self.problem(row.line, _("question: must not be empty."))
        item = ItemData(
            question=question,
            answer_format=self.text(row, "answer_format", limit=MAX_FORMAT_CHARS),
            answer_kind=self.kind(row),
            retired=self.boolean(row, "retired"),
            retired_reason=self.text(row, "retired_reason"),
            version=self.version(row),
            topic=self.text(row, "topic", one_line=True, limit=MAX_TOPIC_CHARS),
            ref=ref,
            number=len(block.items) + 1,
            line=row.line,
        )
        item.key = self.key(row)
        block.items.append(item)

    def key(self, row: _Row) -> KeyData | None:
        answer = self.text(row, "target")
        flagged = self.boolean(row, "flagged")
        note = self.text(row, "flag_note")
        sources = self.sources(row)
        if not answer:
            if flagged or note or sources or self.text(row, "sources_checked"):
                self.problem(
                    row.line,
                    _("key: the item is flagged or has a note or sources, but no key answer."),
                )
            return None
        return KeyData(
            answer=answer,
            flagged=flagged,
            flag_note=note,
            sources=sources,
            sources_checked=self.checked(row),
            line=row.line,
        )


def _parse_rows(text: str, file_format: str) -> BankData:
    text = prepare(text)
    if not text.strip():
        raise fail(None, _("The file is empty."))
    problems: list[FormatProblem] = []
    if file_format == "csv":
        rows = _csv_rows(text, problems)
    else:
        rows = _jsonl_rows(text, problems)
    if not rows and not problems:
        problems.append(FormatProblem(None, _("The file has a header but no items.")))
    builder = _Builder(problems, json_values=file_format == "jsonl")
    for row in rows:
        builder.item(row)
    if problems:
        raise BankFormatError(problems)
    return builder.bank


def parse_csv(text: str) -> BankData:
    """Read a CSV file of items (header row first); refuses with every problem and its line."""
    return _parse_rows(text, "csv")


def parse_jsonl(text: str) -> BankData:
    """Read a JSON Lines file of items (one object per line); refuses with every problem."""
    return _parse_rows(text, "jsonl")
