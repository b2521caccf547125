"""The wrong answers a simulated model gives: plausible, specific to the item, never a key entry,
never the key itself with something added.

A real model that does not know an item rarely says something random: it gives a number near
the right one, of the same form (1648 -> 1649, 3.11 -> 3.12, 429 -> 428, 約1億 -> 約2億,
1947-05-03 -> 1947-05-04), a related but wrong term of the same kind (Saturn -> Jupiter,
George Eliot -> Thomas Hardy, 水素 -> 窒素, Retry-After -> Expires), an identifier with one
part changed (max_connections -> min_connections), or a confident sentence with one part of
the mechanism wrong ("... are kept ..." -> "... aren't kept ...", 保持 -> 解放). The simulator
has no knowledge of the world, so it finds these by rule from the item's own key and its
built-in vocabulary (``vocabulary``): a term is only ever swapped for another real term of its
family, as a whole word, never spliced into a compound. When nothing near the key can be found,
a term of the kind the question asks for (a planet, an author), else a vague confident answer.

No candidate is a key entry of the bank (its own or another item's, folded), says everything
the key says, or contains the key as written (``wording.contains_key``: "not X", 「Xではない」
are refused). The candidates depend on the item only, never on the model: hard items are hard
for every simulated model, and several models then give the same wrong answer, as real models do.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from typing import Any

from adapters.simulator.knowledge import Knowledge, KnowledgeItem
from adapters.simulator.vocabulary import (
    AMBIGUOUS_WORDS,
    CATEGORIES,
    EN_NEGATIONS,
    FAMILIES,
    GIVEN_NAMES,
    JA_NEGATIONS,
    NEAR_WORDS,
    SENTENCE_SWAPS,
)
from adapters.simulator.wording import (
    carries_key,
    contains_key,
    folded,
    is_key_entry,
    key_tokens,
    one_line,
)


def digest(*parts: Any) -> int:
    joined = "\x1f".join(str(p) for p in parts).encode("utf-8")
    return int.from_bytes(hashlib.sha256(joined).digest()[:8], "big")


_JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff]")
_KANJI = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff々]")
_KATAKANA = re.compile(r"[\u30a0-\u30ffー]")
_HIRAGANA = re.compile(r"[\u3040-\u309f]")
_PARTICLES = "にのはがをでへともや、。"
_STOPWORDS = frozenset(
    "a an the of in on at to for by with and or is are was were be it its this that which what "
    "who how does do did from as into than then when where why not no".split()
)
_TITLE_LABEL = re.compile(r"^\s*[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)+\s*$")


def _cased(word: str, like: str) -> str:
    """``word`` of the vocabulary in the case of the word it replaces (a name or a formula
    written with capitals in the vocabulary is said as written)."""
    if word != word.lower():
        return word
    if like.isupper() and len(like) > 1:
        return word.upper()
    if like[:1].isupper():
        return " ".join(w[:1].upper() + w[1:] for w in word.split(" "))
    return word


# Each term's families; one pattern for the Latin terms (whole words), one for the Japanese.
_FAMILIES_OF: dict[str, list[tuple[str, ...]]] = {}
for _family in FAMILIES:
    for _term in _family:
        _FAMILIES_OF.setdefault(_term.casefold(), []).append(_family)


def _alternation(terms) -> str:
    return "|".join(re.escape(t) for t in sorted(set(terms), key=len, reverse=True))


_LATIN_TERM = re.compile(
    r"(?<![\w-])(?:"
    + _alternation(t for f in FAMILIES for t in f if t.isascii() or not _JAPANESE.search(t))
    + r")(?![\w-])",
    re.IGNORECASE,
)
_JAPANESE_TERM = re.compile(_alternation(t for f in FAMILIES for t in f if _JAPANESE.search(t)))
_LATIN_SWAP = re.compile(
    r"(?<![\w-])(?:" + _alternation(t for t in SENTENCE_SWAPS if t.isascii()) + r")(?![\w-])",
    re.IGNORECASE,
)
_JAPANESE_SWAP = re.compile(_alternation(t for t in SENTENCE_SWAPS if not t.isascii()))


def _others(term: str, salt: str) -> list[str]:
    """The other terms of ``term``'s families, in an order fixed by the item."""
    found: list[str] = []
    for family in _FAMILIES_OF.get(term.casefold(), ()):
        found += [t for t in family if t.casefold() != term.casefold() and t not in found]
    if not found:
        return []
    start = digest("family", salt, term.casefold()) % len(found)
    return found[start:] + found[:start]


