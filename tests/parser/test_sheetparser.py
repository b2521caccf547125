"""Tests of the answer-sheet parser (probe/sheetparser.py): no database, no Django settings needed."""

import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from probe import sheetparser as sp
from probe.sheetparser import (
    HIGH,
    ISSUE_LABELS,
    ITEM_ISSUES,
    LOW,
    MEDIUM,
    SHEET_ISSUES,
    ParsedAnswer,
    ParsedSheet,
    normalise_answer,
    parse_sheet,
    parse_single,
)

PROPERTY = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


def render(items):
    """A clean sheet from (answer, confidence) pairs."""
    return "\n".join(f"{i}. ANSWER: {a}\nCONFIDENCE: {c}" for i, (a, c) in enumerate(items, 1))


def one(text: str, n: int = 1) -> ParsedAnswer:
    """Parse a sheet and return item 1."""
    return parse_sheet(text, n).answers[0]


def check_invariants(sheet: ParsedSheet, n: int) -> None:
    assert isinstance(sheet, ParsedSheet)
    assert len(sheet.answers) == n
    assert len(sheet.sheet_issues) == len(set(sheet.sheet_issues))
    assert set(sheet.sheet_issues) <= SHEET_ISSUES
    assert sp.PARSER_ERROR not in sheet.sheet_issues  # the safety net must never be needed
    for i, a in enumerate(sheet.answers, 1):
        assert a.number == i
        check_answer(a)
        assert set(a.issues) <= ITEM_ISSUES, a.issues
    assert 0.0 <= sheet.compliance <= 1.0
    counts = sheet.issue_counts
    assert all(code in ISSUE_LABELS and count > 0 for code, count in counts.items())


def check_answer(a: ParsedAnswer) -> None:
    assert isinstance(a, ParsedAnswer)
    assert len(a.issues) == len(set(a.issues)), a.issues
    assert all(code in ISSUE_LABELS for code in a.issues), a.issues
    assert sp.PARSER_ERROR not in a.issues
    assert a.confidence in (HIGH, MEDIUM, LOW, None)
    assert (a.answer is None) == (sp.MISSING in a.issues)
    if a.answer is None:
        assert not a.abstained and not a.hedged
    else:
        assert isinstance(a.answer, str)
    assert a.hedged == (sp.HEDGED in a.issues)


# --------------------------------------------------------------------------------------------
# The clean format
# --------------------------------------------------------------------------------------------


def test_clean_sheet_parses_without_issues():
    text = "1. ANSWER: 404\nCONFIDENCE: HIGH\n2. ANSWER: UNKNOWN\nCONFIDENCE: LOW\n"
    sheet = parse_sheet(text, 2)
    check_invariants(sheet, 2)
    assert sheet.answers == [
        ParsedAnswer(number=1, answer="404", confidence=HIGH, abstained=False, issues=[]),
        ParsedAnswer(number=2, answer="UNKNOWN", confidence=LOW, abstained=True, issues=[]),
    ]
    assert sheet.sheet_issues == []
    assert sheet.compliance == 1.0
    assert sheet.issue_counts == {}


def test_clean_sheet_tolerates_crlf_blank_lines_and_indentation():
    text = (
        "1. ANSWER: 404\r\n  CONFIDENCE: HIGH\r\n\r\n2. ANSWER:   Paris  \r\nCONFIDENCE: MEDIUM\r\n"
    )
    sheet = parse_sheet(text, 2)
    assert [(a.answer, a.confidence) for a in sheet.answers] == [("404", HIGH), ("Paris", MEDIUM)]
    assert sheet.compliance == 1.0 and sheet.sheet_issues == []


def test_answer_case_and_inner_text_kept_as_written():
    a = one("1. ANSWER: iPhone 15 Pro (A17, 3 nm)\nCONFIDENCE: HIGH")
    assert a.answer == "iPhone 15 Pro (A17, 3 nm)"
    assert a.issues == []


# --------------------------------------------------------------------------------------------
# Every deviation: recovered value AND the named issue
# --------------------------------------------------------------------------------------------

