"""Abstention and hedging: whether an answer says UNKNOWN in other words (English or Japanese,
分かりません, 見当もつきません, ...) and whether it hedges."""

from __future__ import annotations

import re
import unicodedata

from .codes import (
    ABSTAIN_CANNOT_ANSWER,
    ABSTAIN_CASE,
    ABSTAIN_DASH,
    ABSTAIN_DONT_KNOW,
    ABSTAIN_EMPTY,
    ABSTAIN_NA,
    ABSTAIN_NO_IDEA,
    ABSTAIN_NOT_SURE,
    ABSTAIN_WITH_COMMENT,
    FULLWIDTH,
    MARKDOWN,
    UNKNOWN,
)
from .text import APOSTROPHES, FW_TABLE, normalise_answer, strip_markdown

_ABSTAIN_SYNONYMS = {}
for _code, _phrases in (
    # not "na": "Na" is sodium
    (ABSTAIN_NA, "n/a|n.a|n. a|not applicable|none given"),
    (
        ABSTAIN_DONT_KNOW,
        "i don't know|i dont know|i do not know|don't know|dont know|do not know|idk|"
        "i don't remember|i do not remember|don't remember|i don't recall|i do not recall|"
        "not known|unknown to me|わからない|分からない|不明",
    ),
    (
        ABSTAIN_NOT_SURE,
        "not sure|i'm not sure|im not sure|i am not sure|unsure|uncertain|not certain|"
        "i'm unsure|i am unsure",
    ),
    (ABSTAIN_NO_IDEA, "no idea|i have no idea|no clue|i have no clue"),
    (
        ABSTAIN_CANNOT_ANSWER,
        "cannot answer|can't answer|cant answer|can not answer|i cannot answer|i can't answer|"
        "unable to answer|i am unable to answer|i'm unable to answer|no answer|cannot say|"
        "can't say|cannot determine|unable to determine|i cannot say|cannot be determined|"
        "abstain|回答できない|回答不能",
    ),
):
    for _p in _phrases.split("|"):
        _ABSTAIN_SYNONYMS[_p] = _code

# Japanese abstentions, matched against the whole answer once its politeness is peeled off:
# an apology or softener in front, です / でした / ね in the end ("申し訳ありませんが、分かりません。").
_JA_SOFTENER_RE = re.compile(
    r"^(?:申し訳(?:ありません|ございません|ない)が?|すみませんが?|すいませんが?|残念ながら|"
    r"正直(?:に言うと|なところ)?|恐れ入りますが|あいにく)[、,\s]*"
)
_JA_ENDING_RE = re.compile(r"(?:です|でした|ですね|ですが|ね|よ)$")
_JA_KNOW = r"(?:分|わ|判|解)か"
_JA_ABSTENTIONS = (
    (
        ABSTAIN_NO_IDEA,
        rf"見当(?:も|が)?つき?(?:ません|かない|きません)|(?:全く|まったく|さっぱり|皆目)"
        rf"(?:{_JA_KNOW}(?:りません|らない)|知りません|知らない|見当(?:も|が)?つ(?:きません|かない))",
    ),
    (
        ABSTAIN_DONT_KNOW,
        rf"{_JA_KNOW}(?:りません|らない|りかねます|りませんでした|らなかった)|知り(?:ません|ませんでした)|"
        r"知らない|存じ(?:ません|上げません|ておりません)|不明|不詳|未詳|"
        r"(?:記憶に|覚えが)(?:ありません|ない)|覚えていません|思い出せません",
    ),
    (
        ABSTAIN_NOT_SURE,
        r"(?:自信|確信)が(?:ありません|ない|持てません)|定か(?:では|で)(?:ありません|ない)|"
        r"確か(?:では|で)(?:ありません|ない)|はっきり(?:しません|しない|とは(?:分かりません|言えません))",
    ),
    (
        ABSTAIN_CANNOT_ANSWER,
        r"(?:お)?答え(?:られません|られない|かねます|できません|ようがありません)|"
        r"回答(?:できません|できない|不能|不可|しかねます|を控えます|を差し控えます|なし|無し)|"
        r"答えなし|(?:判断|特定|判定|断定)(?:できません|できない|しかねます)",
    ),
)
_JA_ABSTENTION_RES = tuple((code, re.compile(rf"(?:{rx})")) for code, rx in _JA_ABSTENTIONS)


def _japanese_abstention(key: str) -> str | None:
    """The abstention code of a Japanese answer that only says it does not know, or None."""
    if len(key) > 60 or key.isascii():
        return None
    s = _JA_SOFTENER_RE.sub("", key)
    for _i in range(3):
        s = _JA_ENDING_RE.sub("", s.rstrip("。．.!！、 ")).strip()
    for code, rx in _JA_ABSTENTION_RES:
        if rx.fullmatch(s):
            return code
    return None


_DASH_ONLY = frozenset("-–—‐‒―−_.…?*/~ \t")
_UNKNOWN_COMMENT_RE = re.compile(r"unknown(?:[\s*_`]*+)[-–—:;,.(\[]", re.I)

_HEDGE_RE = re.compile(
    r"(?<![\w'])(?:probably|possibly|perhaps|maybe|presumably|likely|i think|i believe|"
    r"i guess|i suppose|i'm not sure|not sure|unsure|not certain|uncertain|if i recall|"
    r"if i remember|iirc|might be|could be|may be|or so|i'd say|my guess|best guess|"
    r"not 100%)(?![\w'])|たぶん|多分|おそらく|かもしれない|と思う",
    re.I,
)
_EITHER_RE = re.compile(r"(?<!\w)either(?!\w)", re.I)
_OR_RE = re.compile(r"(?<!\w)or(?!\w)", re.I)


def abstention(answer: str) -> tuple[bool, str | None]:
    """(abstained, issue code or None) for an answer already cleaned."""
    if not answer:
        return True, ABSTAIN_EMPTY
    if answer == UNKNOWN:
        return True, None
    if all(ch in _DASH_ONLY for ch in answer):
        return True, ABSTAIN_DASH
    key = normalise_answer(answer)
    if key == "unknown":
        nfkc = unicodedata.normalize("NFKC", answer)
        if nfkc == UNKNOWN:
            return True, FULLWIDTH
        if strip_markdown(nfkc).strip() == UNKNOWN:
            return True, MARKDOWN
        return True, ABSTAIN_CASE
    code = _ABSTAIN_SYNONYMS.get(key) or _japanese_abstention(key)
    if code is not None:
        return True, code
    trans = answer.translate(FW_TABLE)
    m = _UNKNOWN_COMMENT_RE.match(strip_markdown(trans))
    if m and trans.lstrip("*_` ")[:7].upper() == UNKNOWN:
        return True, ABSTAIN_WITH_COMMENT
    return False, None


def is_hedged(answer: str) -> bool:
    s = answer[:4000].translate(APOSTROPHES)
    if _HEDGE_RE.search(s):
        return True
    if s.rstrip(" \t)]}*_`'\"”」.").endswith(("?", "？")):
        return True
    m = _EITHER_RE.search(s)
    return bool(m and _OR_RE.search(s, m.end()))
