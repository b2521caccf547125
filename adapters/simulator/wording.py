"""How a simulated model words an answer: the bank's language, a key said in the model's own words,
a hedge, and the comparisons that keep an answer from being a key entry as written.

A correct answer keeps every number, identifier and word of the key (so a person marks it
correct) but is never the key as written: it is reshaped ("429 Too Many Requests" becomes
"Too Many Requests (429)") and framed ("PEP 498 introduced f-strings.", "答えは 2011 年です。").
Each model has a style (terse, plain or a sentence built on the question), and the wording
within a style depends on the item only, so two models of one style who give the same wrong
answer give it in the same words, as real models often do.

The frame fits the answer: an English sentence is framed as a sentence, a term as a term; a
Japanese answer by how it ends (a noun: 金星です。, a reason: …待つからです。, a plain predicate:
…を送信する。, a polite one), so no frame makes 送信するです or leaves an empty slot. A wrong answer
is refused a frame that would contain its key (``contains_key``). A model that does not know
says UNKNOWN, or in a Japanese bank 「不明」 or 「分かりません」 (``ABSTENTIONS``), which the
answer-sheet parser reads as UNKNOWN.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from adapters.simulator.vocabulary import FAMILIES

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


_WORD_RUN = re.compile(
    r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uff66-\uff9f]+"
    r"|[^\W_\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uff66-\uff9f]+"
)


def _runs(text: str) -> list[str]:
    """Folded words of a text, a run of Japanese apart from a run of Latin letters or digits."""
    return _WORD_RUN.findall(unicodedata.normalize("NFKC", text).casefold())


SHORT_KEY = 3


def contains_key(text: str, key: str) -> bool:
    """``text`` says the key as written somewhere in it (case, width, spaces and punctuation
    folded): a wrong answer must not. A short key of one word ("42", "UDP", "H2O": at most
    ``SHORT_KEY`` characters folded) counts only as a whole word of the text, so "That" does
    not contain the key "a", nor "420" the key "42", nor "H2O2" the key "H2O". Japanese has no
    spaces between words, so a Japanese key counts wherever it stands ("二酸化水素" contains "水素")."""
    mine = folded(key)
    if not mine:
        return False
    words = _runs(key)
    if len(mine) <= SHORT_KEY and len(words) == 1 and mine.isascii():
        return mine in _runs(text)
    return mine in folded(text)


# Reshaping a key ----------------------------------------------------------------------------

_NUMBER_FIRST = re.compile(r"^(\d[\d.,]*)\s+([^\d(（].*)$")
# "2 (round half to even)", "鉄（Fe）"; not "O(log n)", where the parenthesis is the answer.
_PARENTHESIS = re.compile(r"^(.+?)(?:\s+\(([^()]+)\)|（([^（）]+)）)$")


# Units a model writes out in full (42.195 km -> 42.195 kilometres), "{s}" for the plural.
UNIT_NAMES = {
    "km": "kilometre{s}",
    "m": "metre{s}",
    "cm": "centimetre{s}",
    "mm": "millimetre{s}",
    "kg": "kilogram{s}",
    "g": "gram{s}",
    "s": "second{s}",
    "ms": "millisecond{s}",
    "m/s": "metre{s} per second",
    "km/h": "kilometre{s} per hour",
    "m/s²": "metre{s} per second squared",
    "°F": "degree{s} Fahrenheit",
    "°C": "degree{s} Celsius",
    "K": "kelvin",
    "J": "joule{s}",
    "MJ": "megajoule{s}",
    "kJ": "kilojoule{s}",
    "W": "watt{s}",
    "kW": "kilowatt{s}",
    "V": "volt{s}",
    "Hz": "hertz",
    "Pa": "pascal{s}",
    "N": "newton{s}",
}
_UNIT_AFTER = re.compile(
    r"^(\d[\d,]*(?:\.\d+)?)\s*("
    + "|".join(re.escape(u) for u in sorted(UNIT_NAMES, key=len, reverse=True))
    + r")$"
)
_BECAUSE_CLAUSE = re.compile(r"^(.+?),? because (.+?)\.?$")


def reshapes(key: str, language: str) -> list[str]:
    """The key said otherwise with every word kept: reordered, its parenthesis made a clause."""
    key = one_line(key)
    shapes = []
    if (
        (match := _NUMBER_FIRST.match(key))
        and re.match(r"[A-Z][a-z]{2,}", match.group(2))
        and not re.search(r"[(（]", match.group(2))
    ):
        # "429 Too Many Requests": the name and its number; not "42.195 km", a number and its unit
        number, rest = match.groups()
        shapes.append(f"{rest}（{number}）" if language == "ja" else f"{rest} ({number})")
        shapes.append(f"{number}（{rest}）" if language == "ja" else f"{number} ({rest})")
    if match := _PARENTHESIS.match(key):
        head, note = match.group(1), match.group(2) or match.group(3)
        if not re.search(r"[^\W_]", note):  # "Peace of Westphalia (!)": a mark, not a note
            return [head]
        shapes.append(f"{head}、つまり{note}" if language == "ja" else f"{head}, that is {note}")
        shapes.append(f"{head}：{note}" if language == "ja" else f"{head} — {note}")
    if language != "ja" and (match := _UNIT_AFTER.match(key)):
        number, unit = match.groups()
        plural = "" if number == "1" else "s"
        shapes.append(f"{number} {UNIT_NAMES[unit].replace('{s}', plural)}")
    if language != "ja" and (match := _BECAUSE_CLAUSE.match(key)) and _lowered(match[1]):
        shapes.append(f"Because {match[2]}, {_lowered(match[1])}")
    # Punctuation alone does not make another answer ("A — B" folds to the key "A (B)").
    return [shape for shape in shapes if folded(shape) != folded(key)]


# Framing ------------------------------------------------------------------------------------

_EN_PLAIN = (
    "It's {x}.",
    "The answer is {x}.",
    "That would be {x}.",
    "{X}, without a doubt.",
    "{X} is the one.",
)
_EN_HEDGES = (
    "Probably {x}.",
    "I think it's {x}.",
    "Maybe {x}, I'm not certain.",
    "{X}, if I remember correctly.",
)
# A sentence (a mechanism, a reason): framed as a sentence, never as "It's <sentence>".
_EN_LONG = ("In short, {x}.", "Simply put, {x}.", "What happens is that {x}.")
_EN_REASON = ("It's {x}.", "Mostly {x}.", "That happens {x}.")
_EN_LONG_KEEP = ("{X}.", "In short: {X}.", "Put simply: {X}.")  # a first word kept as written
_EN_LONG_HEDGES = ("I think {x}.", "If I remember correctly, {x}.", "Probably {x}.")
_EN_LONG_HEDGES_KEEP = ("I think: {X}.", "{X}, if I remember correctly.", "{X}, I believe.")
# Japanese, by how the answer ends: a noun (a term, a number), a reason (…から, …ため), a
# plain predicate (…する, …ない, 古い) or a polite one (…します): "送信するです" is not Japanese.
_JA_FRAMES = {
    "noun": (
        "{x}です。",
        "答えは{x}です。",
        "{x}になります。",
        "正解は{x}です。",
        "{x}が該当します。",
    ),
    "reason": ("{x}です。", "{x}だと考えられます。", "主な理由は、{x}です。"),
    "predicate": ("{x}。", "{x}ということです。", "要するに、{x}。"),
    "polite": ("{x}。", "要するに、{x}。"),
}
_JA_HEDGE_FRAMES = {
    "noun": ("たぶん{x}です。", "おそらく{x}です。", "{x}だと思います。"),
    "reason": ("たぶん{x}です。", "おそらく{x}でしょう。", "{x}だと思います。"),
    "predicate": ("{x}と思います。", "おそらく{x}のでしょう。", "たぶん{x}。"),
    "polite": ("たぶん{x}。", "おそらく{x}。"),
}
_JA_POLITE_END = re.compile(r"(?:です|ます|ません|でした|ました|ください)$")
_JA_REASON_END = re.compile(r"(?:から|ため)$")
_JA_PREDICATE_END = re.compile(r"(?:[うくぐすずつぬぶむゆるいた]|ない|だ)$")
# Words a sentence may start with that are not names: said in lower case inside a frame.
_COMMON_FIRST = frozenset(
    "the a an it this that these those its each every old new two three both all some most "
    "only when if because since as there they we you one no none many few several any".split()
)
_BECAUSE = re.compile(r"^(?:because|since|as)\b", re.IGNORECASE)

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


_YEAR_PASSIVE = re.compile(
    r"^in (?:which|what) year (?P<be>was|were) (?P<subject>.+) (?P<done>\w+ed|\w+en|built|"
    r"held|made|sold|won|founded|written|begun|shot)\??$",
    re.IGNORECASE,
)
_HOW_MANY_HAVE = re.compile(
    r"^how many (?P<noun>[\w-]+(?: [\w-]+)?) (?P<do>does|do) (?P<subject>.+?) have\??$",
    re.IGNORECASE,
)


def question_sentence(question: str, x: str, language: str) -> str | None:
    """The answer said in a sentence made of the question's own words ("The SI unit of magnetic
    flux is the weber.", "A typical human somatic cell has 46 chromosomes."), or None."""
    if language == "ja":
        return _sentence_ja(question, x)
    question = one_line(question)
    if match := _YEAR_PASSIVE.match(question):
        return f"{_capital(match['subject'])} {match['be']} {match['done']} in {x}."
    if (match := _HOW_MANY_HAVE.match(question)) and re.fullmatch(r"[\d,.]+", x):
        has = "has" if match["do"].lower() == "does" else "have"
        return f"{_capital(match['subject'])} {has} {x} {match['noun']}."
    return _sentence_en(question, with_article(_lowered(x) or x, question))