DEVIATIONS = [
    # markdown
    ("**1. ANSWER:** 404\n**CONFIDENCE:** HIGH", "404", HIGH, {sp.MARKDOWN}),
    ("1. ANSWER: **404**\nCONFIDENCE: *HIGH*", "404", HIGH, {sp.MARKDOWN}),
    ("1. ANSWER: __404__\nCONFIDENCE: _HIGH_", "404", HIGH, {sp.MARKDOWN}),
    ("1. ANSWER: `Retry-After`\nCONFIDENCE: `HIGH`", "Retry-After", HIGH, {sp.MARKDOWN}),
    ("1. **ANSWER**: 404\nCONFIDENCE: HIGH", "404", HIGH, {sp.MARKDOWN}),
    ("**1. ANSWER: 404**\nCONFIDENCE: HIGH", "404", HIGH, {sp.MARKDOWN}),
    ("- 1. ANSWER: 404\n- CONFIDENCE: HIGH", "404", HIGH, {sp.MARKDOWN}),
    ("* 1. ANSWER: 404\n  * CONFIDENCE: HIGH", "404", HIGH, {sp.MARKDOWN}),
    ("> 1. ANSWER: 404\n> CONFIDENCE: HIGH", "404", HIGH, {sp.MARKDOWN}),
    ("### 1.\nANSWER: 404\nCONFIDENCE: HIGH", "404", HIGH, {sp.MARKDOWN, sp.NUMBER_FORMAT}),
    ("## 1. ANSWER: 404\nCONFIDENCE: HIGH", "404", HIGH, {sp.MARKDOWN}),
    # numbering
    ("1) ANSWER: 404\nCONFIDENCE: HIGH", "404", HIGH, {sp.NUMBER_FORMAT}),
    ("(1) ANSWER: 404\nCONFIDENCE: HIGH", "404", HIGH, {sp.NUMBER_FORMAT}),
    ("**1.** ANSWER: 404\nCONFIDENCE: HIGH", "404", HIGH, {sp.MARKDOWN}),
    ("**1.**\nANSWER: 404\nCONFIDENCE: HIGH", "404", HIGH, {sp.MARKDOWN, sp.NUMBER_FORMAT}),
    ("Q1: ANSWER: 404\nCONFIDENCE: HIGH", "404", HIGH, {sp.NUMBER_FORMAT}),
    ("Q1. ANSWER: 404\nCONFIDENCE: HIGH", "404", HIGH, {sp.NUMBER_FORMAT}),
    ("Item 1: ANSWER: 404\nCONFIDENCE: HIGH", "404", HIGH, {sp.NUMBER_FORMAT}),
    ("Question 1\nANSWER: 404\nCONFIDENCE: HIGH", "404", HIGH, {sp.NUMBER_FORMAT}),
    ("#1 ANSWER: 404\nCONFIDENCE: HIGH", "404", HIGH, {sp.NUMBER_FORMAT}),
    ("1: ANSWER: 404\nCONFIDENCE: HIGH", "404", HIGH, {sp.NUMBER_FORMAT}),
    ("1 ANSWER: 404\nCONFIDENCE: HIGH", "404", HIGH, {sp.NUMBER_FORMAT}),
    ("1 - ANSWER: 404\nCONFIDENCE: HIGH", "404", HIGH, {sp.NUMBER_FORMAT}),
    ("ANSWER 1: 404\nCONFIDENCE: HIGH", "404", HIGH, {sp.NUMBER_FORMAT}),
    ("1. ANSWER: 404\n1. CONFIDENCE: HIGH", "404", HIGH, {sp.NUMBER_FORMAT}),
    # labels: case and separators
    ("1. answer: 404\nconfidence: HIGH", "404", HIGH, {sp.LABEL_CASE}),
    ("1. Answer: 404\nConfidence - HIGH", "404", HIGH, {sp.LABEL_CASE, sp.LABEL_SEPARATOR}),
    ("1. ANSWER - 404\nCONFIDENCE: HIGH", "404", HIGH, {sp.LABEL_SEPARATOR}),
    ("1. Answer=404\nCONFIDENCE=HIGH", "404", HIGH, {sp.LABEL_CASE, sp.LABEL_SEPARATOR}),
    ("1. ANSWER — 404\nCONFIDENCE — HIGH", "404", HIGH, {sp.LABEL_SEPARATOR}),
    ("1. ANSWER 404\nCONFIDENCE HIGH", "404", HIGH, {sp.LABEL_SEPARATOR}),
    ("1. ANSWER => 404\nCONFIDENCE: HIGH", "404", HIGH, {sp.LABEL_SEPARATOR}),
    ("1. Ans: 404\nConfidence level: HIGH", "404", HIGH, {sp.LABEL_CASE}),
    # full-width (the Japanese prompt)
    ("1. ANSWER：404\nCONFIDENCE：HIGH", "404", HIGH, {sp.FULLWIDTH}),
    ("１．ANSWER：404\nCONFIDENCE：HIGH", "404", HIGH, {sp.FULLWIDTH}),
    ("１. ANSWER: 東京\nCONFIDENCE: HIGH", "東京", HIGH, {sp.FULLWIDTH}),
    ("1. ANSWER: 404\nCONFIDENCE: ＨＩＧＨ", "404", HIGH, {sp.FULLWIDTH}),
    (
        "1. 回答：東京\n確信度：高",
        "東京",
        HIGH,
        {sp.LABEL_LANGUAGE, sp.FULLWIDTH, sp.CONFIDENCE_MAPPED},
    ),
    # answer over several lines
    (
        "1. ANSWER: The first part\nand the second part\nCONFIDENCE: HIGH",
        "The first part and the second part",
        HIGH,
        {sp.MULTILINE_ANSWER},
    ),
    ("1. ANSWER:\n404\nCONFIDENCE: HIGH", "404", HIGH, {sp.MULTILINE_ANSWER}),
    ("1. ANSWER:\n\n  404\n\nCONFIDENCE: HIGH", "404", HIGH, {sp.MULTILINE_ANSWER}),
    ("1. ANSWER: one\n\ntwo\nCONFIDENCE: LOW", "one two", LOW, {sp.MULTILINE_ANSWER}),
    # confidence missing or invalid
    ("1. ANSWER: 404", "404", None, {sp.MISSING_CONFIDENCE}),
    ("1. ANSWER: 404\nCONFIDENCE:", "404", None, {sp.MISSING_CONFIDENCE}),
    ("1. ANSWER: 404\nCONFIDENCE: 80%", "404", None, {sp.INVALID_CONFIDENCE}),
    ("1. ANSWER: 404\nCONFIDENCE: 0.8", "404", None, {sp.INVALID_CONFIDENCE}),
    ("1. ANSWER: 404\nCONFIDENCE: medium-high", "404", None, {sp.INVALID_CONFIDENCE}),
    ("1. ANSWER: 404\nCONFIDENCE: HIGH/MEDIUM/LOW", "404", None, {sp.INVALID_CONFIDENCE}),
    ("1. ANSWER: 404\nCONFIDENCE: certain", "404", None, {sp.INVALID_CONFIDENCE}),
    ("1. ANSWER: 404\nCONFIDENCE: not high", "404", None, {sp.INVALID_CONFIDENCE}),
    ("1. ANSWER: 404\nCONFIDENCE: high", "404", HIGH, {sp.CONFIDENCE_CASE}),
    ("1. ANSWER: 404\nCONFIDENCE: Medium", "404", MEDIUM, {sp.CONFIDENCE_CASE}),
    ("1. ANSWER: 404\nCONFIDENCE: very high", "404", HIGH, {sp.CONFIDENCE_MAPPED}),
    ("1. ANSWER: 404\nCONFIDENCE: very low", "404", LOW, {sp.CONFIDENCE_MAPPED}),
    ("1. ANSWER: 404\nCONFIDENCE: med", "404", MEDIUM, {sp.CONFIDENCE_MAPPED}),
    ("1. ANSWER: 404\nCONFIDENCE: moderate", "404", MEDIUM, {sp.CONFIDENCE_MAPPED}),
    ("1. ANSWER: 404\nCONFIDENCE: HIGH (90%)", "404", HIGH, {sp.CONFIDENCE_MAPPED}),
    ("1. ANSWER: 404\nCONFIDENCE: HIGH.", "404", HIGH, set()),
    # confidence on the answer line
    ("1. ANSWER: 404 (CONFIDENCE: HIGH)", "404", HIGH, {sp.CONFIDENCE_INLINE}),
    ("1. ANSWER: 404 [confidence: LOW]", "404", LOW, {sp.CONFIDENCE_INLINE}),
    ("1. ANSWER: 404, CONFIDENCE: MEDIUM", "404", MEDIUM, {sp.CONFIDENCE_INLINE}),
    ("1. ANSWER: 404 | CONFIDENCE: HIGH", "404", HIGH, {sp.CONFIDENCE_INLINE}),
    ("**1. ANSWER:** 404 **CONFIDENCE:** HIGH", "404", HIGH, {sp.CONFIDENCE_INLINE, sp.MARKDOWN}),
    ("1. ANSWER: 404 — HIGH", "404", HIGH, {sp.CONFIDENCE_INLINE}),
    ("1. ANSWER: 404 - LOW", "404", LOW, {sp.CONFIDENCE_INLINE}),
    ("1. ANSWER: 404 (HIGH)", "404", HIGH, {sp.CONFIDENCE_INLINE}),
    ("1. ANSWER: 404 (high)", "404", HIGH, {sp.CONFIDENCE_INLINE, sp.CONFIDENCE_CASE}),
    ("1. ANSWER: 404, with HIGH confidence", "404", HIGH, {sp.CONFIDENCE_INLINE}),
    ("1. ANSWER: 404 (high confidence)", "404", HIGH, {sp.CONFIDENCE_INLINE, sp.CONFIDENCE_CASE}),
    ("1. ANSWER: 404（CONFIDENCE：HIGH）", "404", HIGH, {sp.CONFIDENCE_INLINE, sp.FULLWIDTH}),
    (
        "1. ANSWER: 404 (CONFIDENCE: 80%)",
        "404",
        None,
        {sp.CONFIDENCE_INLINE, sp.INVALID_CONFIDENCE},
    ),
    # trailing punctuation noise
    ("1. ANSWER: Paris.\nCONFIDENCE: HIGH", "Paris", HIGH, set()),
    ("1. ANSWER: Paris;\nCONFIDENCE: HIGH", "Paris", HIGH, set()),
    ("1. ANSWER: Washington, D.C.\nCONFIDENCE: HIGH", "Washington, D.C.", HIGH, set()),
    ("1. ANSWER: Acme Inc.\nCONFIDENCE: HIGH", "Acme Inc.", HIGH, set()),
    ("1. ANSWER: 東京。\nCONFIDENCE: HIGH", "東京", HIGH, set()),
    ("1. ANSWER: 404...\nCONFIDENCE: HIGH", "404", HIGH, set()),
]


