"""Warnings about a plain-text file: where a person would read a pasted document otherwise.

The reader follows the grammar exactly; a probe copied from a web page or a document has prose
around it (section headings, paragraphs between the questions and the key, "Show the answer key",
notes after the last key entry) that the grammar glues onto the nearest item or key entry. Each
function here looks at the reader's state after every line was fed and returns warnings, each
naming the line and offering the reading a person would choose (``readings.py``).
"""

from __future__ import annotations

import re
from dataclasses import replace

from django.utils.translation import gettext as _

from probe.wording import number_range

from .lexicon import CJK_RE, DEEPER, FLAG_RE, classify, is_keyword_line
from .readings import FormatWarning, drop_code, drop_lines_code
from .textparse import answering_lines

LONG_LINES = 4  # a question or key entry of more lines than this reads like glued prose
LONG_CHARS = 500  # ... or of more characters than this
LONG_NOTE_CHARS = 300  # a flag note longer than this reads like a paragraph
LONG_DESCRIPTION_LINES = 3  # a description of more lines than this is the document's prose
SHORT_HEADING_CHARS = 60

# The headings of an article or a report, not of a probe.
_DOCUMENT_HEADING_RE = re.compile(
    r"^(?:#{1,6}\s+\S"
    r"|(?:section|part|chapter|appendix|notes?|remarks|references|bibliography|results|"
    r"discussion|conclusions?|summary|methods?|methodology|about|introduction|background|"
    r"acknowledge?ments?|further reading|see also|footnotes?|comments?|scoring)\b"
    r"|第.{1,4}[章節部]|注記|備考|参考文献|まとめ|結果|考察|付録|はじめに|おわりに)",
    re.IGNORECASE,
)
_ANSWER_WORDS_RE = re.compile(r"answer|key|solution|解答|答え|正解", re.IGNORECASE)
_SENTENCE_END = ".?!:。？！：)）"
_is_keyword = is_keyword_line


def _document_heading(text: str) -> bool:
    return len(text) <= 80 and bool(_DOCUMENT_HEADING_RE.match(text))


def _looks_like_heading(text: str, previous: str) -> bool:
    """A document heading, or a short line with no closing punctuation after a finished
    sentence ("Show the answer key" after a question)."""
    if _document_heading(text):
        return True
    if len(text) > SHORT_HEADING_CHARS or text[-1] in _SENTENCE_END + ",;、":
        return False
    if not previous or previous[-1] not in _SENTENCE_END:
        return False
    return text[0].isupper() or bool(CJK_RE.match(text))


def _unit_name(unit) -> dict:
    block = unit.block.code if unit.block is not None else ""
    return {"number": unit.number, "block": block}


def _what(unit, kind: str) -> str:
    values = _unit_name(unit)
    if kind == "item":
        return _("item %(number)s of block %(block)s") % values
    if values["block"]:
        return _("the key entry for item %(number)s of block %(block)s") % values
    return _("the key entry for item %(number)s") % values


def _cut(unit, first_text: str = "") -> tuple[int, str] | None:
    """Where a person would end the unit: the first line after a paragraph break (not indented
    deeper, not a keyword line), or the first line that reads like a heading."""
    previous = first_text
    after_blank = False
    for index, (lineno, text, indent) in enumerate(unit.trail):
        if not text:
            after_blank = True
            continue
        deeper = indent >= unit.indent + DEEPER
        if _is_keyword(text):
            previous = text
            continue
        if not deeper and _looks_like_heading(text, previous):
            return lineno, "heading"
        if after_blank and not deeper and _prose_follows(unit.trail[index:], unit):
            return lineno, "paragraph"
        previous = text
    return None


def _prose_follows(trail, unit) -> bool:
    return any(
        text and not _is_keyword(text) and indent < unit.indent + DEEPER
        for _lineno, text, indent in trail
    )


def _range_text(first: int, last: int) -> str:
    if first == last:
        return _("line %(line)s") % {"line": first}
    return _("lines %(first)s–%(last)s") % {"first": first, "last": last}


def _span_text(first: int, last: int) -> str:
    return str(first) if first == last else number_range(first, last)


def _cut_warning(unit, kind: str, cut: tuple[int, str]) -> FormatWarning:
    lineno, why = cut
    last = unit.last_line
    values = {"what": _what(unit, kind), "lines": _range_text(lineno, last), "line": lineno}
    if why == "heading":
        message = _(
            "line %(line)s reads like a heading of the document, not like part of %(what)s; as written, the text from there (%(lines)s) is read as part of it."
        )
        suggestion = _("End %(what)s before line %(line)s: leave out %(lines)s.")
    else:
        message = _(
            "%(what)s goes on after a blank line (%(lines)s); that text reads like the document's own, not like part of it."
        )
        suggestion = _("End %(what)s at the paragraph break: leave out %(lines)s.")
    return FormatWarning(
        kind=why,
        line=lineno,
        message=message % values,
        suggestion=suggestion % values,
        reading=drop_code(lineno, last),
        lines=(lineno, last),
    )


