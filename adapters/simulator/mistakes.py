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
a term of the kind the question asks for (a planet, a unit, a river, an author); else nothing,
and the model abstains on the item (``answers.answer_item``) rather than say "the default value".
A person is swapped whole for another real person of the vocabulary, never given another given
name; an equation for a variant of itself (E = ½mv² -> E = mv²), never a chemical formula.

No candidate is a key entry of the bank (its own or another item's, folded), says everything
the key says, or contains the key as written (``wording.contains_key``: "not X", 「Xではない」
are refused). The candidates depend on the item only, never on the model: hard items are hard
for every simulated model, and several models then give the same wrong answer, as real models do.
"""

from __future__ import annotations

import re
import unicodedata

from adapters.simulator.knowledge import Knowledge, KnowledgeItem
from adapters.simulator.numbers import digest, number_slips
from adapters.simulator.vocabulary import (
    AMBIGUOUS_WORDS,
    CATEGORIES,
    EN_NEGATIONS,
    FAMILIES,
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

_JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff]")
_KANJI = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff々]")
_KATAKANA = re.compile(r"[\u30a0-\u30ffー]")
_HIRAGANA = re.compile(r"[\u3040-\u309f]")
_PARTICLES = "にのはがをでへともや、。"
_STOPWORDS = frozenset(
    "a an the of in on at to for by with and or is are was were be it its this that which what "
    "who how does do did from as into than then when where why not no".split()
)


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
    term = unicodedata.normalize("NFKC", term)  # Ｈ２Ｏ is H2O
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


_REASON = re.compile(r"\b(?:because|since|so that|therefore)\b|から|ため|ので")
_EQUATION_SWAPS = (("½", ""), ("²", ""), ("²", "³"), ("1/2", ""), ("^2", ""), ("^2", "^3"))


def _equation_variants(key: str) -> list[str]:
    """An equation (E = ½mv²) said as a real-looking variant of itself: a coefficient dropped
    or an exponent changed (E = mv², E = ½mv); never a chemical formula."""
    if "=" not in key:
        return []
    found = []
    for old, new in _EQUATION_SWAPS:
        if old in key:
            found.append(key.replace(old, new, 1))
    return [one_line(f) for f in found if f != key]


_ARTICLE = re.compile(r"\b([Aa])(n?) (?=([A-Za-z]))")


def agreed(text: str) -> str:
    """``text`` with each "a"/"an" agreeing with the word after it (a word swap can leave
    "an closed")."""

    def fix(match: re.Match) -> str:
        vowel = match.group(3).lower() in "aeiou"
        return f"{match.group(1)}{'n' if vowel else ''} "

    return _ARTICLE.sub(fix, text)


def is_sentence(key: str) -> bool:
    return len(key.split()) >= 5 or (bool(_JAPANESE.search(key)) and len(key) > 10)


def wrong_answers(
    item: KnowledgeItem, knowledge: Knowledge, language: str | None = None
) -> list[str]:
    """The item's plausible wrong answers, likeliest first; the same for every model. Each is
    made from the item's own key (a number near its number, a term of its kind, one part of it
    changed, its sentence said the other way round), else from the kind of thing the question
    asks for; else none (the model abstains on the item)."""
    key = one_line(item.answer)
    salt = item.key
    sentence = is_sentence(key)
    # A term of its family; for "term (a note)", a term of the term's family, the note dropped.
    # Then a near number; then a word or a part of it changed; then a term of the kind asked.
    head = re.sub(r"\s*(?:\([^()]*\)|（[^（）]*）)$", "", key)
    batches = [[_cased(other, head) for other in _others(head, salt)[:3]]]
    batches.append(number_slips(key, item.question, salt))
    if sentence:
        batches.append(
            _equation_variants(key)
            + _sentence_swaps(key)
            + _related_terms(key, salt, sentence=True)
        )
        if not _REASON.search(key):  # "X isn't Y because Z" contradicts its own reason
            batches.append(_negations(key))
    else:
        batches.append(
            _equation_variants(key)
            + _related_terms(key, salt, sentence=False)
            + _part_changed(key)
            + (_negations(key) if len(key.split()) > 2 else [])
        )
    batches.append(_of_the_kind_asked(item.question, key, salt))
    keys = knowledge.folded_answers
    unique: list[str] = []
    seen: set[str] = set()
    for batch in batches:
        for candidate in batch:
            candidate = one_line(candidate)
            if candidate.isascii() and candidate != key:
                candidate = agreed(candidate)
            mark = folded(candidate)
            if mark and mark not in seen and _acceptable(candidate, key, item.question, keys):
                seen.add(mark)
                unique.append(candidate)
        if unique:
            return unique
    language = language or ("ja" if _JAPANESE.search(key) else "en")
    said = guess(item.question, knowledge, language, avoid=key, from_words=False)
    # Nothing specific to say ("the default value" is no answer a model gives): the model
    # abstains on the item instead (``answers.answer_item``).
    return [] if is_vague(said) else [said]


def is_vague(text: str) -> bool:
    """A vague confident non-answer of ``guess`` ("the default value", 既定値のまま)."""
    bare = re.sub(r"\s*\(\d+\)$", "", text)
    return any(bare in vague for vague in _VAGUE.values())


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


_YEAR_QUESTION = re.compile(r"\b(?:which|what|in which) year\b|^\s*when\b|何年|いつ", re.IGNORECASE)
_COUNT_QUESTION = re.compile(r"\b(?:how many|how much|port)\b|いくつ|何人|何個|何番", re.IGNORECASE)
# What a model says of an item it knows nothing of and will not admit it: confident, vague,
# a noun phrase (it is framed like any answer), never the question's own words, and never one
# that points at something the question does not have ("the first one listed": no list).
_VAGUE = {
    "en": ("the default value", "the usual setting", "the standard one"),
    "ja": ("設定次第", "既定値のまま", "標準のもの"),
}


def guess(
    question: str,
    knowledge: Knowledge,
    language: str = "en",
    avoid: str = "",
    from_words: bool = True,
) -> str:
    """A model's guess at an item it does not know: a year or a count where the question asks
    for one, a term of the kind asked for or of the family of one of its words, else a vague
    confident answer in the bank's language; never a key entry, never the question's words,
    never ``avoid`` (the item's own key, when it has one). An item whose key is known but has
    nothing near it (``from_words`` False) is not answered with a word of its question's own
    family: "Delete" is no answer to "... FOR UPDATE ...?"."""
    salt = " ".join(question.casefold().split())
    keys = knowledge.folded_answers
    avoid = avoid if folded(avoid) else ""  # a key of punctuation alone rules nothing out
    if _YEAR_QUESTION.search(question):
        candidates = [str(1900 + digest("year", salt) % 120)]
    elif _COUNT_QUESTION.search(question):
        candidates = [str(2 + digest("count", salt) % 98)]
    else:
        candidates = _of_the_kind_asked(question, "a" if language == "en" else "あ", salt)
        for match in _LATIN_TERM.finditer(question) if from_words else ():
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
