"""Near numbers for the simulator's wrong answers, of the key's own form, and the digest every
simulated draw is made from.

A model that misremembers a number says one near it, written the same way: an integer stays an
integer, a decimal keeps its places (2.718 -> 2.717), a version its parts (3.11 -> 3.12, 5.0.0
-> 5.0.1), a date stays a date with each part in range (1969-07-20 -> 1969-07-21), a year stays
a plausible year (a year or two off, never far ahead), a status code its class, an identifier's
number moves by one (RFC 9110 -> RFC 9111), a round number stays round (100 °C -> 110 °C),
full-width digits stay full-width (１６０３年 -> １６０４年), thousands separators stay, a unit
stays (約1億2千万人 -> 約1億3千万人: the smaller unit slips), and nothing becomes 0 unless the key
is 0. A number that is part of a name (H2O, SHA-256, x86, IPv4) is left alone.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from typing import Any


def digest(*parts: Any) -> int:
    joined = "\x1f".join(str(p) for p in parts).encode("utf-8")
    return int.from_bytes(hashlib.sha256(joined).digest()[:8], "big")


TITLE_LABEL = re.compile(r"^\s*[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)+\s*$")

_NUMBER = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:[.．]\d+)*")
_DATE = re.compile(r"(\d{4})([-/.年])(\d{1,2})([-/.月])(\d{1,2})")
_FORMULA = re.compile(r"(?:[A-Z][a-z]?\d*|\((?:[A-Z][a-z]?\d*)+\)\d*)+")
_VERSION_WORDS = re.compile(
    r"\b(?:version|versions|release|python|django|node|postgresql|java|ruby|go|rust|php|"
    r"kernel|ios|android|unicode|tls|ssl|http)\b|バージョン|リリース|版",
    re.IGNORECASE,
)
_PROTOCOL_WORDS = re.compile(r"\b(?:tls|ssl|http|ipv|smtp|snmp|oauth|sslv?)\b", re.IGNORECASE)
_STATUS_WORDS = re.compile(r"\b(?:status|http|code)\b|ステータス", re.IGNORECASE)
_ORDINAL = re.compile(r"^(st|nd|rd|th)\b")
_FULLWIDTH_DIGITS = str.maketrans("0123456789", "０１２３４５６７８９")


def _ascii_digits(text: str) -> str:
    text = text.replace("．", ".")
    return "".join(str(unicodedata.digit(ch)) if ch.isdigit() else ch for ch in text)


def _glued(key: str, start: int) -> bool:
    """The number is part of a name (x86, IPv4, SHA-256, H2O), not a quantity; a version's
    "v" (v3.11) does not count."""
    before = unicodedata.normalize("NFKC", key[max(0, start - 3) : start])
    if re.search(r"[A-Z]{2}-$", before):  # SHA-256, not code-7
        return True
    if before[-1:].isascii() and before[-1:].isalpha():
        return not (before[-1:] in "vV" and not before[-2:-1].isalpha())
    return False


def _integer_values(
    n: int, text: str, key: str, question: str, after: str, grouped: bool
) -> list[int]:
    zeros = len(text) - len(text.rstrip("0")) if n else 0
    if len(text) == 4 and 1000 <= n <= 2100 and not grouped:  # a year, never far ahead
        deltas: tuple[int, ...] = (1, -1, 2, -3, -10)
    elif (
        len(text) == 3
        and 100 <= n <= 599
        and (_STATUS_WORDS.search(question) or TITLE_LABEL.match(after))
    ):
        deltas = tuple(d for d in (1, -1, 2, -2, 3) if (n + d) // 100 == n // 100)
    elif n < 10:
        deltas = (1, -1, 2, 3)
    elif re.search(r"\b[A-Z]{2,}[ -]?$", key[: key.find(text)]):  # RFC 9110, ISO 8601
        deltas = (1, -1, 2)
    elif zeros and n >= 100_000:  # 3,600,000 -> 3,700,000: at the value's own scale
        step = 10 ** (len(text) - 2)
        deltas = (step, -step, 2 * step)
    elif zeros and n < 100_000:  # a round number stays round: 30 -> 40, 100 -> 110
        step = 10 ** (min(zeros, len(text) - 2) if len(text) > 2 else zeros)
        deltas = (step, -step, 2 * step)
    elif n < 10_000:
        deltas = (1, -1, 2, 10)
    else:
        step = 10 ** max(0, len(text) - 2)
        deltas = (step, -step, 2 * step)
    values = [n + d for d in deltas if n + d >= 0 and (n + d != 0 or n == 0)]
    if after.lstrip().startswith(("%", "パーセント", "％")):
        values = [v for v in values if v <= 100]
    return values


def _number_values(text: str, key: str, question: str, after: str, salt: str) -> list[str]:
    """Numbers near ``text`` (ASCII digits) of the same form: an integer, a decimal of as many
    places, a version of as many parts, a zero-padded number as padded, thousands separated."""
    plain = text.replace(",", "")
    parts = plain.split(".")
    versioned = len(parts) >= 3 or (
        len(parts) == 2 and bool(_VERSION_WORDS.search(f"{key} {question}"))
    )
    if versioned:
        numbers = [int(p) for p in parts]
        found = []
        last = len(numbers) - 1
        steps = ((last, 1), (last, -1), (last, 2), (last - 1, 1))
        if _PROTOCOL_WORDS.search(f"{key} {question}"):  # TLS 1.3 -> 1.2, 1.1: no TLS 1.4
            steps = ((last, -1), (last, -2), (last - 1, -1))
        for at, delta in steps:
            if at < 0 or numbers[at] + delta < 0:
                continue
            changed = numbers[:at] + [numbers[at] + delta] + [0] * (len(numbers) - at - 1)
            if at == len(numbers) - 1:
                changed = numbers[:at] + [numbers[at] + delta]
            if changed[0] > 0 or numbers[0] == 0:  # TLS 1.0 has no TLS 0.0 before it
                found.append(".".join(str(p) for p in changed))
        return list(dict.fromkeys(v for v in found if v != plain))
    if len(parts) == 2:
        places = len(parts[1])
        unit = 10**places
        scaled = int(parts[0]) * unit + int(parts[1])
        values = [scaled + d for d in (1, -1, 2) if scaled + d > 0 or scaled == 0]
        return [f"{v // unit}.{v % unit:0{places}d}" for v in values]
    n = int(plain)
    width = len(plain) if plain.startswith("0") and len(plain) > 1 else 0
    said = [
        str(v).zfill(width) for v in _integer_values(n, plain, key, question, after, "," in text)
    ]
    return [f"{int(v):,}" for v in said] if "," in text else said


def _date_slips(key: str, match: re.Match, salt: str) -> list[str]:
    """A date a day, a month or a year off, each part in range and as padded."""
    year, sep1, month, sep2, day = match.groups()
    y, m, d = (int(_ascii_digits(p)) for p in (year, month, day))
    options = []
    for part, value, low, high in (("day", d, 1, 28), ("month", m, 1, 12), ("year", y, 1, 9999)):
        for delta in (1, -1):
            if low <= value + delta <= high:
                options.append((part, value + delta))
                break
    start = digest("date", salt) % len(options)
    found = []
    for part, value in options[start:] + options[:start]:
        fields = {"year": year, "month": month, "day": day}
        original = fields[part]
        digits = str(value).zfill(len(original) if original.startswith(("0", "０")) else 0)
        if not original.isascii():
            digits = digits.translate(_FULLWIDTH_DIGITS)
        fields[part] = digits
        said = f"{fields['year']}{sep1}{fields['month']}{sep2}{fields['day']}"
        found.append(key[: match.start()] + said + key[match.end() :])
    return found


def number_slips(key: str, question: str, salt: str) -> list[str]:
    """The key with one of its numbers a little off, in the same form; a trailing name of the
    number is dropped (a model that says 428 does not call it Too Many Requests)."""
    if _FORMULA.fullmatch(unicodedata.normalize("NFKC", key)) and any(c.isdigit() for c in key):
        return []  # H2O is not H3O: a formula is swapped as a whole term
    if date := _DATE.search(key):
        return _date_slips(key, date, salt)
    alternative = re.fullmatch(r"(.*?\d.*?)\s*(?:\([^()]*\d[^()]*\)|（[^（）]*\d[^（）]*）)", key)
    if alternative:  # 3,600,000 J (3.6 MJ): the head said near, its parenthesis dropped
        return number_slips(alternative.group(1), question, salt)
    numbers = [m for m in _NUMBER.finditer(key) if not _glued(key, m.start())]
    if not numbers:
        return []
    target = numbers[digest("which-number", salt) % len(numbers)]
    if re.search(r"\d[億万千]\d", _ascii_digits(key)):
        target = numbers[-1]  # 1億2千万: the smaller unit slips (1億3千万), not the larger
    text = target.group(0)
    rest = key[target.end() :]
    values = _number_values(_ascii_digits(text), key, question, rest, salt)
    if not text.isascii():  # full-width digits (and point) stay full-width: ０．５ -> ０．６
        values = [v.translate(_FULLWIDTH_DIGITS).replace(".", "．") for v in values]
    if digest("direction", salt) % 2:
        values = values[1:2] + values[:1] + values[2:]
    if TITLE_LABEL.match(rest) or re.fullmatch(r"\s*(?:\([^()]*\)|（[^（）]*）)\s*", rest):
        rest = ""  # 428, not 428 Too Many Requests; 3, not 3 (round half to even)
    found = []
    for value in values:
        tail = rest
        if ordinal := _ORDINAL.match(rest):
            n = int(_ascii_digits(value).replace(",", "").split(".")[0])
            suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
            tail = suffix + rest[ordinal.end() :]
        found.append(key[: target.start()] + value + tail)
    return found
