"""Bank files: reading and writing a bank as JSON (lossless) or as plain text (as probes are published).

Pure Python: no database, no models. The import service calls :func:`load` and turns the returned
:class:`BankData` into rows; the export service builds a :class:`BankData` and calls
:func:`dump_json` or :func:`dump_text`. The grammar of both formats is documented in
``docs/bank-format.md``; keep that file and this module in step.

Every problem found in a file is collected and raised together as one :class:`BankFormatError`
whose ``problems`` each name the line and say in plain words what is wrong. The messages are
translatable (named placeholders, so translators can reorder them).
"""

from __future__ import annotations

import json
import re
from bisect import bisect_left
from dataclasses import dataclass, field
from json.decoder import scanstring

from django.utils.translation import gettext as _

# The stated size limit of a bank file: 16 MiB, so that every bank this app exports imports
# again (a 10,000-item bank is about 3 MB as JSON; the limit leaves room for about 50,000 items of
# the same size, or fewer with long questions and keys).
MAX_BYTES = 16 * 1024 * 1024
SCHEMA = "blindprobe.bank"
SCHEMA_VERSION = 1
MAX_TITLE_CHARS = 200  # Block.title is a CharField(max_length=200)
MAX_FORMAT_CHARS = 200  # Item.answer_format is a CharField(max_length=200)

__all__ = [
    "MAX_BYTES",
    "MAX_FORMAT_CHARS",
    "MAX_TITLE_CHARS",
    "SCHEMA",
    "SCHEMA_VERSION",
    "BankData",
    "BankFormatError",
    "BlockData",
    "FormatProblem",
    "ItemData",
    "KeyData",
    "decode",
    "detect_format",
    "dump_json",
    "dump_text",
    "load",
    "parse_json",
    "parse_text",
]


# Data ----------------------------------------------------------------------------------------


@dataclass
class KeyData:
    """A key entry: the expected answer, the (!) flag with its note, and source references."""

    answer: str
    flagged: bool = False
    flag_note: str = ""
    sources: list[str] = field(default_factory=list)


@dataclass
class ItemData:
    """One item. ``number`` (as written in a text file) and ``line`` are for messages only and
    take no part in equality."""

    question: str
    answer_format: str = ""
    retired: bool = False
    key: KeyData | None = None
    number: int | None = field(default=None, compare=False)
    line: int | None = field(default=None, compare=False)


@dataclass
class BlockData:
    code: str
    title: str
    description: str = ""
    items: list[ItemData] = field(default_factory=list)
    line: int | None = field(default=None, compare=False)


@dataclass
class BankData:
    name: str = ""
    description: str = ""
    blocks: list[BlockData] = field(default_factory=list)

    @property
    def items(self) -> list[ItemData]:
        return [item for block in self.blocks for item in block.items]

    @property
    def item_count(self) -> int:
        """All items, retired ones included."""
        return sum(len(block.items) for block in self.blocks)

    @property
    def retired_count(self) -> int:
        return sum(1 for item in self.items if item.retired)

    @property
    def missing_key_count(self) -> int:
        """Items in use (not retired) that have no key entry."""
        return sum(1 for item in self.items if not item.retired and item.key is None)

    @property
    def flagged_count(self) -> int:
        """Items in use (not retired) whose key entry carries the (!) flag."""
        return sum(
            1
            for item in self.items
            if not item.retired and item.key is not None and item.key.flagged
        )


@dataclass(frozen=True)
class FormatProblem:
    line: int | None
    message: str

    def __str__(self) -> str:
        if self.line is None:
            return self.message
        return _("Line %(line)s: %(message)s") % {"line": self.line, "message": self.message}


class BankFormatError(ValueError):
    """The file was refused; ``problems`` lists every problem found, in line order."""

    def __init__(self, problems):
        if isinstance(problems, FormatProblem):
            problems = [problems]
        problems = list(problems)
        if not problems:
            raise ValueError("BankFormatError needs at least one problem")
        # File-wide problems (no line) first, then by line; stable otherwise.
        self.problems: list[FormatProblem] = sorted(
            problems, key=lambda p: (p.line is not None, p.line or 0)
        )
        super().__init__(self.problems)

    def __str__(self) -> str:
        return "\n".join(str(problem) for problem in self.problems)


def _fail(line: int | None, message: str) -> BankFormatError:
    return BankFormatError([FormatProblem(line, message)])


# Bytes to text -------------------------------------------------------------------------------

_UTF8_BOM = b"\xef\xbb\xbf"
_CONTROL_BYTES = re.compile(rb"[\x00-\x08\x0e-\x1f]")  # tab, LF, VT, FF and CR are allowed
_MIB = 1024 * 1024


def _megabytes(n: int) -> str:
    text = f"{n / _MIB:.1f}"
    if text.endswith(".0"):
        text = text[:-2]
    return _("%(size)s MB") % {"size": text}


def _size_problem(size: int) -> FormatProblem:
    if round(size / _MIB, 1) <= MAX_BYTES / _MIB:
        # "1 MB; the limit is 1 MB" would be no help: give bytes.
        message = _("The file is %(size)s bytes; the limit is %(limit)s bytes (%(limit_mb)s).") % {
            "size": size,
            "limit": MAX_BYTES,
            "limit_mb": _megabytes(MAX_BYTES),
        }
    else:
        message = _("The file is %(size)s; the limit is %(limit)s.") % {
            "size": _megabytes(size),
            "limit": _megabytes(MAX_BYTES),
        }
    return FormatProblem(None, message)