def _whole_word_ja(text: str, start: int, end: int) -> bool:
    """The Japanese term at text[start:end] is a word of its own, not a piece of a compound:
    no kanji (katakana) runs on into it on either side; a one-kanji term is followed by a
    particle or nothing (行う is not the row 行)."""
    term = text[start:end]
    before, after = text[start - 1 : start], text[end : end + 1]
    for script in (_KANJI, _KATAKANA):
        if script.match(term[:1]) and script.match(before):
            return False
        if script.match(term[-1:]) and script.match(after):
            return False
    if len(term) == 1 and after and after not in _PARTICLES:
        return False
    return True


def _related_terms(key: str, salt: str, sentence: bool) -> list[str]:
    """The key with one of its words swapped for another term of the word's family."""
    if _others(key, salt):
        return []  # the whole key is a term: swapped as a whole (wrong_answers)
    found = []
    for match in _LATIN_TERM.finditer(key):
        word = match.group(0)
        if word.casefold() in AMBIGUOUS_WORDS:
            continue
        for other in _others(word, salt)[:2]:
            found.append(key[: match.start()] + _cased(other, word) + key[match.end() :])
    if key.isascii():
        return found
    for match in _JAPANESE_TERM.finditer(key):
        if not _whole_word_ja(key, match.start(), match.end()):
            continue
        for other in _others(match.group(0), salt)[: 1 if sentence else 2]:
            found.append(key[: match.start()] + other + key[match.end() :])
    return found


def _sentence_swaps(key: str) -> list[str]:
    """A sentence with one of its words said the other way round (kept -> discarded)."""
    found = []
    for match in _LATIN_SWAP.finditer(key):
        word = match.group(0)
        for other in SENTENCE_SWAPS[word.casefold()][:1]:
            found.append(key[: match.start()] + _cased(other, word) + key[match.end() :])
    if not key.isascii():
        for match in _JAPANESE_SWAP.finditer(key):
            if _whole_word_ja(key, match.start(), match.end()):
                other = SENTENCE_SWAPS[match.group(0)][0]
                found.append(key[: match.start()] + other + key[match.end() :])
    return found


# Numbers ------------------------------------------------------------------------------------

_NUMBER = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)*")
_DATE = re.compile(r"(\d{4})([-/.年])(\d{1,2})([-/.月])(\d{1,2})")
_FORMULA = re.compile(r"(?:[A-Z][a-z]?\d*|\((?:[A-Z][a-z]?\d*)+\)\d*)+")
_VERSION_WORDS = re.compile(
    r"\b(?:version|versions|release|python|django|node|postgresql|java|ruby|go|rust|php|"
    r"kernel|ios|android|unicode|tls|ssl|http)\b|バージョン|リリース|版",
    re.IGNORECASE,
)
_STATUS_WORDS = re.compile(r"\b(?:status|http|code)\b|ステータス", re.IGNORECASE)
_ORDINAL = re.compile(r"^(st|nd|rd|th)\b")
_FULLWIDTH_DIGITS = str.maketrans("0123456789", "０１２３４５６７８９")


def _ascii_digits(text: str) -> str:
    return "".join(str(unicodedata.digit(ch)) if ch.isdigit() else ch for ch in text)


