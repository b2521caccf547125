"""The plain-text form (docs/bank-format.md, "Plain text"): what the reader read, checked and
built into a bank."""

from __future__ import annotations

from django.utils.translation import gettext as _

from ..wording import word_list
from .data import (
    MAX_FORMAT_CHARS,
    MAX_TITLE_CHARS,
    BankData,
    BankFormatError,
    BlockData,
    ItemData,
    KeyData,
    fail,
)
from .decode import prepare
from .lexicon import NAME_HASHES_RE, ranges, tidy, trim, unescape
from .readings import NO_READINGS, Readings
from .textread import TextReader
from .textunits import TextBlock
from .title import name_of


def finish_text(reader: TextReader) -> BankData:
    """Check what the reader read and build the bank; raises BankFormatError with every
    problem."""
    if reader.orphan is not None:
        lineno, number = reader.orphan
        reader.problem(
            lineno,
            _(
                "item %(number)s comes before any block heading: put a heading such as 'Block A. HTTP semantics' above the items."
            )
            % {"number": number},
        )
    if not reader.blocks:
        reader.problem(
            None,
            _(
                "The file has no blocks: a bank starts with a heading such as 'Block A. HTTP semantics'."
            ),
        )
        raise BankFormatError(reader.problems)
    codes = word_list(block.code for block in reader.by_code.values())
    for lineno, code in reader.unknown_headings:
        reader.problem(
            lineno,
            _(
                "the answer key has a heading for block %(block)s, but there is no block %(block)s (the blocks are %(blocks)s)."
            )
            % {"block": code, "blocks": codes},
        )
    run_on, starter = _numbering(reader)
    items = _check_items(reader, run_on, starter)
    _map_key(reader, run_on, items)
    if reader.problems:
        raise BankFormatError(reader.problems)
    return _build(reader)


def _numbering(reader: TextReader) -> tuple[bool, TextBlock | None]:
    """Numbering runs on across blocks when a block after the first does not start at 1."""
    with_items = [block for block in reader.blocks if block.items]
    for block in with_items[1:]:
        if block.items[0].number != 1:
            return True, block
    return False, None


