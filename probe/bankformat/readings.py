"""Readings: the choices a person makes about a pasted document, and the warnings that offer them.

A plain-text file copied from a web page or a document carries prose around the probe. The
reader reads the file exactly as the grammar says; the warnings (see ``warnings.py``) point at
lines where a person would probably read it otherwise, and each offers a *reading*: leave some
lines out, start the answer key at a line, read a line as an item, or keep a line as written (its warning is then settled without changing
anything). A reading is a short code (``drop:12-15``, ``key:40``, ``item:88``, ``keep:14``) so that
a page or a command line can hand the chosen readings back; the file is then read again, from its
own text, with those readings applied. Nothing parsed is ever taken back from a client.

Readings compose: a line that a ``key:`` or ``item:`` reading reads is read even when a ``drop:``
range covers it (the range was offered to end the text before it), so no reading undoes another;
and the warnings offer ranges that stop before such lines in the first place.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from probe.wording import number_ranges

_CODE_RE = re.compile(r"^(drop|key|item|keep|heading):([1-9][0-9]{0,6})(?:-([1-9][0-9]{0,6}))?$")
_RANGE = r"[1-9][0-9]{0,6}(?:-[1-9][0-9]{0,6})?"
_DROP_RE = re.compile(r"^drop:(" + _RANGE + r"(?:," + _RANGE + r")*)$")
MAX_DROP_SPAN = 1_000_000  # lines: a file of 1 MB has fewer


class ReadingError(ValueError):
    """A reading code that is not one the warnings offer."""


@dataclass(frozen=True)
class Readings:
    """Lines left out, the line where the answer key starts, lines read as items, lines whose
    warnings are settled as written."""

    drop: frozenset[int] = frozenset()
    key_at: int | None = None
    items: frozenset[int] = frozenset()
    codes: tuple[str, ...] = field(default=(), compare=False)
    keep: frozenset[int] = frozenset()
    headings: frozenset[int] = frozenset()

    def dropped(self, lineno: int) -> bool:
        """Whether the line is left out: a line another reading reads is never left out."""
        return (
            lineno in self.drop
            and lineno != self.key_at
            and lineno not in self.items
            and lineno not in self.headings
        )

    @classmethod
    def from_codes(cls, codes: Iterable[str]) -> Readings:
        drop: set[int] = set()
        items: set[int] = set()
        keep: set[int] = set()
        headings: set[int] = set()
        key_at: int | None = None
        kept: dict[str, None] = {}  # in order, each once (a set alone would lose the order)
        for code in codes:
            code = (code or "").strip()
            if not code:
                continue
            if (several := _DROP_RE.match(code)) and "," in code:
                drop.update(_lines_of(several[1], code))
                kept[code] = None
                continue
            match = _CODE_RE.match(code)
            if match is None:
                raise ReadingError(code)
            kind, first = match[1], int(match[2])
            last = int(match[3]) if match[3] else first
            if last < first or (kind != "drop" and match[3]):
                raise ReadingError(code)
            if kind == "drop":
                drop.update(range(first, last + 1))
            elif kind == "item":
                items.add(first)
            elif kind == "keep":
                keep.add(first)
            elif kind == "heading":
                headings.add(first)
            elif key_at is None or first < key_at:
                key_at = first
            kept[code] = None
        return cls(
            frozenset(drop),
            key_at,
            frozenset(items),
            tuple(kept),
            frozenset(keep),
            frozenset(headings),
        )

    def plus(self, code: str) -> Readings:
        return Readings.from_codes(self.codes + (code,))

    def __bool__(self) -> bool:
        return bool(self.codes)


NO_READINGS = Readings()


def _lines_of(ranges: str, code: str) -> set[int]:
    lines: set[int] = set()
    for part in ranges.split(","):
        first, _, last = part.partition("-")
        first_n, last_n = int(first), int(last or first)
        if last_n < first_n:
            raise ReadingError(code)
        lines.update(range(first_n, last_n + 1))
    return lines


def _span(first: int, last: int) -> str:
    return str(first) if first == last else f"{first}-{last}"


def drop_code(first: int, last: int) -> str:
    return "drop:" + _span(first, last)


def drop_lines_code(lines: list[int]) -> str:
    """Lines (in order) as a drop code of contiguous ranges: drop:2-3,5-9."""
    spans: list[list[int]] = []
    for line in lines:
        if spans and line == spans[-1][1] + 1:
            spans[-1][1] = line
        else:
            spans.append([line, line])
    return "drop:" + ",".join(_span(first, last) for first, last in spans)


@dataclass(frozen=True)
class FormatWarning:
    """Something a person would probably read differently, and the reading offered.

    ``reading`` is the code of the suggested reading, or "" when the text is best kept as read
    (the warning then only asks the person to look)."""

    kind: str
    line: int
    message: str
    suggestion: str
    reading: str = ""
    lines: tuple[int, int] | None = None  # the lines concerned, first and last

    @property
    def changes_items(self) -> bool:
        """Whether its reading would change an item, a key entry or a flag (a description's
        does not): the import waits until such a warning is settled, taken or kept."""
        return bool(self.reading) and self.kind != "description"

    @property
    def keep_code(self) -> str:
        """The reading that settles this warning by keeping the text as written."""
        return f"keep:{self.line}"

    def __str__(self) -> str:
        from django.utils.translation import gettext as _

        return _("Line %(line)s: %(message)s") % {"line": self.line, "message": self.message}


def describe(code: str) -> str:
    """A reading in words, for the list of readings taken."""
    from django.utils.translation import gettext as _

    if (several := _DROP_RE.match(code)) and "," in code:
        return _("Leave out lines %(lines)s.") % {
            "lines": number_ranges(_lines_of(several[1], code))
        }
    match = _CODE_RE.match(code)
    if match is None:
        return code
    kind, first, last = match[1], int(match[2]), int(match[3] or match[2])
    if kind == "key":
        return _("Read the answer key from line %(line)s.") % {"line": first}
    if kind == "item":
        return _("Read line %(line)s as an item or a key entry.") % {"line": first}
    if kind == "keep":
        return _("Keep line %(line)s as written.") % {"line": first}
    if kind == "heading":
        return _("Read line %(line)s as a block heading.") % {"line": first}
    if first == last:
        return _("Leave out line %(line)s.") % {"line": first}
    return _("Leave out lines %(first)s–%(last)s.") % {"first": first, "last": last}
