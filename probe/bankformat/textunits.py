"""What the plain-text reader keeps of a block, an item and a key entry while it reads."""

from __future__ import annotations

from dataclasses import dataclass, field

from .data import KeyData
from .lexicon import (
    FLAG_RE,
    FORMAT_RE,
    NOTE_RE,
    SOURCE_RE,
    TOPIC_RE,
    split_sources,
    unescape,
    unescape_flag,
)


@dataclass(eq=False)
class TextBlock:
    code: str
    title: str
    line: int
    desc: list[str] = field(default_factory=list)
    desc_lines: list[int] = field(default_factory=list)  # line numbers of non-blank desc lines
    items: list[TextItem] = field(default_factory=list)


@dataclass(eq=False)
class TextUnit:
    """What an item and a key entry share: where they start, and every line that continued them
    (blank ones as ""), kept for the warnings."""

    number: int
    line: int
    indent: int
    trail: list[tuple[int, str, int]] = field(default_factory=list)  # (line, text, indent)
    nested_list: bool = False  # a numbered line indented deeper has continued it

    def follow(self, lineno: int, stripped: str, indent: int) -> None:
        self.trail.append((lineno, stripped, indent))

    @property
    def last_line(self) -> int:
        lines = [lineno for lineno, text, _indent in self.trail if text]
        return lines[-1] if lines else self.line


@dataclass(eq=False)
class TextItem(TextUnit):
    block: TextBlock | None = None
    retired: bool = False
    text: list[str] = field(default_factory=list)
    formats: list[str] = field(default_factory=list)
    topics: list[str] = field(default_factory=list)
    key: KeyData | None = None
    first_text: str = ""  # the text of the numbered line itself

    def start(self, text: str) -> None:
        self.first_text = text
        if text:
            self.text.append(text)

    def end_before(self, lineno: int) -> None:
        """Read the item as if it ended before line `lineno`: its lines from there on are not
        part of it (they are read again from the trail, so the question is what they make)."""
        kept = [line for line in self.trail if line[0] < lineno]
        self.trail, self.text, self.formats, self.topics = [], [], [], []
        self.start(self.first_text)
        for number, text, indent in kept:
            if text:
                self.continuation(number, text, indent)
            else:
                self.blank(number)

    def blank(self, lineno: int) -> None:
        self.follow(lineno, "", 0)
        self.text.append("")

    def continuation(self, lineno: int, stripped: str, indent: int) -> None:
        self.follow(lineno, stripped, indent)
        if stripped.startswith("\\"):
            self.text.append(unescape(stripped))
        elif match := FORMAT_RE.match(stripped):
            self.formats.append(match[1].strip())
        elif match := TOPIC_RE.match(stripped):
            self.topics.append(match[1].strip())
        else:
            self.text.append(stripped)


@dataclass(eq=False)
class KeyEntry(TextUnit):
    block: TextBlock | None = None
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
        match = FLAG_RE.search(text)
        if match is None:
            self.answer.append(unescape_flag(text))
            return
        before = unescape_flag(text[: match.start()]).strip()
        if before:
            self.answer.append(before)
        self.flagged = True
        self.flag_line = lineno
        self.in_note = True
        self.note.append(text[match.end() :].strip())

    def continuation(self, lineno: int, stripped: str, indent: int) -> None:
        self.follow(lineno, stripped, indent)
        if stripped.startswith("\\"):
            self.text(unescape(stripped), lineno)
        elif match := SOURCE_RE.match(stripped):
            self.sources.extend(split_sources(match[1]))
        elif match := NOTE_RE.match(stripped):
            self.in_note = True
            self.note.append(match[1].strip())
        else:
            self.text(stripped, lineno)
