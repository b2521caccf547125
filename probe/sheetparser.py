"""Answer-sheet parser: a model's raw reply -> per-item answer, confidence and format issues.

The expected format (see docs/answer-format.md) is two lines per item and nothing else::

    1. ANSWER: 404
    CONFIDENCE: HIGH

This module is plain Python: the only Django import is ``gettext_lazy`` for the human labels of
the issue codes. Parsing is a view over the raw text, which is always stored elsewhere, so the
parser is free to be forgiving: it recovers what a careful human reader would recover, and
records every deviation as a named issue code so the scorer (and the compliance figure) can see
it. It never raises, whatever the input, and caps its work on huge input.

Public API: ``parse_sheet``, ``parse_single``, ``normalise_answer``, ``ParsedAnswer``,
``ParsedSheet``, the issue-code constants and ``ISSUE_LABELS``.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import asdict, dataclass, field

from django.utils.translation import gettext_lazy as _

__all__ = [
    "CONFIDENCE_LEVELS",
    "ISSUE_LABELS",
    "ITEM_ISSUES",
    "MAX_INPUT_CHARS",
    "MAX_ITEMS",
    "PARSER_VERSION",
    "SHEET_ISSUES",
    "ParsedAnswer",
    "ParsedSheet",
    "issue_label",
    "normalise_answer",
    "parse_sheet",
    "parse_single",
]

#: Bump when a change to the parser can change its output for the same text, so stored parses
#: can be told apart from (and redone with) a newer parser.
PARSER_VERSION = 1

#: Only the first MAX_INPUT_CHARS characters of a reply are looked at.
MAX_INPUT_CHARS = 200_000

#: parse_sheet builds at most MAX_ITEMS answers (a probe has tens of items, not millions).
MAX_ITEMS = 100_000

HIGH, MEDIUM, LOW = "HIGH", "MEDIUM", "LOW"
CONFIDENCE_LEVELS = (HIGH, MEDIUM, LOW)
UNKNOWN = "UNKNOWN"

# --------------------------------------------------------------------------------------------
# Issue codes. Item issues go on a ParsedAnswer, sheet issues on a ParsedSheet (parse_single
# folds the sheet issues of its reply into the one answer).
# --------------------------------------------------------------------------------------------

# item: where the item is and how it is numbered / labelled
MISSING = "missing"
NUMBER_FORMAT = "number_format"
MISSING_NUMBER = "missing_number"
WRONG_NUMBER = "wrong_number"
LABEL_CASE = "label_case"
LABEL_SEPARATOR = "label_separator"
LABEL_LANGUAGE = "label_language"
MISSING_ANSWER_LABEL = "missing_answer_label"
TABLE_FORMAT = "table_format"
MARKDOWN = "markdown"
FULLWIDTH = "fullwidth"
# item: the answer
MULTILINE_ANSWER = "multiline_answer"
ABSTAIN_CASE = "abstain_case"
ABSTAIN_EMPTY = "abstain_empty"
ABSTAIN_DASH = "abstain_dash"
ABSTAIN_NA = "abstain_na"
ABSTAIN_DONT_KNOW = "abstain_dont_know"
ABSTAIN_NOT_SURE = "abstain_not_sure"
ABSTAIN_NO_IDEA = "abstain_no_idea"
ABSTAIN_CANNOT_ANSWER = "abstain_cannot_answer"
ABSTAIN_WITH_COMMENT = "abstain_with_comment"
HEDGED = "hedged"
# item: the confidence
MISSING_CONFIDENCE = "missing_confidence"
INVALID_CONFIDENCE = "invalid_confidence"
CONFIDENCE_CASE = "confidence_case"
CONFIDENCE_MAPPED = "confidence_mapped"
CONFIDENCE_INLINE = "confidence_inline"
CONFIDENCE_BEFORE_ANSWER = "confidence_before_answer"
DUPLICATE_CONFIDENCE = "duplicate_confidence"
# item: around the item
EXTRA_TEXT = "extra_text"
DUPLICATE_ANSWER = "duplicate_answer"

# sheet
EMPTY_REPLY = "empty_reply"
INPUT_TRUNCATED = "input_truncated"
TOO_MANY_ITEMS = "too_many_items"
NO_ANSWERS_FOUND = "no_answers_found"
TEXT_BEFORE = "text_before"
TEXT_AFTER = "text_after"
DUPLICATE_NUMBER = "duplicate_number"
OUT_OF_ORDER = "out_of_order"
NUMBER_OUT_OF_RANGE = "number_out_of_range"
UNNUMBERED_IGNORED = "unnumbered_ignored"
STRAY_CONFIDENCE = "stray_confidence"
PARSER_ERROR = "parser_error"

ISSUE_LABELS = {
    MISSING: _("Item missing from the reply"),
    NUMBER_FORMAT: _("Item number not written as “N.”"),
    MISSING_NUMBER: _("Answer without an item number (placed by order)"),
    WRONG_NUMBER: _("Reply carries a different item number"),
    LABEL_CASE: _("Label not written exactly as ANSWER / CONFIDENCE"),
    LABEL_SEPARATOR: _("Label not followed by a colon"),
    LABEL_LANGUAGE: _("Label not in English"),
    MISSING_ANSWER_LABEL: _("Answer without the ANSWER label"),
    TABLE_FORMAT: _("Answer given in a table"),
    MARKDOWN: _("Markdown formatting"),
    FULLWIDTH: _("Full-width characters in the format"),
    MULTILINE_ANSWER: _("Answer spread over several lines"),
    ABSTAIN_CASE: _("UNKNOWN not in capitals"),
    ABSTAIN_EMPTY: _("Empty answer (taken as UNKNOWN)"),
    ABSTAIN_DASH: _("Dash or punctuation only (taken as UNKNOWN)"),
    ABSTAIN_NA: _("“N/A” (taken as UNKNOWN)"),
    ABSTAIN_DONT_KNOW: _("“I don’t know” (taken as UNKNOWN)"),
    ABSTAIN_NOT_SURE: _("“Not sure” (taken as UNKNOWN)"),
    ABSTAIN_NO_IDEA: _("“No idea” (taken as UNKNOWN)"),
    ABSTAIN_CANNOT_ANSWER: _("“Cannot answer” (taken as UNKNOWN)"),
    ABSTAIN_WITH_COMMENT: _("UNKNOWN followed by a comment"),
    HEDGED: _("Hedged answer: choose the bucket by hand"),
    MISSING_CONFIDENCE: _("Confidence missing"),
    INVALID_CONFIDENCE: _("Confidence not HIGH, MEDIUM or LOW"),
    CONFIDENCE_CASE: _("Confidence not in capitals"),
    CONFIDENCE_MAPPED: _("Non-standard confidence wording mapped to a level"),
    CONFIDENCE_INLINE: _("Confidence on the answer line"),
    CONFIDENCE_BEFORE_ANSWER: _("Confidence written before the answer"),
    DUPLICATE_CONFIDENCE: _("More than one confidence (the first was kept)"),
    EXTRA_TEXT: _("Extra text with the item"),
    DUPLICATE_ANSWER: _("More than one answer (the first was kept)"),
    EMPTY_REPLY: _("Empty reply"),
    INPUT_TRUNCATED: _("Reply too long: only its beginning was read"),
    TOO_MANY_ITEMS: _("Too many items requested: list capped"),
    NO_ANSWERS_FOUND: _("No answers found in the reply"),
    TEXT_BEFORE: _("Text before the answers"),
    TEXT_AFTER: _("Text after the answers"),
    DUPLICATE_NUMBER: _("Item number used more than once"),
    OUT_OF_ORDER: _("Items out of order"),
    NUMBER_OUT_OF_RANGE: _("Item number out of range (ignored)"),
    UNNUMBERED_IGNORED: _("Unnumbered answer that could not be placed (ignored)"),
    STRAY_CONFIDENCE: _("Confidence line not attached to any answer"),
    PARSER_ERROR: _("Parser error: check the raw reply"),
}

SHEET_ISSUES = frozenset(
    {
        EMPTY_REPLY,
        INPUT_TRUNCATED,
        TOO_MANY_ITEMS,
        NO_ANSWERS_FOUND,
        TEXT_BEFORE,
        TEXT_AFTER,
        DUPLICATE_NUMBER,
        OUT_OF_ORDER,
        NUMBER_OUT_OF_RANGE,
        UNNUMBERED_IGNORED,
        STRAY_CONFIDENCE,
        PARSER_ERROR,
        MARKDOWN,
    }
)
# Markdown is a sheet's note in a whole sheet (it does not change how any answer reads), and an
# item's issue in a one-item reply, which is a sheet of its own.
ITEM_ISSUES = frozenset(set(ISSUE_LABELS) - SHEET_ISSUES) | {PARSER_ERROR, MARKDOWN}


def issue_label(code: str) -> str:
    """The translated human label of an issue code (the code itself if unknown)."""
    label = ISSUE_LABELS.get(code)
    return str(label) if label is not None else str(code)


# --------------------------------------------------------------------------------------------
# Results
# --------------------------------------------------------------------------------------------


@dataclass
class ParsedAnswer:
    """One item's parsed answer. ``answer`` is None only when the item is missing."""

    number: int
    answer: str | None = None
    confidence: str | None = None
    abstained: bool = False
    issues: list[str] = field(default_factory=list)
    hedged: bool = False

    @property
    def missing(self) -> bool:
        return self.answer is None

    @property
    def compliant(self) -> bool:
        return not self.issues

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class ParsedSheet:
    """A whole sheet: exactly one ParsedAnswer per item, index i is item i + 1."""

    answers: list[ParsedAnswer]
    sheet_issues: list[str] = field(default_factory=list)

    @property
    def compliance(self) -> float:
        """Fraction of the items whose ``issues`` list is empty (1.0 for a sheet of no items).

        Item issues only: sheet issues (a preamble, a summary after the block, items out of order)
        do not lower it, because they do not make any one answer harder to read. A missing,
        hedged or abstained-by-synonym item counts as not compliant; an exact ``UNKNOWN`` is
        compliant.
        """
        if not self.answers:
            return 1.0
        return sum(1 for a in self.answers if not a.issues) / len(self.answers)

    @property
    def issue_counts(self) -> dict[str, int]:
        """Code -> count: for item codes, the number of items carrying it; each sheet issue
        counts once."""
        counts: Counter[str] = Counter()
        for a in self.answers:
            counts.update(a.issues)
        counts.update(self.sheet_issues)
        return dict(counts)

    def to_dict(self) -> dict:
        return {
            "answers": [a.to_dict() for a in self.answers],
            "sheet_issues": list(self.sheet_issues),
            "compliance": self.compliance,
        }


