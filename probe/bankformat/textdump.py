"""Writing a bank in the plain-text form, with the headings of the language it was written in."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .data import BankData, BlockData, ItemData, KeyData
from .lexicon import (
    FORMAT_RE,
    NOTE_RE,
    RETIRED_RE,
    SOURCE_RE,
    TOPIC_RE,
    classify,
    one_line,
    split_sources,
    text_lines,
)


@dataclass(frozen=True)
class _Words:
    block: str
    key: str
    retired: str
    format: str
    topic: str
    source: str
    sources: str
    note: str
    flag: str


_WORDS = {
    "en": _Words(
        block="Block {code}",
        key="Answer key",
        retired="[retired] ",
        format="Format: ",
        topic="Topic: ",
        source="Source: ",
        sources="Sources: ",
        note="Note: ",
        flag=" (!) ",
    ),
    "ja": _Words(
        block="ブロック{code}",
        key="解答鍵",
        retired="[廃止] ",
        format="形式：",
        topic="トピック：",
        source="出典：",
        sources="出典：",
        note="注記：",
        flag=" （！） ",
    ),
}
_ANY_FLAG_RE = re.compile(r"[(\uff08][!\uff01][)\uff09]")


def _escape_flags(line: str) -> str:
    """Every (!), in either width, written literally: a backslash before it."""
    return _ANY_FLAG_RE.sub(lambda match: "\\" + match[0], line)


def _free_line(line: str) -> str:
    """A description line, written where it must not read as a heading or an item."""
    # A line starting with "#" could read as the document's title ("# Title" names the bank).
    if line and (line.startswith(("\\", "#")) or classify(line)[0] != "plain"):
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


def _heading_line(block: BlockData, words: _Words) -> str:
    heading = words.block.format(code=one_line(block.code))
    title = one_line(block.title)
    return f"{heading}. {title}" if title else heading


def _item_lines(number: int, item: ItemData, words: _Words) -> list[str]:
    prefix = f"{number}. "
    pad = " " * len(prefix)
    question = text_lines(item.question) or [""]
    first = question[0]
    if first.startswith("\\") or RETIRED_RE.match(first):
        first = "\\" + first
    if item.retired:
        first = words.retired + first
    out = [(prefix + first).rstrip()]
    out += [_continuation_line(pad, line, (FORMAT_RE, TOPIC_RE)) for line in question[1:]]
    out += [(pad + words.format + line).rstrip() for line in text_lines(item.answer_format)]
    topic = one_line(item.topic)
    if topic:
        out.append(pad + words.topic + topic)
    return out


def _entry_lines(number: int, key: KeyData, words: _Words) -> list[str]:
    prefix = f"{number}. "
    pad = " " * len(prefix)
    keywords = (SOURCE_RE, NOTE_RE)
    answer = [_escape_flags(line) for line in text_lines(key.answer)] or [""]
    note = text_lines(key.flag_note)
    tail: list[str] = []
    if key.flagged:
        answer[-1] = (answer[-1] + words.flag + (note[0] if note else "")).strip()
        tail = note[1:]
    elif note:
        tail = note
    first = answer[0]
    if first.startswith("\\"):
        first = "\\" + first
    out = [(prefix + first).rstrip()]
    out += [_continuation_line(pad, line, keywords) for line in answer[1:]]
    if tail and not key.flagged:
        out.append(pad + words.note + tail[0])
        tail = tail[1:]
    out += [_continuation_line(pad, line, keywords) for line in tail]
    sources = [part for source in key.sources for part in split_sources(one_line(source))]
    if sources and split_sources(" ; ".join(sources)) == sources:
        label = words.sources if len(sources) > 1 else words.source
        out.append(pad + label + " ; ".join(sources))
    else:  # a source such as ";" would run into the separator: one line each
        out += [pad + words.source + source for source in sources]
    return out


def dump_text(bank: BankData) -> str:
    """Write the plain-text form: numbering restarts at 1 in each block, and the key follows
    under 'Answer key' with the block headings repeated. parse_text() reads it back to an equal
    BankData once texts are in the text form's normal shape (docs/bank-format.md). The headings
    and keywords are those of the bank's language (``BankData.language``: "en" or "ja")."""
    words = _WORDS.get(bank.language, _WORDS["en"])
    out: list[str] = []
    name = one_line(bank.name)
    description = text_lines(bank.description)
    if name or description:
        if not name:
            out.append("#")
        elif name.startswith("\\") or classify("# " + name)[0] != "plain":
            out.append("# \\" + name)
        else:
            out.append("# " + name)
        out += [_free_line(line) for line in description]
        out.append("")
    for block in bank.blocks:
        out.append(_heading_line(block, words))
        out += [_free_line(line) for line in text_lines(block.description)]
        for number, item in enumerate(block.items, start=1):
            out += _item_lines(number, item, words)
        out.append("")
    keyed = [block for block in bank.blocks if any(item.key is not None for item in block.items)]
    if keyed:
        out += [words.key, ""]
        for block in keyed:
            out.append(_heading_line(block, words))
            for number, item in enumerate(block.items, start=1):
                if item.key is not None:
                    out += _entry_lines(number, item.key, words)
            out.append("")
    return "\n".join(out).rstrip("\n") + "\n"
