"""The wrong answers a simulated model gives: plausible, specific to the item, never a key entry.

A real model that does not know an item rarely says something random: it gives a number near
the right one (1648 -> 1649, 429 -> 428), a related but wrong term (Saturn -> Jupiter, Retry-After
-> Retry-Before, 最大 -> 最小), or a confident sentence with one part of the mechanism wrong. The
simulator has no knowledge of the world, so it finds these by rule: a number near the key's, a
term of the same family (``FAMILIES``) or a near word (``NEAR_WORDS``), one part of an
identifier or a name changed, or the key's own sentence negated. Every candidate is made from
the item's own key, never from another item's key or from the question's words alone. No
candidate is a key entry of the bank (its own or another item's, folded) or still says
everything the key says, so a person marks it wrong.

The candidates depend on the item only, never on the model: hard items are hard for every
simulated model, and several models then give the same wrong answer, as real models do.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from adapters.simulator.knowledge import Knowledge, KnowledgeItem
from adapters.simulator.vocabulary import EN_NEGATIONS, FAMILIES, JA_NEGATIONS, NEAR_WORDS
from adapters.simulator.wording import carries_key, folded, is_key_entry, key_tokens, one_line


def digest(*parts: Any) -> int:
    joined = "\x1f".join(str(p) for p in parts).encode("utf-8")
    return int.from_bytes(hashlib.sha256(joined).digest()[:8], "big")


_LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z+]*")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_PART_SPLIT = re.compile(r"([\s\-_/.]+)")
_STOPWORDS = frozenset(
    "a an the of in on at to for by with and or is are was were be it its this that which what "
    "who how does do did from as into than then when where why not no".split()
)
_TITLE_LABEL = re.compile(r"^\s*[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)+\s*$")


def _cased(word: str, like: str) -> str:
    if like.isupper() and len(like) > 1:
        return word.upper()
    if like[:1].isupper():
        return word[:1].upper() + word[1:]
    return word


# Each term's families, and the Japanese terms (found by search, not by word).
_FAMILIES_OF: dict[str, list[tuple[str, ...]]] = {}
for _family in FAMILIES:
    for _term in _family:
        _FAMILIES_OF.setdefault(_term, []).append(_family)
_JAPANESE_TERMS = tuple((t, f) for f in FAMILIES for t in f if not t.isascii())


def _related_terms(text: str, salt: str) -> list[str]:
    """The text with one term swapped for another of its family, for each term it has."""
    found = []
    for match in _LATIN_WORD.finditer(text):
        word = match.group(0)
        for family in _FAMILIES_OF.get(word.casefold(), ()):
            others = [w for w in family if w != word.casefold()]
            start = digest("family", salt, word) % len(others)
            for other in (others[start:] + others[:start])[:2]:
                found.append(text[: match.start()] + _cased(other, word) + text[match.end() :])
    if text.isascii():
        return found
    for term, family in _JAPANESE_TERMS:
        if term in text:
            if len(term) == 1 and len(text) > 8:
                continue  # one kanji inside a long text is too often part of another word
            others = [t for t in family if t != term]
            found.append(text.replace(term, others[digest("family", salt, term) % len(others)], 1))
    return found


def _number_slips(key: str, salt: str) -> list[str]:
    """The key with one of its numbers a little off: a year by one or two, a status code by
    one within its class, a count by a little; a trailing name of the number is dropped (a
    model that says 428 does not call it Too Many Requests)."""
    numbers = list(_NUMBER.finditer(key))
    target = numbers[digest("which-number", salt) % len(numbers)]
    text = target.group(0)
    if "." in text:
        decimals = len(text.split(".")[1])
        step = 10**-decimals
        values = [f"{float(text) + d * step:.{decimals}f}" for d in (1, -1, 2)]
    else:
        n = int(text)
        if len(text) == 4 and 1000 <= n <= 2100:
            deltas = (1, -1, 2, -3, 10)
        elif len(text) == 3 and 100 <= n <= 599:
            deltas = tuple(d for d in (1, -1, 2, -2, 3) if (n + d) // 100 == n // 100)
        elif n < 10:
            deltas = (1, -1, 2)
        elif n < 10_000:
            deltas = (1, -1, 2, 10)
        else:
            step = max(1, round(n * 0.02))
            deltas = (step, -step, 5 * step)
        # A zero-padded number stays padded (a month "03" slips to "04", not "4").
        width = len(text) if text.startswith("0") else 0
        values = [str(n + d).zfill(width) for d in deltas if n + d >= 0]
    if digest("direction", salt) % 2:
        values = values[1:2] + values[:1] + values[2:]
    rest = key[target.end() :]
    if _TITLE_LABEL.match(rest):
        rest = ""
    return [key[: target.start()] + value + rest for value in values]


def _content_words(text: str) -> list[str]:
    return [
        w
        for w in re.findall(r"[^\W\d_][\w'-]*", text)
        if w.casefold() not in _STOPWORDS and len(w) > 2
    ]


_JAPANESE_NEAR = tuple((t, n) for t, n in NEAR_WORDS.items() if not t.isascii())
_EN_AUXILIARY = re.compile(r"\b(" + "|".join(EN_NEGATIONS) + r")\b(\s+not\b)?", re.IGNORECASE)
_PART_SPLIT_KEEP = re.compile(r"([\s\-_/.:]+)")
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")


def _near_terms(key: str, salt: str) -> list[str]:
    """The key with one of its words said as a near word (``NEAR_WORDS``): size -> length."""
    found = []
    for match in _LATIN_WORD.finditer(key):
        word = match.group(0)
        for near in NEAR_WORDS.get(word.casefold(), ())[:2]:
            found.append(key[: match.start()] + _cased(near, word) + key[match.end() :])
    if not key.isascii():
        for term, nears in _JAPANESE_NEAR:
            if term in key:
                found.append(key.replace(term, nears[digest("near", salt, term) % len(nears)], 1))
    return found


def _negations(key: str) -> list[str]:
    """A sentence of the key said confidently the other way round."""
    if not key.isascii():
        for positive, negative in JA_NEGATIONS:
            at = key.rfind(positive)
            if at >= 0:
                return [key[:at] + negative + key[at + len(positive) :]]
        return []
    match = _EN_AUXILIARY.search(key)
    if not match:
        return []
    if match.group(2):  # "is not held" -> "is held"
        said = match.group(1)
    else:
        said = _cased(EN_NEGATIONS[match.group(1).casefold()], match.group(1))
    return [key[: match.start()] + said + key[match.end() :]]


def _part_changed(key: str) -> list[str]:
    """An identifier or a name with one of its parts changed: a near word, or the part as a
    model misremembers it (a vowel off, a plural)."""
    parts = _PART_SPLIT_KEEP.split(key)
    words = [i for i, part in enumerate(parts) if i % 2 == 0 and re.search(r"[^\W\d_]", part)]
    if not words or len(words) > 4:
        return []
    index = words[-1] if parts[words[-1]][:1].isupper() else words[digest("part", key) % len(words)]
    part = parts[index]
    pieces = _CAMEL.split(part)  # getElementById -> get, Element, By, Id
    found = []
    if len(pieces) > 1:
        for at, piece in enumerate(pieces):
            nears = list(NEAR_WORDS.get(piece.casefold(), ()))
            nears += [w for f in _FAMILIES_OF.get(piece.casefold(), ()) for w in f]
            for near in [n for n in nears if n != piece.casefold()][:1]:
                changed = pieces[:at] + [_cased(near, piece)] + pieces[at + 1 :]
                found.append("".join(parts[:index] + ["".join(changed)] + parts[index + 1 :]))
    if found or not part.isascii():
        return found
    changed = part[:-1] if part.endswith("s") and len(part) > 3 else _near_miss(part)
    return ["".join(parts[:index] + [changed] + parts[index + 1 :])]


def _question_words_only(candidate: str, question: str) -> bool:
    """The candidate says nothing but words of the question (an echo, not an answer)."""
    words, runs = key_tokens(candidate)
    asked, asked_runs = key_tokens(question)
    if not words and not runs:
        return True
    folded_question = "".join(asked_runs)
    return words <= asked and all(run in folded_question for run in runs)


_VOWELS = "aeiou"


def _near_miss(key: str) -> str:
    """Another word that looks like the key, as a name is misremembered: one vowel changed."""
    letters = list(key)
    vowels = [i for i, ch in enumerate(letters) if ch.lower() in _VOWELS]
    if vowels:
        at = vowels[digest("vowel", key) % len(vowels)]
        old = letters[at].lower()
        new = _VOWELS[(_VOWELS.index(old) + 1 + digest("to", key) % 4) % 5]
        letters[at] = new.upper() if letters[at].isupper() else new
    word = "".join(letters)
    return word if folded(word) != folded(key) else key + "s"


def _fallbacks(key: str) -> list[str]:
    """The key denied, when nothing near it can be found; the first that is no key entry."""
    if _JAPANESE.search(key):
        return [f"{key}ではない", f"{key}以外", f"{key}とは別のもの"]
    return [f"not {key}", f"something other than {key}", f"anything but {key}"]


_JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff]")


def wrong_answers(item: KnowledgeItem, knowledge: Knowledge) -> list[str]:
    """The item's plausible wrong answers, likeliest first; the same for every model. Each is
    made from the item's own key: a number near its number, a term of its kind, one part of it
    changed, its sentence negated."""
    key = one_line(item.answer)
    candidates = _number_slips(key, item.key) if _NUMBER.search(key) else []
    if len(key.split()) >= 5 or (not key.isascii() and len(key) > 10):
        # A sentence: said the other way round, or with one of its words near but wrong.
        candidates += _negations(key) + _near_terms(key, item.key)
        candidates += _related_terms(key, item.key)
    else:
        candidates += _related_terms(key, item.key) + _near_terms(key, item.key)
        candidates += _part_changed(key) + _negations(key)
    if len(_PART_SPLIT.split(key)) == 1 and key.isascii() and not _NUMBER.fullmatch(key):
        candidates.append(_near_miss(key))
    keys = knowledge.folded_answers
    unique: list[str] = []
    seen: set[str] = set()
    for candidate in candidates:
        candidate = one_line(candidate)
        mark = folded(candidate)
        if (
            mark
            and mark not in seen
            and not is_key_entry(candidate, keys)
            and not carries_key(candidate, key)
            and not _question_words_only(candidate, item.question)
        ):
            seen.add(mark)
            unique.append(candidate)
    if unique:
        return unique
    fallbacks = [f for f in _fallbacks(key) if not is_key_entry(f, keys)]
    return fallbacks[:1] or [_unused(key, keys)]


def _unused(text: str, keys: frozenset[str]) -> str:
    """``text`` with a mark no key entry has (a bank whose keys are all the obvious answers)."""
    n = 2
    while is_key_entry(f"{text} ({n})", keys):
        n += 1
    return f"{text} ({n})"


_YEAR_QUESTION = re.compile(r"\b(?:year|when)\b|何年|いつ", re.IGNORECASE)
_COUNT_QUESTION = re.compile(
    r"\b(?:how many|how much|number|port|version)\b|いくつ|何人|何個|何番", re.IGNORECASE
)
# What a model says of an item it knows nothing of and will not admit it: confident, vague,
# and never the question's own words.
_VAGUE = {
    "en": (
        "It depends on the configuration",
        "The default setting",
        "None by default",
        "The first one listed",
    ),
    "ja": ("設定によって異なる", "既定値のまま", "特に指定はない", "最初に挙げたもの"),
}


def guess(question: str, knowledge: Knowledge, language: str = "en") -> str:
    """A model's guess at an item it has never seen (no key was sent for it): a year or a count
    where the question asks for one, a term of the family of one of its words, else a vague
    confident answer in the bank's language; never a key entry, never the question's words."""
    salt = " ".join(question.casefold().split())
    keys = knowledge.folded_answers
    if _YEAR_QUESTION.search(question):
        candidates = [str(1900 + digest("year", salt) % 120)]
    elif _COUNT_QUESTION.search(question):
        candidates = [str(2 + digest("count", salt) % 98)]
    else:
        words = _content_words(question)
        candidates = [
            _cased(other, "A")
            for word in words
            for family in FAMILIES
            if word.casefold() in family
            for other in family
            if other != word.casefold()
        ]
    vague = _VAGUE["ja" if language == "ja" else "en"]
    start = digest("vague", salt) % len(vague)
    candidates += list(vague[start:] + vague[:start])
    for candidate in candidates:
        if not is_key_entry(candidate, keys) and not _question_words_only(candidate, question):
            return candidate
    return _unused(vague[start], keys)