# --------------------------------------------------------------------------------------------
# Character-level helpers
# --------------------------------------------------------------------------------------------

# Full-width ASCII (U+FF01..U+FF5E) -> ASCII, and the small colon. One character for one, so
# offsets found on the translated line are valid on the original line.
_FW_TABLE = {cp: cp - 0xFEE0 for cp in range(0xFF01, 0xFF5F)}
_FW_TABLE[0xFE55] = ord(":")


def _has_fullwidth(s: str) -> bool:
    if s.isascii():
        return False
    return any("\uff01" <= ch <= "\uff5e" or ch == "\ufe55" for ch in s)


_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'", "`": "'"})

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


def _strip_markdown(s: str) -> str:
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


def _strip_trailing_noise(s: str) -> str:
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
        s = _strip_markdown(s)
        s = s.casefold().translate(_APOSTROPHES)
        for _i in range(10):
            before = s
            s = s.rstrip(_TRAIL_PUNCT).lstrip(_LEAD_PUNCT)
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


# --------------------------------------------------------------------------------------------
# Line classification
# --------------------------------------------------------------------------------------------

_E = r"[\s*_`~]*+"  # whitespace and emphasis noise between the parts of a label line
_LEAD = r"[ \t]*+(?:>[ \t]*+)*+(?:\#{1,6}[ \t]*+)?(?:[-+•·◦▪‣][ \t]++|\*[ \t]++)?"
_PREFIX_WORDS = r"(?:question|item|number|nr\.?|no\.?|q|\#)"