def _sentence_en(question: str, x: str) -> str | None:
    question = one_line(question)
    if match := _WHICH.match(question):
        return f"{_capital(x) if x.startswith('the ') else x} {match['verb']} {match['rest']}."
    if match := _WHO.match(question):
        return f"{x} {match['verb']} {match['rest']}."
    if (match := _WHAT_IS.match(question)) and "," not in match["subject"]:
        subject = match["subject"]  # not "What is the constant, to two decimals?"
        return f"{subject[0].upper()}{subject[1:]} {match['be']} {x}."
    return None


def _sentence_ja(question: str, x: str) -> str | None:
    if match := _JA_SUBJECT.match(one_line(question)):
        return f"{match['subject']}は{x}です。"
    return None


def has_content(text: str) -> bool:
    """The text says something: a letter, a digit or a Japanese character, not punctuation."""
    return bool(re.search(r"[^\W_]", text))


def _bare(x: str, language: str) -> str:
    """``x`` without a final full stop, so that a frame can end the sentence itself."""
    x = one_line(x)
    stripped = x.rstrip("。．.!！ ") if language == "ja" else x.rstrip(".!。 ")
    return stripped if has_content(stripped) else x


def _lowered(x: str) -> str | None:
    """``x`` with its first word in lower case, when that word is a common one (not a name)."""
    first = x.split(" ", 1)[0]
    if first == x:
        return x if x[:1].islower() else None  # one word ("It", "The"): said as written
    if first.casefold() in _COMMON_FIRST and first[:1].isupper() and first[1:].islower():
        return x[0].lower() + x[1:]
    return x if x[:1].islower() else None


