"""How a simulated model words an answer: the bank's language, a key said in the model's own words,
a hedge, and the comparisons that keep an answer from being a key entry as written.

A correct answer keeps every number, identifier and word of the key (so a person marks it
correct) but is never the key as written: it is reshaped ("429 Too Many Requests" becomes
"Too Many Requests (429)") and framed ("PEP 498 introduced f-strings.", "答えは 2011 年です。").
Each model has a style (terse, plain or a sentence built on the question), and the wording
within a style depends on the item only, so two models of one style who give the same wrong
answer give it in the same words, as real models often do.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

_JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uff66-\uff9f]")
_CJK_RUN = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uff66-\uff9f]+")
# Numbers and words of other scripts, as a person reading the answer sees them.
_TOKEN = re.compile(r"\d+(?:[.,]\d+)*|[^\W\d_]+")
_NOT_ALNUM = re.compile(r"[\W_]+")
STYLES = ("terse", "plain", "sentence")
# Words the app's answer-sheet parser reads as a hedge: a confident answer must not carry one
# by accident (a question copied into the answer saying "may be", say).
_HEDGE_WORDS = re.compile(
    r"(?<![\w'])(?:probably|possibly|perhaps|maybe|presumably|likely|i think|i believe|i guess|"
    r"i suppose|not sure|unsure|uncertain|if i recall|if i remember|iirc|might be|could be|"
    r"may be|or so|i'd say|my guess|best guess|either)(?![\w'])|たぶん|多分|おそらく|かもしれない|と思う|[?？]",
    re.IGNORECASE,
)


def language_of(texts: Iterable[str]) -> str:
    """ "ja" when most of the texts (the items of a prompt) are written in Japanese, else "en"."""
    texts = list(texts)
    japanese = sum(1 for text in texts if _JAPANESE.search(text))
    return "ja" if texts and japanese * 2 > len(texts) else "en"


def one_line(text: str) -> str:
    return " ".join(text.split())


def folded(text: str) -> str:
    """For comparing answers: width, case, spaces and punctuation folded away."""
    return _NOT_ALNUM.sub("", unicodedata.normalize("NFKC", text).casefold())


def is_key_entry(answer: str, keys: Iterable[str]) -> bool:
    """The answer is one of the keys as written, give or take case, width and punctuation.
    ``keys`` may be the keys folded already (``Knowledge.folded_answers``), a set."""
    mine = folded(answer)
    if isinstance(keys, frozenset | set):
        return mine in keys
    return any(mine == folded(key) for key in keys)


def key_tokens(key: str) -> tuple[set[str], list[str]]:
    """What a person checks an answer for: its numbers and words, and its runs of Japanese."""
    text = unicodedata.normalize("NFKC", key).casefold()
    return {m for m in _TOKEN.findall(_CJK_RUN.sub(" ", text))}, _CJK_RUN.findall(text)


def carries_key(answer: str, key: str) -> bool:
    """Every number and word of the key is a number or word of the answer, and every run of
    Japanese of the key is in it: the answer says what the key says."""
    words, runs = key_tokens(key)
    text = unicodedata.normalize("NFKC", answer).casefold()
    have = set(_TOKEN.findall(_CJK_RUN.sub(" ", text)))
    return words <= have and all(run in text for run in runs)


def sounds_hedged(text: str) -> bool:
    return bool(_HEDGE_WORDS.search(text))


# Reshaping a key ----------------------------------------------------------------------------

_NUMBER_FIRST = re.compile(r"^(\d[\d.,]*)\s+([^\d(（].*)$")
# "2 (round half to even)", "鉄（Fe）"; not "O(log n)", where the parenthesis is the answer.
_PARENTHESIS = re.compile(r"^(.+?)(?:\s+\(([^()]+)\)|（([^（）]+)）)$")


def reshapes(key: str, language: str) -> list[str]:
    """The key said otherwise with every word kept: reordered, its parenthesis made a clause."""
    key = one_line(key)
    shapes = []
    if match := _NUMBER_FIRST.match(key):
        number, rest = match.groups()
        shapes.append(f"{rest}（{number}）" if language == "ja" else f"{rest} ({number})")
        shapes.append(f"{number}（{rest}）" if language == "ja" else f"{number} ({rest})")
    if match := _PARENTHESIS.match(key):
        head, note = match.group(1), match.group(2) or match.group(3)
        shapes.append(f"{head}、つまり{note}" if language == "ja" else f"{head}, that is {note}")
        shapes.append(f"{head}：{note}" if language == "ja" else f"{head} — {note}")
    # Punctuation alone does not make another answer ("A — B" folds to the key "A (B)").
    return [shape for shape in shapes if folded(shape) != folded(key)]


# Framing ------------------------------------------------------------------------------------

_EN_PLAIN = (
    "It's {x}.",
    "The answer is {x}.",
    "That would be {x}.",
    "{x}, without a doubt.",
    "{x} is the one.",
)
_JA_PLAIN = (
    "{x}です。",
    "答えは{x}です。",
    "{x}になります。",
    "正解は{x}です。",
    "{x}が該当します。",
)
_EN_HEDGES = (
    "Probably {x}.",
    "I think it's {x}.",
    "Maybe {x}, I'm not certain.",
    "{x}, if I remember correctly.",
)
_JA_HEDGES = ("たぶん{x}です。", "おそらく{x}です。", "{x}だと思う。", "{x}かもしれない。")

_WHICH = re.compile(
    r"^(?:which|what)\s+(?P<noun>[\w-]+(?:\s+[\w-]+){0,2}?)\s+(?P<verb>introduced|added|defines|"
    r"defined|tells|says|creates|returns|has|holds|sets|gives|controls|marks|replaced|uses|"
    r"means|flows|hosted|proved|formulated|composed|wrote|painted|directed|unwinds|signals)\s+"
    r"(?P<rest>.+?)\??$",
    re.IGNORECASE,
)
_WHO = re.compile(r"^who\s+(?P<verb>[\w-]+)\s+(?P<rest>.+?)\??$", re.IGNORECASE)
_WHAT_IS = re.compile(r"^what\s+(?P<be>is|are|was|were)\s+(?P<subject>.+?)\??$", re.IGNORECASE)
_JA_SUBJECT = re.compile(
    r"^(?P<subject>.{2,40}?)(?:は|とは)(?:何|なに|どれ|誰|だれ|いつ|どこ|いくつ|何年|何番|何という)"
)


def _sentence_en(question: str, x: str) -> str | None:
    question = one_line(question)
    if match := _WHICH.match(question):
        return f"{x} {match['verb']} {match['rest']}."
    if match := _WHO.match(question):
        return f"{x} {match['verb']} {match['rest']}."
    if match := _WHAT_IS.match(question):
        subject = match["subject"]
        return f"{subject[0].upper()}{subject[1:]} {match['be']} {x}."
    return None


def _sentence_ja(question: str, x: str) -> str | None:
    if match := _JA_SUBJECT.match(one_line(question)):
        return f"{match['subject']}は{x}です。"
    return None


_EN_LONG = ("In short, {x}.", "What happens is that {x}.", "Simply put, {x}.")
_ARTICLE = re.compile(r"^(?:The|A|An|It|This|These|Its|Each|Every)\b")


def _embedded(x: str) -> str:
    """``x`` inside a sentence: no final full stop, a leading article in lower case."""
    x = x.rstrip(".。")
    return x[0].lower() + x[1:] if _ARTICLE.match(x) else x


def framings(x: str, question: str, language: str, style: str) -> list[str]:
    """The answer ``x`` said as a model of ``style`` would, best first, all of them confident."""
    if language == "en" and len(x.split()) >= 5:  # a sentence, a mechanism: no "It's ..."
        said = [template.format(x=_embedded(x)) for template in _EN_LONG]
        if question.strip().lower().startswith("why"):
            said.insert(0, f"Because {_embedded(x)}.")
        return said
    x = _embedded(x) if language == "en" else x
    plain = _JA_PLAIN if language == "ja" else _EN_PLAIN
    if language == "ja" and "何年" in question and re.fullmatch(r"\d{3,4}", x):
        x += "年"  # a year is said with its counter: 2011年
    said = [template.format(x=x) for template in plain]
    sentence = (_sentence_ja if language == "ja" else _sentence_en)(question, x)
    if sentence and len(sentence) <= 220 and not sounds_hedged(sentence.replace(x, "")):
        said.insert(0 if style == "sentence" else 1, sentence)
    if style == "terse":
        said.insert(0, x)
    return said


def hedged(x: str, language: str) -> list[str]:
    x = _embedded(x) if language == "en" else x
    return [template.format(x=x) for template in (_JA_HEDGES if language == "ja" else _EN_HEDGES)]