def _line_at(data: bytes, offset: int) -> int:
    before = data[:offset]
    return before.count(b"\n") + before.count(b"\r") - before.count(b"\r\n") + 1


def decode(data: bytes) -> str:
    """Bytes of an uploaded file to text: at most MAX_BYTES, UTF-8 (a BOM is dropped), no NUL or
    other binary bytes; CRLF and lone CR become LF."""
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    data = bytes(data)
    if len(data) > MAX_BYTES:
        raise BankFormatError([_size_problem(len(data))])
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise _fail(
            None,
            _(
                "The file is UTF-16 text (it starts with a UTF-16 byte order mark); save it as UTF-8 and try again."
            ),
        )
    if data.startswith(b"PK\x03\x04"):
        raise _fail(
            None,
            _(
                "The file is a ZIP archive (a Word or OpenDocument file is one): save the bank as plain text (.txt) or JSON and try again."
            ),
        )
    if data.startswith(b"%PDF-"):
        raise _fail(
            None,
            _(
                "The file is a PDF document: save the bank as plain text (.txt) or JSON and try again."
            ),
        )
    match = _CONTROL_BYTES.search(data)
    if match:
        offset = match.start()
        values = {"offset": offset, "line": _line_at(data, offset), "byte": f"0x{data[offset]:02x}"}
        if data[offset] == 0:
            message = (
                _(
                    "The file contains a NUL byte (offset %(offset)s, line %(line)s): it is a binary file, not text."
                )
                % values
            )
        else:
            message = (
                _(
                    "The file contains the control byte %(byte)s (offset %(offset)s, line %(line)s): it does not look like a text file."
                )
                % values
            )
        raise _fail(None, message)
    start = len(_UTF8_BOM) if data.startswith(_UTF8_BOM) else 0
    try:
        text = data[start:].decode("utf-8")
    except UnicodeDecodeError as error:
        offset = start + error.start
        raise _fail(
            None,
            _(
                "The file is not UTF-8 text (byte %(byte)s at offset %(offset)s, line %(line)s); save it as UTF-8 and try again."
            )
            % {"byte": f"0x{data[offset]:02x}", "offset": offset, "line": _line_at(data, offset)},
        ) from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _prepare(text: str) -> str:
    """Text handed straight to a parser gets the same size limit and line endings as decode()."""
    if len(text) > MAX_BYTES or len(text.encode("utf-8", "surrogatepass")) > MAX_BYTES:
        raise BankFormatError([_size_problem(len(text.encode("utf-8", "surrogatepass")))])
    if text.startswith("\ufeff"):
        text = text[1:]
    return text.replace("\r\n", "\n").replace("\r", "\n")


def detect_format(text: str, filename: str = "") -> str:
    """ "json" when the text starts with '{' or '[' (after spaces and a BOM) or the file name ends
    in .json; "text" otherwise."""
    head = text.lstrip("\ufeff \t\r\n")
    if head.startswith(("{", "[")):
        return "json"
    if filename.lower().endswith(".json"):
        return "json"
    return "text"


def load(data: bytes, filename: str = "") -> BankData:
    """decode + detect_format + parse: the one call the import service needs."""
    text = decode(data)
    if detect_format(text, filename) == "json":
        return parse_json(text)
    return parse_text(text)


# Plain text: shared pieces -------------------------------------------------------------------

_SEPARATORS = ".:\\-\u2013\u2014"  # . : - en dash, em dash
_HEADING_RE = re.compile(
    r"^(?:#{1,6}\s*)?block\s+([^\W_]{1,2})\s*(?:[" + _SEPARATORS + r"]\s*(.*))?$", re.IGNORECASE
)
_KEY_HEADING_RE = re.compile(r"^(?:#{1,6}\s*)?(?:answer\s+key|answers?|key)\s*:?$", re.IGNORECASE)
_NUMBER_RE = re.compile(r"^([1-9][0-9]{0,4})\s*[.)](?![0-9])\s*(.*)$")
# Up to 999 a number at the start of a line is an item number anywhere; from 1000 on (a block of
# a large bank, up to 99,999 items) only where it continues its block: the item after the one
# before, or a key entry of an item the block has. So "2023. A year..." stays text.
_FREE_NUMBER_MAX = 999
_RETIRED_RE = re.compile(r"^\[retired\]\s*(.*)$", re.IGNORECASE)
_FORMAT_RE = re.compile(r"^format\s*:\s*(.*)$", re.IGNORECASE)
_SOURCE_RE = re.compile(r"^sources?\s*:\s*(.*)$", re.IGNORECASE)
_NOTE_RE = re.compile(r"^note\s*:\s*(.*)$", re.IGNORECASE)
_FLAG_RE = re.compile(r"(?<!\\)\(!\)")
_NAME_HASHES_RE = re.compile(r"^#{1,6}(?:\s+|$)")
_CODE_RE = re.compile(r"^[^\W_]{1,2}$")
_DEEPER = 2  # columns deeper than an item's first line that make a line a continuation