@pytest.mark.parametrize(("text", "answer", "confidence", "issues"), DEVIATIONS)
def test_deviation_is_recovered_and_named(text, answer, confidence, issues):
    sheet = parse_sheet(text, 1)
    check_invariants(sheet, 1)
    a = sheet.answers[0]
    assert (a.answer, a.confidence) == (answer, confidence), a
    # Markdown is the sheet's note, never an item's issue: it changes how no answer reads.
    assert set(a.issues) == issues - {sp.MARKDOWN}, a.issues
    assert (sp.MARKDOWN in sheet.sheet_issues) == (sp.MARKDOWN in issues)
    assert not a.abstained
    assert sheet.compliance == (0.0 if issues - {sp.MARKDOWN} - sp.MINOR_ISSUES else 1.0)


ABSTENTIONS = [
    ("UNKNOWN", set()),
    ("**UNKNOWN**", {sp.MARKDOWN}),
    ("UNKNOWN.", set()),
    ("unknown", {sp.ABSTAIN_CASE}),
    ("Unknown", {sp.ABSTAIN_CASE}),
    ("ＵＮＫＮＯＷＮ", {sp.FULLWIDTH}),
    ("N/A", {sp.ABSTAIN_NA}),
    ("n/a.", {sp.ABSTAIN_NA}),
    ("I don't know", {sp.ABSTAIN_DONT_KNOW}),
    ("I don’t know.", {sp.ABSTAIN_DONT_KNOW}),
    ("IDK", {sp.ABSTAIN_DONT_KNOW}),
    ("Not sure", {sp.ABSTAIN_NOT_SURE}),
    ("I'm not sure.", {sp.ABSTAIN_NOT_SURE}),
    ("No idea", {sp.ABSTAIN_NO_IDEA}),
    ("cannot answer", {sp.ABSTAIN_CANNOT_ANSWER}),
    ("I can't answer that", set()),  # not a listed synonym: kept as an answer (see below)
    ("—", {sp.ABSTAIN_DASH}),
    ("-", {sp.ABSTAIN_DASH}),
    ("?", {sp.ABSTAIN_DASH}),
    ("...", {sp.ABSTAIN_DASH}),
    ("…", {sp.ABSTAIN_DASH}),
    ("", {sp.ABSTAIN_EMPTY}),
    ("わからない", {sp.ABSTAIN_DONT_KNOW}),
]


@pytest.mark.parametrize(("written", "issues"), ABSTENTIONS)
def test_abstention_synonyms(written, issues):
    sheet = parse_sheet(f"1. ANSWER: {written}\nCONFIDENCE: LOW", 1)
    a = sheet.answers[0]
    check_answer(a)
    if written == "I can't answer that":
        assert not a.abstained and a.answer == "I can't answer that"
        return
    assert a.abstained
    assert a.answer == "UNKNOWN"
    assert a.confidence == LOW
    assert set(a.issues) | (set(sheet.sheet_issues) & {sp.MARKDOWN}) == issues


def test_abstention_on_the_line_after_the_label():
    a = one("1. ANSWER:\n—\nCONFIDENCE: LOW")
    assert a.abstained and a.answer == "UNKNOWN"
    assert sp.ABSTAIN_DASH in a.issues and sp.MULTILINE_ANSWER in a.issues


def test_unknown_with_a_comment_keeps_the_comment_and_flags_a_guess():
    a = one("1. ANSWER: UNKNOWN (I don't recall the year)\nCONFIDENCE: LOW")
    assert a.abstained and not a.hedged
    assert a.answer == "UNKNOWN (I don't recall the year)"
    assert a.issues == [sp.ABSTAIN_WITH_COMMENT]
    b = one("1. ANSWER: UNKNOWN - possibly 1945\nCONFIDENCE: LOW")
    assert b.abstained and b.hedged
    assert set(b.issues) == {sp.ABSTAIN_WITH_COMMENT, sp.HEDGED}


def test_none_sodium_and_unknown_soldier_are_real_answers():
    assert not one("1. ANSWER: none\nCONFIDENCE: HIGH").abstained
    assert one("1. ANSWER: Na\nCONFIDENCE: HIGH").answer == "Na"
    a = one("1. ANSWER: Unknown Soldier\nCONFIDENCE: HIGH")
    assert not a.abstained and a.answer == "Unknown Soldier" and a.issues == []


@pytest.mark.parametrize(
    "written",
    [
        "Probably 404",
        "I think it is 404",
        "Maybe 404",
        "404, but not sure",
        "404?",
        "404 (?)",
        "either 404 or 410",
        "Either 404 or 410",
        "I believe 404",
        "most likely 404",
        "possibly Paris",
        "it might be Lyon",
        "1890 or so",
        "たぶん東京",
    ],
)
def test_hedged_answers(written):
    a = one(f"1. ANSWER: {written}\nCONFIDENCE: MEDIUM")
    assert a.hedged
    assert sp.HEDGED in a.issues
    assert not a.abstained
    assert a.answer and a.answer.rstrip("?").rstrip(" (") in written


@pytest.mark.parametrize(
    "written", ["404", "Maybelline", "unlikely event", "Oregon", "Paris or Lyon"]
)
def test_not_hedged(written):
    a = one(f"1. ANSWER: {written}\nCONFIDENCE: HIGH")
    assert not a.hedged and a.issues == []


# --------------------------------------------------------------------------------------------
# Sheet-level structure
# --------------------------------------------------------------------------------------------


def test_text_before_and_after_the_block():
    text = (
        "Sure! Here are my answers, closed-book as requested.\n\n"
        "1. ANSWER: 404\nCONFIDENCE: HIGH\n2. ANSWER: Paris\nCONFIDENCE: LOW\n\n"
        "Let me know if you want explanations."
    )
    sheet = parse_sheet(text, 2)
    check_invariants(sheet, 2)
    assert sheet.sheet_issues == [sp.TEXT_BEFORE, sp.TEXT_AFTER]
    assert [(a.answer, a.confidence) for a in sheet.answers] == [("404", HIGH), ("Paris", LOW)]
    assert sheet.compliance == 1.0  # sheet issues do not lower compliance
    assert sheet.issue_counts == {sp.TEXT_BEFORE: 1, sp.TEXT_AFTER: 1}


