"""The parser's constants: its version, its limits, the confidence levels and the issue codes
with their human labels.

Item issues go on a ParsedAnswer, sheet issues on a ParsedSheet (parse_single folds the sheet
issues of its reply into the one answer).
"""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

#: Bump when a change to the parser can change its output for the same text, so stored parses
#: can be told apart from (and redone with) a newer parser.
PARSER_VERSION = 2

#: Only the first MAX_INPUT_CHARS characters of a reply are looked at.
MAX_INPUT_CHARS = 200_000

#: parse_sheet builds at most MAX_ITEMS answers (a probe has tens of items, not millions).
MAX_ITEMS = 100_000

HIGH, MEDIUM, LOW = "HIGH", "MEDIUM", "LOW"
CONFIDENCE_LEVELS = (HIGH, MEDIUM, LOW)
UNKNOWN = "UNKNOWN"

# Issue codes

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

#: Deviations that change nothing about how an answer reads: the parser records them by name
#: (the report lists them), but an answer carrying only these still counts as compliant. A
#: Japanese keyboard writes ＡＮＳＷＥＲ：１ as naturally as ANSWER: 1, and the label is as
#: unambiguous either way.
MINOR_ISSUES = frozenset({FULLWIDTH})

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
    FULLWIDTH: _("Full-width characters in the format (minor: read as written, still compliant)"),
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
