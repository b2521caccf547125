"""Character-level helpers: full-width forms, markdown emphasis, trailing punctuation, and the
grouping key of identical answers (``normalise_answer``)."""

from __future__ import annotations

import re
import unicodedata

from .codes import MAX_INPUT_CHARS

# Full-width ASCII (U+FF01..U+FF5E) -> ASCII, and the small colon. One character for one, so
# offsets found on the translated line are valid on the original line.
FW_TABLE = {cp: cp - 0xFEE0 for cp in range(0xFF01, 0xFF5F)}
FW_TABLE[0xFE55] = ord(":")


def has_fullwidth(s: str) -> bool:
    if s.isascii():
        return False
    return any("\uff01" <= ch <= "\uff5e" or ch == "\ufe55" for ch in s)


APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'", "`": "'"})

# Markdown emphasis. Every body is a negated class of its own marker, so a failed attempt never
# scans past the next marker: matching stays linear.
_MD_RES = (
    re.compile(r"\*\*(?=[^\s*])([^*]+)(?<=[^\s*])\*\*"),
    re.compile(r"(?<![\w*])\*(?=[^\s*])([^*]+)(?<=[^\s*])\*(?![\w*])"),
    re.compile(r"(?<!\w)__(?=[^\s_])([^_]+)(?<=[^\s_])__(?!\w)"),
    re.compile(r"(?<![\w_])_(?=[^\s_])([^_]+)(?<=[^\s_])_(?![\w_])"),
    re.compile(r"`+([^`]+)`+"),
)
# Left-over markers at the edges ("404**" from "**1. ANSWER: 404**"). A single leading star
# stays: "*args" is an answer, not emphasis.
_MD_EDGE_RE = re.compile(r"^(?:\*\*+|`+|__+)(?=\S)|(?<=\S)(?:[*`]+|__+)$")


def strip_markdown(s: str) -> str:
    if not s or not any(ch in s for ch in "*_`"):
        return s
    for rx in _MD_RES:
        s = rx.sub(r"\1", s)
    s = _MD_EDGE_RE.sub("", s)
    # A lone marker left over from the label's emphasis, e.g. "** 404".
    s = s.strip()
    if s[:1] in ("*", "`") and s[1:2].isspace():
        s = s[1:].strip()
    return s


_ABBREVIATIONS = frozenset(
    "etc inc ltd jr sr co corp st vs al no dr mr mrs ms prof approx dept univ mt ft".split()
)


def strip_trailing_noise(s: str) -> str:
    """Strip whitespace and trailing punctuation noise (, ; : . … 。 、) but keep an
    abbreviation's period (``Washington, D.C.``, ``Acme Inc.``)."""
    s = s.strip()
    for _i in range(8):
        before = s
        s = s.rstrip(" \t,;:、。…").rstrip()
        if s.endswith(".."):
            s = s.rstrip(".").rstrip()
        elif s.endswith(".") and len(s) > 1:
            last = s[:-1].rsplit(None, 1)[-1] if s[:-1].strip() else ""
            core = last.strip("\"'()[]")
            is_abbrev = "." in core or core.casefold() in _ABBREVIATIONS
            if not is_abbrev:
                s = s[:-1].rstrip()
        if s == before:
            break
    return s


_OPEN_CLOSE = {
    '"': '"',
    "'": "'",
    "“": "”",
    "‘": "’",
    "«": "»",
    "「": "」",
    "『": "』",
    "(": ")",
    "[": "]",
    "{": "}",
}
_TRAIL_PUNCT = " \t.,;:!?。、…'\"“”‘’«»」』"
_LEAD_PUNCT = " \t,;:'\"“”‘’«»「『"
_LEAD_MD_RE = re.compile(r"^(?:#{1,6}\s+|>\s*|[-*+•]\s+)+")


def normalise_answer(text: str) -> str:
    """Grouping key for identical answers: NFKC, markdown stripped, casefolded, whitespace
    collapsed, surrounding punctuation/quotes/brackets and trailing periods dropped.

    ``"**Paris.**"``, ``" paris "`` and ``"“PARIS”"`` all give ``"paris"``. Never raises.
    """
    try:
        if not isinstance(text, str):
            text = "" if text is None else str(text)
        s = unicodedata.normalize("NFKC", text[:MAX_INPUT_CHARS])
        s = " ".join(s.split())
        s = _LEAD_MD_RE.sub("", s)
        s = strip_markdown(s)
        s = s.casefold().translate(APOSTROPHES)
        for _i in range(10):
            before = s
            # A bullet can surface once a quote is gone ('"- 0"'): strip it too, so that
            # normalising twice gives what normalising once gave.
            s = _LEAD_MD_RE.sub("", s.rstrip(_TRAIL_PUNCT).lstrip(_LEAD_PUNCT))
            if len(s) >= 2 and _OPEN_CLOSE.get(s[0]) == s[-1]:
                inner = s[1:-1]
                # only a pair that wraps the whole: "(a)" but not "(a) or (b)"
                if s[0] not in "([{" or (s[0] not in inner and s[-1] not in inner):
                    s = inner
            if s == before:
                break
        return " ".join(s.split())
    except Exception:  # pragma: no cover - defensive
        return text if isinstance(text, str) else ""
