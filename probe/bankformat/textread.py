"""Reading the plain-text form line by line (docs/bank-format.md, "Plain text"): headings,
items, the answer key and its entries, with what the warnings need to know."""

from __future__ import annotations

from django.utils.translation import gettext as _

from .data import FormatProblem
from .lexicon import (
    DEEPER,
    FREE_NUMBER_MAX,
    LOOSE_NUMBER_RE,
    RETIRED_RE,
    classify,
    heading_parts,
    indent_of,
    is_keyword_line,
    language_of,
    loose_heading,
    unescape,
)
from .readings import NO_READINGS, Readings
from .textunits import KeyEntry, TextBlock, TextItem, TextUnit
from .title import title_index


def prose_after(item: TextItem) -> int | None:
    """The first line of the paragraphs that end an item as the document's own prose: after a
    blank line, every line from there on is text not indented deeper than the item's number,
    not a ``Format:`` or ``Topic:`` line and not escaped with a backslash. None when the item
    ends otherwise (a deeper line or a keyword line after the paragraph is the item's own)."""
    start = None
    after_blank = False
    for lineno, text, indent in item.trail:
        if not text:
            after_blank = True
            continue
        own = indent >= item.indent + DEEPER or is_keyword_line(text) or text.startswith("\\")
        if start is None and after_blank and not own:
            start = lineno
        elif start is not None and own:
            return None
    return start