def _text_lines(unit) -> list[tuple[int, str, int]]:
    return [line for line in unit.trail if line[1] and not _is_keyword(line[1])]


def _long_warning(unit, kind: str, first_text: str) -> FormatWarning | None:
    lines = _text_lines(unit)
    chars = len(first_text) + sum(len(text) for _lineno, text, _indent in lines)
    if len(lines) + 1 <= LONG_LINES and chars <= LONG_CHARS:
        return None
    values = {"what": _what(unit, kind), "count": len(lines) + 1, "chars": chars}
    if not lines:
        # One long line: no reading can shorten it, so the warning only asks to look.
        return FormatWarning(
            kind="long",
            line=unit.line,
            message=_(
                "%(what)s is one line of %(chars)s characters: is text of the document glued onto it?"
            )
            % values,
            suggestion=_("Check it in the document; edit the document if text is glued onto it."),
        )
    first, last = lines[0][0], unit.last_line
    values["lines"] = _range_text(first, last)
    return FormatWarning(
        kind="long",
        line=unit.line,
        message=_(
            "%(what)s is %(count)s lines long (%(chars)s characters): is text of the document glued onto it?"
        )
        % values,
        suggestion=_("Keep only its first line: leave out %(lines)s.") % values,
        reading=drop_code(first, last),
        lines=(first, last),
    )


def _flag_warning(entry) -> FormatWarning | None:
    """A flag note that reads like prose, or a (!) in the middle of a sentence of the text."""
    if not entry.flagged:
        return None
    note = " ".join(part for part in entry.note if part)
    sentences = sum(note.count(mark) for mark in (". ", "。"))
    inside = entry.flag_line != entry.line and not _starts_with_flag(entry, entry.flag_line)
    if not inside and len(note) <= LONG_NOTE_CHARS and sentences < 3:
        return None
    values = {"what": _what(entry, "entry"), "line": entry.flag_line, "chars": len(note)}
    if inside:
        first, last = entry.flag_line, entry.last_line
        values["lines"] = _range_text(first, last)
        return FormatWarning(
            kind="flag",
            line=entry.flag_line,
            message=_(
                "the (!) on line %(line)s is inside a sentence, and it flags %(what)s with a note of %(chars)s characters."
            )
            % values,
            suggestion=_("Leave out %(lines)s: the entry is then not flagged.") % values,
            reading=drop_code(first, last),
            lines=(first, last),
        )
    note_lines = [
        lineno for lineno, text, _indent in entry.trail if text and lineno > entry.flag_line
    ]
    message = (
        _("the flag note of %(what)s is %(chars)s characters long and reads like prose.") % values
    )
    if not note_lines:
        return FormatWarning(
            kind="flag",
            line=entry.flag_line,
            message=message,
            suggestion=_(
                "Keep it as it is (the note is one line), or shorten it after the import."
            ),
        )
    first, last = note_lines[0], entry.last_line
    values["lines"] = _range_text(first, last)
    return FormatWarning(
        kind="flag",
        line=entry.flag_line,
        message=message,
        suggestion=_("Keep the note to its first line: leave out %(lines)s.") % values,
        reading=drop_code(first, last),
        lines=(first, last),
    )


def _starts_with_flag(entry, lineno: int) -> bool:
    for number, text, _indent in entry.trail:
        if number == lineno:
            return bool(FLAG_RE.match(text))
    return False


def _clipped(unit, anchors: set[int]):
    """The unit as it ends once the other readings are taken: before the first line that a key
    or item reading (taken or offered) reads, so that no range offered covers such a line."""
    for index, (lineno, _text, _indent) in enumerate(unit.trail):
        if lineno in anchors:
            return replace(unit, trail=unit.trail[:index])
    return unit


def _unit_warnings(unit, kind: str, first_text: str) -> list[FormatWarning]:
    cut = _cut(unit, first_text)
    if cut is not None:
        return [_cut_warning(unit, kind, cut)]
    found = [_long_warning(unit, kind, first_text)]
    if kind == "entry" and found[0] is None and (unit.flag_line or 0) <= unit.last_line:
        found.append(_flag_warning(unit))
    return [warning for warning in found if warning is not None]


