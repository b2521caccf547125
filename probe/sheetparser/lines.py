"""Line classification: each line of a reply is blank, decoration, an ANSWER or CONFIDENCE label
line (English, full-width or Japanese labels), a numbered line, a table row or plain text, with
the format issues its prefix shows."""

from __future__ import annotations

import re

from .codes import FULLWIDTH, LABEL_CASE, LABEL_LANGUAGE, LABEL_SEPARATOR, MARKDOWN, NUMBER_FORMAT
from .text import FW_TABLE, has_fullwidth

_E = r"[\s*_`~]*+"  # whitespace and emphasis noise between the parts of a label line
_LEAD = r"[ \t]*+(?:>[ \t]*+)*+(?:\#{1,6}[ \t]*+)?(?:[-+•·◦▪‣][ \t]++|\*[ \t]++)?"
# Japanese sheets number items as 問1, 問題1, 設問1 or 第1問 too (full-width digits are folded first).
_PREFIX_WORDS = r"(?:question|item|number|nr\.?|no\.?|q|\#|問題|設問|問|第)"


def _num_pattern(strict: bool) -> str:
    """An item number: Q1 / Item 1: / #1, (1), [1], 1. / 1) / 1: / 1 -. In a label line
    (strict=False) the plain number may also stand alone: "1 ANSWER: ..."."""
    plain_sep = r"(?:[.):]|[ \t]*+[-–—](?=\s))" + ("" if strict else "?")
    return (
        rf"(?:(?P<pre>{_PREFIX_WORDS})[ \t]*+(?P<a>\d{{1,6}})(?!\d)(?:問|題)?"
        rf"(?:[ \t]*+(?P<as>[.):]|[-–—](?=\s)))?"
        rf"|\((?P<b>\d{{1,6}})\)"
        rf"|\[(?P<c>\d{{1,6}})\]"
        rf"|(?P<d>\d{{1,6}})(?P<ds>{plain_sep})(?!\d))"
    )


_SEP = r"(?P<sep>:|=>?|[-–—]+>?|>)"
_AFTER_SEP = r"(?:[*_`~]++(?=\s|$))?\s*+"
_ANS_LABEL = r"(?P<label>answer|ans|回答|答え|解答)(?![a-z])"
_CONF_LABEL = r"(?P<label>confidence(?:[ \t]++level)?|確信度|自信度|信頼度|確信|自信)(?![a-z])"
_LABEL_NUM = r"(?:[ \t]*+\#?(?P<ln>\d{1,6})(?=[ \t]*+[*_`~]*+[ \t]*+[:=\-–—]))?"

_ANS_RE = re.compile(
    rf"^{_LEAD}{_E}(?:{_num_pattern(False)}{_E})?{_ANS_LABEL}{_LABEL_NUM}{_E}{_SEP}?"
    rf"{_AFTER_SEP}(?P<rest>.*)$",
    re.IGNORECASE | re.DOTALL,
)
_CONF_RE = re.compile(
    rf"^{_LEAD}{_E}(?:{_num_pattern(False)}{_E})?{_CONF_LABEL}{_LABEL_NUM}{_E}{_SEP}?"
    rf"{_AFTER_SEP}(?P<rest>.*)$",
    re.IGNORECASE | re.DOTALL,
)
_NUM_RE = re.compile(
    rf"^{_LEAD}{_E}{_num_pattern(True)}{_E}(?P<rest>.*)$",
    re.IGNORECASE | re.DOTALL,
)
_DECO_RE = re.compile(r"[-*_=#>`~|:+\s]+")
_BULLET_RE = re.compile(r"\s*[-+]\s")
_MD_CHARS_RE = re.compile(r"[*_`~>•·◦▪‣]|#(?![ \t]*+\d)")
LEVEL_WORD_START_RE = re.compile(r"[*_`~(\[\s]*+(?:high|medium|low|med|mid)(?![a-z])", re.I)

# The kinds of line: blank, decoration (a rule, a fence), an ANSWER label line, a CONFIDENCE label
# line, a numbered line without a label, a table row, anything else.
BLANK, DECO, ANS, CONF, NUM, TABLE, TEXT = range(7)