def _capital(x: str) -> str:
    return x[0].upper() + x[1:] if x[:1].islower() and x.split(" ", 1)[0].isalpha() else x


def _fill(templates: Iterable[str], x: str, inner: str) -> list[str]:
    """Each template with ``{X}`` (the answer opening the sentence) and ``{x}`` (inside it)."""
    return [t.replace("{X}", _capital(x)).replace("{x}", inner) for t in templates]


_VERB = re.compile(
    r"\b(?:is|are|was|were|be|been|has|have|had|can|could|will|would|does|do|did|must|should|"
    r"may|might|isn't|aren't|wasn't|don't|doesn't|can't|keeps|holds|reads|writes|makes|takes|"
    r"runs|sends|stores|removes|uses|means|returns|scatters|waits|blocks|grows|falls)\b|\w\w+ed\b",
    re.IGNORECASE,
)


def is_sentence(x: str) -> bool:
    """A clause (a mechanism, a reason), framed as a sentence; not a long name or a value with
    a note ("5 (round half to even)"), framed as a term."""
    return len(x.split()) >= 5 and bool(_VERB.search(x))


def ja_kind(x: str) -> str:
    if (end := _JA_POLITE_END.search(x)) and end.start() > 0:
        return "polite"
    if _JA_REASON_END.search(x):
        return "reason"
    if _JAPANESE.search(x[-1:]) and _JA_PREDICATE_END.search(x):
        return "predicate"
    return "noun"


