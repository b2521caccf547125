"""The kinds of line of the plain-text form, and small helpers shared by its reader and writer."""

from __future__ import annotations

import re

_SEPARATORS = ".:\\-\u2013\u2014"  # . : - en dash, em dash
_HEADING_RE = re.compile(
    r"^(?:#{1,6}\s*)?block\s+([^\W_]{1,2})\s*(?:[" + _SEPARATORS + r"]\s*(.*))?$", re.IGNORECASE
)
_KEY_HEADING_RE = re.compile(r"^(?:#{1,6}\s*)?(?:answer\s+key|answers?|key)\s*:?$", re.IGNORECASE)
_NUMBER_RE = re.compile(r"^([1-9][0-9]{0,2})\s*[.)](?![0-9])\s*(.*)$")
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