def _classify(stripped: str) -> tuple[str, re.Match | None]:
    """blank | key (answer key heading) | heading (block) | number | plain."""
    if not stripped:
        return "blank", None
    if stripped.startswith("\\"):
        return "plain", None
    if match := _KEY_HEADING_RE.match(stripped):
        return "key", match
    if match := _HEADING_RE.match(stripped):
        return "heading", match
    if match := _NUMBER_RE.match(stripped):
        return "number", match
    return "plain", None


def _indent(raw: str) -> int:
    expanded = raw.expandtabs(4)
    return len(expanded) - len(expanded.lstrip())


def _unescape(stripped: str) -> str:
    """A single leading backslash makes a line literal text; it is removed."""
    return stripped[1:].strip() if stripped.startswith("\\") else stripped


def _trim(lines: list[str]) -> list[str]:
    lines = [line.strip() for line in lines]
    start, end = 0, len(lines)
    while start < end and not lines[start]:
        start += 1
    while end > start and not lines[end - 1]:
        end -= 1
    return lines[start:end]


def _tidy(lines: list[str]) -> str:
    return "\n".join(_trim(lines))


def _lines(text: str) -> list[str]:
    """A stored multi-line text as the lines the text format writes."""
    return _trim(text.replace("\r\n", "\n").replace("\r", "\n").split("\n"))


def _one_line(text: str) -> str:
    return " ".join(_lines(text))


def _split_sources(text: str) -> list[str]:
    """Split on a semicolon with a space before or after it (not on 'a;b').

    Done by hand: the obvious regex (\\s+;\\s*|;\\s+) is quadratic on a long run of spaces."""
    pieces = text.split(";")
    parts = [pieces[0]]
    for piece in pieces[1:]:
        if parts[-1][-1:].isspace() or piece[:1].isspace():
            parts.append(piece)
        else:
            parts[-1] += ";" + piece
    return [part.strip() for part in parts if part.strip()]


def _ranges(numbers) -> str:
    numbers = sorted(set(numbers))
    parts: list[str] = []
    start = prev = None
    for n in numbers + [None]:
        if start is not None and (n is None or n != prev + 1):
            parts.append(str(start) if start == prev else f"{start}\u2013{prev}")
            start = None
        if n is not None and start is None:
            start = n
        prev = n
    return ", ".join(parts)


# Plain text: parsing -------------------------------------------------------------------------


@dataclass(eq=False)
class _Block:
    code: str
    title: str
    line: int
    desc: list[str] = field(default_factory=list)
    items: list[_Item] = field(default_factory=list)


@dataclass(eq=False)
class _Item:
    number: int
    line: int
    indent: int
    block: _Block
    retired: bool = False
    text: list[str] = field(default_factory=list)
    formats: list[str] = field(default_factory=list)
    key: KeyData | None = None

    def blank(self) -> None:
        self.text.append("")

    def continuation(self, stripped: str) -> None:
        if stripped.startswith("\\"):
            self.text.append(_unescape(stripped))
        elif match := _FORMAT_RE.match(stripped):
            self.formats.append(match[1].strip())
        else:
            self.text.append(stripped)


@dataclass(eq=False)
class _Entry:
    number: int
    line: int
    indent: int
    block: _Block | None
    orphaned: bool  # under a key heading naming a block that does not exist
    answer: list[str] = field(default_factory=list)
    note: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    flagged: bool = False
    in_note: bool = False

    def blank(self) -> None:
        (self.note if self.in_note else self.answer).append("")

    def text(self, text: str) -> None:
        if self.in_note:
            self.note.append(text)
            return
        match = _FLAG_RE.search(text)
        if match is None:
            self.answer.append(text.replace("\\(!)", "(!)"))
            return
        before = text[: match.start()].replace("\\(!)", "(!)").strip()
        if before:
            self.answer.append(before)
        self.flagged = True
        self.in_note = True
        self.note.append(text[match.end() :].strip())

    def continuation(self, stripped: str) -> None:
        if stripped.startswith("\\"):
            self.text(_unescape(stripped))
        elif match := _SOURCE_RE.match(stripped):
            self.sources.extend(_split_sources(match[1]))
        elif match := _NOTE_RE.match(stripped):
            self.in_note = True
            self.note.append(match[1].strip())
        else:
            self.text(stripped)