_VOCABULARY_WORDS = frozenset(t for f in FAMILIES for t in f if t == t.lower())
_CODE_QUESTION = re.compile(
    r"\b(?:call|command|method|function|keyword|code|flag|option|setting|header|identifier|"
    r"symbol|abbreviation|name of the|formula)\b",
    re.IGNORECASE,
)
_COUNTABLE_KIND = re.compile(r"\b(?:unit|instrument|tool|device|river|mountain)\b", re.IGNORECASE)
_TITLED = re.compile(r"^(?:Treaty|Peace|Battle|Congress|Council|Edict|Siege|Treaties)\b of ")


def with_article(x: str, question: str) -> str:
    """A common noun said with its article ("the sextant", "the weber"; "the Treaty of
    Versailles"); a name, a number, a term of code or a mass noun of the vocabulary (oxygen,
    venus) as written."""
    if _TITLED.match(x):
        return "the " + x
    if (
        re.fullmatch(r"[a-z]{3,}(?: [a-z]{3,})?", x)
        and x.split(" ", 1)[0] not in ("the", "a", "an", "and", "not")
        and (x not in _VOCABULARY_WORDS or _COUNTABLE_KIND.search(question))
        and not _CODE_QUESTION.search(question)
    ):
        return "the " + x
    return x


def framings(x: str, question: str, language: str, style: str) -> list[str]:
    """The answer ``x`` said as a model of ``style`` would, best first, all of them confident."""
    x = _bare(x, language)
    if not has_content(x):
        return [x]
    if language == "ja":
        x = with_counter(x, question, language)
        kind = ja_kind(x)
        said = [t.format(x=x) for t in _JA_FRAMES[kind]]
        sentence = _sentence_ja(question, x) if kind == "noun" else None
    elif is_sentence(x):  # a sentence, a mechanism: no "It's ..."
        inner = _lowered(x)
        if _BECAUSE.match(x):  # a reason said as one: never "In short, because ..."
            return _fill(_EN_REASON, x, inner or x)
        said = _fill(_EN_LONG if inner else _EN_LONG_KEEP, x, inner or x)
        if inner and not re.match(r"\s*(?:why|how|what happens)\b", question, re.IGNORECASE):
            said = said[:2]  # "What happens is that ..." answers what happens, not what it is
        if question.strip().lower().startswith("why") and inner and not _BECAUSE.match(x):
            said.insert(0, f"Because {inner}.")
        return said
    else:
        inner = with_article(_lowered(x) or x, question)
        said = _fill(_EN_PLAIN, x, inner)
        sentence = _sentence_en(question, inner)
    if sentence and len(sentence) <= 220 and not sounds_hedged(sentence.replace(x, "")):
        said.insert(1 if style == "terse" else 0, sentence)
    if style == "terse":
        said.insert(0, x)
    return said


def with_counter(x: str, question: str, language: str) -> str:
    """A year asked for in Japanese is said with its counter: 2011年."""
    if language == "ja" and "何年" in question and re.fullmatch(r"\d{3,4}", x):
        return x + "年"
    return x


def hedged(x: str, language: str, question: str = "") -> list[str]:
    """The answer ``x`` said with a hedge the answer-sheet parser reads as one."""
    x = with_counter(_bare(x, language), question, language)
    if not has_content(x):
        return [f"Probably {x}" if language == "en" else f"たぶん{x}"]
    if language == "ja":
        return [t.format(x=x) for t in _JA_HEDGE_FRAMES[ja_kind(x)]]
    if is_sentence(x):
        inner = _lowered(x)
        if _BECAUSE.match(x):
            return _fill(("Probably {x}.", "I think it's {x}."), x, inner or x)
        return _fill(_EN_LONG_HEDGES if inner else _EN_LONG_HEDGES_KEEP, x, inner or x)
    return _fill(_EN_HEDGES, x, with_article(_lowered(x) or x, question))


# Abstaining --------------------------------------------------------------------------------

# What a model writes when it does not know: the prompt's UNKNOWN in English; in a Japanese
# bank the Japanese words the answer-sheet parser reads as an abstention.
ABSTENTIONS = {"en": ("UNKNOWN",), "ja": ("不明", "分かりません", "不明です")}


def abstention(language: str, draw: int) -> str:
    options = ABSTENTIONS["ja" if language == "ja" else "en"]
    return options[draw % len(options)]
