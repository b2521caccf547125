"""Answer-sheet parser: a model's raw reply -> per-item answer, confidence and format issues.

The expected format (see docs/answer-format.md) is two lines per item and nothing else::

    1. ANSWER: 404
    CONFIDENCE: HIGH

This package is plain Python: the only Django import is ``gettext_lazy`` for the human labels of
the issue codes. Parsing is a view over the raw text, which is always stored elsewhere, so the
parser is free to be forgiving: it recovers what a careful human reader would recover, and
records every deviation as a named issue code so the scorer (and the compliance figure) can see
it. It never raises, whatever the input, and caps its work on huge input.

Public API: ``parse_sheet``, ``parse_single``, ``normalise_answer``, ``issue_label``,
``ParsedAnswer``, ``ParsedSheet``, the issue-code constants and ``ISSUE_LABELS``. Import them
from ``probe.sheetparser``; the modules below are the parser's stages and are internal to it:

- ``codes``: the version, the limits, the confidence levels, the issue codes and their labels;
- ``results``: ``ParsedAnswer`` and ``ParsedSheet``;
- ``text``: character-level helpers (full-width forms, markdown, ``normalise_answer``);
- ``lines``: the kind of each line (labels in English, full width or Japanese; numbers; tables);
- ``confidence``: a confidence value, on its own line or on the answer line;
- ``abstention``: UNKNOWN in other words (``I don't know``, ``分かりません``) and hedging;
- ``assemble``: lines grouped into item records;
- ``tables``: table-shaped sheets;
- ``answers``: an item record made into its ``ParsedAnswer``;
- ``parse``: the entry points, numbering and placing the records.
"""

from __future__ import annotations

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
    CONFIDENCE_BEFORE_ANSWER,
    CONFIDENCE_CASE,
    CONFIDENCE_INLINE,
    CONFIDENCE_LEVELS,
    CONFIDENCE_MAPPED,
    DUPLICATE_ANSWER,
    DUPLICATE_CONFIDENCE,
    DUPLICATE_NUMBER,
    EMPTY_REPLY,
    EXTRA_TEXT,
    FULLWIDTH,
    HEDGED,
    HIGH,
    INPUT_TRUNCATED,
    INVALID_CONFIDENCE,
    ISSUE_LABELS,
    ITEM_ISSUES,
    LABEL_CASE,
    LABEL_LANGUAGE,
    LABEL_SEPARATOR,
    LOW,
    MARKDOWN,
    MAX_INPUT_CHARS,
    MAX_ITEMS,
    MEDIUM,
    MINOR_ISSUES,
    MISSING,
    MISSING_ANSWER_LABEL,
    MISSING_CONFIDENCE,
    MISSING_NUMBER,
    MULTILINE_ANSWER,
    NO_ANSWERS_FOUND,
    NUMBER_FORMAT,
    NUMBER_OUT_OF_RANGE,
    OUT_OF_ORDER,
    PARSER_ERROR,
    PARSER_VERSION,
    SHEET_ISSUES,
    STRAY_CONFIDENCE,
    TABLE_FORMAT,
    TEXT_AFTER,
    TEXT_BEFORE,
    TOO_MANY_ITEMS,
    UNKNOWN,
    UNNUMBERED_IGNORED,
    WRONG_NUMBER,
    issue_label,
)
from .parse import parse_sheet, parse_single
from .results import ParsedAnswer, ParsedSheet, is_compliant
from .text import normalise_answer

__all__ = [
    "MINOR_ISSUES",
    "is_compliant",
    "ABSTAIN_CANNOT_ANSWER",
    "ABSTAIN_CASE",
    "ABSTAIN_DASH",
    "ABSTAIN_DONT_KNOW",
    "ABSTAIN_EMPTY",
    "ABSTAIN_NA",
    "ABSTAIN_NO_IDEA",
    "ABSTAIN_NOT_SURE",
    "ABSTAIN_WITH_COMMENT",
    "CONFIDENCE_BEFORE_ANSWER",
    "CONFIDENCE_CASE",
    "CONFIDENCE_INLINE",
    "CONFIDENCE_LEVELS",
    "CONFIDENCE_MAPPED",
    "DUPLICATE_ANSWER",
    "DUPLICATE_CONFIDENCE",
    "DUPLICATE_NUMBER",
    "EMPTY_REPLY",
    "EXTRA_TEXT",
    "FULLWIDTH",
    "HEDGED",
    "HIGH",
    "INPUT_TRUNCATED",
    "INVALID_CONFIDENCE",
    "ISSUE_LABELS",
    "ITEM_ISSUES",
    "LABEL_CASE",
    "LABEL_LANGUAGE",
    "LABEL_SEPARATOR",
    "LOW",
    "MARKDOWN",
    "MAX_INPUT_CHARS",
    "MAX_ITEMS",
    "MEDIUM",
    "MISSING",
    "MISSING_ANSWER_LABEL",
    "MISSING_CONFIDENCE",
    "MISSING_NUMBER",
    "MULTILINE_ANSWER",
    "NO_ANSWERS_FOUND",
    "NUMBER_FORMAT",
    "NUMBER_OUT_OF_RANGE",
    "OUT_OF_ORDER",
    "PARSER_ERROR",
    "PARSER_VERSION",
    "SHEET_ISSUES",
    "STRAY_CONFIDENCE",
    "TABLE_FORMAT",
    "TEXT_AFTER",
    "TEXT_BEFORE",
    "TOO_MANY_ITEMS",
    "UNKNOWN",
    "UNNUMBERED_IGNORED",
    "WRONG_NUMBER",
    "ParsedAnswer",
    "ParsedSheet",
    "issue_label",
    "normalise_answer",
    "parse_sheet",
    "parse_single",
]
