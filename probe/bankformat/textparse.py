"""Reading the plain-text form (docs/bank-format.md, "Plain text")."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from django.utils.translation import gettext as _

from .data import (
    MAX_FORMAT_CHARS,
    MAX_TITLE_CHARS,
    BankData,
    BankFormatError,
    BlockData,
    FormatProblem,
    ItemData,
    KeyData,
    _fail,
)
from .decode import _prepare
from .lexicon import (
    _DEEPER,
    _FLAG_RE,
    _FORMAT_RE,
    _FREE_NUMBER_MAX,
    _LOOSE_NUMBER_RE,
    _NAME_HASHES_RE,
    _NOTE_RE,
    _RETIRED_RE,
    _SOURCE_RE,
    _TOPIC_RE,
    _classify,
    _indent,
    _language_of,
    _normal_code,
    _ranges,
    _split_sources,
    _tidy,
    _trim,
    _unescape,
    _unescape_flag,
)
from .readings import NO_READINGS, Readings

_TITLE_RE = re.compile(r"^#\s+\S")


@dataclass(eq=False)
class _Block:
    code: str
    title: str
    line: int
    desc: list[str] = field(default_factory=list)
    desc_lines: list[int] = field(default_factory=list)  # line numbers of non-blank desc lines
    items: list[_Item] = field(default_factory=list)


@dataclass(eq=False)
class _Unit:
    """What an item and a key entry share: where they start, and every line that continued them
    (blank ones as ""), kept for the warnings."""

    number: int
    line: int
    indent: int
    trail: list[tuple[int, str, int]] = field(default_factory=list)  # (line, text, indent)

    def follow(self, lineno: int, stripped: str, indent: int) -> None:
        self.trail.append((lineno, stripped, indent))

    @property
    def last_line(self) -> int:
        lines = [lineno for lineno, text, _indent in self.trail if text]
        return lines[-1] if lines else self.line


@dataclass(eq=False)
class _Item(_Unit):
    block: _Block | None = None
    retired: bool = False
    text: list[str] = field(default_factory=list)
    formats: list[str] = field(default_factory=list)
    topics: list[str] = field(default_factory=list)
    key: KeyData | None = None

    def blank(self, lineno: int) -> None:
        self.follow(lineno, "", 0)
        self.text.append("")

    def continuation(self, lineno: int, stripped: str, indent: int) -> None:
        self.follow(lineno, stripped, indent)
        if stripped.startswith("\\"):
            self.text.append(_unescape(stripped))
        elif match := _FORMAT_RE.match(stripped):
            self.formats.append(match[1].strip())
        elif match := _TOPIC_RE.match(stripped):
            self.topics.append(match[1].strip())
        else:
            self.text.append(stripped)


@dataclass(eq=False)
class _Entry(_Unit):
    block: _Block | None = None
    orphaned: bool = False  # under a key heading naming a block that does not exist
    answer: list[str] = field(default_factory=list)
    note: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    flagged: bool = False
    flag_line: int | None = None
    in_note: bool = False

    def blank(self, lineno: int) -> None:
        self.follow(lineno, "", 0)
        (self.note if self.in_note else self.answer).append("")

    def text(self, text: str, lineno: int) -> None:
        if self.in_note:
            self.note.append(text)
            return
        match = _FLAG_RE.search(text)
        if match is None:
            self.answer.append(_unescape_flag(text))
            return
        before = _unescape_flag(text[: match.start()]).strip()
        if before:
            self.answer.append(before)
        self.flagged = True
        self.flag_line = lineno
        self.in_note = True
        self.note.append(text[match.end() :].strip())

    def continuation(self, lineno: int, stripped: str, indent: int) -> None:
        self.follow(lineno, stripped, indent)
        if stripped.startswith("\\"):
            self.text(_unescape(stripped), lineno)
        elif match := _SOURCE_RE.match(stripped):
            self.sources.extend(_split_sources(match[1]))
        elif match := _NOTE_RE.match(stripped):
            self.in_note = True
            self.note.append(match[1].strip())
        else:
            self.text(stripped, lineno)


class _TextParser:
    def __init__(self, readings: Readings = NO_READINGS) -> None:
        self.readings = readings
        self.problems: list[FormatProblem] = []
        self.section = "front"  # front | items | key
        self.front: list[str] = []
        self.front_lines: list[int] = []  # line numbers of non-blank front matter lines
        self.front_texts: list[str] = []  # and their text
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
        # For the warnings: block headings met again before any key, numbering restarting
        # inside a block, lines that look like items but are read as text, and the text of
        # the answer key outside its entries.
        self.repeats: list[tuple[int, _Block]] = []
        self.restarts: list[tuple[int, _Block]] = []
        self.lookalikes: list[tuple[int, int, _Unit | None]] = []
        self.key_text: list[int] = []
        self.last_plain: tuple[int, str] | None = None  # outside units, for the key's heading
        self.language_votes: dict[str, int] = {}

    def problem(self, line: int | None, message: str) -> None:
        self.problems.append(FormatProblem(line, message))

    def unit(self) -> _Unit | None:
        if self.section == "items":
            return self.item
        if self.section == "key":
            return self.entry
        return None

    # Reading lines

    def feed(self, lineno: int, raw: str) -> None:
        if lineno in self.readings.drop:
            return
        stripped = raw.strip()
        if lineno == self.readings.key_at and self.section != "key":
            if self.start_key_at(lineno, stripped):
                return
        if lineno in self.readings.items and (match := _LOOSE_NUMBER_RE.match(stripped)):
            self.numbered(lineno, raw, int(match["num"]), match["rest"].strip())
            return
        unit = self.unit()
        if stripped and unit is not None and _indent(raw) >= unit.indent + _DEEPER:
            self.note_lookalike(lineno, stripped, unit, indented=True)
            unit.continuation(lineno, stripped, _indent(raw))
            return
        kind, match = _classify(stripped)
        if kind == "number" and int(match["num"]) > _FREE_NUMBER_MAX:
            kind = "number" if self.continues(int(match["num"])) else "plain"
        if kind == "blank":
            self.blank_line(lineno, unit)
        elif kind == "key":
            self.key_heading_line(lineno, match)
        elif kind == "heading":
            self.heading_line(lineno, match)
        elif kind == "number":
            self.numbered(lineno, raw, int(match["num"]), match["rest"].strip())
        else:
            self.plain_line(lineno, raw, stripped, unit)

    def continues(self, number: int) -> bool:
        """Whether a number from 1000 on continues its block (see _FREE_NUMBER_MAX)."""
        if self.section == "items":
            return self.item is not None and self.item.number == number - 1
        if self.section == "key":
            block = self.key_block
            return block is not None and bool(block.items) and block.items[-1].number >= number
        return False

    def start_key_at(self, lineno: int, stripped: str) -> bool:
        """The reading 'the answer key starts here': True when the line itself was the key's
        heading (a sentence such as 'Show the answer key'), False when it is read on (a
        repeated block heading, the first entry)."""
        self.item = None
        self.section = "key"
        self.key_line = lineno
        return _classify(stripped)[0] not in {"heading", "number"}

    def blank_line(self, lineno: int, unit: _Unit | None) -> None:
        if unit is not None:
            unit.blank(lineno)
        elif self.section == "items":
            self.block.desc.append("")
        elif self.section == "front":
            self.front.append("")

    def key_heading_line(self, lineno: int, match) -> None:
        self.item = self.entry = None
        self.vote(match)
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

    def heading_line(self, lineno: int, match) -> None:
        code, title = _normal_code(match["code"]), (match["title"] or "").strip()
        self.vote(match)
        if self.section == "key":
            self.key_heading(lineno, code)
        else:
            self.block_heading(lineno, code, title)

    def vote(self, match) -> None:
        language = _language_of(match)
        self.language_votes[language] = self.language_votes.get(language, 0) + 1

    def numbered(self, lineno: int, raw: str, number: int, rest: str) -> None:
        if self.section == "front":
            if self.orphan is None:
                self.orphan = (lineno, number)
        elif self.section == "items":
            self.new_item(lineno, _indent(raw), number, rest)
        else:
            self.new_entry(lineno, _indent(raw), number, rest)

    def plain_line(self, lineno: int, raw: str, stripped: str, unit: _Unit | None) -> None:
        self.note_lookalike(lineno, stripped, unit, indented=False)
        if unit is not None:
            unit.continuation(lineno, stripped, _indent(raw))
            return
        self.last_plain = (lineno, stripped)
        if self.section == "items":
            self.block.desc.append(stripped)
            self.block.desc_lines.append(lineno)
        elif self.section == "front":
            self.front.append(stripped)
            self.front_lines.append(lineno)
            self.front_texts.append(stripped)
        else:
            # Text in the answer key outside any entry (a legend, a repeated description) is
            # ignored.
            self.key_text.append(lineno)

    def note_lookalike(self, lineno: int, stripped: str, unit: _Unit | None, *, indented: bool):
        """A line read as text that a person might read as the next item or key entry."""
        match = _LOOSE_NUMBER_RE.match(stripped)
        if match is None or unit is None:
            return
        number = int(match["num"])
        previous = self.lookalikes[-1] if self.lookalikes else None
        chained = previous is not None and previous[2] is unit and number == previous[1] + 1
        if number != unit.number + 1 and not chained:
            return
        if indented and any(
            indent >= unit.indent + _DEEPER and _LOOSE_NUMBER_RE.match(text)
            for _lineno, text, indent in unit.trail
        ):
            return  # a numbered list inside the item, not the next item
        self.lookalikes.append((lineno, number, unit))

    def block_heading(self, lineno: int, code: str, title: str) -> None:
        self.section = "items"
        self.item = None
        block = _Block(code=code, title=title, line=lineno)
        first = self.by_code.get(code.casefold())
        if first is not None:
            self.repeats.append((lineno, first))
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
        if self.block.items and number == 1:
            self.restarts.append((lineno, self.block))
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
            entry.text(rest, lineno)
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
                line=entry.line,
            )

    def name_index(self) -> int:
        """Which front matter line is the bank's name: the document's title (the first line
        that is a Markdown heading of level one, "# Title") when there is one, else the first."""
        for index, text in enumerate(self.front_texts):
            if _TITLE_RE.match(text):
                return index
        return 0

    def build(self) -> BankData:
        name, description = "", ""
        front = _trim(self.front)
        if front:
            title_index = self.name_index()
            title = self.front_texts[title_index]
            position = front.index(title)
            first = title
            if not first.startswith("\\"):
                first = _NAME_HASHES_RE.sub("", first, count=1)
            name = _unescape(first.strip())
            rest = front[:position] + front[position + 1 :]
            description = _tidy([_unescape(line) for line in rest])
        blocks = []
        for block in self.blocks:
            items = [
                ItemData(
                    question=_tidy(item.text),
                    answer_format=_tidy(item.formats),
                    topic=" ".join(_trim(item.topics)),
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
        return BankData(name=name, description=description, blocks=blocks, language=self.language())

    def language(self) -> str:
        votes = self.language_votes
        return "ja" if votes.get("ja", 0) > votes.get("en", 0) else "en"


def read_text(text: str, readings: Readings = NO_READINGS) -> tuple[_TextParser, list[str]]:
    """Feed every line of the text to a reader (with the readings applied); the reader's state
    is what the warnings look at. Call ``finish()`` on it for the bank."""
    text = _prepare(text)
    lines = text.split("\n")
    if not any(line.strip() for line in lines):
        raise _fail(None, _("The file is empty."))
    parser = _TextParser(readings)
    for lineno, raw in enumerate(lines, start=1):
        parser.feed(lineno, raw)
    return parser, lines


def parse_text(text: str, readings: Readings = NO_READINGS) -> BankData:
    """Read the plain-text form (docs/bank-format.md). Raises BankFormatError with every problem."""
    parser, _lines = read_text(text, readings)
    return parser.finish()