def _num_pattern(strict: bool) -> str:
    """An item number: Q1 / Item 1: / #1, (1), [1], 1. / 1) / 1: / 1 -. In a label line
    (strict=False) the plain number may also stand alone: "1 ANSWER: ..."."""
    plain_sep = r"(?:[.):]|[ \t]*+[-–—](?=\s))" + ("" if strict else "?")
    return (
        rf"(?:(?P<pre>{_PREFIX_WORDS})[ \t]*+(?P<a>\d{{1,6}})(?!\d)"
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
_LEVEL_WORD_START_RE = re.compile(r"[*_`~(\[\s]*+(?:high|medium|low|med|mid)(?![a-z])", re.I)

_BLANK, _DECO, _ANS, _CONF, _NUM, _TABLE, _TEXT = range(7)

# A label starts within the first _LABEL_WINDOW characters of its line; a cheap substring test
# spares the label regexes on every other line.
_LABEL_WINDOW = 400
_LABEL_RULES = (
    (_ANS_RE, _ANS, "ANSWER", re.compile("ans|回答|答え|解答", re.I)),
    (_CONF_RE, _CONF, "CONFIDENCE", re.compile("confidence|確信|自信|信頼度", re.I)),
)


class _Line:
    __slots__ = ("kind", "raw", "num", "issues", "rest", "canon_num")

    def __init__(self, kind, raw, num=None, issues=(), rest="", canon_num=False):
        self.kind = kind
        self.raw = raw  # the original line, stripped
        self.num = num
        self.issues = list(issues)
        self.rest = rest  # original text after the label (or after the number)
        self.canon_num = canon_num


_BLANK_LINE = _Line(_BLANK, "")


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
    if _has_fullwidth(raw[:prefix_end]):
        issues.append(FULLWIDTH)
    return issues


def _classify(raw_line: str) -> _Line:
    if not raw_line or raw_line.isspace():
        return _BLANK_LINE
    raw = raw_line.strip()
    trans = raw.translate(_FW_TABLE)
    if trans.startswith("|") and trans.count("|") >= 2:
        return _Line(_TABLE, raw)
    if len(trans) >= 3 and _DECO_RE.fullmatch(trans):
        # a rule (---, ***), a code fence (```), a heading or quote marker alone
        return _Line(_DECO, raw)
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
            if kind == _ANS or not _LEVEL_WORD_START_RE.match(m.group("rest")):
                continue
        issues[:0] = _prefix_issues(raw, trans, m, canon)
        # The canonical confidence line carries no number.
        if kind == _CONF and num is not None and NUMBER_FORMAT not in issues:
            issues.append(NUMBER_FORMAT)
        return _Line(kind, raw, num, issues, rest, canon_num)
    m = _NUM_RE.match(trans)
    if m:
        num, canon_num = _number_of(m)
        issues = []
        if not canon_num:
            issues.append(NUMBER_FORMAT)
        issues[:0] = _prefix_issues(raw, trans, m, None)
        return _Line(_NUM, raw, num, issues, raw[m.start("rest") :], canon_num)
    return _Line(_TEXT, raw)


def _split_lines(text: str) -> list[str]:
    # splitlines also splits on \x0b, \x0c, \x1c-\x1e, \x85, \u2028, \u2029: all line breaks
    # a reader would see as such.
    return text.splitlines()


# --------------------------------------------------------------------------------------------
# Confidence values
# --------------------------------------------------------------------------------------------

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


def _parse_confidence(raw: str) -> tuple[str | None, list[str]]:
    """A confidence value -> (level or None, issues)."""
    issues: list[str] = []
    s = raw.translate(_FW_TABLE).strip()
    if _has_fullwidth(raw):
        issues.append(FULLWIDTH)
    stripped = _strip_markdown(s)
    if stripped != s:
        issues.append(MARKDOWN)
    s = stripped.strip().strip("()[]{}\"'“”").strip()
    s = s.rstrip(" .,;:!。、").strip()
    s = _strip_markdown(s)
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


def _inline_confidence(ans: str, allow_weak: bool) -> tuple[str, str | None]:
    """Split "404 (CONFIDENCE: HIGH)" into ("404", "HIGH"). Returns (answer, raw value|None)."""
    trans = ans.translate(_FW_TABLE)
    last = None
    for m in _CONF_WORD_RE.finditer(trans):
        last = m
    if last is not None and len(trans) - last.end() <= _TAIL:
        after = _INLINE_AFTER_RE.match(trans, last.end())
        val = after.group("val").strip().rstrip(")]}*_`~ .").strip() if after else ""
        if after and val and (after.group("sep") or _LEVEL_WORD_START_RE.match(val)):
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


# --------------------------------------------------------------------------------------------
# Answers: abstention and hedging
# --------------------------------------------------------------------------------------------

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


def _abstention(answer: str) -> tuple[bool, str | None]:
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
        if _strip_markdown(nfkc).strip() == UNKNOWN:
            return True, MARKDOWN
        return True, ABSTAIN_CASE
    code = _ABSTAIN_SYNONYMS.get(key)
    if code is not None:
        return True, code
    trans = answer.translate(_FW_TABLE)
    m = _UNKNOWN_COMMENT_RE.match(_strip_markdown(trans))
    if m and trans.lstrip("*_` ")[:7].upper() == UNKNOWN:
        return True, ABSTAIN_WITH_COMMENT
    return False, None


def _is_hedged(answer: str) -> bool:
    s = answer[:4000].translate(_APOSTROPHES)
    if _HEDGE_RE.search(s):
        return True
    if s.rstrip(" \t)]}*_`'\"”」.").endswith(("?", "？")):
        return True
    m = _EITHER_RE.search(s)
    return bool(m and _OR_RE.search(s, m.end()))


# --------------------------------------------------------------------------------------------
# Assembling lines into item records
# --------------------------------------------------------------------------------------------


class _Rec:
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

    def set_conf(self, ln: _Line) -> None:
        if self.conf_raw is not None:
            self.issues.append(DUPLICATE_CONFIDENCE)
            return
        self.conf_raw = ln.rest
        self.conf_issues = list(ln.issues)


def _next_significant(lines: list[_Line]) -> list[int]:
    nxt = [len(lines)] * len(lines)
    j = len(lines)
    for i in range(len(lines) - 1, -1, -1):
        nxt[i] = j
        if lines[i].kind not in (_BLANK, _DECO):
            j = i
    return nxt


class _Assembly:
    __slots__ = ("recs", "text_before", "text_after", "stray_conf")

    def __init__(self):
        self.recs: list[_Rec] = []
        self.text_before = False
        self.text_after = False
        self.stray_conf = False


def _assemble(lines: list[_Line], numbered_list: bool = False) -> _Assembly:
    out = _Assembly()
    labels = [ln.kind for ln in lines if ln.kind in (_ANS, _CONF)]
    # Confidence consistently before its answer: CONFIDENCE, ANSWER, CONFIDENCE, ANSWER, ...
    swapped = (
        not numbered_list
        and len(labels) >= 2
        and len(labels) % 2 == 0
        and all(k == (_CONF if i % 2 == 0 else _ANS) for i, k in enumerate(labels))
    )
    nxt = _next_significant(lines)
    ans_numbers = {ln.num for ln in lines if ln.kind == _ANS and ln.num is not None}
    cur: _Rec | None = None
    header: _Line | None = None
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

    def take_header(ln: _Line) -> tuple[int | None, list[str]]:
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
        if kind in (_BLANK, _DECO):
            if cur is not None and in_answer:
                cur.blank_seen = True
            if kind == _DECO:
                # rules and fences count as text only before or after the block
                if cur is None and header is None:
                    out.text_before = True
                elif cur is not None:
                    deco_after = True
            continue
        deco_after = False
        if header is not None and kind != _ANS and kind != _CONF:
            add_text(header.raw)
            header = None
        if kind == _NUM:
            if numbered_list:
                close()
                cur = _Rec(ln.num, [])
                cur.start_answer(ln.rest, ln.issues + [MISSING_ANSWER_LABEL])
                in_answer = True
                continue
            j = nxt[i]
            follow = lines[j] if j < len(lines) else None
            wanted = _CONF if swapped else _ANS
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
                cur = _Rec(ln.num, [])
                cur.start_answer(ln.rest, ln.issues + [MISSING_ANSWER_LABEL])
                in_answer = True
                continue
            kind = _TEXT
        if kind in (_TEXT, _TABLE):
            add_text(ln.raw)
            continue
        if kind == _ANS:
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
            cur = _Rec(num, hissues)
            cur.start_answer(ln.rest, ln.issues)
            if swapped:
                cur.issues.append(CONFIDENCE_BEFORE_ANSWER)
            in_answer = True
            continue
        # kind == _CONF
        if swapped:
            num, hissues = take_header(ln)
            close()
            cur = _Rec(num, hissues + [CONFIDENCE_BEFORE_ANSWER])
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


# Tables: | 1 | 404 | HIGH |
_CELL_NUM_RE = re.compile(
    r"^[\s*_`~]*+(?:question|item|no\.?|q|\#)?[ \t]*+(\d{1,6})[.):]?[\s*_`~]*+$", re.I
)


def _cells(raw: str) -> list[str]:
    s = raw.strip().translate(_FW_TABLE)
    orig = raw.strip()
    if s.startswith("|"):
        s, orig = s[1:], orig[1:]
    if s.endswith("|"):
        s, orig = s[:-1], orig[:-1]
    cells, pos = [], 0
    for part in s.split("|"):
        cells.append(orig[pos : pos + len(part)].strip())
        pos += len(part) + 1
    return cells


_SEPARATOR_CELL_RE = re.compile(r":?-+:?")


def _is_separator_row(cells: list[str]) -> bool:
    return bool(cells) and all(_SEPARATOR_CELL_RE.fullmatch(c.strip()) for c in cells)


def _assemble_table(lines: list[_Line]) -> _Assembly:
    out = _Assembly()
    idx = [i for i, ln in enumerate(lines) if ln.kind == _TABLE]
    if not idx:
        return out
    cols: dict[str, int] | None = None
    first_row, last_row = idx[0], idx[-1]
    for pos, i in enumerate(idx):
        cells = _cells(lines[i].raw)
        if _is_separator_row(cells):
            continue
        folded = [normalise_answer(c) for c in cells]
        is_header = any("answer" in c or "回答" in c for c in folded) or (
            pos + 1 < len(idx)
            and idx[pos + 1] == i + 1
            and _is_separator_row(_cells(lines[i + 1].raw))
            and not _CELL_NUM_RE.match(cells[0].translate(_FW_TABLE) if cells else "")
        )
        if is_header:
            cols = {}
            for k, c in enumerate(folded):
                if "answer" in c or "回答" in c:
                    cols.setdefault("answer", k)
                elif "confidence" in c or "確信" in c or "自信" in c:
                    cols.setdefault("confidence", k)
                elif c in ("#", "no", "n", "nr", "item", "q", "number", "id", "question #"):
                    cols.setdefault("number", k)
            continue
        num_col = (cols or {}).get("number", 0)
        if num_col >= len(cells):
            continue
        m = _CELL_NUM_RE.match(cells[num_col].translate(_FW_TABLE))
        if not m:
            continue
        if cols and "answer" in cols:
            ans_col = cols["answer"]
            conf_col = cols.get("confidence")
        else:
            rest = [k for k in range(len(cells)) if k != num_col]
            if not rest:
                continue
            last = rest[-1]
            if len(rest) >= 2 and _parse_confidence(cells[last])[0] is not None:
                conf_col, ans_col = last, rest[-2]
            else:
                conf_col, ans_col = None, rest[0]
        rec = _Rec(int(m.group(1)), [TABLE_FORMAT])
        rec.start_answer(cells[ans_col] if ans_col < len(cells) else "", [])
        if conf_col is not None and conf_col < len(cells):
            rec.conf_raw = cells[conf_col]
        out.recs.append(rec)
    if out.recs:
        for i, ln in enumerate(lines):
            if ln.kind in (_BLANK, _DECO, _TABLE) or first_row <= i <= last_row:
                continue
            if i < first_row:
                out.text_before = True
            else:
                out.text_after = True
    return out


# --------------------------------------------------------------------------------------------
# From a record to a ParsedAnswer
# --------------------------------------------------------------------------------------------


def _dedupe(codes: list[str]) -> list[str]:
    return list(dict.fromkeys(codes))


def _finish(rec: _Rec, number: int) -> ParsedAnswer:
    issues = list(rec.issues)
    if not rec.has_answer:
        conf, cissues = (None, [])
        if rec.conf_raw is not None:
            conf, cissues = _parse_confidence(rec.conf_raw)
        return ParsedAnswer(
            number=number,
            answer=None,
            confidence=conf,
            abstained=False,
            issues=_dedupe([MISSING] + issues + rec.conf_issues + cissues),
        )
    parts = [p.strip() for p in rec.answer_lines if p and p.strip()]
    if len(parts) > 1 or (parts and not (rec.answer_lines[0] or "").strip()):
        issues.append(MULTILINE_ANSWER)
    raw = " ".join(parts)
    raw = " ".join(raw.split()) if len(raw) < MAX_INPUT_CHARS else raw
    answer = _strip_markdown(raw)
    if answer != raw:
        issues.append(MARKDOWN)
    answer, inline = _inline_confidence(answer, allow_weak=rec.conf_raw is None)
    if inline is not None:
        issues.append(CONFIDENCE_INLINE)
        stripped = _strip_markdown(answer)
        if stripped != answer:
            issues.append(MARKDOWN)
            answer = stripped
    before_noise = answer
    answer = _strip_trailing_noise(answer)
    abstained, code = _abstention(answer)
    if code == ABSTAIN_EMPTY and before_noise.strip():
        code = ABSTAIN_DASH  # "...", "…": punctuation only
    hedged = False
    if abstained:
        if code is not None:
            issues.append(code)
        if code == ABSTAIN_WITH_COMMENT:
            # keep "UNKNOWN (possibly 1945)" as written: the comment may carry a guess
            if _is_hedged(answer):
                hedged = True
                issues.append(HEDGED)
        else:
            answer = UNKNOWN
    elif _is_hedged(answer):
        hedged = True
        issues.append(HEDGED)
    if rec.conf_raw is not None:
        conf, cissues = _parse_confidence(rec.conf_raw)
        issues.extend(rec.conf_issues)
        issues.extend(cissues)
    elif inline is not None:
        conf, cissues = _parse_confidence(inline)
        issues.extend(cissues)
    else:
        conf = None
        issues.append(MISSING_CONFIDENCE)
    if rec.trailing:
        issues.append(EXTRA_TEXT)
    if rec.duplicates:
        issues.append(DUPLICATE_ANSWER)
    return ParsedAnswer(
        number=number,
        answer=answer,
        confidence=conf,
        abstained=abstained,
        issues=_dedupe(issues),
        hedged=hedged,
    )


def _missing(number: int) -> ParsedAnswer:
    return ParsedAnswer(
        number=number, answer=None, confidence=None, abstained=False, issues=[MISSING]
    )


# --------------------------------------------------------------------------------------------
# Entry points
# --------------------------------------------------------------------------------------------


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
            answers=[_missing(i) for i in range(1, n + 1)],
            sheet_issues=_dedupe(sheet_issues + [PARSER_ERROR]),
        )