def _trailing(parser, lines: list[str], anchors: set[int]) -> FormatWarning | None:
    """Text after the last key entry: from the first document heading inside an entry after the
    answer key's last block heading and its last entry that answers an item (a heading before
    them ends only its own entry), or the last entry's paragraph break, to the end of the file.
    A keyword line of an entry (``Note:``, ``Source:``, ``注記：``) is part of it, never a
    heading; and the range never reaches a line that answers an item, so taking it loses no key
    entry (the numbered lines it may cover are a second entry for an item, or one for an item
    that does not exist: a list of notes after the key)."""
    start = None
    answering = answering_lines(parser)
    after = max([*parser.key_headings, *answering], default=parser.key_line or 0)
    if any(anchor > after for anchor in anchors):
        return None  # the key, or an entry, starts later once a reading is taken
    for entry in parser.entries:
        if entry.line < after:
            continue
        heading = next(
            (
                ln
                for ln, text, indent in entry.trail
                if text and not _is_keyword(text) and _document_heading(text)
            ),
            None,
        )
        if heading is not None:
            # A paragraph break before the heading ends the entry there already.
            cut = _cut(entry, entry.answer[0] if entry.answer else "")
            start = min(heading, cut[0]) if cut else heading
            break
    if start is None and parser.entries:
        last = parser.entries[-1]
        cut = _cut(last, last.answer[0] if last.answer else "")
        start = cut[0] if cut else None
    if start is None or any(line >= start for line in answering):
        return None
    last = max(n for n, raw in enumerate(lines, start=1) if raw.strip())
    values = {"lines": _range_text(start, last), "line": start}
    return FormatWarning(
        kind="trailing",
        line=start,
        message=_(
            "the text from line %(line)s on comes after the last key entry and reads like the document's own (%(lines)s)."
        )
        % values,
        suggestion=_("Drop the trailing text: leave out %(lines)s.") % values,
        reading=drop_code(start, last),
        lines=(start, last),
    )


def _answer_line_before(lines: list[str], lineno: int) -> int | None:
    """The line just above (within three lines) that announces the key: "Show the answer key"."""
    for candidate in range(lineno - 1, max(0, lineno - 4), -1):
        text = lines[candidate - 1].strip()
        if classify(text)[0] == "blank":  # a rule (===) under the line is no text either
            continue
        if len(text) <= 80 and _ANSWER_WORDS_RE.search(text):
            return candidate
        return None
    return None


def _key_without_heading(parser, lines: list[str]) -> FormatWarning | None:
    """No answer key heading, but the block headings (or the numbering) start again: the key is
    there without its heading."""
    if parser.key_line is not None:
        return None
    candidates = [(line, "repeat", block) for line, block in parser.repeats[:1]]
    candidates += [(line, "restart", block) for line, block in parser.restarts[:1]]
    if not candidates:
        return None
    lineno, why, block = min(candidates, key=lambda c: c[0])
    start = _answer_line_before(lines, lineno) or lineno
    values = {"line": lineno, "block": block.code, "start": start}
    if why == "repeat":
        message = _(
            "block %(block)s appears again on line %(line)s, and no answer key heading came before: the answer key probably starts here, without its heading."
        )
    else:
        message = _(
            "the numbering of block %(block)s starts again at 1 on line %(line)s, and no answer key heading came before: the answer key probably starts here, without its heading."
        )
    return FormatWarning(
        kind="key",
        line=lineno,
        message=message % values,
        suggestion=_("Read the answer key from line %(start)s.") % values,
        reading=f"key:{start}",
        lines=(start, lineno),
    )


def _lookalike_warnings(parser) -> list[FormatWarning]:
    found = []
    for lineno, number, unit in parser.lookalikes:
        values = {"line": lineno, "number": number, "what": _what(unit, _kind_of(unit))}
        if _kind_of(unit) == "item":
            message = _(
                "line %(line)s looks like item %(number)s, but it is read as a line of %(what)s."
            )
            suggestion = _("Read line %(line)s as item %(number)s.")
        else:
            message = _(
                "line %(line)s looks like the key entry for item %(number)s, but it is read as a line of %(what)s."
            )
            suggestion = _("Read line %(line)s as the key entry for item %(number)s.")
        found.append(
            FormatWarning(
                kind="lookalike",
                line=lineno,
                message=message % values,
                suggestion=suggestion % values,
                reading=f"item:{lineno}",
                lines=(lineno, lineno),
            )
        )
    return found


def _kind_of(unit) -> str:
    return "entry" if hasattr(unit, "answer") else "item"