def test_last_answer_without_confidence_does_not_swallow_the_summary():
    text = "1. ANSWER: 404\nCONFIDENCE: HIGH\n2. ANSWER: Paris\n\nThat is all I know."
    sheet = parse_sheet(text, 2)
    assert sheet.answers[1].answer == "Paris"
    assert sheet.answers[1].issues == [sp.MISSING_CONFIDENCE]
    assert sp.TEXT_AFTER in sheet.sheet_issues


def test_explanation_between_items_is_extra_text():
    text = (
        "1. ANSWER: 404\nCONFIDENCE: HIGH\nExplanation: it is the Not Found status.\n"
        "2. ANSWER: Paris\nCONFIDENCE: LOW"
    )
    sheet = parse_sheet(text, 2)
    assert sheet.answers[0].answer == "404"
    assert sheet.answers[0].issues == [sp.EXTRA_TEXT]
    assert sheet.answers[1].issues == []
    assert sheet.sheet_issues == []
    assert sheet.compliance == 0.5


def test_code_fence_and_rules_around_the_block_are_text_before_and_after():
    text = "```\n1. ANSWER: 404\nCONFIDENCE: HIGH\n---\n2. ANSWER: x\nCONFIDENCE: LOW\n```"
    sheet = parse_sheet(text, 2)
    assert [(a.answer, a.confidence) for a in sheet.answers] == [("404", HIGH), ("x", LOW)]
    assert sheet.sheet_issues == [sp.TEXT_BEFORE, sp.TEXT_AFTER]
    assert sheet.compliance == 1.0


def test_the_word_confidence_inside_an_answer_is_not_a_label():
    a = one("1. ANSWER: confidence interval\nCONFIDENCE: HIGH")
    assert (a.answer, a.confidence, a.issues) == ("confidence interval", HIGH, [])
    b = one("1. ANSWER: Confidence is high in this one\nCONFIDENCE: LOW")
    assert b.answer == "Confidence is high in this one" and b.confidence == LOW


def test_markdown_question_headers_with_answer_and_confidence_labels():
    text = (
        "**Question 1:** Which status means Not Found?\n**Answer:** 404\n**Confidence:** High\n\n"
        "**Question 2:** Capital of France?\n**Answer:** Paris\n**Confidence:** Low"
    )
    sheet = parse_sheet(text, 2)
    assert [(a.answer, a.confidence) for a in sheet.answers] == [("404", HIGH), ("Paris", LOW)]
    for a in sheet.answers:
        assert set(a.issues) == {
            sp.NUMBER_FORMAT,
            sp.EXTRA_TEXT,
            sp.LABEL_CASE,
            sp.CONFIDENCE_CASE,
        }
    assert sp.MARKDOWN in sheet.sheet_issues


def test_restated_question_as_header():
    text = "1. Which status code means Not Found?\nANSWER: 404\nCONFIDENCE: HIGH"
    a = one(text)
    assert a.answer == "404" and a.confidence == HIGH
    assert set(a.issues) == {sp.NUMBER_FORMAT, sp.EXTRA_TEXT}


def test_missing_items():
    text = "1. ANSWER: 404\nCONFIDENCE: HIGH\n3. ANSWER: Paris\nCONFIDENCE: LOW"
    sheet = parse_sheet(text, 4)
    check_invariants(sheet, 4)
    assert [a.answer for a in sheet.answers] == ["404", None, "Paris", None]
    assert sheet.answers[1] == ParsedAnswer(number=2, answer=None, issues=[sp.MISSING])
    assert sheet.compliance == 0.5
    assert sheet.issue_counts == {sp.MISSING: 2}


def test_duplicate_number_keeps_the_first():
    text = (
        "1. ANSWER: 404\nCONFIDENCE: HIGH\n2. ANSWER: Paris\nCONFIDENCE: LOW\n"
        "1. ANSWER: 410\nCONFIDENCE: LOW"
    )
    sheet = parse_sheet(text, 2)
    check_invariants(sheet, 2)
    assert sheet.answers[0].answer == "404" and sheet.answers[0].confidence == HIGH
    assert sheet.answers[0].issues == [sp.DUPLICATE_ANSWER]
    assert sheet.sheet_issues == [sp.DUPLICATE_NUMBER]


def test_out_of_order_numbers():
    text = "2. ANSWER: Paris\nCONFIDENCE: LOW\n1. ANSWER: 404\nCONFIDENCE: HIGH"
    sheet = parse_sheet(text, 2)
    assert [a.answer for a in sheet.answers] == ["404", "Paris"]
    assert sheet.sheet_issues == [sp.OUT_OF_ORDER]
    assert sheet.compliance == 1.0


def test_numbers_beyond_n_items_are_ignored():
    text = (
        render([("404", HIGH), ("Paris", LOW), ("extra", LOW)])
        + "\n0. ANSWER: zero\nCONFIDENCE: LOW"
    )
    sheet = parse_sheet(text, 2)
    check_invariants(sheet, 2)
    assert [a.answer for a in sheet.answers] == ["404", "Paris"]
    assert sheet.sheet_issues == [sp.NUMBER_OUT_OF_RANGE]
    assert sheet.compliance == 1.0


def test_unnumbered_pairs_are_assigned_in_order():
    text = "ANSWER: 404\nCONFIDENCE: HIGH\nANSWER: Paris\nCONFIDENCE: LOW\nANSWER: UNKNOWN\nCONFIDENCE: LOW"
    sheet = parse_sheet(text, 3)
    check_invariants(sheet, 3)
    assert [(a.answer, a.confidence) for a in sheet.answers] == [
        ("404", HIGH),
        ("Paris", LOW),
        ("UNKNOWN", LOW),
    ]
    assert all(a.issues == [sp.MISSING_NUMBER] for a in sheet.answers)
    assert sheet.answers[2].abstained


def test_unnumbered_answer_between_numbered_ones():
    text = (
        "1. ANSWER: a\nCONFIDENCE: HIGH\nANSWER: b\nCONFIDENCE: LOW\n3. ANSWER: c\nCONFIDENCE: LOW"
    )
    sheet = parse_sheet(text, 3)
    assert [a.answer for a in sheet.answers] == ["a", "b", "c"]
    assert sheet.answers[1].issues == [sp.MISSING_NUMBER]


def test_unnumbered_answer_that_cannot_be_placed():
    text = (
        "1. ANSWER: a\nCONFIDENCE: HIGH\nANSWER: b\nCONFIDENCE: LOW\n2. ANSWER: c\nCONFIDENCE: LOW"
    )
    sheet = parse_sheet(text, 2)
    assert [a.answer for a in sheet.answers] == ["a", "c"]
    assert sheet.sheet_issues == [sp.UNNUMBERED_IGNORED]


def test_second_confidence_line_and_stray_confidence():
    text = "CONFIDENCE: HIGH\n\n1. ANSWER: a\nCONFIDENCE: HIGH\nCONFIDENCE: LOW\n2. ANSWER: b\nCONFIDENCE: LOW"
    sheet = parse_sheet(text, 2)
    assert sheet.answers[0].confidence == HIGH
    assert sheet.answers[0].issues == [sp.DUPLICATE_CONFIDENCE]
    assert sp.STRAY_CONFIDENCE in sheet.sheet_issues