class _TextParser:
    def __init__(self) -> None:
        self.problems: list[FormatProblem] = []
        self.section = "front"  # front | items | key
        self.front: list[str] = []
        self.blocks: list[_Block] = []
        self.by_code: dict[str, _Block] = {}
        self.block: _Block | None = None
        self.item: _Item | None = None
        self.key_line: int | None = None
        self.key_block: _Block | None = None
        self.key_block_unknown = False
        self.entry: _Entry | None = None
        self.entries: list[_Entry] = []
        self.unknown_headings: list[tuple[int, str]] = []
        self.orphan: tuple[int, int] | None = None

    def problem(self, line: int | None, message: str) -> None:
        self.problems.append(FormatProblem(line, message))

    # Reading lines

    def feed(self, lineno: int, raw: str) -> None:
        stripped = raw.strip()
        unit = (
            self.item if self.section == "items" else self.entry if self.section == "key" else None
        )
        if stripped and unit is not None and _indent(raw) >= unit.indent + _DEEPER:
            unit.continuation(stripped)
            return
        kind, match = _classify(stripped)
        if kind == "number" and int(match[1]) > _FREE_NUMBER_MAX:
            kind = "number" if self.continues(int(match[1])) else "plain"
        if kind == "blank":
            if unit is not None:
                unit.blank()
            elif self.section == "items":
                self.block.desc.append("")
            elif self.section == "front":
                self.front.append("")
        elif kind == "key":
            self.item = self.entry = None
            if self.section == "key":
                self.problem(
                    lineno,
                    _(
                        "the answer key starts a second time here (it already started on line %(first)s)."
                    )
                    % {"first": self.key_line},
                )
            else:
                self.section = "key"
                self.key_line = lineno
        elif kind == "heading":
            code, title = match[1], (match[2] or "").strip()
            if self.section == "key":
                self.key_heading(lineno, code)
            else:
                self.block_heading(lineno, code, title)
        elif kind == "number":
            number, rest = int(match[1]), match[2].strip()
            if self.section == "front":
                if self.orphan is None:
                    self.orphan = (lineno, number)
            elif self.section == "items":
                self.new_item(lineno, _indent(raw), number, rest)
            else:
                self.new_entry(lineno, _indent(raw), number, rest)
        elif unit is not None:
            unit.continuation(stripped)
        elif self.section == "items":
            self.block.desc.append(stripped)
        elif self.section == "front":
            self.front.append(stripped)
        # Text in the answer key outside any entry (a legend, a repeated description) is ignored.

    def continues(self, number: int) -> bool:
        """Whether a number from 1000 on continues its block (see _FREE_NUMBER_MAX)."""
        if self.section == "items":
            return self.item is not None and self.item.number == number - 1
        if self.section == "key":
            block = self.key_block
            return block is not None and bool(block.items) and block.items[-1].number >= number
        return False

    def block_heading(self, lineno: int, code: str, title: str) -> None:
        self.section = "items"
        self.item = None
        block = _Block(code=code, title=title, line=lineno)
        first = self.by_code.get(code.casefold())
        if first is not None:
            self.problem(
                lineno,
                _("block %(block)s appears twice (first on line %(first)s).")
                % {"block": code, "first": first.line},
            )
        else:
            self.by_code[code.casefold()] = block
        self.blocks.append(block)
        self.block = block

    def key_heading(self, lineno: int, code: str) -> None:
        self.entry = None
        block = self.by_code.get(code.casefold())
        self.key_block = block
        self.key_block_unknown = block is None
        if block is None:
            self.unknown_headings.append((lineno, code))

    def new_item(self, lineno: int, indent: int, number: int, rest: str) -> None:
        item = _Item(number=number, line=lineno, indent=indent, block=self.block)
        if match := _RETIRED_RE.match(rest):
            item.retired = True
            rest = match[1].strip()
        rest = _unescape(rest)
        if rest:
            item.text.append(rest)
        self.block.items.append(item)
        self.item = item

    def new_entry(self, lineno: int, indent: int, number: int, rest: str) -> None:
        entry = _Entry(
            number=number,
            line=lineno,
            indent=indent,
            block=self.key_block,
            orphaned=self.key_block_unknown,
        )
        rest = _unescape(rest)
        if rest:
            entry.text(rest)
        self.entries.append(entry)
        self.entry = entry

    # Checking and building

    def finish(self) -> BankData:
        if self.orphan is not None:
            lineno, number = self.orphan
            self.problem(
                lineno,
                _(
                    "item %(number)s comes before any block heading: put a heading such as 'Block A. HTTP semantics' above the items."
                )
                % {"number": number},
            )
        if not self.blocks:
            self.problem(
                None,
                _(
                    "The file has no blocks: a bank starts with a heading such as 'Block A. HTTP semantics'."
                ),
            )
            raise BankFormatError(self.problems)
        codes = ", ".join(block.code for block in self.by_code.values())
        for lineno, code in self.unknown_headings:
            self.problem(
                lineno,
                _(
                    "the answer key has a heading for block %(block)s, but there is no block %(block)s (the blocks are %(blocks)s)."
                )
                % {"block": code, "blocks": codes},
            )
        run_on, starter = self.numbering()
        items = self.check_items(run_on, starter)
        self.map_key(run_on, items)
        if self.problems:
            raise BankFormatError(self.problems)
        return self.build()

    def numbering(self) -> tuple[bool, _Block | None]:
        """Numbering runs on across blocks when a block after the first does not start at 1."""
        with_items = [block for block in self.blocks if block.items]
        for block in with_items[1:]:
            if block.items[0].number != 1:
                return True, block
        return False, None

    def check_items(self, run_on: bool, starter: _Block | None) -> dict:
        """Check every block and item; return the items by number (run-on) or by (block, number)."""
        found: dict = {}
        for block in self.blocks:
            if len(block.title) > MAX_TITLE_CHARS:
                self.problem(
                    block.line,
                    _(
                        "the title of block %(block)s is %(length)s characters long; the limit is %(limit)s."
                    )
                    % {"block": block.code, "length": len(block.title), "limit": MAX_TITLE_CHARS},
                )
            for item in block.items:
                values = {"number": item.number, "block": block.code}
                if not _tidy(item.text):
                    self.problem(
                        item.line,
                        _("item %(number)s of block %(block)s has an empty question.") % values,
                    )
                answer_format = _tidy(item.formats)
                if len(answer_format) > MAX_FORMAT_CHARS:
                    self.problem(
                        item.line,
                        _(
                            "the answer format of item %(number)s of block %(block)s is %(length)s characters long; the limit is %(limit)s."
                        )
                        % {**values, "length": len(answer_format), "limit": MAX_FORMAT_CHARS},
                    )
                where = item.number if run_on else (id(block), item.number)
                first = found.get(where)
                if first is None:
                    found[where] = item
                elif first.block is block:
                    self.problem(
                        item.line,
                        _(
                            "item %(number)s of block %(block)s appears twice (first on line %(first)s)."
                        )
                        % {**values, "first": first.line},
                    )
                else:
                    self.problem(
                        item.line,
                        _(
                            "item %(number)s of block %(block)s has the same number as item %(number)s of block %(other)s (line %(first)s); the numbers run on across blocks here (block %(starter)s starts at %(start)s), so each number can be used only once."
                        )
                        % {
                            **values,
                            "other": first.block.code,
                            "first": first.line,
                            "starter": starter.code,
                            "start": starter.items[0].number,
                        },
                    )
        return found

    def map_key(self, run_on: bool, found: dict) -> None:
        answered: dict[int, int] = {}
        headless_reported = False
        single = next(iter(self.by_code.values())) if len(self.by_code) == 1 else None
        for entry in self.entries:
            if entry.orphaned:
                continue  # the heading's problem is reported once
            block = entry.block
            if run_on:
                item = found.get(entry.number)
                if item is None:
                    self.problem(
                        entry.line,
                        _(
                            "the key entry for item %(number)s answers an item that does not exist (the items are numbered %(range)s)."
                        )
                        % {"number": entry.number, "range": _ranges(found)},
                    )
                    continue
                if block is not None and item.block is not block:
                    self.problem(
                        entry.line,
                        _(
                            "the key entry for item %(number)s is under the heading of block %(block)s, but item %(number)s is in block %(other)s (line %(item_line)s)."
                        )
                        % {
                            "number": entry.number,
                            "block": block.code,
                            "other": item.block.code,
                            "item_line": item.line,
                        },
                    )
                    continue
                block = item.block
            else:
                if block is None:
                    block = single
                if block is None:
                    if not headless_reported:
                        headless_reported = True
                        self.problem(
                            entry.line,
                            _(
                                "key entry %(number)s comes before any block heading in the answer key; the item numbers restart in each block, so put each block's heading (such as 'Block A') above its answers."
                            )
                            % {"number": entry.number},
                        )
                    continue
                item = found.get((id(block), entry.number))
                if item is None:
                    numbers = [i.number for i in block.items]
                    values = {
                        "number": entry.number,
                        "block": block.code,
                        "range": _ranges(numbers),
                    }
                    if numbers:
                        message = _(
                            "the key entry for item %(number)s of block %(block)s answers an item that does not exist (block %(block)s has items %(range)s)."
                        )
                    else:
                        message = _(
                            "the key entry for item %(number)s of block %(block)s answers an item that does not exist (block %(block)s has no items)."
                        )
                    self.problem(entry.line, message % values)
                    continue
            values = {"number": entry.number, "block": block.code}
            if id(item) in answered:
                self.problem(
                    entry.line,
                    _(
                        "the key entry for item %(number)s of block %(block)s appears twice (first on line %(first)s)."
                    )
                    % {**values, "first": answered[id(item)]},
                )
                continue
            answered[id(item)] = entry.line
            answer = _tidy(entry.answer)
            if not answer:
                self.problem(
                    entry.line,
                    _("the key entry for item %(number)s of block %(block)s has an empty answer.")
                    % values,
                )
                continue
            item.key = KeyData(
                answer=answer,
                flagged=entry.flagged,
                flag_note=_tidy(entry.note),
                sources=list(entry.sources),
            )

    def build(self) -> BankData:
        name, description = "", ""
        front = _trim(self.front)
        if front:
            first = front[0]
            if not first.startswith("\\"):
                first = _NAME_HASHES_RE.sub("", first, count=1)
            name = _unescape(first.strip())
            description = _tidy([_unescape(line) for line in front[1:]])
        blocks = []
        for block in self.blocks:
            items = [
                ItemData(
                    question=_tidy(item.text),
                    answer_format=_tidy(item.formats),
                    retired=item.retired,
                    key=item.key,
                    number=item.number,
                    line=item.line,
                )
                for item in block.items
            ]
            blocks.append(
                BlockData(
                    code=block.code,
                    title=block.title,
                    description=_tidy([_unescape(line) for line in block.desc]),
                    items=items,
                    line=block.line,
                )
            )
        return BankData(name=name, description=description, blocks=blocks)