def _description_warning(line_numbers: list[int], lines: list[str], what: str, keep=None):
    """A description of more than a few lines: offer to leave it out (all but ``keep``, the
    line of the bank's name, which may sit among them)."""
    if len(line_numbers) <= LONG_DESCRIPTION_LINES and not _has_paragraphs(line_numbers, lines):
        return None
    first, last = line_numbers[0], line_numbers[-1]
    values = {"what": what, "count": len(line_numbers), "lines": _range_text(first, last)}
    dropped = [n for n in range(first, last + 1) if n != keep]
    if keep is not None and first < keep < last:
        values["lines"] = _("lines %(before)s and %(after)s") % {
            "before": _span_text(first, keep - 1),
            "after": _span_text(keep + 1, last),
        }
    return FormatWarning(
        kind="description",
        line=first,
        message=_(
            "%(what)s is %(count)s lines of text (%(lines)s), which looks like the document's prose."
        )
        % values,
        suggestion=_("Leave out %(lines)s.") % values,
        reading=drop_lines_code(dropped),
        lines=(first, last),
    )


def _has_paragraphs(line_numbers: list[int], lines: list[str]) -> bool:
    return len(line_numbers) > 1 and any(
        not lines[n - 1].strip() for n in range(line_numbers[0], line_numbers[-1])
    )


def _before(line_numbers: list[int], anchors: set[int]) -> list[int]:
    """The lines before the first that another reading reads (a heading read as one)."""
    for index, lineno in enumerate(line_numbers):
        if lineno in anchors:
            return line_numbers[:index]
    return line_numbers


def _description_warnings(parser, lines: list[str], anchors: set[int]) -> list[FormatWarning]:
    found = []
    if len(parser.front_lines) > 1:
        index = parser.name_index()
        name_line = parser.front_lines[index] if index is not None else None
        others = _before([n for n in parser.front_lines if n != name_line], anchors)
        if others:
            what = _("the bank's description")
            found.append(_description_warning(others, lines, what, name_line))
    for block in parser.blocks:
        if desc := _before(block.desc_lines, anchors):
            what = _("the description of block %(block)s") % {"block": block.code}
            found.append(_description_warning(desc, lines, what))
    return [warning for warning in found if warning is not None]


def _loose_heading_warnings(parser) -> list[FormatWarning]:
    """A line that reads as a block heading but lacks the separator: offer to read it as one,
    never to leave it out (that would merge its items into the block before)."""
    found = []
    for lineno, code, title in parser.loose_headings:
        values = {"line": lineno, "block": code, "title": title}
        found.append(
            FormatWarning(
                kind="blockheading",
                line=lineno,
                message=_(
                    "line %(line)s reads like the heading of block %(block)s (%(title)s), but nothing separates the code from the title, so it is read as text."
                )
                % values,
                suggestion=_("Read line %(line)s as the heading of block %(block)s.") % values,
                reading=f"heading:{lineno}",
                lines=(lineno, lineno),
            )
        )
    return found


def collect(parser, lines: list[str]) -> list[FormatWarning]:
    """Every warning about the file as the reader read it, in line order."""
    found: list[FormatWarning] = []
    key = _key_without_heading(parser, lines)
    lookalikes = _lookalike_warnings(parser) + _loose_heading_warnings(parser)
    offered_key = key
    if key is not None and any(w.kind == "blockheading" and w.line < key.line for w in lookalikes):
        # A heading not read as one makes the numbering seem to start again: read the heading
        # first, and the key's start is offered (if it still is one) on the next round. Until
        # then its line still bounds what the other warnings offer.
        offered_key = None
    anchors = set(parser.readings.items) | {w.line for w in lookalikes}
    anchors |= parser.readings.headings
    if key is not None:
        anchors.add(key.lines[0])
    if parser.readings.key_at is not None:
        anchors.add(parser.readings.key_at)
    trailing = _trailing(parser, lines, anchors)
    found += [warning for warning in (offered_key, trailing) if warning is not None]
    units = [
        (item, "item", item.text[0] if item.text else "") for b in parser.blocks for item in b.items
    ]
    units += [(entry, "entry", entry.answer[0] if entry.answer else "") for entry in parser.entries]
    for unit, kind, first_text in units:
        for warning in _unit_warnings(_clipped(unit, anchors), kind, first_text):
            if not _covered(warning, trailing) and not _after_key(warning, key):
                found.append(warning)
    found += [w for w in lookalikes if not _covered(w, trailing)]
    found += _description_warnings(parser, lines, anchors)
    return sorted(found, key=lambda warning: (warning.line, warning.kind))


def _covered(warning: FormatWarning, by: FormatWarning | None) -> bool:
    return by is not None and warning.lines is not None and warning.lines[0] >= by.lines[0]


def _after_key(warning: FormatWarning, key: FormatWarning | None) -> bool:
    """Until the key's reading is taken, what follows its start is not read as a key yet."""
    return key is not None and warning.line >= key.lines[0]
