"""The strict parser of a model grader's reply. Pure.

A reply is readable when, after blank lines and surrounding spaces are set aside, it holds exactly
one ``LABEL:`` line whose value is one label of the menu (case aside) and at most one ``REASON:``
line; any other line makes it unreadable too. An unreadable or off-menu reply is a parse failure,
a state of its own, never a bucket and never an abstention: nothing is guessed from a label
found somewhere in prose (the way a parser that takes the first A, B or C anywhere would).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

PARSER_VERSION = "strict-1"

_LINE = re.compile(r"^(LABEL|REASON)\s*:\s*(.*)$", re.IGNORECASE)


@dataclass(frozen=True)
class Parsed:
    label: str | None  # a label of the menu, or None: a parse failure
    reason: str
    problem: str = ""  # why the reply is unreadable (English, for the record)


def parse_reply(text: str, labels: Sequence[str]) -> Parsed:
    menu = {label.upper(): label for label in labels}
    found: dict[str, list[str]] = {"LABEL": [], "REASON": []}
    for raw in (text or "").splitlines():
        line = raw.strip()
        if not line:
            continue
        match = _LINE.match(line)
        if match is None:
            return Parsed(None, "", f"a line that is neither LABEL nor REASON: {line[:80]!r}")
        found[match.group(1).upper()].append(match.group(2).strip())
    if len(found["LABEL"]) != 1:
        return Parsed(None, "", f"{len(found['LABEL'])} LABEL lines (exactly one is asked)")
    if len(found["REASON"]) > 1:
        return Parsed(None, "", "more than one REASON line")
    value = found["LABEL"][0]
    label = menu.get(value.upper())
    if label is None:
        return Parsed(None, "", f"label {value[:40]!r} is not one of {', '.join(labels)}")
    reason = found["REASON"][0] if found["REASON"] else ""
    return Parsed(label, reason[:1000])