def parse_text(text: str) -> BankData:
    """Read the plain-text form (docs/bank-format.md). Raises BankFormatError with every problem."""
    text = _prepare(text)
    lines = text.split("\n")
    if not any(line.strip() for line in lines):
        raise _fail(None, _("The file is empty."))
    parser = _TextParser()
    for lineno, raw in enumerate(lines, start=1):
        parser.feed(lineno, raw)
    return parser.finish()


# Plain text: writing -------------------------------------------------------------------------


def _free_line(line: str) -> str:
    """A description line, written where it must not read as a heading or an item."""
    if line and (line.startswith("\\") or _classify(line)[0] != "plain"):
        return "\\" + line
    return line


def _continuation_line(pad: str, line: str, keywords: tuple[re.Pattern, ...]) -> str:
    """A continuation line: indented (so it cannot start an item or a heading) and escaped when
    it would read as a keyword line or starts with a backslash."""
    if not line:
        return ""
    if line.startswith("\\") or any(pattern.match(line) for pattern in keywords):
        line = "\\" + line
    return pad + line


def _heading_line(block: BlockData) -> str:
    code = _one_line(block.code)
    title = _one_line(block.title)
    return f"Block {code}. {title}" if title else f"Block {code}"


def _item_lines(number: int, item: ItemData) -> list[str]:
    prefix = f"{number}. "
    pad = " " * len(prefix)
    question = _lines(item.question) or [""]
    first = question[0]
    if first.startswith("\\") or _RETIRED_RE.match(first):
        first = "\\" + first
    if item.retired:
        first = "[retired] " + first
    out = [(prefix + first).rstrip()]
    out += [_continuation_line(pad, line, (_FORMAT_RE,)) for line in question[1:]]
    out += [(pad + "Format: " + line).rstrip() for line in _lines(item.answer_format)]
    return out


