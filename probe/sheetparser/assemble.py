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
    """One item as read so far: its number, answer lines, confidence and what came with them."""

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
    """The records of a reply, and what the sheet showed around them."""

    __slots__ = ("recs", "text_before", "text_after", "stray_conf")

    def __init__(self):
        self.recs: list[Record] = []
        self.text_before = False
        self.text_after = False
        self.stray_conf = False


def _is_swapped(lines: list[Line], numbered_list: bool) -> bool:
    """Confidence consistently before its answer: CONFIDENCE, ANSWER, CONFIDENCE, ANSWER, ..."""
    labels = [ln.kind for ln in lines if ln.kind in (ANS, CONF)]
    return (
        not numbered_list
        and len(labels) >= 2
        and len(labels) % 2 == 0
        and all(k == (CONF if i % 2 == 0 else ANS) for i, k in enumerate(labels))
    )


def _same_item(ln: Line, rec: Record) -> bool:
    """A label line without a number, or with the record's own, belongs to the record."""
    return ln.num is None or rec.number is None or ln.num == rec.number


class _Assembler:
    """One pass over the lines, keeping the record being read (``cur``), a number line waiting
    for its label line (``header``) and whether text still belongs to the answer."""

    def __init__(self, lines: list[Line], numbered_list: bool):
        self.lines = lines
        self.numbered_list = numbered_list
        self.out = Assembly()
        self.swapped = _is_swapped(lines, numbered_list)
        self.nxt = _next_significant(lines)
        self.ans_numbers = {ln.num for ln in lines if ln.kind == ANS and ln.num is not None}
        self.cur: Record | None = None
        self.header: Line | None = None
        self.in_answer = False
        self.deco_after = False

    def run(self) -> Assembly:
        for i, ln in enumerate(self.lines):
            kind = ln.kind
            if kind in (BLANK, DECO):
                self.spacer(kind)
                continue
            self.deco_after = False
            if self.header is not None and kind != ANS and kind != CONF:
                self.flush_header()
            if kind == NUM:
                if self.number_line(i, ln):
                    continue
                kind = TEXT
            if kind in (TEXT, TABLE):
                self.add_text(ln.raw)
            elif kind == ANS:
                self.answer_line(ln)
            elif self.swapped:
                self.confidence_first(ln)
            else:
                self.confidence_line(ln)
        return self.end()

    def close(self) -> None:
        cur = self.cur
        if cur is not None:
            cur.trailing.extend(cur.gap)
            cur.gap = []
            self.out.recs.append(cur)
        self.cur = None

    def add_text(self, text: str) -> None:
        cur = self.cur
        if cur is None:
            self.out.text_before = True
        elif self.in_answer and (not cur.blank_seen or not "".join(cur.answer_lines).strip()):
            cur.answer_lines.append(text)
        elif self.in_answer:
            cur.gap.append(text)
        else:
            cur.trailing.append(text)

    def flush_header(self) -> None:
        """The waiting number line was text after all."""
        self.add_text(self.header.raw)
        self.header = None

    def take_header(self, ln: Line) -> tuple[int | None, list[str]]:
        h, self.header = self.header, None
        if h is None:
            return ln.num, []
        if ln.num is not None and ln.num != h.num:
            self.add_text(h.raw)
            return ln.num, []
        extra = [EXTRA_TEXT] if h.rest.strip() else []
        issues = ([NUMBER_FORMAT] if ln.num is None else []) + h.issues + extra
        return h.num, issues

    def spacer(self, kind: int) -> None:
        cur = self.cur
        if cur is not None and self.in_answer:
            cur.blank_seen = True
        if kind == DECO:
            # rules and fences count as text only before or after the block
            if cur is None and self.header is None:
                self.out.text_before = True
            elif cur is not None:
                self.deco_after = True

    def open_unlabelled(self, ln: Line) -> None:
        self.close()
        self.cur = Record(ln.num, [])
        self.cur.start_answer(ln.rest, ln.issues + [MISSING_ANSWER_LABEL])
        self.in_answer = True

    def number_line(self, i: int, ln: Line) -> bool:
        """Take a numbered line without a label; False when it is only text."""
        if self.numbered_list:
            self.open_unlabelled(ln)
            return True
        j = self.nxt[i]
        follow = self.lines[j] if j < len(self.lines) else None
        wanted = CONF if self.swapped else ANS
        if follow is not None and follow.kind == wanted and follow.num in (None, ln.num):
            self.header = ln
            return True
        if self.forgot_label(ln):
            # "2. Paris" between labelled items 1 and 3: the next item, label forgotten
            self.open_unlabelled(ln)
            return True
        return False

    def forgot_label(self, ln: Line) -> bool:
        cur = self.cur
        return (
            cur is not None
            and cur.number is not None
            and ln.num == cur.number + 1
            and ln.num not in self.ans_numbers
            and bool(ln.rest.strip())
            and (not self.in_answer or cur.blank_seen)
            and not cur.trailing
            and not cur.gap
        )

    def answer_line(self, ln: Line) -> None:
        cur = self.cur
        if self.swapped and cur is not None and not cur.has_answer and _same_item(ln, cur):
            if cur.number is None:
                cur.number = ln.num
            cur.trailing.extend(cur.gap)
            cur.start_answer(ln.rest, ln.issues)
            self.in_answer = True
            return
        num, hissues = self.take_header(ln)
        self.close()
        self.cur = Record(num, hissues)
        self.cur.start_answer(ln.rest, ln.issues)
        if self.swapped:
            self.cur.issues.append(CONFIDENCE_BEFORE_ANSWER)
        self.in_answer = True

    def confidence_first(self, ln: Line) -> None:
        """A CONFIDENCE line opening an item on a sheet that puts it before the answer."""
        num, hissues = self.take_header(ln)
        self.close()
        self.cur = Record(num, hissues + [CONFIDENCE_BEFORE_ANSWER])
        self.cur.set_conf(ln)
        self.in_answer = False

    def confidence_line(self, ln: Line) -> None:
        if self.header is not None:
            self.flush_header()
        cur = self.cur
        if cur is not None and _same_item(ln, cur):
            if cur.conf_raw is None and self.in_answer:
                # everything between the ANSWER line and its CONFIDENCE line is the answer
                cur.answer_lines.extend(cur.gap)
                cur.gap = []
            cur.set_conf(ln)
            self.in_answer = False
        else:
            self.out.stray_conf = True

    def end(self) -> Assembly:
        out = self.out
        if self.header is not None:
            self.add_text(self.header.raw)
        cur = self.cur
        if cur is not None:
            cur.trailing.extend(cur.gap)
            cur.gap = []
            out.recs.append(cur)
            if cur.trailing or self.deco_after:
                out.text_after = True
                cur.trailing = []
        return out


def assemble(lines: list[Line], numbered_list: bool = False) -> Assembly:
    """Group classified lines into item records (``numbered_list``: every numbered line is an
    answer without its label)."""
    return _Assembler(lines, numbered_list).run()