def test_confidence_written_before_the_answer():
    text = "CONFIDENCE: HIGH\n1. ANSWER: 404\nCONFIDENCE: LOW\n2. ANSWER: Paris"
    sheet = parse_sheet(text, 2)
    assert [(a.answer, a.confidence) for a in sheet.answers] == [("404", HIGH), ("Paris", LOW)]
    assert all(a.issues == [sp.CONFIDENCE_BEFORE_ANSWER] for a in sheet.answers)


def test_first_answer_label_lost_does_not_flip_the_order():
    # "1. 404" has no label; the CONFIDENCE after it must not be read as item 2's.
    text = "1. 404\nCONFIDENCE: HIGH\n2. ANSWER: Paris\nCONFIDENCE: LOW"
    sheet = parse_sheet(text, 2)
    assert sheet.answers[1].answer == "Paris" and sheet.answers[1].confidence == LOW
    assert sheet.answers[1].issues == []


def test_compliance_and_issue_counts_definitions():
    text = "1. ANSWER: 404\nCONFIDENCE: HIGH\n2. answer: Paris\nconfidence: low\n3. ANSWER: Lyon"
    sheet = parse_sheet(text, 4)
    assert sheet.compliance == 0.25
    assert sheet.issue_counts == {
        sp.LABEL_CASE: 1,
        sp.CONFIDENCE_CASE: 1,
        sp.MISSING_CONFIDENCE: 1,
        sp.MISSING: 1,
    }
    assert parse_sheet("", 0).compliance == 1.0


# --------------------------------------------------------------------------------------------
# Realistic messy replies
# --------------------------------------------------------------------------------------------

CHATTY = """Great questions! I'll answer each one from memory, without looking anything up.

Here are my answers:

---

**1. ANSWER:** 429
**CONFIDENCE:** HIGH

**2. ANSWER:** `Retry-After`
**CONFIDENCE:** HIGH

**3. ANSWER:** Python 3.10 (PEP 634)
**Confidence:** Medium

**4. ANSWER:** I'm not sure
**CONFIDENCE:** LOW

**5. ANSWER:** Probably RFC 9110
**CONFIDENCE:** LOW

---

### Summary

| # | Answer | Confidence |
|---|--------|------------|
| 1 | 429 | HIGH |
| 2 | Retry-After | HIGH |
| 3 | Python 3.10 | MEDIUM |
| 4 | UNKNOWN | LOW |
| 5 | RFC 9110 | LOW |

I hope this helps! Let me know if you'd like sources.
"""


def test_chatty_reply_with_preamble_and_summary_table():
    sheet = parse_sheet(CHATTY, 5)
    check_invariants(sheet, 5)
    got = [(a.answer, a.confidence, a.abstained) for a in sheet.answers]
    assert got == [
        ("429", HIGH, False),
        ("Retry-After", HIGH, False),
        ("Python 3.10 (PEP 634)", MEDIUM, False),
        ("UNKNOWN", LOW, True),
        ("Probably RFC 9110", LOW, False),
    ]
    assert sheet.sheet_issues == [sp.TEXT_BEFORE, sp.TEXT_AFTER, sp.MARKDOWN]
    assert sheet.answers[0].issues == []
    assert set(sheet.answers[2].issues) == {sp.LABEL_CASE, sp.CONFIDENCE_CASE}
    assert sp.ABSTAIN_NOT_SURE in sheet.answers[3].issues
    assert sheet.answers[4].hedged
    assert sheet.compliance == 0.4  # items 1 and 2 read exactly as asked, bar the markdown


TABLE_ONLY = """Here are my answers in a table:

| # | Answer | Confidence |
|:-:|:-------|:----------:|
| 1 | 404 | HIGH |
| 2 | **Retry-After** | medium |
| 3 | UNKNOWN | LOW |
"""


def test_reply_as_markdown_table_is_recovered():
    sheet = parse_sheet(TABLE_ONLY, 4)
    check_invariants(sheet, 4)
    got = [(a.answer, a.confidence) for a in sheet.answers]
    assert got == [("404", HIGH), ("Retry-After", MEDIUM), ("UNKNOWN", LOW), (None, None)]
    assert sheet.answers[0].issues == [sp.TABLE_FORMAT]
    assert set(sheet.answers[1].issues) == {sp.TABLE_FORMAT, sp.CONFIDENCE_CASE}
    assert sheet.answers[2].abstained
    assert sheet.sheet_issues == [sp.TEXT_BEFORE, sp.MARKDOWN]


def test_table_without_header_and_with_a_question_column():
    text = "| 1 | 404 | HIGH |\n| 2 | Paris | LOW |"
    sheet = parse_sheet(text, 2)
    assert [(a.answer, a.confidence) for a in sheet.answers] == [("404", HIGH), ("Paris", LOW)]
    text = (
        "| No. | Question | Answer | Confidence |\n|---|---|---|---|\n"
        "| 1 | Not Found status? | 404 | HIGH |\n| 2 | Capital of France? | Paris | LOW |"
    )
    sheet = parse_sheet(text, 2)
    assert [(a.answer, a.confidence) for a in sheet.answers] == [("404", HIGH), ("Paris", LOW)]
    assert all(sp.TABLE_FORMAT in a.issues for a in sheet.answers)


def test_table_with_unnamed_header_columns():
    sheet = parse_sheet("| # | A | C |\n|---|---|---|\n| 1 | 404 | HIGH |", 1)
    assert (sheet.answers[0].answer, sheet.answers[0].confidence) == ("404", HIGH)
    assert sheet.answers[0].issues == [sp.TABLE_FORMAT]


def test_numbered_list_without_labels():
    text = "1. 404 — HIGH\n2. Paris (LOW)\n3) Lyon\n   CONFIDENCE: MEDIUM\n4. —"
    sheet = parse_sheet(text, 4)
    check_invariants(sheet, 4)
    got = [(a.answer, a.confidence, a.abstained) for a in sheet.answers]
    assert got == [
        ("404", HIGH, False),
        ("Paris", LOW, False),
        ("Lyon", MEDIUM, False),
        ("UNKNOWN", None, True),
    ]
    assert all(sp.MISSING_ANSWER_LABEL in a.issues for a in sheet.answers)


def test_numbered_list_with_dashes_after_a_preamble():
    text = "Answers:\n1 - 429 (HIGH)\n2 - Retry-After (MEDIUM)\n3 - UNKNOWN (LOW)"
    sheet = parse_sheet(text, 3)
    assert [(a.answer, a.confidence) for a in sheet.answers] == [
        ("429", HIGH),
        ("Retry-After", MEDIUM),
        ("UNKNOWN", LOW),
    ]
    assert sheet.sheet_issues == [sp.TEXT_BEFORE]
    assert all(sp.MISSING_ANSWER_LABEL in a.issues for a in sheet.answers)