def _entry_lines(number: int, key: KeyData) -> list[str]:
    prefix = f"{number}. "
    pad = " " * len(prefix)
    keywords = (_SOURCE_RE, _NOTE_RE)
    answer = [line.replace("(!)", "\\(!)") for line in _lines(key.answer)] or [""]
    note = _lines(key.flag_note)
    tail: list[str] = []
    if key.flagged:
        answer[-1] = (answer[-1] + " (!) " + (note[0] if note else "")).strip()
        tail = note[1:]
    elif note:
        tail = note
    first = answer[0]
    if first.startswith("\\"):
        first = "\\" + first
    out = [(prefix + first).rstrip()]
    out += [_continuation_line(pad, line, keywords) for line in answer[1:]]
    if tail and not key.flagged:
        out.append(pad + "Note: " + tail[0])
        tail = tail[1:]
    out += [_continuation_line(pad, line, keywords) for line in tail]
    sources = [part for source in key.sources for part in _split_sources(_one_line(source))]
    if sources and _split_sources(" ; ".join(sources)) == sources:
        out.append(pad + ("Sources: " if len(sources) > 1 else "Source: ") + " ; ".join(sources))
    else:  # a source such as ";" would run into the separator: one line each
        out += [pad + "Source: " + source for source in sources]
    return out


def dump_text(bank: BankData) -> str:
    """Write the plain-text form: numbering restarts at 1 in each block, and the key follows
    under 'Answer key' with the block headings repeated. parse_text() reads it back to an equal
    BankData once texts are in the text form's normal shape (docs/bank-format.md)."""
    out: list[str] = []
    name = _one_line(bank.name)
    description = _lines(bank.description)
    if name or description:
        if not name:
            out.append("#")
        elif name.startswith("\\") or _classify("# " + name)[0] != "plain":
            out.append("# \\" + name)
        else:
            out.append("# " + name)
        out += [_free_line(line) for line in description]
        out.append("")
    for block in bank.blocks:
        out.append(_heading_line(block))
        out += [_free_line(line) for line in _lines(block.description)]
        for number, item in enumerate(block.items, start=1):
            out += _item_lines(number, item)
        out.append("")
    keyed = [block for block in bank.blocks if any(item.key is not None for item in block.items)]
    if keyed:
        out += ["Answer key", ""]
        for block in keyed:
            out.append(_heading_line(block))
            for number, item in enumerate(block.items, start=1):
                if item.key is not None:
                    out += _entry_lines(number, item.key)
            out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


# JSON ----------------------------------------------------------------------------------------

_JSON_WS = re.compile(r"[ \t\n\r]*")
_LOCATE_DEPTH = (
    7  # containers shallower than this are walked: down to blocks[i].items[j].key.sources[k]
)

_JSON_REASONS = {
    "Expecting value": lambda: _("a value was expected"),
    "Expecting ',' delimiter": lambda: _("a comma is missing"),
    "Expecting ':' delimiter": lambda: _("a colon is missing"),
    "Expecting property name enclosed in double quotes": lambda: _(
        "a field name in double quotes was expected (is there a comma too many?)"
    ),
    "Unterminated string starting at": lambda: _("a string is not closed"),
    "Invalid control character at": lambda: _(
        "a string contains a raw line break or control character"
    ),
    "Invalid \\escape": lambda: _("a string contains an invalid backslash escape"),
    "Invalid \\uXXXX escape": lambda: _("a string contains an invalid \\u escape"),
    "Extra data": lambda: _("there is more text after the end of the JSON data"),
}


def _path_text(path: tuple) -> str:
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + part
    return out


