"""The import preview: a file read with the chosen readings, its problems and its warnings.

Nothing here saves anything. The page and ``import_bank --dry-run`` show a :class:`Preview`;
the import itself reads the file again from its text with the accepted readings, so what is
saved is what the reader makes of the text, never something a client sent back as parsed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import PurePath

from django.utils.translation import gettext as _

from .data import BankData, BankFormatError, FormatProblem, item_limit_problem
from .decode import decode
from .detect import detect_format
from .jsonformat import parse_json
from .readings import NO_READINGS, FormatWarning, Readings
from .tabular import parse_csv, parse_jsonl
from .textparse import finish_text, read_text
from .title import MAX_NAME_CHARS
from .warnings import collect

_PARSERS = {"json": parse_json, "jsonl": parse_jsonl, "csv": parse_csv}
MAX_SUGGESTION_ROUNDS = 50  # accepting a reading can reveal the next one (item 1001 after 1000)


@dataclass
class Preview:
    text: str
    file_format: str
    filename: str = ""
    readings: Readings = NO_READINGS
    bank: BankData | None = None
    problems: list[FormatProblem] = field(default_factory=list)
    warnings: list[FormatWarning] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.bank is not None

    @property
    def open_warnings(self) -> list[FormatWarning]:
        """The warnings not settled yet: neither their reading taken nor kept as written."""
        taken = set(self.readings.codes)
        return [
            w
            for w in self.warnings
            if w.line not in self.readings.keep and not (w.reading and w.reading in taken)
        ]

    @property
    def blocking(self) -> list[FormatWarning]:
        """Open warnings whose reading would change an item, a key entry or a flag: the import
        waits for each to be taken or kept, so nothing is saved as a guess."""
        return [w for w in self.open_warnings if w.changes_items]

    @property
    def conflicts(self) -> dict[str, str]:
        """Readings taken that another reading overrides, by code, with why: the preview says
        so instead of leaving a ticked reading silently without effect."""
        from_key = self.readings.key_at
        found: dict[str, str] = {}
        for code in self.readings.codes:
            kind, _sep, rest = code.partition(":")
            if kind == "key" and rest.isdigit() and int(rest) != from_key:
                found[code] = _(
                    "No effect: the answer key already starts at line %(line)s (another reading taken). Untick one of the two."
                ) % {"line": from_key}
        return found

    @property
    def importable(self) -> bool:
        return self.ok and not self.blocking

    @property
    def suggestions(self) -> list[str]:
        """The codes of the readings the open warnings offer, each once, in line order."""
        codes: dict[str, None] = {}
        for warning in self.open_warnings:
            if warning.reading:
                codes[warning.reading] = None
        return list(codes)

    @property
    def name(self) -> str:
        return suggested_name(self.bank, self.filename)


def suggested_name(bank: BankData | None, filename: str = "") -> str:
    """The bank's name when the user gives none: the document's title, else the file's name."""
    if bank is not None and bank.name.strip():
        return _shortened(bank.name.strip())
    stem = PurePath(filename or "").stem
    return _shortened(re.sub(r"[_\s]+", " ", stem).strip())


def _shortened(name: str) -> str:
    """A name that fits Bank.name, cut at a word where there is one."""
    if len(name) <= MAX_NAME_CHARS:
        return name
    cut = name[: MAX_NAME_CHARS - 1]
    if " " in cut[MAX_NAME_CHARS // 2 :]:
        cut = cut[: cut.rindex(" ")]
    return cut.rstrip() + "…"


def _read(text: str, readings: Readings) -> tuple[BankData | None, list, list]:
    try:
        parser, lines = read_text(text, readings)
    except BankFormatError as error:
        return None, error.problems, []
    warnings = collect(parser, lines)
    try:
        bank = finish_text(parser)
    except BankFormatError as error:
        return None, error.problems, warnings
    return bank, [], warnings


def preview(data: bytes | str, filename: str = "", readings: Readings = NO_READINGS) -> Preview:
    """Read a file (bytes of an upload, or text) with the readings; never raises on a bad file."""
    try:
        text = decode(data)
    except BankFormatError as error:
        return Preview(text="", file_format="text", filename=filename, problems=error.problems)
    file_format = detect_format(text, filename)
    result = Preview(text=text, file_format=file_format, filename=filename, readings=readings)
    if file_format != "text":
        try:
            result.bank = _PARSERS[file_format](text)
        except BankFormatError as error:
            result.problems = error.problems
    else:
        result.bank, result.problems, result.warnings = _read(text, readings)
    return _within_limit(result)


def _within_limit(result: Preview) -> Preview:
    """A bank over the item limit is refused with its count: never cut, never half saved."""
    if result.bank is not None:
        problem = item_limit_problem(result.bank.item_count)
        if problem is not None:
            result.bank, result.problems = None, [problem]
    return result


def preview_suggested(
    data: bytes | str, filename: str = "", readings: Readings = NO_READINGS
) -> Preview:
    """Take every suggested reading, read again, and repeat until no warning offers a new one.

    The readings of one round compose (the warnings offer ranges that stop before the lines a
    key or item reading reads, and such a line is never left out), and the text is read again
    after each round, so each round offers only what the last one revealed."""
    result = preview(data, filename, readings)
    for _round in range(MAX_SUGGESTION_ROUNDS):
        new = result.suggestions
        if not new:
            break
        readings = Readings.from_codes(readings.codes + tuple(new))
        result = preview(result.text, filename, readings)
    return result