def _check_items(reader: TextReader, run_on: bool, starter: TextBlock | None) -> dict:
    """Check every block and item; return the items by number (run-on) or by (block, number)."""
    found: dict = {}
    for block in reader.blocks:
        if len(block.title) > MAX_TITLE_CHARS:
            reader.problem(
                block.line,
                _(
                    "the title of block %(block)s is %(length)s characters long; the limit is %(limit)s."
                )
                % {"block": block.code, "length": len(block.title), "limit": MAX_TITLE_CHARS},
            )
        for item in block.items:
            values = {"number": item.number, "block": block.code}
            if not tidy(item.text):
                reader.problem(
                    item.line,
                    _("item %(number)s of block %(block)s has an empty question.") % values,
                )
            answer_format = tidy(item.formats)
            if len(answer_format) > MAX_FORMAT_CHARS:
                reader.problem(
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
                reader.problem(
                    item.line,
                    _("item %(number)s of block %(block)s appears twice (first on line %(first)s).")
                    % {**values, "first": first.line},
                )
            else:
                reader.problem(
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


def answering_lines(reader: TextReader) -> set[int]:
    """The lines of the key entries that answer an item: the first entry for an item the bank
    has, under its block. Other numbered lines of the key (a second entry for an item, one for
    an item that does not exist: a numbered list of notes after the key) answer nothing and
    refuse the file as written. The warnings never offer to leave out a line of this set."""
    run_on, _starter = _numbering(reader)
    found: dict = {}
    for block in reader.blocks:
        for item in block.items:
            found.setdefault(item.number if run_on else (id(block), item.number), item)
    single = next(iter(reader.by_code.values())) if len(reader.by_code) == 1 else None
    answered: set[int] = set()
    lines: set[int] = set()
    for entry in reader.entries:
        if entry.orphaned:
            continue
        if run_on:
            item = found.get(entry.number)
            if item is not None and entry.block is not None and item.block is not entry.block:
                item = None
        else:
            block = entry.block if entry.block is not None else single
            item = found.get((id(block), entry.number)) if block is not None else None
        if item is not None and id(item) not in answered:
            answered.add(id(item))
            lines.add(entry.line)
    return lines


def _map_key(reader: TextReader, run_on: bool, found: dict) -> None:
    answered: dict[int, int] = {}
    headless_reported = False
    single = next(iter(reader.by_code.values())) if len(reader.by_code) == 1 else None
    for entry in reader.entries:
        if entry.orphaned:
            continue  # the heading's problem is reported once
        block = entry.block
        if run_on:
            item = found.get(entry.number)
            if item is None:
                reader.problem(
                    entry.line,
                    _(
                        "the key entry for item %(number)s answers an item that does not exist (the items are numbered %(range)s)."
                    )
                    % {"number": entry.number, "range": ranges(found)},
                )
                continue
            if block is not None and item.block is not block:
                reader.problem(
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
                    reader.problem(
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
                    "range": ranges(numbers),
                }
                if numbers:
                    message = _(
                        "the key entry for item %(number)s of block %(block)s answers an item that does not exist (block %(block)s has items %(range)s)."
                    )
                else:
                    message = _(
                        "the key entry for item %(number)s of block %(block)s answers an item that does not exist (block %(block)s has no items)."
                    )
                reader.problem(entry.line, message % values)
                continue
        values = {"number": entry.number, "block": block.code}
        if id(item) in answered:
            reader.problem(
                entry.line,
                _(
                    "the key entry for item %(number)s of block %(block)s appears twice (first on line %(first)s)."
                )
                % {**values, "first": answered[id(item)]},
            )
            continue
        answered[id(item)] = entry.line
        answer = tidy(entry.answer)
        if not answer:
            reader.problem(
                entry.line,
                _("the key entry for item %(number)s of block %(block)s has an empty answer.")
                % values,
            )
            continue
        item.key = KeyData(
            answer=answer,
            flagged=entry.flagged,
            flag_note=tidy(entry.note),
            sources=list(entry.sources),
            line=entry.line,
        )


def _build(reader: TextReader) -> BankData:
    name, description = "", ""
    front = trim(reader.front)
    if front:
        title_index = reader.name_index()
        rest = front
        if title_index is not None:
            title = reader.front_texts[title_index]
            position = front.index(title)
            first = title
            if not first.startswith("\\"):
                first = name_of(NAME_HASHES_RE.sub("", first, count=1))
            name = unescape(first.strip())
            rest = front[:position] + front[position + 1 :]
        description = tidy([unescape(line) for line in rest])
    blocks = []
    for block in reader.blocks:
        items = [
            ItemData(
                question=tidy(item.text),
                answer_format=tidy(item.formats),
                topic=" ".join(trim(item.topics)),
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
                description=tidy([unescape(line) for line in block.desc]),
                items=items,
                line=block.line,
            )
        )
    return BankData(name=name, description=description, blocks=blocks, language=_language(reader))


def _language(reader: TextReader) -> str:
    votes = reader.language_votes
    return "ja" if votes.get("ja", 0) > votes.get("en", 0) else "en"


def read_text(text: str, readings: Readings = NO_READINGS) -> tuple[TextReader, list[str]]:
    """Feed every line of the text to a reader (with the readings applied); the reader's state
    is what the warnings look at. Give it to ``finish_text`` for the bank."""
    text = prepare(text)
    lines = text.split("\n")
    if not any(line.strip() for line in lines):
        raise fail(None, _("The file is empty."))
    parser = TextReader(readings)
    for lineno, raw in enumerate(lines, start=1):
        parser.feed(lineno, raw)
    return parser, lines


def parse_text(text: str, readings: Readings = NO_READINGS) -> BankData:
    """Read the plain-text form (docs/bank-format.md). Raises BankFormatError with every problem."""
    parser, _lines = read_text(text, readings)
    return finish_text(parser)