def test_one_forgotten_label_between_labelled_items():
    text = (
        "1. ANSWER: a\nCONFIDENCE: HIGH\n2. Paris\nCONFIDENCE: LOW\n"
        "3. ANSWER: c\nCONFIDENCE: LOW\n\nWhy:\n4. because of the reasons"
    )
    sheet = parse_sheet(text, 3)
    assert [(a.answer, a.confidence) for a in sheet.answers] == [
        ("a", HIGH),
        ("Paris", LOW),
        ("c", LOW),
    ]
    assert sheet.answers[1].issues == [sp.MISSING_ANSWER_LABEL]
    assert sheet.answers[0].issues == []
    assert sheet.sheet_issues == [sp.TEXT_AFTER]
    # a numbered explanation does not steal the number of a labelled answer
    text = "1. ANSWER: a\nCONFIDENCE: HIGH\nReasons:\n2. it is so\n2. ANSWER: b\nCONFIDENCE: LOW"
    sheet = parse_sheet(text, 2)
    assert [a.answer for a in sheet.answers] == ["a", "b"]
    assert sheet.answers[0].issues == [sp.EXTRA_TEXT]


def test_wrong_language_prose():
    text = (
        "ご質問ありがとうございます。以下の質問については、記憶に基づいてお答えします。\n"
        "HTTPのステータスコードについては、404が「見つからない」を意味すると思います。\n"
        "残りの質問については、確信が持てないため回答を控えます。"
    )
    sheet = parse_sheet(text, 30)
    check_invariants(sheet, 30)
    assert all(a.answer is None and a.issues == [sp.MISSING] for a in sheet.answers)
    assert sheet.sheet_issues == [sp.NO_ANSWERS_FOUND]
    assert sheet.compliance == 0.0


def test_japanese_prompt_format():
    text = "１．ANSWER：四〇四\nCONFIDENCE：HIGH\n２．ANSWER：UNKNOWN\nCONFIDENCE：LOW"
    sheet = parse_sheet(text, 2)
    assert [(a.answer, a.confidence, a.abstained) for a in sheet.answers] == [
        ("四〇四", HIGH, False),
        ("UNKNOWN", LOW, True),
    ]
    assert all(a.issues == [sp.FULLWIDTH] for a in sheet.answers)


@pytest.mark.parametrize("text", ["", "   \n\n\t  ", "\ufeff", None, b""])
def test_empty_reply(text):
    sheet = parse_sheet(text, 3)
    check_invariants(sheet, 3)
    assert sheet.sheet_issues == [sp.EMPTY_REPLY]
    assert all(a.issues == [sp.MISSING] for a in sheet.answers)


@pytest.mark.parametrize("n", [0, -1, "3", None, 2.0, "x"])
def test_odd_n_items_never_raise(n):
    sheet = parse_sheet("1. ANSWER: a\nCONFIDENCE: HIGH", n)
    expected = {0: 0, -1: 0, "3": 3, None: 0, 2.0: 2, "x": 0}[n]
    assert len(sheet.answers) == expected


def test_bytes_input_is_decoded():
    a = one("1. ANSWER: Zürich\nCONFIDENCE: HIGH".encode())
    assert a.answer == "Zürich"


def test_huge_input_is_truncated_with_an_issue():
    text = render([("404", HIGH)]) + "\n" + ("filler text " * 40_000)
    sheet = parse_sheet(text, 2)
    assert sp.INPUT_TRUNCATED in sheet.sheet_issues
    assert sheet.answers[0].answer == "404"


def test_huge_n_items_is_capped():
    sheet = parse_sheet("", sp.MAX_ITEMS + 5)
    assert len(sheet.answers) == sp.MAX_ITEMS
    assert sp.TOO_MANY_ITEMS in sheet.sheet_issues


def test_thousand_item_sheet_parses_exactly():
    # Its speed is measured in bench/parser.py, not here.
    items = [(f"answer number {i} (see RFC {i})", (HIGH, MEDIUM, LOW)[i % 3]) for i in range(1000)]
    sheet = parse_sheet(render(items), 1000)
    assert sheet.compliance == 1.0
    assert [a.answer for a in sheet.answers] == [a for a, _c in items]


# Inputs that make a careless regex backtrack catastrophically. The ceiling is not a speed
# target (bench/parser.py measures speed): a quadratic or exponential pattern on 200 KB would
# take hours, so a generous ceiling catches a hang without failing on a loaded machine.
HANG_CEILING_SECONDS = 30.0

PATHOLOGICAL = {
    "stars": "*" * 200_000,
    "open emphasis": "*a " * 66_000,
    "underscores": "_a _" * 50_000,
    "spaces after label": "1. ANSWER:" + " " * 199_000 + "x",
    "stars after label": "1. ANSWER:" + "* " * 99_000 + "x",
    "emphasis in answer": "1. ANSWER: " + "*a *a " * 30_000,
    "either": "1. ANSWER: " + "either " * 28_000,
    "confidence words": "1. ANSWER: " + "confidence " * 18_000,
    "commas": "1. ANSWER: x" + "," * 190_000 + " HIGH",
    "dashes": "1. ANSWER: a" + " -" * 99_000 + " HIGH",
    "number lines": "1.\n" * 66_000,
    "label lines": "ANSWER:\n" * 25_000,
    "table rows": "| 1 | x | HIGH |\n" * 12_000,
    "blank lines": "\n" * 200_000,
    "nested brackets": "1. ANSWER: " + "(" * 99_000 + ")" * 99_000,
    "backticks": "`a" * 100_000,
}


@pytest.mark.parametrize("name", list(PATHOLOGICAL))
def test_pathological_input_does_not_hang(name):
    text = PATHOLOGICAL[name]
    start = time.perf_counter()
    sheet = parse_sheet(text, 30)
    single = parse_single(text, 1)
    key = normalise_answer(text)
    elapsed = time.perf_counter() - start
    check_invariants(sheet, 30)
    check_answer(single)
    assert isinstance(key, str)
    assert elapsed < HANG_CEILING_SECONDS, elapsed


# --------------------------------------------------------------------------------------------
# One request per item
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "answer", "confidence", "issues"),
    [
        ("ANSWER: 404\nCONFIDENCE: HIGH", "404", HIGH, []),
        ("7. ANSWER: 404\nCONFIDENCE: HIGH", "404", HIGH, []),
        ("3. ANSWER: 404\nCONFIDENCE: HIGH", "404", HIGH, [sp.WRONG_NUMBER]),
        (
            "answer: unknown\nconfidence: low",
            "UNKNOWN",
            LOW,
            [sp.LABEL_CASE, sp.ABSTAIN_CASE, sp.CONFIDENCE_CASE],
        ),
        ("ANSWER: 404 (CONFIDENCE: HIGH)", "404", HIGH, [sp.CONFIDENCE_INLINE]),
        ("404", "404", None, [sp.MISSING_ANSWER_LABEL, sp.MISSING_CONFIDENCE]),
        ("404\nCONFIDENCE: HIGH", "404", HIGH, [sp.MISSING_ANSWER_LABEL]),
        (
            "**404** — HIGH",
            "404",
            HIGH,
            [sp.MISSING_ANSWER_LABEL, sp.MARKDOWN, sp.CONFIDENCE_INLINE],
        ),
        (
            "Sure, here is my answer.\n\nANSWER: 404\nCONFIDENCE: HIGH\n\nHope that helps.",
            "404",
            HIGH,
            [sp.TEXT_BEFORE, sp.TEXT_AFTER],
        ),
        (
            "ANSWER: 404\nCONFIDENCE: HIGH\nANSWER: 410\nCONFIDENCE: LOW",
            "404",
            HIGH,
            [sp.DUPLICATE_ANSWER],
        ),
        ("ＡＮＳＷＥＲ：４０４\nCONFIDENCE：HIGH", "４０４", HIGH, [sp.FULLWIDTH]),
    ],
)
def test_parse_single(text, answer, confidence, issues):
    a = parse_single(text, 7)
    check_answer(a)
    assert a.number == 7
    assert (a.answer, a.confidence) == (answer, confidence), a
    assert a.issues == issues


