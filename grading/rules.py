"""The deterministic grader: exact and normalised matches, decided only where certain. Pure.

It runs before any model and needs none. For each answer it returns a decision (a label, the
rule that gave it and a one-line reason) or None, which leaves the answer to the model grader or
to people. It decides:

- an abstention (the parser's UNKNOWN, in any of its English and Japanese forms, or no answer):
  NOT_ATTEMPTED, the scheme's abstention bucket;
- the same text as the key once normalised (Unicode NFKC, case, whitespace, markdown, quotes,
  a trailing full stop: ``normalise_answer``, the grouping key of identical answers): CORRECT.
  Case is never folded where either side holds a number with a unit (8 kB is not 8 kb, 1024 ms
  not 1024 MS): there the letters must be the same, case and all;
- a key that is a number (with or without a unit; thousands separators, full-width digits): an
  answer that is only a number in the same unit, case and all, is CORRECT when the values are
  equal and INCORRECT when they differ (1,024 ms = 1024ms; 3.5 GB != 3.4 GB); a different unit,
  or one that differs in case only (kB, kb), is left; so is an answer whose one separator could
  be a decimal point or a thousands separator (1.024, 1,024) where the two readings disagree;
- a key that is a version (two or more dotted numeric parts, an optional leading v): an answer
  that is only a version is CORRECT when every part is written the same and INCORRECT when a
  part differs as a number (3.10 is not 3.1: never compared as decimals); one that differs only
  by trailing .0 parts (3.8.0 against 3.8) or by leading zeros (20.04 against 20.4) may name the
  same release, and is left;
- a key that is a date (2024-03-05, 2024/3/5, 2024年3月5日, 5 March 2024, March 5, 2024): an
  answer that is only a date is CORRECT when the day is the same and INCORRECT otherwise;
- a key that is one identifier: a scheme and a number (RFC 9113, RFC9113, rfc 9113, CVE-2021-44228,
  ISO 8601, PEP 8), or a single token with a digit (sha256, x86_64): an answer that is one
  identifier of the same scheme and shape is CORRECT when equal (the scheme's case aside, unless
  it mixes cases, as iOS) and INCORRECT otherwise; numbers that differ only by leading zeros
  (RFC 0791, RFC 791) are left.

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

RULES_VERSION = "rules-2"


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
# A scheme and a number: RFC 9113, RFC9113, CVE-2021-44228, ISO 8601-1:2019, PEP 8.
_SCHEMED = re.compile(r"^([^\W\d_]{2,12})[\s-]?(\d+(?:[-.:/]\d+)*)$")
# A number with a unit or a suffix glued to it or one space away: 8 kB, 1024ms, 3rd.
_NUMBER_WITH_UNIT = re.compile(r"\d\s?[^\W\d_]")
_MIXED_CASE = re.compile(r"[^\W\d_]*(?:[a-z][A-Z])[^\W\d_]*")
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


def case_matters(text: str) -> bool:
    """True where folding case could change the meaning: a number with a unit (kB, kb), or a
    name with a number whose letters mix cases within a word (iOS 17, IOS 17)."""
    text = unicodedata.normalize("NFKC", text or "")
    return bool(
        _NUMBER_WITH_UNIT.search(text) or (re.search(r"\d", text) and _MIXED_CASE.search(text))
    )


def _letters(text: str) -> str:
    return "".join(ch for ch in unicodedata.normalize("NFKC", text or "") if ch.isalpha())


def _readings(whole: str, fraction: str | None) -> list[tuple[str, str | None]]:
    """The number as written, then the other reading of a lone separator followed by exactly
    three digits: 1,024 may be 1.024 (a decimal comma) and 1.024 may be 1024."""
    readings = [(whole, fraction)]
    if fraction is None and re.fullmatch(r"[1-9]\d{0,2},\d{3}", whole):
        readings.append(tuple(whole.split(",")))
    elif fraction is not None and len(fraction) == 3 and re.fullmatch(r"[1-9]\d{0,2}", whole):
        readings.append((whole + fraction, None))
    return readings


def _value(sign: str, whole: str, fraction: str | None) -> str:
    whole = re.sub(r"[,\u2009\u202f' _]", "", whole).lstrip("0") or "0"
    fraction = (fraction or "").rstrip("0")
    value = whole + (f".{fraction}" if fraction else "")
    return "-" + value if sign in ("-", "−") and value != "0" else value


def numbers(text: str) -> tuple[list[str], str] | None:
    """(every reading of a bare number as a canonical decimal string, the first as written;
    the unit as written, case and all)."""
    match = _NUMBER.match(_plain(text))
    if match is None:
        return None
    sign, whole, fraction, unit = match.groups()
    unit = " ".join((unit or "").split())
    if unit and (len(unit) > 12 or any(ch.isdigit() for ch in unit)):
        return None
    return [_value(sign, w, f) for w, f in _readings(whole, fraction)], unit


def number(text: str) -> tuple[str, str] | None:
    """(the value as a canonical decimal string, the unit as written) of a bare number."""
    found = numbers(text)
    return (found[0][0], found[1]) if found else None


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


def identifier(text: str) -> tuple[str, str] | None:
    """(the scheme, the rest) of one identifier: ("rfc", "9113") for RFC 9113 and RFC9113; ("",
    the token case-folded) for a single token with a digit. A number with a unit is no
    identifier (8kB), nor a month and a number (May 5)."""
    plain = _plain(text)
    if number(plain) is not None:
        return None
    match = _SCHEMED.match(plain)
    if match is not None and match.group(1).casefold() not in _MONTHS:
        scheme = match.group(1)
        mixed = scheme not in (scheme.upper(), scheme.lower(), scheme.capitalize())
        return (scheme if mixed else scheme.casefold()), match.group(2)
    if _IDENTIFIER.match(plain) and " " not in plain and not case_matters(plain):
        return "", plain.casefold()
    return None


def decide(*, key: str, answer: str | None, abstained: bool) -> Decision | None:
    """The rules' decision on one answer against the key in force, or None: left."""
    if abstained or answer is None or not answer.strip():
        return Decision(NOT_ATTEMPTED, "abstained", "The answer is UNKNOWN or missing.")
    if not (key or "").strip():
        return None
    if normalise_answer(answer) == normalise_answer(key) and (
        not (case_matters(key) or case_matters(answer)) or _letters(key) == _letters(answer)
    ):
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
    if want == got:
        return Decision(CORRECT, "version", "Same version as the key.")

    def release(parts):  # as numbers, trailing zero parts dropped: what may name one release
        numbers = [int(part) for part in parts]
        while len(numbers) > 1 and numbers[-1] == 0:
            numbers.pop()
        return numbers

    if release(want) == release(got):
        return None  # 3.8.0 and 3.8, 20.04 and 20.4 may name the same release
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
    want, got = number(key), numbers(answer)
    if want is None or got is None or want[1] != got[1]:
        return None  # another unit, or the same in another case (kB, kb): a reader decides
    readings = got[0]
    if all(value == want[0] for value in readings):
        return Decision(CORRECT, "number", "Same number as the key.")
    if all(value != want[0] for value in readings):
        return Decision(INCORRECT, "number", "A different number from the key.")
    return None  # 1.024 against 1024: a decimal point or a thousands separator


def _by_identifier(key: str, answer: str) -> Decision | None:
    want, got = identifier(key), identifier(answer)
    if want is None or got is None or want[0] != got[0]:
        return None
    if want == got:
        return Decision(CORRECT, "identifier", "Same identifier as the key.")
    if _shape(want[1]) != _shape(got[1]) or _digits_as_numbers(want[1]) == _digits_as_numbers(
        got[1]
    ):
        return None  # another shape, or leading zeros only (RFC 0791, RFC 791)
    return Decision(INCORRECT, "identifier", "A different identifier from the key.")


def _shape(text: str) -> str:
    return re.sub(r"[a-z]+", "a", re.sub(r"\d+", "9", text.casefold()))


def _digits_as_numbers(text: str) -> str:
    return re.sub(r"\d+", lambda m: str(int(m.group(0))), text.casefold())