class TextReader:
    """The state of one reading of a plain-text file, fed one line at a time."""

    def __init__(self, readings: Readings = NO_READINGS) -> None:
        self.readings = readings
        self.problems: list[FormatProblem] = []
        self.section = "front"  # front | items | key
        self.front: list[str] = []
        self.front_lines: list[int] = []  # line numbers of non-blank front matter lines
        self.front_texts: list[str] = []  # and their text
        self.blocks: list[TextBlock] = []
        self.by_code: dict[str, TextBlock] = {}
        self.block: TextBlock | None = None
        self.item: TextItem | None = None
        self.key_line: int | None = None
        self.key_block: TextBlock | None = None
        self.key_block_unknown = False
        self.entry: KeyEntry | None = None
        self.entries: list[KeyEntry] = []
        self.unknown_headings: list[tuple[int, str]] = []
        self.orphan: tuple[int, int] | None = None
        # For the warnings: block headings met again before any key, numbering restarting
        # inside a block, lines that look like items but are read as text, and the text of
        # the answer key outside its entries.
        self.repeats: list[tuple[int, TextBlock]] = []
        self.restarts: list[tuple[int, TextBlock]] = []
        self.lookalikes: list[tuple[int, int, TextUnit | None]] = []
        self.loose_headings: list[tuple[int, str, str]] = []  # (line, code, title)
        self.key_text: list[int] = []
        self.key_headings: list[int] = []  # lines of the block headings inside the answer key
        self.last_plain: tuple[int, str] | None = None  # outside units, for the key's heading
        self.prose_before_key: tuple[int, int] | None = None  # lines left out of the last item
        self.language_votes: dict[str, int] = {}

    def problem(self, line: int | None, message: str) -> None:
        self.problems.append(FormatProblem(line, message))

    def unit(self) -> TextUnit | None:
        if self.section == "items":
            return self.item
        if self.section == "key":
            return self.entry
        return None

    # Reading lines

    def feed(self, lineno: int, raw: str) -> None:
        if self.readings.dropped(lineno):
            return
        stripped = raw.strip()
        if lineno == self.readings.key_at and self.section != "key":
            if self.start_key_at(lineno, stripped):
                return
        if lineno in self.readings.headings and (match := loose_heading(stripped)):
            self.item = self.entry = None
            self.heading_line(lineno, match)
            return
        if lineno in self.readings.items and (match := LOOSE_NUMBER_RE.match(stripped)):
            self.numbered(lineno, raw, int(match["num"]), match["rest"].strip())
            return
        unit = self.unit()
        if stripped and unit is not None and indent_of(raw) >= unit.indent + DEEPER:
            self.note_lookalike(lineno, stripped, unit, indented=True)
            unit.continuation(lineno, stripped, indent_of(raw))
            if LOOSE_NUMBER_RE.match(stripped):
                unit.nested_list = True
            return
        kind, match = classify(stripped)
        if kind == "number" and int(match["num"]) > FREE_NUMBER_MAX:
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
        """Whether a number from 1000 on continues its block (see FREE_NUMBER_MAX)."""
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
        self.end_items()
        self.section = "key"
        self.key_line = lineno
        return classify(stripped)[0] not in {"heading", "number"}

    def blank_line(self, lineno: int, unit: TextUnit | None) -> None:
        if unit is not None:
            unit.blank(lineno)
        elif self.section == "items":
            self.block.desc.append("")
        elif self.section == "front":
            self.front.append("")

    def end_items(self) -> None:
        """The answer key starts: a paragraph of the document's own between the last item and
        the key (after a blank line, not indented under the item) is no part of that item, as
        text in the key outside its entries is no part of an entry; it is left out."""
        item = self.item if self.section == "items" else None
        self.item = None
        if item is None:
            return
        start = prose_after(item)
        if start is not None:
            self.prose_before_key = (start, item.last_line)
            item.end_before(start)

    def key_heading_line(self, lineno: int, match) -> None:
        if self.section != "key":
            self.end_items()
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
        code, title = heading_parts(match)
        self.vote(match)
        if self.section == "key":
            self.key_heading(lineno, code)
        else:
            self.block_heading(lineno, code, title)

    def vote(self, match) -> None:
        language = language_of(match)
        self.language_votes[language] = self.language_votes.get(language, 0) + 1

    def numbered(self, lineno: int, raw: str, number: int, rest: str) -> None:
        if self.section == "front":
            if self.orphan is None:
                self.orphan = (lineno, number)
        elif self.section == "items":
            self.new_item(lineno, indent_of(raw), number, rest)
        else:
            self.new_entry(lineno, indent_of(raw), number, rest)

    def plain_line(self, lineno: int, raw: str, stripped: str, unit: TextUnit | None) -> None:
        self.note_lookalike(lineno, stripped, unit, indented=False)
        if match := loose_heading(stripped):
            self.loose_headings.append((lineno, *heading_parts(match)))
        if unit is not None:
            unit.continuation(lineno, stripped, indent_of(raw))
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

    def note_lookalike(self, lineno: int, stripped: str, unit: TextUnit | None, *, indented: bool):
        """A line read as text that a person might read as the next item or key entry."""
        match = LOOSE_NUMBER_RE.match(stripped)
        if match is None or unit is None:
            return
        number = int(match["num"])
        previous = self.lookalikes[-1] if self.lookalikes else None
        chained = previous is not None and previous[2] is unit and number == previous[1] + 1
        if number != unit.number + 1 and not chained:
            return
        if indented and unit.nested_list:
            return  # a numbered list inside the item, not the next item
        self.lookalikes.append((lineno, number, unit))

    def block_heading(self, lineno: int, code: str, title: str) -> None:
        self.section = "items"
        self.item = None
        block = TextBlock(code=code, title=title, line=lineno)
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
        self.key_headings.append(lineno)
        block = self.by_code.get(code.casefold())
        self.key_block = block
        self.key_block_unknown = block is None
        if block is None:
            self.unknown_headings.append((lineno, code))

    def new_item(self, lineno: int, indent: int, number: int, rest: str) -> None:
        item = TextItem(number=number, line=lineno, indent=indent, block=self.block)
        if self.block.items and number == 1:
            self.restarts.append((lineno, self.block))
        if match := RETIRED_RE.match(rest):
            item.retired = True
            rest = match[1].strip()
        item.start(unescape(rest))
        self.block.items.append(item)
        self.item = item

    def new_entry(self, lineno: int, indent: int, number: int, rest: str) -> None:
        entry = KeyEntry(
            number=number,
            line=lineno,
            indent=indent,
            block=self.key_block,
            orphaned=self.key_block_unknown,
        )
        rest = unescape(rest)
        if rest:
            entry.text(rest, lineno)
        self.entries.append(entry)
        self.entry = entry

    def name_index(self) -> int | None:
        """Which front matter line is the bank's name: the document's title (``title.py``), or
        None when the front matter has none (only navigation and prose)."""
        return title_index(self.front_texts)