def test_parse_single_empty_and_essay():
    a = parse_single("", 2)
    assert a == ParsedAnswer(number=2, answer=None, issues=[sp.MISSING, sp.EMPTY_REPLY])
    essay = "\n\n".join(["This is a long discussion of the topic."] * 6)
    b = parse_single(essay, 2)
    assert b.answer is None
    assert b.issues == [sp.MISSING, sp.NO_ANSWERS_FOUND]


def test_parse_single_never_raises_on_odd_arguments():
    for text, number in [(None, 1), (b"ANSWER: x", "4"), (12345, None), ("ANSWER: x", object())]:
        check_answer(parse_single(text, number))


# --------------------------------------------------------------------------------------------
# normalise_answer
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Paris", "paris"),
        ("**Paris.**", "paris"),
        ("  Paris  ", "PARIS"),
        ("“Paris”", "Paris"),
        ("'Paris'", "paris"),
        ("Retry-After", "`retry-after`"),
        ("New   York", "new york"),
        ("４０４", "404"),
        ("(a)", "a"),
        ("Straße", "STRASSE"),
        ("Washington, D.C.", "washington, d.c"),
        ("I don’t know", "i don't know"),
        ("__init__", "init"),
    ],
)
def test_normalise_answer_groups(a, b):
    assert normalise_answer(a) == normalise_answer(b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("-5", "5"),
        ("C#", "C"),
        ("C++", "C"),
        ("f(x)", "fx"),
        ("(a) or (b)", "a) or (b"),
        ("404", "410"),
    ],
)
def test_normalise_answer_keeps_distinct_answers_apart(a, b):
    assert normalise_answer(a) != normalise_answer(b)


def test_normalise_answer_examples():
    assert normalise_answer("**Paris.**") == "paris"
    assert normalise_answer("  The   Hague ") == "the hague"
    assert normalise_answer("") == ""
    assert normalise_answer(None) == ""


@PROPERTY
@given(st.text(max_size=200))
def test_normalise_answer_is_idempotent_and_total(text):
    key = normalise_answer(text)
    assert isinstance(key, str)
    assert normalise_answer(key) == key


# --------------------------------------------------------------------------------------------
# Issue codes and labels
# --------------------------------------------------------------------------------------------


def test_every_issue_constant_has_a_label():
    codes = {
        value
        for name, value in vars(sp).items()
        if name.isupper()
        and not name.startswith("_")
        and isinstance(value, str)
        and value.islower()
    }
    assert len(codes) >= 40
    assert codes == set(ISSUE_LABELS)
    assert SHEET_ISSUES <= set(ISSUE_LABELS)
    assert set(ISSUE_LABELS) == (ITEM_ISSUES | SHEET_ISSUES)


def test_labels_are_translatable_strings():
    from django.apps import apps

    if not apps.ready:  # pragma: no cover - only when a settings module was given but not set up
        import django

        django.setup()
    from django.utils.translation import override

    with override("en"):
        labels = {code: str(label) for code, label in ISSUE_LABELS.items()}
    assert all(labels.values())
    assert len(set(labels.values())) == len(labels)
    assert sp.issue_label(sp.MISSING) == labels[sp.MISSING]
    doc = (Path(__file__).resolve().parents[2] / "docs" / "answer-format.md").read_text("utf-8")
    for code, label in labels.items():
        assert f"| `{code}` | {label} |" in doc, code
    assert sp.issue_label("no_such_code") == "no_such_code"


def test_every_issue_code_is_documented():
    doc = (Path(__file__).resolve().parents[2] / "docs" / "answer-format.md").read_text("utf-8")
    for code in ISSUE_LABELS:
        assert f"| `{code}` |" in doc, code


def test_to_dict_is_json_ready():
    import json

    sheet = parse_sheet("1. ANSWER: 404\nCONFIDENCE: HIGH", 2)
    data = json.loads(json.dumps(sheet.to_dict()))
    assert data["answers"][0]["answer"] == "404"
    assert data["answers"][1]["issues"] == [sp.MISSING]
    assert data["compliance"] == 0.5


# --------------------------------------------------------------------------------------------
# Properties
# --------------------------------------------------------------------------------------------

# Words that carry meaning for the parser (hedges, abstentions, levels, labels): generated
# answers avoid them so that a clean sheet means exactly what it says.
RESERVED = set(
    """probably possibly perhaps maybe presumably likely think believe guess suppose sure unsure
    certain uncertain recall remember iirc might could may be or so either na idk unknown none
    high medium low med mid moderate middle confidence answer ans abstain idea clue say not no
    cannot cant can't don't dont do i im i'm unable determine determined known applicable given
    n a with level""".split()
)

SAMPLE_WORDS = [
    "Paris",
    "404",
    "Retry-After",
    "U.S.",
    "Washington, D.C.",
    "3.14",
    "東京",
    "Zürich",
    "HTTP/2",
    "O'Brien",
    "C++",
    "e^x",
    "1,000",
    "50%",
    "iPhone",
    "x = 3",
    "R2-D2",
    "def f(x)",
    "[1]",
    "-5",
    "ＡＢＣ",
    "#define",
    "RFC 9110 §15.5.5",
]

token = st.one_of(
    st.sampled_from(SAMPLE_WORDS),
    st.from_regex(r"[A-Za-z0-9]{1,10}", fullmatch=True).map(
        lambda w: w + "q" if w.casefold() in RESERVED else w
    ),
)
answer_text = st.lists(token, min_size=1, max_size=5).map(" ".join)
answer_or_unknown = st.one_of(answer_text, st.just("UNKNOWN"))
level = st.sampled_from([HIGH, MEDIUM, LOW])
clean_items = st.lists(st.tuples(answer_or_unknown, level), min_size=0, max_size=25)


@PROPERTY
@given(clean_items)
def test_clean_sheet_round_trips(items):
    sheet = parse_sheet(render(items), len(items))
    check_invariants(sheet, len(items))
    assert [(a.answer, a.confidence) for a in sheet.answers] == items
    assert [a.abstained for a in sheet.answers] == [a == "UNKNOWN" for a, _c in items]
    assert not any(a.hedged for a in sheet.answers)
    assert all(a.issues == [] for a in sheet.answers)
    assert sheet.sheet_issues == ([] if items else [sp.EMPTY_REPLY])
    assert sheet.compliance == 1.0