def _glued(key: str, start: int) -> bool:
    """The number is part of a name (x86, IPv4, SHA-256, H2O), not a quantity; a version's
    "v" (v3.11) does not count."""
    before = key[max(0, start - 3) : start]
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
        and (_STATUS_WORDS.search(question) or _TITLE_LABEL.match(after))
    ):
        deltas = tuple(d for d in (1, -1, 2, -2, 3) if (n + d) // 100 == n // 100)
    elif n < 10:
        deltas = (1, -1, 2, 3)
    elif re.search(r"\b[A-Z]{2,}[ -]?$", key[: key.find(text)]):  # RFC 9110, ISO 8601
        deltas = (1, -1, 2)
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
        for at, delta in ((last, 1), (last, -1), (last, 2), (last - 1, 1)):
            if at < 0 or numbers[at] + delta < 0:
                continue
            changed = numbers[:at] + [numbers[at] + delta] + [0] * (len(numbers) - at - 1)
            if at == len(numbers) - 1:
                changed = numbers[:at] + [numbers[at] + delta]
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


def _number_slips(key: str, question: str, salt: str) -> list[str]:
    """The key with one of its numbers a little off, in the same form; a trailing name of the
    number is dropped (a model that says 428 does not call it Too Many Requests)."""
    if _FORMULA.fullmatch(key) and any(ch.isdigit() for ch in key):
        return []  # H2O is not H3O: a formula is swapped as a whole term
    if date := _DATE.search(key):
        return _date_slips(key, date, salt)
    numbers = [m for m in _NUMBER.finditer(key) if not _glued(key, m.start())]
    if not numbers:
        return []
    target = numbers[digest("which-number", salt) % len(numbers)]
    if re.search(r"\d[億万千]\d", _ascii_digits(key)):
        target = numbers[-1]  # 1億2千万: the smaller unit slips (1億3千万), not the larger
    text = target.group(0)
    rest = key[target.end() :]
    values = _number_values(_ascii_digits(text), key, question, rest, salt)
    if not text.isascii():
        values = [v.translate(_FULLWIDTH_DIGITS) for v in values]
    if digest("direction", salt) % 2:
        values = values[1:2] + values[:1] + values[2:]
    if _TITLE_LABEL.match(rest):
        rest = ""
    found = []
    for value in values:
        tail = rest
        if ordinal := _ORDINAL.match(rest):
            n = int(_ascii_digits(value).replace(",", "").split(".")[0])
            suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
            tail = suffix + rest[ordinal.end() :]
        found.append(key[: target.start()] + value + tail)
    return found


# Sentences and identifiers -----------------------------------------------------------------

_EN_AUXILIARY = re.compile(r"\b(" + "|".join(EN_NEGATIONS) + r")\b(\s+not\b)?", re.IGNORECASE)
_JA_CLAUSE_END = re.compile(r"(?:$|[。、．，]|から|ため|ので|こと|の|と|が|けど|か)")


def _negations(key: str) -> list[str]:
    """A sentence of the key said confidently the other way round."""
    if _JAPANESE.search(key):
        for positive, negative in JA_NEGATIONS:
            at = key.rfind(positive)
            while at > 0 and not _JA_CLAUSE_END.match(key, at + len(positive)):
                at = key.rfind(positive, 0, at)
            if at > 0:
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


_PART_SPLIT_KEEP = re.compile(r"([\-_/.:]+)")
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")


def _part_changed(key: str) -> list[str]:
    """An identifier (snake_case, kebab-case, camelCase; no spaces) with one of its parts said
    as a near word of the vocabulary: max_connections -> min_connections, getElementById ->
    getElementByKey."""
    if " " in key or not key.isascii():
        return []
    parts = _PART_SPLIT_KEEP.split(key)
    found = []
    for index in range(0, len(parts), 2):
        pieces = _CAMEL.split(parts[index])
        if len(parts) == 1 and len(pieces) == 1:
            return []  # one plain word: not an identifier
        for at, piece in enumerate(pieces):
            for near in NEAR_WORDS.get(piece.casefold(), ())[:1]:
                changed = pieces[:at] + [_cased(near, piece)] + pieces[at + 1 :]
                found.append("".join(parts[:index] + ["".join(changed)] + parts[index + 1 :]))
    return found


_PERSON = re.compile(r"([A-Z][a-z]+)((?: [A-Z][a-z'-]+){1,2})")


def _other_given_name(key: str, question: str, salt: str) -> list[str]:
    """A person's name (asked for by "Who") with another given name: Ada Lovelace -> Mary
    Lovelace; the surname stays."""
    match = _PERSON.fullmatch(key)
    if not match or not question.strip().lower().startswith("who") or _others(key, salt):
        return []
    names = [n for n in GIVEN_NAMES if n != match.group(1)]
    start = digest("given", salt) % len(names)
    return [n + match.group(2) for n in (names[start:] + names[:start])[:2]]


def _question_words_only(candidate: str, question: str) -> bool:
    """The candidate says nothing but words of the question (an echo, not an answer)."""
    words, runs = key_tokens(candidate)
    asked, asked_runs = key_tokens(question)
    if not words and not runs:
        return True
    folded_question = "".join(asked_runs)
    return words <= asked and all(run in folded_question for run in runs)


def _of_the_kind_asked(question: str, key: str, salt: str) -> list[str]:
    """Terms of the kind the question asks for (a planet, an author), in the key's script."""
    found = []
    for pattern, term in CATEGORIES:
        if re.search(pattern, question, re.IGNORECASE) and (term.isascii() == key.isascii()):
            family = _FAMILIES_OF[term.casefold()][0]
            start = digest("kind", salt) % len(family)
            found += [_cased(t, key) for t in family[start:] + family[:start]]
    return found


def is_sentence(key: str) -> bool:
    return len(key.split()) >= 5 or (bool(_JAPANESE.search(key)) and len(key) > 10)


def wrong_answers(
    item: KnowledgeItem, knowledge: Knowledge, language: str | None = None
) -> list[str]:
    """The item's plausible wrong answers, likeliest first; the same for every model. Each is
    made from the item's own key (a number near its number, a term of its kind, one part of it
    changed, its sentence said the other way round), else from the kind of thing the question
    asks for, else a vague confident answer in ``language`` (by default the key's)."""
    key = one_line(item.answer)
    salt = item.key
    sentence = is_sentence(key)
    candidates = [_cased(other, key) for other in _others(key, salt)[:3]]  # a term of its family
    candidates += _number_slips(key, item.question, salt)
    if sentence:
        candidates += _negations(key) + _sentence_swaps(key)
        candidates += _related_terms(key, salt, sentence=True)
    else:
        candidates += _related_terms(key, salt, sentence=False) + _part_changed(key)
        candidates += _other_given_name(key, item.question, salt)
        candidates += _negations(key) if len(key.split()) > 2 else []
    keys = knowledge.folded_answers
    unique: list[str] = []
    seen: set[str] = set()
    for batch in (candidates, _of_the_kind_asked(item.question, key, salt)):
        for candidate in batch:
            candidate = one_line(candidate)
            mark = folded(candidate)
            if mark and mark not in seen and _acceptable(candidate, key, item.question, keys):
                seen.add(mark)
                unique.append(candidate)
        if unique:
            return unique
    language = language or ("ja" if _JAPANESE.search(key) else "en")
    return [guess(item.question, knowledge, language, avoid=key)]


def _acceptable(candidate: str, key: str, question: str, keys: frozenset[str]) -> bool:
    return (
        not is_key_entry(candidate, keys)
        and not carries_key(candidate, key)
        and not contains_key(candidate, key)
        and not _question_words_only(candidate, question)
    )


def _unused(text: str, keys: frozenset[str]) -> str:
    """``text`` with a mark no key entry has (a bank whose keys are all the obvious answers)."""
    n = 2
    while is_key_entry(f"{text} ({n})", keys):
        n += 1
    return f"{text} ({n})"


_YEAR_QUESTION = re.compile(r"\b(?:year|when)\b|何年|いつ", re.IGNORECASE)
_COUNT_QUESTION = re.compile(
    r"\b(?:how many|how much|number|port)\b|いくつ|何人|何個|何番", re.IGNORECASE
)
# What a model says of an item it knows nothing of and will not admit it: confident, vague,
# a noun phrase (it is framed like any answer), never the question's own words.
_VAGUE = {
    "en": ("the default value", "the first one listed", "the usual setting", "the standard one"),
    "ja": ("設定次第", "既定値のまま", "最初に挙げたもの", "標準のもの"),
}


def guess(question: str, knowledge: Knowledge, language: str = "en", avoid: str = "") -> str:
    """A model's guess at an item it does not know: a year or a count where the question asks
    for one, a term of the kind asked for or of the family of one of its words, else a vague
    confident answer in the bank's language; never a key entry, never the question's words,
    never ``avoid`` (the item's own key, when it has one)."""
    salt = " ".join(question.casefold().split())
    keys = knowledge.folded_answers
    if _YEAR_QUESTION.search(question):
        candidates = [str(1900 + digest("year", salt) % 120)]
    elif _COUNT_QUESTION.search(question):
        candidates = [str(2 + digest("count", salt) % 98)]
    else:
        candidates = _of_the_kind_asked(question, "a" if language == "en" else "あ", salt)
        for match in _LATIN_TERM.finditer(question):
            if match.group(0).casefold() not in AMBIGUOUS_WORDS:
                candidates += [_cased(t, "A") for t in _others(match.group(0), salt)]
    vague = _VAGUE["ja" if language == "ja" else "en"]
    start = digest("vague", salt) % len(vague)
    candidates += list(vague[start:] + vague[:start])
    for candidate in candidates:
        if (
            not is_key_entry(candidate, keys)
            and not _question_words_only(candidate, question)
            and not (avoid and (contains_key(candidate, avoid) or carries_key(candidate, avoid)))
        ):
            return candidate
    usable = [v for v in vague if not (avoid and contains_key(v, avoid))] or ["none of these"]
    return _unused(usable[0], keys)