def _parse_sheet(text, n: int, sheet_issues: list[str]) -> ParsedSheet:
    text, prep_issues = _prepare(text)
    sheet_issues.extend(prep_issues)
    lines = [_classify(ln) for ln in _split_lines(text)]
    asm = _assemble(lines)
    if not any(r.has_answer for r in asm.recs):
        kinds = {ln.kind for ln in lines}
        table = _assemble_table(lines) if _TABLE in kinds else None
        if table is not None and table.recs:
            asm = table
        elif _NUM in kinds:
            listed = _assemble(lines, numbered_list=True)
            if listed.recs:
                asm = listed
    if not any(r.has_answer for r in asm.recs) and EMPTY_REPLY not in sheet_issues:
        sheet_issues.append(NO_ANSWERS_FOUND)
        asm.text_before = asm.text_after = False
    if asm.text_before:
        sheet_issues.append(TEXT_BEFORE)

    # Number the unnumbered by order: previous record's number + 1, unless that number is
    # claimed explicitly by another record.
    explicit = {r.number for r in asm.recs if r.number is not None}
    prev = 0
    placed: list[_Rec] = []
    for r in asm.recs:
        if r.number is None:
            cand = prev + 1
            if cand in explicit:
                sheet_issues.append(UNNUMBERED_IGNORED)
                continue
            r.number = cand
            r.issues.insert(0, MISSING_NUMBER)
        prev = r.number
        placed.append(r)

    kept: dict[int, _Rec] = {}
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

    if asm.text_after:
        sheet_issues.append(TEXT_AFTER)
    if asm.stray_conf:
        sheet_issues.append(STRAY_CONFIDENCE)
    answers = [_finish(kept[i], i) if i in kept else _missing(i) for i in range(1, n + 1)]
    # Markdown emphasis (around the labels, or the answer) changes how no answer reads: one note
    # for the sheet, not an issue on every item of a reply written in markdown.
    for a in answers:
        if MARKDOWN in a.issues:
            a.issues.remove(MARKDOWN)
            sheet_issues.append(MARKDOWN)
    return ParsedSheet(answers=answers, sheet_issues=_dedupe(sheet_issues))


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
    lines = [_classify(ln) for ln in _split_lines(text)]
    asm = _assemble(lines)
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
        result = _finish(chosen, number)
        result.issues = _dedupe(result.issues + extra)
        return result
    # No ANSWER label: a short reply is the answer itself.
    body = [ln for ln in lines if ln.kind not in (_CONF, _BLANK, _DECO)]
    confs = [ln for ln in lines if ln.kind == _CONF]
    first = next((i for i, ln in enumerate(lines) if ln.kind not in (_BLANK, _DECO)), None)
    last = max((i for i, ln in enumerate(lines) if ln.kind not in (_BLANK, _DECO)), default=-1)
    one_paragraph = first is not None and all(
        lines[i].kind != _BLANK for i in range(first, last + 1)
    )
    if body and len(body) <= 3 and one_paragraph:
        rec = _Rec(None, [MISSING_ANSWER_LABEL])
        rest = body[0].rest if body[0].kind == _NUM else body[0].raw
        if body[0].kind == _NUM and body[0].num != number:
            rec.issues.append(WRONG_NUMBER)
        rec.start_answer(rest, [])
        rec.answer_lines.extend(ln.raw for ln in body[1:])
        for c in confs:
            rec.set_conf(c)
        result = _finish(rec, number)
    else:
        result = _missing(number)
        if EMPTY_REPLY not in extra:
            extra.append(NO_ANSWERS_FOUND)
        if confs:
            result.confidence, cissues = _parse_confidence(confs[0].rest)
    result.issues = _dedupe(result.issues + extra)
    return result