@PROPERTY
@given(st.tuples(answer_or_unknown, level), st.integers(min_value=1, max_value=500))
def test_single_round_trips(item, number):
    ans, conf = item
    for text in (
        f"ANSWER: {ans}\nCONFIDENCE: {conf}",
        f"{number}. ANSWER: {ans}\nCONFIDENCE: {conf}",
    ):
        a = parse_single(text, number)
        assert (a.answer, a.confidence, a.abstained, a.issues) == (ans, conf, ans == "UNKNOWN", [])


@PROPERTY
@given(st.text(max_size=2000), st.integers(min_value=0, max_value=60))
def test_arbitrary_text_never_raises(text, n):
    sheet = parse_sheet(text, n)
    check_invariants(sheet, n)
    check_answer(parse_single(text, max(n, 1)))


GRAMMAR_ALPHABET = st.sampled_from(
    list("0123456789.:)(#*_`-—|：１２ \n")
    + ["ANSWER", "CONFIDENCE", "HIGH", "LOW", "UNKNOWN", "Q", "Item "]
)


@PROPERTY
@given(
    st.lists(GRAMMAR_ALPHABET, max_size=300).map("".join), st.integers(min_value=0, max_value=20)
)
def test_grammar_soup_never_raises(text, n):
    sheet = parse_sheet(text, n)
    check_invariants(sheet, n)
    check_answer(parse_single(text, 1))


# Perturbations a careful reader recovers from: each (item, perturbation) -> lines.
def _perturb_item(i, ans, conf, p):
    num = {
        "paren": f"{i})",
        "bracket": f"({i})",
        "q": f"Q{i}:",
        "item": f"Item {i}:",
        "bold": f"**{i}.**",
        "fullwidth": "".join(chr(ord(d) + 0xFEE0) for d in str(i)) + "．",
    }.get(p["number"], f"{i}.")
    label = {
        "lower": "answer:",
        "title": "Answer -",
        "eq": "Answer=",
        "fw": "ANSWER：",
        "bold": "**ANSWER:**",
    }.get(p["label"], "ANSWER:")
    conf_line = {
        "lower": f"confidence: {conf.lower()}",
        "bold": f"**CONFIDENCE:** {conf}",
        "italic": f"CONFIDENCE: *{conf}*",
        "dash": f"Confidence - {conf}",
        "fw": f"CONFIDENCE：{conf}",
    }.get(p["conf"], f"CONFIDENCE: {conf}")
    bullet = "- " if p["bullet"] else ""
    lines = []
    if p["header"]:
        lines += [f"### {i}.", f"{bullet}{label} {ans}"]
    else:
        lines.append(f"{bullet}{num} {label} {ans}")
    if p["conf"] == "inline":
        lines[-1] += f" (CONFIDENCE: {conf})"
    else:
        lines.append(bullet + conf_line)
    if p["blank"]:
        lines.append("")
    return lines


perturbation = st.fixed_dictionaries(
    {
        "number": st.sampled_from(["none", "paren", "bracket", "q", "item", "bold", "fullwidth"]),
        "label": st.sampled_from(["none", "lower", "title", "eq", "fw", "bold"]),
        "conf": st.sampled_from(["none", "lower", "bold", "italic", "dash", "fw", "inline"]),
        "bullet": st.booleans(),
        "header": st.booleans(),
        "blank": st.booleans(),
    }
)


@PROPERTY
@given(
    st.lists(st.tuples(answer_or_unknown, level, perturbation), min_size=1, max_size=12),
    st.booleans(),
    st.booleans(),
)
def test_recoverable_perturbations_recover_exactly(items, preamble, postamble):
    lines = ["Here are my answers, from memory:", ""] if preamble else []
    for i, (ans, conf, p) in enumerate(items, 1):
        lines += _perturb_item(i, ans, conf, p)
    if postamble:
        lines += ["", "Let me know if you need anything else."]
    sheet = parse_sheet("\n".join(lines), len(items))
    check_invariants(sheet, len(items))
    assert [(a.answer, a.confidence) for a in sheet.answers] == [(a, c) for a, c, _p in items]
    markdown = False
    for parsed, (_a, _c, p) in zip(sheet.answers, items, strict=True):
        # Markdown (bold, italics, bullets, a heading) is the sheet's note, not the item's issue.
        emphasis = p["number"] == "bold" or p["label"] == "bold" or p["conf"] in ("bold", "italic")
        markdown = markdown or emphasis or p["bullet"] or p["header"]
        perturbed = p["number"] not in ("none", "bold") or p["label"] not in ("none", "bold")
        perturbed = perturbed or p["conf"] not in ("none", "bold", "italic") or p["header"]
        assert bool(parsed.issues) == perturbed, (p, parsed.issues)
        assert sp.MISSING not in parsed.issues
    expected_sheet = ([sp.TEXT_BEFORE] if preamble else []) + ([sp.TEXT_AFTER] if postamble else [])
    assert sheet.sheet_issues == expected_sheet + ([sp.MARKDOWN] if markdown else [])


@st.composite
def damaged_sheets(draw):
    items = draw(clean_items)
    lines = render(items).split("\n") if items else []
    for _ in range(draw(st.integers(min_value=0, max_value=6))):
        op = draw(
            st.sampled_from(["delete", "duplicate", "swap", "junk", "truncate", "upper", "join"])
        )
        if not lines:
            lines.append(draw(st.text(max_size=40)))
            continue
        k = draw(st.integers(min_value=0, max_value=len(lines) - 1))
        if op == "delete":
            del lines[k]
        elif op == "duplicate":
            lines.insert(k, lines[k])
        elif op == "swap":
            j = draw(st.integers(min_value=0, max_value=len(lines) - 1))
            lines[k], lines[j] = lines[j], lines[k]
        elif op == "junk":
            lines.insert(k, draw(st.text(max_size=60)))
        elif op == "truncate":
            lines[k] = lines[k][: draw(st.integers(min_value=0, max_value=len(lines[k])))]
        elif op == "upper":
            lines[k] = lines[k].upper()
        elif op == "join" and k + 1 < len(lines):
            lines[k : k + 2] = [lines[k] + " " + lines[k + 1]]
    n = draw(st.integers(min_value=0, max_value=len(items) + 3))
    return "\n".join(lines), n


@PROPERTY
@given(damaged_sheets())
def test_damaged_sheets_never_raise(case):
    text, n = case
    sheet = parse_sheet(text, n)
    check_invariants(sheet, n)
    check_answer(parse_single(text, 1))


def test_a_markdown_chat_reply_that_parses_perfectly_is_fully_compliant():
    text = "\n\n".join(f"**{i}. ANSWER:** answer {i}\n**CONFIDENCE:** HIGH" for i in range(1, 31))
    sheet = parse_sheet(text, 30)
    check_invariants(sheet, 30)
    assert [a.answer for a in sheet.answers] == [f"answer {i}" for i in range(1, 31)]
    assert all(a.issues == [] for a in sheet.answers)
    assert sheet.compliance == 1.0
    assert sheet.sheet_issues == [sp.MARKDOWN]  # one note for the sheet
