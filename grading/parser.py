"""The strict parser of a model grader's reply. Pure.

A reply is readable when, after blank lines and surrounding spaces are set aside, it holds exactly
one ``LABEL:`` line whose value is one label of the menu (case aside), at most one ``REASON:``
line and at most one ``CONFIDENCE:`` line (how sure the grader is of its label: a number from 0
to 1, or a percentage; the routing of answers between grader and people reads it); any other
line, or a confidence that is not such a number, makes it unreadable too. An unreadable or off-menu reply is a parse failure,
a state of its own, never a bucket and never an abstention: nothing is guessed from a label
found somewhere in prose (the way a parser that takes the first A, B or C anywhere would).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

PARSER_VERSION = "strict-2"

_LINE = re.compile(r"^(LABEL|REASON|CONFIDENCE)\s*:\s*(.*)$", re.IGNORECASE)
_NUMBER = re.compile(r"^(\d+(?:\.\d+)?|\.\d+)\s*(%?)$")


@dataclass(frozen=True)
class Parsed:
    label: str | None  # a label of the menu, or None: a parse failure
    reason: str
    problem: str = ""  # why the reply is unreadable (English, for the record)
    confidence: float | None = None  # the grader's stated confidence in its label, 0 to 1


def read_confidence(value: str) -> float | None:
    """0.8, .8, 80 % or 80% as 0.8; None for anything else or outside 0 to 1."""
    match = _NUMBER.match(value.strip())
    if match is None:
        return None
    number = float(match.group(1)) / (100 if match.group(2) else 1)
    return number if 0 <= number <= 1 else None


def parse_reply(text: str, labels: Sequence[str]) -> Parsed:
    menu = {label.upper(): label for label in labels}
    found: dict[str, list[str]] = {"LABEL": [], "REASON": [], "CONFIDENCE": []}
    for raw in (text or "").splitlines():
        line = raw.strip()
        if not line:
            continue
        match = _LINE.match(line)
        if match is None:
            return Parsed(
                None, "", f"a line that is not LABEL, REASON or CONFIDENCE: {line[:80]!r}"
            )
        found[match.group(1).upper()].append(match.group(2).strip())
    if len(found["LABEL"]) != 1:
        return Parsed(None, "", f"{len(found['LABEL'])} LABEL lines (exactly one is asked)")
    if len(found["REASON"]) > 1:
        return Parsed(None, "", "more than one REASON line")
    if len(found["CONFIDENCE"]) > 1:
        return Parsed(None, "", "more than one CONFIDENCE line")
    confidence = None
    if found["CONFIDENCE"]:
        confidence = read_confidence(found["CONFIDENCE"][0])
        if confidence is None:
            value = found["CONFIDENCE"][0][:40]
            return Parsed(None, "", f"confidence {value!r} is not a number from 0 to 1")
    value = found["LABEL"][0]
    label = menu.get(value.upper())
    if label is None:
        return Parsed(None, "", f"label {value[:40]!r} is not one of {', '.join(labels)}")
    reason = found["REASON"][0] if found["REASON"] else ""
    return Parsed(label, reason[:1000], confidence=confidence)
