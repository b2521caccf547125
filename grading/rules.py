"""The deterministic grader: exact and normalised matches, decided only where certain. Pure.

It runs before any model and needs none. For each answer it returns a decision (a label, the
rule that gave it and a one-line reason) or None, which leaves the answer to the model grader or
to people. It decides:

- an abstention (the parser's UNKNOWN, in any of its English and Japanese forms, or no answer):
  NOT_ATTEMPTED, the scheme's abstention bucket;
- the same text as the key once normalised (Unicode NFKC, case, whitespace, markdown, quotes,
  a trailing full stop: ``normalise_answer``, the grouping key of identical answers): CORRECT;
- a key that is a number (with or without a unit; thousands separators, full-width digits): an
  answer that is only a number in the same unit is CORRECT when the values are equal and
  INCORRECT when they differ (1,024 ms = 1024ms; 3.5 GB != 3.4 GB); a different unit is left;
- a key that is a version (two or more dotted numeric parts, an optional leading v): an answer
  that is only a version is CORRECT when every part is the same and INCORRECT otherwise (3.10 is
  not 3.1: parts are compared as written, as numbers, never as decimals);
- a key that is a date (2024-03-05, 2024/3/5, 2024年3月5日, 5 March 2024, March 5, 2024): an
  answer that is only a date is CORRECT when the day is the same and INCORRECT otherwise;
- a key that is one identifier (a single token with a digit, such as RFC9110, CVE-2021-44228,
  sha256): an answer that is one identifier of the same shape is CORRECT when equal case aside
  and INCORRECT otherwise.

Everything else (a phrase worded differently, an answer with words around a number, a hedge)
is left. The answer format of the item is not needed: the key's own shape says which rule
applies, and an answer that does not have that same shape is left to a reader.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from datetime import date

from probe.sheetparser import normalise_answer

from .labels import CORRECT, INCORRECT, NOT_ATTEMPTED

RULES_VERSION = "rules-1"


@dataclass(frozen=True)
class Decision:
    label: str
    rule: str
    reason: str


_NUMBER = re.compile(
    r"^([-+−]?)(\d{1,3}(?:[,\u2009\u202f' _]\d{3})+|\d+)(?:\.(\d+))?\s*([^\d\s].*)?$"
)
_VERSION = re.compile(r"^v?(\d+(?:\.\d+)+)$", re.IGNORECASE)
_IDENTIFIER = re.compile(r"^(?=.*\d)[a-z0-9]+(?:[-_:/.][a-z0-9]+)*$", re.IGNORECASE)
_ISO = re.compile(r"^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})$")
_JA_DATE = re.compile(r"^(\d{4})年(\d{1,2})月(\d{1,2})日$")
_MONTHS = {
    name: number
    for number, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ],
        start=1,
    )
    for name in names
}
_DMY = re.compile(r"^(\d{1,2})\s+([a-z]+)\.?,?\s+(\d{4})$")
_MDY = re.compile(r"^([a-z]+)\.?\s+(\d{1,2}),?\s+(\d{4})$")


def _plain(text: str) -> str:
    text = unicodedata.normalize("NFKC", text or "").strip()
    text = text.strip("`'\"“”‘’「」『』").strip()
    return re.sub(r"[.。]$", "", text).strip()


def number(text: str) -> tuple[str, str] | None:
    """(the value as a canonical decimal string, the unit casefolded) of a bare number."""
    match = _NUMBER.match(_plain(text))
    if match is None:
        return None
    sign, whole, fraction, unit = match.groups()
    whole = re.sub(r"[,\u2009\u202f' _]", "", whole).lstrip("0") or "0"
    fraction = (fraction or "").rstrip("0")
    value = whole + (f".{fraction}" if fraction else "")
    if sign in ("-", "−") and value != "0":
        value = "-" + value
    unit = " ".join((unit or "").split()).casefold()
    if unit and (len(unit) > 12 or any(ch.isdigit() for ch in unit)):
        return None
    return value, unit


def version(text: str) -> tuple[int, ...] | None:
    match = _VERSION.match(_plain(text))
    return tuple(int(part) for part in match.group(1).split(".")) if match else None


def _version_text(text: str) -> tuple[str, ...] | None:
    match = _VERSION.match(_plain(text))
    return tuple(part for part in match.group(1).split(".")) if match else None


def day(text: str) -> date | None:
    plain = _plain(text).casefold()
    try:
        if m := _ISO.match(plain) or _JA_DATE.match(plain):
            return date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        if (m := _DMY.match(plain)) and m.group(2) in _MONTHS:
            return date(int(m.group(3)), _MONTHS[m.group(2)], int(m.group(1)))
        if (m := _MDY.match(plain)) and m.group(1) in _MONTHS:
            return date(int(m.group(3)), _MONTHS[m.group(1)], int(m.group(2)))
    except ValueError:
        return None
    return None


def identifier(text: str) -> str | None:
    plain = _plain(text)
    return plain.casefold() if _IDENTIFIER.match(plain) and " " not in plain else None


def decide(*, key: str, answer: str | None, abstained: bool) -> Decision | None:
    """The rules' decision on one answer against the key in force, or None: left."""
    if abstained or answer is None or not answer.strip():
        return Decision(NOT_ATTEMPTED, "abstained", "The answer is UNKNOWN or missing.")
    if not (key or "").strip():
        return None
    if normalise_answer(answer) == normalise_answer(key):
        return Decision(CORRECT, "same_text", "Same text as the key once normalised.")
    for rule in (_by_version, _by_date, _by_number, _by_identifier):
        decision = rule(key, answer)
        if decision is not None:
            return decision
    return None


def _by_version(key: str, answer: str) -> Decision | None:
    want, got = _version_text(key), _version_text(answer)
    if want is None or got is None:
        return None
    if version(key) == version(answer) and len(want) == len(got):
        return Decision(CORRECT, "version", "Same version as the key.")
    return Decision(INCORRECT, "version", "A different version from the key.")


def _by_date(key: str, answer: str) -> Decision | None:
    want, got = day(key), day(answer)
    if want is None or got is None:
        return None
    if want == got:
        return Decision(CORRECT, "date", "Same date as the key.")
    return Decision(INCORRECT, "date", "A different date from the key.")


def _by_number(key: str, answer: str) -> Decision | None:
    if version(key) is not None:
        return None  # "2.0" is a version: "2" is not certainly the same
    want, got = number(key), number(answer)
    if want is None or got is None or want[1] != got[1]:
        return None
    if want[0] == got[0]:
        return Decision(CORRECT, "number", "Same number as the key.")
    return Decision(INCORRECT, "number", "A different number from the key.")


def _by_identifier(key: str, answer: str) -> Decision | None:
    want, got = identifier(key), identifier(answer)
    if want is None or got is None:
        return None
    if want == got:
        return Decision(CORRECT, "identifier", "Same identifier as the key.")
    if _shape(want) != _shape(got):
        return None
    return Decision(INCORRECT, "identifier", "A different identifier from the key.")


def _shape(text: str) -> str:
    return re.sub(r"[a-z]+", "a", re.sub(r"\d+", "9", text))
