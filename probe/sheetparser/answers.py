"""From an item record to its ParsedAnswer: the answer's text, abstention, hedging and
confidence, with every issue found on the way."""

from __future__ import annotations

from .abstention import abstention, is_hedged
from .assemble import Record
from .codes import (
    ABSTAIN_DASH,
    ABSTAIN_EMPTY,
    ABSTAIN_WITH_COMMENT,
    CONFIDENCE_INLINE,
    DUPLICATE_ANSWER,
    EXTRA_TEXT,
    HEDGED,
    MARKDOWN,
    MAX_INPUT_CHARS,
    MISSING,
    MISSING_CONFIDENCE,
    MULTILINE_ANSWER,
    UNKNOWN,
)
from .confidence import inline_confidence, parse_confidence
from .results import ParsedAnswer
from .text import strip_markdown, strip_trailing_noise


def dedupe(codes: list[str]) -> list[str]:
    return list(dict.fromkeys(codes))


def _unanswered(rec: Record, number: int) -> ParsedAnswer:
    """An item with a record but no answer (a confidence alone)."""
    conf, cissues = (None, [])
    if rec.conf_raw is not None:
        conf, cissues = parse_confidence(rec.conf_raw)
    return ParsedAnswer(
        number=number,
        answer=None,
        confidence=conf,
        abstained=False,
        issues=dedupe([MISSING] + list(rec.issues) + rec.conf_issues + cissues),
    )


def _answer_text(rec: Record, issues: list[str]) -> tuple[str, str | None]:
    """(the answer's text, a confidence found on its line or None), markdown stripped."""
    parts = [p.strip() for p in rec.answer_lines if p and p.strip()]
    if len(parts) > 1 or (parts and not (rec.answer_lines[0] or "").strip()):
        issues.append(MULTILINE_ANSWER)
    raw = " ".join(parts)
    raw = " ".join(raw.split()) if len(raw) < MAX_INPUT_CHARS else raw
    answer = strip_markdown(raw)
    if answer != raw:
        issues.append(MARKDOWN)
    answer, inline = inline_confidence(answer, allow_weak=rec.conf_raw is None)
    if inline is not None:
        issues.append(CONFIDENCE_INLINE)
        stripped = strip_markdown(answer)
        if stripped != answer:
            issues.append(MARKDOWN)
            answer = stripped
    return answer, inline


def _read_answer(answer: str, issues: list[str]) -> tuple[str, bool, bool]:
    """(answer, abstained, hedged): UNKNOWN in other words becomes UNKNOWN."""
    before_noise = answer
    answer = strip_trailing_noise(answer)
    abstained, code = abstention(answer)
    if code == ABSTAIN_EMPTY and before_noise.strip():
        code = ABSTAIN_DASH  # "...", "…": punctuation only
    hedged = False
    if abstained:
        if code is not None:
            issues.append(code)
        if code == ABSTAIN_WITH_COMMENT:
            # keep "UNKNOWN (possibly 1945)" as written: the comment may carry a guess
            if is_hedged(answer):
                hedged = True
                issues.append(HEDGED)
        else:
            answer = UNKNOWN
    elif is_hedged(answer):
        hedged = True
        issues.append(HEDGED)
    return answer, abstained, hedged


def _confidence(rec: Record, inline: str | None, issues: list[str]) -> str | None:
    if rec.conf_raw is not None:
        conf, cissues = parse_confidence(rec.conf_raw)
        issues.extend(rec.conf_issues)
        issues.extend(cissues)
        return conf
    if inline is not None:
        conf, cissues = parse_confidence(inline)
        issues.extend(cissues)
        return conf
    issues.append(MISSING_CONFIDENCE)
    return None


def finish(rec: Record, number: int) -> ParsedAnswer:
    """The ParsedAnswer of item ``number`` from its record."""
    if not rec.has_answer:
        return _unanswered(rec, number)
    issues = list(rec.issues)
    answer, inline = _answer_text(rec, issues)
    answer, abstained, hedged = _read_answer(answer, issues)
    conf = _confidence(rec, inline, issues)
    if rec.trailing:
        issues.append(EXTRA_TEXT)
    if rec.duplicates:
        issues.append(DUPLICATE_ANSWER)
    return ParsedAnswer(
        number=number,
        answer=answer,
        confidence=conf,
        abstained=abstained,
        issues=dedupe(issues),
        hedged=hedged,
    )


def missing_answer(number: int) -> ParsedAnswer:
    return ParsedAnswer(
        number=number, answer=None, confidence=None, abstained=False, issues=[MISSING]
    )