class _Locator:
    """Line numbers of the values of an already valid JSON text, by path; duplicate field names."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.newlines = [m.start() for m in re.finditer("\n", text)]
        self.lines: dict[tuple, int] = {}
        self.duplicates: list[tuple[tuple, str, int, int]] = []
        self.decoder = json.JSONDecoder()

    def line(self, pos: int) -> int:
        return bisect_left(self.newlines, pos) + 1

    def skip(self, pos: int) -> int:
        return _JSON_WS.match(self.text, pos).end()

    def value(self, pos: int, path: tuple) -> int:
        text = self.text
        pos = self.skip(pos)
        self.lines[path] = self.line(pos)
        char = text[pos]
        if char == "{" and len(path) < _LOCATE_DEPTH:
            pos = self.skip(pos + 1)
            if text[pos] == "}":
                return pos + 1
            seen: dict[str, int] = {}
            while True:
                pos = self.skip(pos)
                key_line = self.line(pos)
                key, pos = scanstring(text, pos + 1)
                if key in seen:
                    self.duplicates.append((path, key, seen[key], key_line))
                else:
                    seen[key] = key_line
                pos = self.skip(pos) + 1  # the colon
                pos = self.skip(self.value(pos, path + (key,)))
                if text[pos] == ",":
                    pos += 1
                    continue
                return pos + 1
        if char == "[" and len(path) < _LOCATE_DEPTH:
            pos = self.skip(pos + 1)
            if text[pos] == "]":
                return pos + 1
            index = 0
            while True:
                pos = self.skip(self.value(pos, path + (index,)))
                index += 1
                if text[pos] == ",":
                    pos += 1
                    continue
                return pos + 1
        return self.decoder.raw_decode(text, pos)[1]


class _JsonChecker:
    def __init__(self, lines: dict[tuple, int]) -> None:
        self.lines = lines
        self.problems: list[FormatProblem] = []

    def line(self, path: tuple) -> int | None:
        while path not in self.lines and path:
            path = path[:-1]
        return self.lines.get(path)

    def problem(self, path: tuple, message: str, line: int | None = None) -> None:
        if path:
            message = _("%(path)s: %(problem)s") % {"path": _path_text(path), "problem": message}
        self.problems.append(FormatProblem(line or self.line(path), message))

    def fields(self, obj: dict, path: tuple, required: tuple, optional: tuple) -> None:
        for name in required:
            if name not in obj:
                self.problem(
                    path, _("the required field '%(field)s' is missing.") % {"field": name}
                )
        allowed = required + optional
        for name in obj:
            if name not in allowed:
                self.problem(
                    path,
                    _("unknown field '%(field)s' (the fields are %(allowed)s).")
                    % {"field": name, "allowed": ", ".join(allowed)},
                )

    def string(
        self,
        obj: dict,
        name: str,
        path: tuple,
        *,
        non_empty=False,
        one_line=False,
        limit: int | None = None,
    ) -> str:
        if name not in obj:
            return ""  # a missing required field is reported by fields()
        return self.text(
            obj[name], path + (name,), non_empty=non_empty, one_line=one_line, limit=limit
        )

    def text(
        self, value, where: tuple, *, non_empty=False, one_line=False, limit: int | None = None
    ) -> str:
        if not isinstance(value, str) or (non_empty and not value.strip()):
            if non_empty:
                self.problem(where, _("must be a non-empty string."))
            else:
                self.problem(where, _("must be a string."))
            return ""
        if "\x00" in value or any("\ud800" <= char <= "\udfff" for char in value):
            self.problem(
                where, _("contains a character that cannot be stored (NUL or a lone surrogate).")
            )
        if one_line and ("\n" in value or "\r" in value):
            self.problem(where, _("must be one line of text (no line breaks)."))
        if limit is not None and len(value) > limit:
            self.problem(
                where,
                _("is %(length)s characters long; the limit is %(limit)s.")
                % {"length": len(value), "limit": limit},
            )
        return value

    def boolean(self, obj: dict, name: str, path: tuple) -> bool:
        value = obj.get(name, False)
        if not isinstance(value, bool):
            self.problem(path + (name,), _("must be true or false."))
            return False
        return value

    def bank(self, data) -> BankData:
        if not isinstance(data, dict):
            raise _fail(
                self.line(()),
                _(
                    'the file is JSON but not a bank: a bank file is a JSON object ({ ... }) with "schema": "%(schema)s".'
                )
                % {"schema": SCHEMA},
            )
        if "schema" not in data:
            raise _fail(
                self.line(()),
                _(
                    'the file is JSON but not a bank file: it has no "schema" field (a bank file has "schema": "%(schema)s").'
                )
                % {"schema": SCHEMA},
            )
        if data["schema"] != SCHEMA:
            raise _fail(
                self.line(("schema",)),
                _('the file is not a bank file: its schema is %(found)s, not "%(schema)s".')
                % {"found": json.dumps(data["schema"], ensure_ascii=False)[:80], "schema": SCHEMA},
            )
        version = data.get("version")
        if isinstance(version, int) and not isinstance(version, bool) and version > SCHEMA_VERSION:
            raise _fail(
                self.line(("version",)),
                _(
                    "the file uses bank format version %(version)s, which is newer than this app understands (version %(supported)s); update the app, or export the bank in version %(supported)s."
                )
                % {"version": version, "supported": SCHEMA_VERSION},
            )
        self.fields(data, (), ("schema", "version", "blocks"), ("name", "description"))
        if "version" in data and (
            not isinstance(version, int) or isinstance(version, bool) or version < 1
        ):
            self.problem(
                ("version",),
                _("must be a whole number from 1 to %(supported)s.")
                % {"supported": SCHEMA_VERSION},
            )
        bank = BankData(
            name=self.string(data, "name", (), one_line=True),
            description=self.string(data, "description", ()),
        )
        blocks = data.get("blocks", [])
        if not isinstance(blocks, list):
            self.problem(("blocks",), _("must be a list of blocks."))
            blocks = []
        elif "blocks" in data and not blocks:
            self.problem(
                ("blocks",),
                _("the bank has no blocks: add at least one block with its code, title and items."),
            )
        codes: dict[str, int] = {}
        for index, block in enumerate(blocks):
            path = ("blocks", index)
            if not isinstance(block, dict):
                self.problem(path, _("must be an object (a block)."))
                continue
            bank.blocks.append(self.block(block, path, codes))
        return bank

    def block(self, obj: dict, path: tuple, codes: dict[str, int]) -> BlockData:
        self.fields(obj, path, ("code", "title", "items"), ("description",))
        code = obj.get("code", "")
        if not isinstance(code, str) or not _CODE_RE.match(code):
            self.problem(
                path + ("code",),
                _('must be one or two letters or digits, such as "A" (found %(found)s).')
                % {"found": json.dumps(code, ensure_ascii=False)[:80]},
            )
            code = code if isinstance(code, str) else ""
        elif code.casefold() in codes:
            first = codes[code.casefold()]
            self.problem(
                path + ("code",),
                _("block %(block)s appears twice (first as blocks[%(index)s]).")
                % {"block": code, "index": first},
            )
        else:
            codes[code.casefold()] = path[-1]
        block = BlockData(
            code=code,
            title=self.string(obj, "title", path, one_line=True, limit=MAX_TITLE_CHARS),
            description=self.string(obj, "description", path),
            line=self.line(path),
        )
        items = obj.get("items", [])
        if not isinstance(items, list):
            self.problem(path + ("items",), _("must be a list of items."))
            items = []
        for index, item in enumerate(items):
            item_path = path + ("items", index)
            if not isinstance(item, dict):
                self.problem(item_path, _("must be an object (an item)."))
                continue
            block.items.append(self.item(item, item_path))
        return block

    def item(self, obj: dict, path: tuple) -> ItemData:
        self.fields(obj, path, ("question",), ("answer_format", "retired", "key"))
        item = ItemData(
            question=self.string(obj, "question", path, non_empty=True),
            answer_format=self.string(obj, "answer_format", path, limit=MAX_FORMAT_CHARS),
            retired=self.boolean(obj, "retired", path),
            line=self.line(path),
        )
        key = obj.get("key")
        if key is None:
            return item
        key_path = path + ("key",)
        if not isinstance(key, dict):
            self.problem(key_path, _("must be an object (a key entry) or null."))
            return item
        self.fields(key, key_path, ("answer",), ("flagged", "flag_note", "sources"))
        item.key = KeyData(
            answer=self.string(key, "answer", key_path, non_empty=True),
            flagged=self.boolean(key, "flagged", key_path),
            flag_note=self.string(key, "flag_note", key_path),
        )
        sources = key.get("sources", [])
        if not isinstance(sources, list):
            self.problem(key_path + ("sources",), _("must be a list of strings."))
            return item
        for index, source in enumerate(sources):
            where = key_path + ("sources", index)
            item.key.sources.append(self.text(source, where, non_empty=True, one_line=True))
        return item


def parse_json(text: str) -> BankData:
    """Read the JSON form: validates types and required fields, naming the JSON path and line."""
    text = _prepare(text)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        explain = _JSON_REASONS.get(error.msg)
        raise _fail(
            error.lineno,
            _("the file is not valid JSON: %(reason)s (column %(column)s).")
            % {"reason": explain() if explain else error.msg, "column": error.colno},
        ) from None
    except RecursionError:
        raise _fail(None, _("The file is not a bank: its JSON is nested far too deeply.")) from None
    except ValueError as error:  # e.g. an integer with thousands of digits
        raise _fail(
            None, _("The file is not valid JSON: %(reason)s.") % {"reason": error}
        ) from None
    locator = _Locator(text)
    locator.value(0, ())
    checker = _JsonChecker(locator.lines)
    bank = checker.bank(data)
    for path, name, first, second in locator.duplicates:
        checker.problem(
            path,
            _("the field '%(field)s' appears twice (first on line %(first)s); remove one.")
            % {"field": name, "first": first},
            line=second,
        )
    if checker.problems:
        raise BankFormatError(checker.problems)
    return bank


def _key_json(key: KeyData | None):
    if key is None:
        return None
    return {
        "answer": key.answer,
        "flagged": key.flagged,
        "flag_note": key.flag_note,
        "sources": list(key.sources),
    }


def dump_json(bank: BankData) -> str:
    """The lossless form: every field, in list order; parse_json() reads it back equal."""
    data = {
        "schema": SCHEMA,
        "version": SCHEMA_VERSION,
        "name": bank.name,
        "description": bank.description,
        "blocks": [
            {
                "code": block.code,
                "title": block.title,
                "description": block.description,
                "items": [
                    {
                        "question": item.question,
                        "answer_format": item.answer_format,
                        "retired": item.retired,
                        "key": _key_json(item.key),
                    }
                    for item in block.items
                ],
            }
            for block in bank.blocks
        ],
    }
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"