# A label starts within the first _LABEL_WINDOW characters of its line; a cheap substring test
# spares the label regexes on every other line.
_LABEL_WINDOW = 400
_LABEL_RULES = (
    (_ANS_RE, ANS, "ANSWER", re.compile("ans|回答|答え|解答", re.I)),
    (_CONF_RE, CONF, "CONFIDENCE", re.compile("confidence|確信|自信|信頼度", re.I)),
)


class Line:
    """One classified line of a reply."""

    __slots__ = ("kind", "raw", "num", "issues", "rest", "canon_num")

    def __init__(self, kind, raw, num=None, issues=(), rest="", canon_num=False):
        self.kind = kind
        self.raw = raw  # the original line, stripped
        self.num = num
        self.issues = list(issues)
        self.rest = rest  # original text after the label (or after the number)
        self.canon_num = canon_num


_BLANK_LINE = Line(BLANK, "")


def _number_of(m: re.Match) -> tuple[int | None, bool]:
    """(number, canonical "N." style) from a match of a _num_pattern."""
    for g in ("a", "b", "c", "d"):
        v = m.group(g)
        if v is not None:
            canonical = g == "d" and m.group("ds") == "."
            return int(v), canonical
    return None, False


def _prefix_issues(raw: str, trans: str, m: re.Match, label_canon: str | None) -> list[str]:
    issues: list[str] = []
    prefix_end = m.start("rest")
    prefix = trans[:prefix_end]
    if label_canon is not None:
        label = m.group("label")
        if not label.isascii():
            issues.append(LABEL_LANGUAGE)
        elif label != label_canon:
            issues.append(LABEL_CASE)
        sep = m.group("sep")
        if sep != ":":
            issues.append(LABEL_SEPARATOR)
    if label_canon is not None and m.group("sep") is not None:
        prefix = prefix[: m.start("sep")] + prefix[m.end("sep") :]
    if _MD_CHARS_RE.search(prefix) or _BULLET_RE.match(prefix):
        issues.append(MARKDOWN)
    if has_fullwidth(raw[:prefix_end]):
        issues.append(FULLWIDTH)
    return issues


def classify(raw_line: str) -> Line:
    if not raw_line or raw_line.isspace():
        return _BLANK_LINE
    raw = raw_line.strip()
    trans = raw.translate(FW_TABLE)
    if trans.startswith("|") and trans.count("|") >= 2:
        return Line(TABLE, raw)
    if len(trans) >= 3 and _DECO_RE.fullmatch(trans):
        # a rule (---, ***), a code fence (```), a heading or quote marker alone
        return Line(DECO, raw)
    head = trans[:_LABEL_WINDOW]
    for rx, kind, canon, hint in _LABEL_RULES:
        if not hint.search(head):
            continue
        m = rx.match(trans)
        if not m:
            continue
        num, canon_num = _number_of(m)
        issues = []
        if m.group("ln") is not None:
            if num is None:
                num = int(m.group("ln"))
            issues.append(NUMBER_FORMAT)
        elif num is not None and not canon_num:
            issues.append(NUMBER_FORMAT)
        rest = raw[m.start("rest") :]
        if m.group("sep") is None and num is None:
            # "Answer sheet below" / "Confidence varies": not a label line, unless a
            # confidence is directly followed by its level ("Confidence HIGH").
            if kind == ANS or not LEVEL_WORD_START_RE.match(m.group("rest")):
                continue
        issues[:0] = _prefix_issues(raw, trans, m, canon)
        # The canonical confidence line carries no number.
        if kind == CONF and num is not None and NUMBER_FORMAT not in issues:
            issues.append(NUMBER_FORMAT)
        return Line(kind, raw, num, issues, rest, canon_num)
    m = _NUM_RE.match(trans)
    if m:
        num, canon_num = _number_of(m)
        issues = []
        if not canon_num:
            issues.append(NUMBER_FORMAT)
        issues[:0] = _prefix_issues(raw, trans, m, None)
        return Line(NUM, raw, num, issues, raw[m.start("rest") :], canon_num)
    return Line(TEXT, raw)


def split_lines(text: str) -> list[str]:
    # splitlines also splits on \x0b, \x0c, \x1c-\x1e, \x85, \u2028, \u2029: all line breaks
    # a reader would see as such.
    return text.splitlines()
