"""The entry points: ``parse_sheet`` for a whole sheet, ``parse_single`` for a one-item reply."""

from __future__ import annotations

from .answers import dedupe, finish, missing_answer
from .assemble import Assembly, Record, assemble
from .codes import (
    DUPLICATE_NUMBER,
    EMPTY_REPLY,
    INPUT_TRUNCATED,
    MARKDOWN,
    MAX_INPUT_CHARS,
    MAX_ITEMS,
    MISSING,
    MISSING_ANSWER_LABEL,
    MISSING_NUMBER,
    NO_ANSWERS_FOUND,
    NUMBER_OUT_OF_RANGE,
    OUT_OF_ORDER,
    PARSER_ERROR,
    STRAY_CONFIDENCE,
    TEXT_AFTER,
    TEXT_BEFORE,
    TOO_MANY_ITEMS,
    UNNUMBERED_IGNORED,
    WRONG_NUMBER,
)
from .confidence import parse_confidence
from .lines import BLANK, CONF, DECO, NUM, TABLE, Line, classify, split_lines
from .results import ParsedAnswer, ParsedSheet
from .tables import assemble_table


def _prepare(text) -> tuple[str, list[str]]:
    issues: list[str] = []
    if text is None:
        text = ""
    elif isinstance(text, bytes | bytearray):
        text = bytes(text[: MAX_INPUT_CHARS * 4]).decode("utf-8", errors="replace")
    elif not isinstance(text, str):
        text = str(text)
    if len(text) > MAX_INPUT_CHARS:
        text = text[:MAX_INPUT_CHARS]
        issues.append(INPUT_TRUNCATED)
    text = text.replace("\x00", "").lstrip("\ufeff")
    if not text.strip():
        issues.append(EMPTY_REPLY)
    return text, issues


def _coerce_int(value, default: int = 0) -> int:
    try:
        return int(value)
    except Exception:
        return default


def parse_sheet(text: str, n_items: int) -> ParsedSheet:
    """Parse a whole answer sheet for items 1..n_items. Never raises.

    Always returns exactly ``n_items`` answers (capped at MAX_ITEMS, with the sheet issue
    ``too_many_items``); ``answers[i]`` is item ``i + 1``.
    """
    n = max(0, _coerce_int(n_items))
    sheet_issues: list[str] = []
    if n > MAX_ITEMS:
        n = MAX_ITEMS
        sheet_issues.append(TOO_MANY_ITEMS)
    try:
        return _parse_sheet(text, n, sheet_issues)
    except Exception:  # pragma: no cover - a bug, but a scorer can still read the raw text
        return ParsedSheet(
            answers=[missing_answer(i) for i in range(1, n + 1)],
            sheet_issues=dedupe(sheet_issues + [PARSER_ERROR]),
        )


def _assembly_of(lines: list[Line]) -> Assembly:
    """The labelled reading of the lines, else a table, else a plain numbered list."""
    asm = assemble(lines)
    if any(r.has_answer for r in asm.recs):
        return asm
    kinds = {ln.kind for ln in lines}
    table = assemble_table(lines) if TABLE in kinds else None
    if table is not None and table.recs:
        return table
    if NUM in kinds:
        listed = assemble(lines, numbered_list=True)
        if listed.recs:
            return listed
    return asm


def _place(recs: list[Record], sheet_issues: list[str]) -> list[Record]:
    """Number the unnumbered by order: previous record's number + 1, unless that number is
    claimed explicitly by another record."""
    explicit = {r.number for r in recs if r.number is not None}
    prev = 0
    placed: list[Record] = []
    for r in recs:
        if r.number is None:
            cand = prev + 1
            if cand in explicit:
                sheet_issues.append(UNNUMBERED_IGNORED)
                continue
            r.number = cand
            r.issues.insert(0, MISSING_NUMBER)
        prev = r.number
        placed.append(r)
    return placed


def _keep(placed: list[Record], n: int, sheet_issues: list[str]) -> dict[int, Record]:
    """The first record of each item number in 1..n."""
    kept: dict[int, Record] = {}
    last = 0
    for r in placed:
        num = r.number
        if not 1 <= num <= n:
            sheet_issues.append(NUMBER_OUT_OF_RANGE)
            continue
        if num in kept:
            sheet_issues.append(DUPLICATE_NUMBER)
            kept[num].duplicates += 1
            continue
        if num < last:
            sheet_issues.append(OUT_OF_ORDER)
        last = num
        kept[num] = r
    return kept


