"""Confidence values: a level read from its line, or split off the end of the answer line."""

from __future__ import annotations

import re

from .codes import (
    CONFIDENCE_CASE,
    CONFIDENCE_LEVELS,
    CONFIDENCE_MAPPED,
    FULLWIDTH,
    HIGH,
    INVALID_CONFIDENCE,
    LOW,
    MARKDOWN,
    MEDIUM,
    MISSING_CONFIDENCE,
)
from .lines import LEVEL_WORD_START_RE
from .text import FW_TABLE, has_fullwidth, strip_markdown

_LEVEL_WORDS = {
    "high": HIGH,
    "medium": MEDIUM,
    "med": MEDIUM,
    "mid": MEDIUM,
    "moderate": MEDIUM,
    "middle": MEDIUM,
    "low": LOW,
    "高": HIGH,
    "中": MEDIUM,
    "低": LOW,
}
_CONF_WORDS_RE = re.compile(r"[a-z]+|[高中低]")
_NEGATIONS = frozenset({"not", "no", "non"})


def parse_confidence(raw: str) -> tuple[str | None, list[str]]:
    """A confidence value -> (level or None, issues)."""
    issues: list[str] = []
    s = raw.translate(FW_TABLE).strip()
    if has_fullwidth(raw):
        issues.append(FULLWIDTH)
    stripped = strip_markdown(s)
    if stripped != s:
        issues.append(MARKDOWN)
    s = stripped.strip().strip("()[]{}\"'“”").strip()
    s = s.rstrip(" .,;:!。、").strip()
    s = strip_markdown(s)
    if not s:
        return None, issues + [MISSING_CONFIDENCE]
    if s in CONFIDENCE_LEVELS:
        return s, issues
    low = s.casefold()
    if low in ("high", "medium", "low"):
        return low.upper(), issues + [CONFIDENCE_CASE]
    words = _CONF_WORDS_RE.findall(low[:200])
    levels = {_LEVEL_WORDS[w] for w in words if w in _LEVEL_WORDS}
    if len(levels) == 1 and not _NEGATIONS.intersection(words):
        return levels.pop(), issues + [CONFIDENCE_MAPPED]
    return None, issues + [INVALID_CONFIDENCE]


# Confidence written on the answer line.
_CONF_WORD_RE = re.compile(r"(?<![a-z])confidence(?:[ \t]+level)?(?![a-z])", re.I)
_INLINE_AFTER_RE = re.compile(r"[\s*_`~]*+(?P<sep>[:=]|[-–—]+)?[\s*_`~]*+(?P<val>.*)$", re.S)
_INLINE_SUFFIX_RE = re.compile(
    r"[\s,;(\[—–-]*+(?:with[ \t]+)?(?P<lvl>high|medium|low)[ \t]+confidence[\s)\].]*$", re.I
)
_INLINE_PAREN_RE = re.compile(r"[(\[][ \t]*+(?P<lvl>high|medium|low)[ \t]*+[)\]][ \t.]*$", re.I)
_INLINE_DASH_RE = re.compile(r"[ \t](?:[—–|/,]|--?)[ \t]*+(?P<lvl>HIGH|MEDIUM|LOW)[ \t.]*$")
_INLINE_CUT = " \t*_`~([{|,;/—–-"
_TAIL = 120


def inline_confidence(ans: str, allow_weak: bool) -> tuple[str, str | None]:
    """Split "404 (CONFIDENCE: HIGH)" into ("404", "HIGH"). Returns (answer, raw value|None)."""
    trans = ans.translate(FW_TABLE)
    last = None
    for m in _CONF_WORD_RE.finditer(trans):
        last = m
    if last is not None and len(trans) - last.end() <= _TAIL:
        after = _INLINE_AFTER_RE.match(trans, last.end())
        val = after.group("val").strip().rstrip(")]}*_`~ .").strip() if after else ""
        if after and val and (after.group("sep") or LEVEL_WORD_START_RE.match(val)):
            if len(val) <= 40:
                cut = len(trans[: last.start()].rstrip(_INLINE_CUT))
                return ans[:cut], ans[after.start("val") :]
    start = max(0, len(trans) - _TAIL)
    tail = trans[start:]
    m = _INLINE_SUFFIX_RE.search(tail)
    if m:
        cut = start + m.start()
        return ans[:cut], m.group("lvl")
    if allow_weak:
        for rx in (_INLINE_PAREN_RE, _INLINE_DASH_RE):
            m = rx.search(tail)
            if m and trans[: start + m.start()].strip():
                cut = start + m.start()
                return ans[:cut], m.group("lvl")
    return ans, None
