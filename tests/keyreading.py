"""How the tests read a simulated answer against its key, as a person scoring it would.

The simulator words its answers as a model does ("The answer is 429 (Too Many Requests)."), so
no test may compare an answer with the key as written. A person marks an answer correct when it
says what the key says: every number and word of the key is among the answer's numbers and
words, and every run of Japanese of the key is in the answer. Written apart from the
simulator's own check, so that a test does not grade the simulator with its own rule. Also
here: whether a wrong answer contains its key as written (``contains_as_written``) and what a
person would find odd in an answer's wording (``reads_badly``).
"""

from __future__ import annotations

import re
import unicodedata

_JAPANESE_RUN = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff]+")
_NUMBER_OR_WORD = re.compile(r"\d+(?:[.,]\d+)*|[^\W\d_]+")


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


def parts_of(text: str) -> tuple[set[str], list[str]]:
    text = _fold(text)
    return set(_NUMBER_OR_WORD.findall(_JAPANESE_RUN.sub(" ", text))), _JAPANESE_RUN.findall(text)


# Units a person reads as their symbols: "100 degrees Celsius" says the key "100 °C".
_SPELLED_UNITS = {
    "metres per second squared": "m/s²",
    "metres per second": "m/s",
    "kilometres per hour": "km/h",
    "degrees celsius": "°C",
    "degrees fahrenheit": "°F",
    "kilometres": "km",
    "kilometre": "km",
    "centimetres": "cm",
    "millimetres": "mm",
    "metres": "m",
    "metre": "m",
    "kilograms": "kg",
    "grams": "g",
    "milliseconds": "ms",
    "seconds": "s",
    "megajoules": "MJ",
    "kilojoules": "kJ",
    "joules": "J",
    "kilowatts": "kW",
    "watts": "W",
    "volts": "V",
    "pascals": "Pa",
    "newtons": "N",
}
_SPELLED = re.compile(
    r"\b(" + "|".join(sorted(_SPELLED_UNITS, key=len, reverse=True)) + r")\b", re.IGNORECASE
)


def says_the_key(answer: str, key: str) -> bool:
    words, runs = parts_of(key)
    answer = _SPELLED.sub(lambda m: _SPELLED_UNITS[m.group(1).casefold()], answer)
    have, _runs = parts_of(answer)
    folded = _fold(answer)
    return bool(words or runs) and words <= have and all(run in folded for run in runs)


def as_written(text: str) -> str:
    """An answer or key with case, width, spaces and punctuation folded away: two texts that
    fold alike are the same entry."""
    return "".join(ch for ch in _fold(text) if ch.isalnum())


def contains_as_written(text: str, key: str) -> bool:
    """The rule a wrong answer keeps: it does not say its key as written (folded). A key of one
    short Latin word or number (up to three characters: "42", "UDP", "H2O") counts only as a
    whole word of the answer: "That" does not contain "a", nor "H2O2" "H2O". Japanese has no
    spaces, so a Japanese key counts wherever it stands."""
    mine = as_written(key)
    if not mine:
        return False  # a key of punctuation alone ("—"): nothing an answer could contain
    words = re.findall(r"[a-z0-9]+", unicodedata.normalize("NFKC", text).casefold())
    if len(mine) <= 3 and mine.isascii() and re.fullmatch(r"[a-z0-9]+", mine):
        return mine in words
    return mine in as_written(text)


_DOUBLED = re.compile(r"\b(\w+)\s+\1\b", re.IGNORECASE)
_JA_DOUBLED = re.compile(r"(です|ます|年|だと思います)\1")
_JA_PARTICLE_START = re.compile(r"^[はがをにでへとものや]")
_PUNCTUATION_START = re.compile(r"^[\s、。，．,.:;!?！？)）」』]")
_EMPTY_SLOT = re.compile(
    r"(?:^|[。、「（(])(?:です|になります|が該当します|だと思います|と思います)|「」|は(?:です|。)"
)


def reads_badly(answer: str, key: str = "") -> str | None:
    """What a person would find odd in an answer's wording, or None: a doubled word ("Because
    Because"), a start on a particle or a punctuation mark (unless the key itself starts so),
    an empty slot before a suffix (「。になります。」), です after a verb, a sentence framed as a
    noun ("It's it ...")."""
    if _DOUBLED.search(answer) or _JA_DOUBLED.search(answer):
        return "a doubled word"
    starts_badly = _PUNCTUATION_START.match(answer) or _JA_PARTICLE_START.match(answer)
    if starts_badly and not (_PUNCTUATION_START.match(key) or _JA_PARTICLE_START.match(key)):
        return "starts with a particle or punctuation"
    # A key that is itself a suffix (です) may open the answer: "ですということです。".
    own = key and answer.startswith(key) and _EMPTY_SLOT.search(key)
    if _EMPTY_SLOT.search(answer[len(key) :] if own else answer):
        return "an empty slot before a suffix"
    if re.search(r"(?:する|しない|ない|残る|た)です", answer):
        return "です after a verb"
    if re.search(r"\b[Ii]t's (?:it|it's|that|what|the default value is)\b", answer):
        return "a sentence framed as a noun"
    return None