def _parse_sheet(text, n: int, sheet_issues: list[str]) -> ParsedSheet:
    text, prep_issues = _prepare(text)
    sheet_issues.extend(prep_issues)
    lines = [classify(ln) for ln in split_lines(text)]
    asm = _assembly_of(lines)
    if not any(r.has_answer for r in asm.recs) and EMPTY_REPLY not in sheet_issues:
        sheet_issues.append(NO_ANSWERS_FOUND)
        asm.text_before = asm.text_after = False
    if asm.text_before:
        sheet_issues.append(TEXT_BEFORE)
    kept = _keep(_place(asm.recs, sheet_issues), n, sheet_issues)
    if asm.text_after:
        sheet_issues.append(TEXT_AFTER)
    if asm.stray_conf:
        sheet_issues.append(STRAY_CONFIDENCE)
    answers = [finish(kept[i], i) if i in kept else missing_answer(i) for i in range(1, n + 1)]
    # Markdown emphasis (around the labels, or the answer) changes how no answer reads: one note
    # for the sheet, not an issue on every item of a reply written in markdown.
    for a in answers:
        if MARKDOWN in a.issues:
            a.issues.remove(MARKDOWN)
            sheet_issues.append(MARKDOWN)
    return ParsedSheet(answers=answers, sheet_issues=dedupe(sheet_issues))


def parse_single(text: str, number: int) -> ParsedAnswer:
    """Parse the reply to a one-item request (item ``number``). Never raises.

    The reply may carry the item number or not (``ANSWER: 404`` alone is the expected form).
    A reply without any ANSWER label but short (up to three lines in one paragraph) is taken
    whole as the answer, with ``missing_answer_label``. Issues of the reply as a whole (text
    before/after, ...) are folded into the answer's issues.
    """
    num = _coerce_int(number)
    try:
        return _parse_single(text, num)
    except Exception:  # pragma: no cover - defensive
        return ParsedAnswer(
            number=num,
            answer=None,
            confidence=None,
            abstained=False,
            issues=[MISSING, PARSER_ERROR],
        )


def _parse_single(text, number: int) -> ParsedAnswer:
    text, extra = _prepare(text)
    lines = [classify(ln) for ln in split_lines(text)]
    asm = assemble(lines)
    recs = [r for r in asm.recs if r.has_answer]
    if recs:
        chosen = next((r for r in recs if r.number == number), None)
        chosen = chosen or next((r for r in recs if r.number is None), None)
        if chosen is None:
            chosen = recs[0]
            chosen.issues.append(WRONG_NUMBER)
        if len(recs) > 1:
            chosen.duplicates += 1
        if asm.text_before:
            extra.append(TEXT_BEFORE)
        if asm.text_after:
            extra.append(TEXT_AFTER)
        if asm.stray_conf:
            extra.append(STRAY_CONFIDENCE)
        result = finish(chosen, number)
        result.issues = dedupe(result.issues + extra)
        return result
    # No ANSWER label: a short reply is the answer itself.
    body = [ln for ln in lines if ln.kind not in (CONF, BLANK, DECO)]
    confs = [ln for ln in lines if ln.kind == CONF]
    first = next((i for i, ln in enumerate(lines) if ln.kind not in (BLANK, DECO)), None)
    last = max((i for i, ln in enumerate(lines) if ln.kind not in (BLANK, DECO)), default=-1)
    one_paragraph = first is not None and all(
        lines[i].kind != BLANK for i in range(first, last + 1)
    )
    if body and len(body) <= 3 and one_paragraph:
        rec = Record(None, [MISSING_ANSWER_LABEL])
        rest = body[0].rest if body[0].kind == NUM else body[0].raw
        if body[0].kind == NUM and body[0].num != number:
            rec.issues.append(WRONG_NUMBER)
        rec.start_answer(rest, [])
        rec.answer_lines.extend(ln.raw for ln in body[1:])
        for c in confs:
            rec.set_conf(c)
        result = finish(rec, number)
    else:
        result = missing_answer(number)
        if EMPTY_REPLY not in extra:
            extra.append(NO_ANSWERS_FOUND)
        if confs:
            result.confidence, cissues = parse_confidence(confs[0].rest)
    result.issues = dedupe(result.issues + extra)
    return result
