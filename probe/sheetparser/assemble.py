"""Assembling classified lines into item records: an ANSWER line opens an item, its CONFIDENCE
line closes it, and what lies around them is the item's extra text or the sheet's."""

from __future__ import annotations

from .codes import (
    CONFIDENCE_BEFORE_ANSWER,
    DUPLICATE_CONFIDENCE,
    EXTRA_TEXT,
    MISSING_ANSWER_LABEL,
    NUMBER_FORMAT,
)
from .lines import ANS, BLANK, CONF, DECO, NUM, TABLE, TEXT, Line


class Record:
    __slots__ = (
        "number",
        "issues",
        "has_answer",
        "answer_lines",
        "gap",
        "blank_seen",
        "conf_raw",
        "conf_issues",
        "trailing",
        "duplicates",
    )

    def __init__(self, number, issues):
        self.number = number
        self.issues = list(issues)
        self.has_answer = False
        self.answer_lines: list[str] = []
        self.gap: list[str] = []
        self.blank_seen = False
        self.conf_raw: str | None = None
        self.conf_issues: list[str] = []
        self.trailing: list[str] = []
        self.duplicates = 0

    def start_answer(self, rest: str, issues) -> None:
        self.has_answer = True
        self.answer_lines = [rest]
        self.issues.extend(issues)
        self.blank_seen = False

    def set_conf(self, ln: Line) -> None:
        if self.conf_raw is not None:
            self.issues.append(DUPLICATE_CONFIDENCE)
            return
        self.conf_raw = ln.rest
        self.conf_issues = list(ln.issues)


def _next_significant(lines: list[Line]) -> list[int]:
    nxt = [len(lines)] * len(lines)
    j = len(lines)
    for i in range(len(lines) - 1, -1, -1):
        nxt[i] = j
        if lines[i].kind not in (BLANK, DECO):
            j = i
    return nxt


class Assembly:
    __slots__ = ("recs", "text_before", "text_after", "stray_conf")

    def __init__(self):
        self.recs: list[Record] = []
        self.text_before = False
        self.text_after = False
        self.stray_conf = False


def assemble(lines: list[Line], numbered_list: bool = False) -> Assembly:
    out = Assembly()
    labels = [ln.kind for ln in lines if ln.kind in (ANS, CONF)]
    # Confidence consistently before its answer: CONFIDENCE, ANSWER, CONFIDENCE, ANSWER, ...
    swapped = (
        not numbered_list
        and len(labels) >= 2
        and len(labels) % 2 == 0
        and all(k == (CONF if i % 2 == 0 else ANS) for i, k in enumerate(labels))
    )
    nxt = _next_significant(lines)
    ans_numbers = {ln.num for ln in lines if ln.kind == ANS and ln.num is not None}
    cur: Record | None = None
    header: Line | None = None
    in_answer = False
    deco_after = False

    def close() -> None:
        nonlocal cur
        if cur is not None:
            cur.trailing.extend(cur.gap)
            cur.gap = []
            out.recs.append(cur)
        cur = None

    def add_text(text: str) -> None:
        if cur is None:
            out.text_before = True
        elif in_answer and (not cur.blank_seen or not "".join(cur.answer_lines).strip()):
            cur.answer_lines.append(text)
        elif in_answer:
            cur.gap.append(text)
        else:
            cur.trailing.append(text)

    def take_header(ln: Line) -> tuple[int | None, list[str]]:
        nonlocal header
        h, header = header, None
        if h is None:
            return ln.num, []
        if ln.num is not None and ln.num != h.num:
            add_text(h.raw)
            return ln.num, []
        extra = [EXTRA_TEXT] if h.rest.strip() else []
        issues = ([NUMBER_FORMAT] if ln.num is None else []) + h.issues + extra
        return h.num, issues

    for i, ln in enumerate(lines):
        kind = ln.kind
        if kind in (BLANK, DECO):
            if cur is not None and in_answer:
                cur.blank_seen = True
            if kind == DECO:
                # rules and fences count as text only before or after the block
                if cur is None and header is None:
                    out.text_before = True
                elif cur is not None:
                    deco_after = True
            continue
        deco_after = False
        if header is not None and kind != ANS and kind != CONF:
            add_text(header.raw)
            header = None
        if kind == NUM:
            if numbered_list:
                close()
                cur = Record(ln.num, [])
                cur.start_answer(ln.rest, ln.issues + [MISSING_ANSWER_LABEL])
                in_answer = True
                continue
            j = nxt[i]
            follow = lines[j] if j < len(lines) else None
            wanted = CONF if swapped else ANS
            if follow is not None and follow.kind == wanted and follow.num in (None, ln.num):
                header = ln
                continue
            if (
                cur is not None
                and cur.number is not None
                and ln.num == cur.number + 1
                and ln.num not in ans_numbers
                and ln.rest.strip()
                and (not in_answer or cur.blank_seen)
                and not cur.trailing
                and not cur.gap
            ):
                # "2. Paris" between labelled items 1 and 3: the next item, label forgotten
                close()
                cur = Record(ln.num, [])
                cur.start_answer(ln.rest, ln.issues + [MISSING_ANSWER_LABEL])
                in_answer = True
                continue
            kind = TEXT
        if kind in (TEXT, TABLE):
            add_text(ln.raw)
            continue
        if kind == ANS:
            if (
                swapped
                and cur is not None
                and not cur.has_answer
                and (ln.num is None or cur.number is None or ln.num == cur.number)
            ):
                if cur.number is None:
                    cur.number = ln.num
                cur.trailing.extend(cur.gap)
                cur.start_answer(ln.rest, ln.issues)
                in_answer = True
                continue
            num, hissues = take_header(ln)
            close()
            cur = Record(num, hissues)
            cur.start_answer(ln.rest, ln.issues)
            if swapped:
                cur.issues.append(CONFIDENCE_BEFORE_ANSWER)
            in_answer = True
            continue
        # kind == CONF
        if swapped:
            num, hissues = take_header(ln)
            close()
            cur = Record(num, hissues + [CONFIDENCE_BEFORE_ANSWER])
            cur.set_conf(ln)
            in_answer = False
            continue
        if header is not None:
            add_text(header.raw)
            header = None
        if cur is not None and (ln.num is None or cur.number is None or ln.num == cur.number):
            if cur.conf_raw is None and in_answer:
                # everything between the ANSWER line and its CONFIDENCE line is the answer
                cur.answer_lines.extend(cur.gap)
                cur.gap = []
            cur.set_conf(ln)
            in_answer = False
        else:
            out.stray_conf = True
    if header is not None:
        add_text(header.raw)
    if cur is not None:
        cur.trailing.extend(cur.gap)
        cur.gap = []
        out.recs.append(cur)
        if cur.trailing or deco_after:
            out.text_after = True
            cur.trailing = []
    return out
