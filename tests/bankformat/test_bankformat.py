"""The bank file formats (probe.bankformat): plain text as probes are published, and JSON.

Pure functions: no database. Line numbers in the expected problems are counted by hand; the texts
are built from lists of lines so that the count is easy to check.
"""

import json
import os
import pickle
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from probe import bankformat as bf
from probe.bankformat import (
    BankData,
    BankFormatError,
    BlockData,
    FormatProblem,
    ItemData,
    KeyData,
)
from probe.bankformat.lexicon import tidy as _tidy


def text_of(*lines: str) -> str:
    return "\n".join(lines) + "\n"


def problems_of(call, *args) -> list[tuple[int | None, str]]:
    with pytest.raises(BankFormatError) as caught:
        call(*args)
    return [(problem.line, problem.message) for problem in caught.value.problems]


def lines_of(call, *args) -> list[int | None]:
    return [line for line, _message in problems_of(call, *args)]


# A realistic published probe -----------------------------------------------------------------

PUBLISHED = text_of(
    "# Web platform probe, spring 2025",  # 1
    "Private probe for the platform team. Answer closed-book; UNKNOWN is allowed.",  # 2
    "Do not publish the items.",  # 3
    "",  # 4
    "## Block A. HTTP semantics",  # 5
    "Status codes, headers and caching.",  # 6
    "1. Which status code tells a client it has sent too many requests?",  # 7
    "   Format: a three-digit number",  # 8
    "2. Which response header says how long to wait before retrying",  # 9
    "   after a 503 or a 429?",  # 10
    "3) Which RFC is the current specification of HTTP semantics?",  # 11
    "",  # 12
    "## Block B: Python",  # 13
    "1. Which PEP introduced f-strings?",  # 14
    "2. [retired] What does round(2.5) return in Python 3?",  # 15
    "3. Given the list below, which element does",  # 16
    "   the expression xs[-1] return?",  # 17
    "     1. alpha",  # 18
    "     2. beta",  # 19
    "   Format: one word",  # 20
    "",  # 21
    "Block C - PostgreSQL",  # 22
    "1. What is the default TCP port of a PostgreSQL server?",  # 23
    "2. In which major version did PostgreSQL add the MERGE command?",  # 24
    "",  # 25
    "## Answer key",  # 26
    "",  # 27
    "Entries marked (!) must be checked against a primary source.",  # 28
    "",  # 29
    "Block A. HTTP semantics",  # 30
    "1. 429 Too Many Requests",  # 31
    "   Source: RFC 6585, section 4",  # 32
    "2. Retry-After",  # 33
    "   Sources: RFC 9110, section 10.2.3 ; RFC 9110, section 15.6.4",  # 34
    "3. RFC 9110 (!) RFC 7231 was the specification until June 2022;",  # 35
    "   a model trained on older text may say 7231.",  # 36
    "   Source: RFC 9110",  # 37
    "",  # 38
    "Block B",  # 39
    "1. PEP 498",  # 40
    "2. 2 (round half to even)",  # 41
    "3. beta (!)",  # 42
    "Block C",  # 43
    "1. 5432",  # 44
)


def test_published_probe_reads_every_part():
    bank = bf.parse_text(PUBLISHED)
    assert bank.name == "Web platform probe, spring 2025"
    assert bank.description == (
        "Private probe for the platform team. Answer closed-book; UNKNOWN is allowed.\n"
        "Do not publish the items."
    )
    assert [(b.code, b.title, b.line) for b in bank.blocks] == [
        ("A", "HTTP semantics", 5),
        ("B", "Python", 13),
        ("C", "PostgreSQL", 22),
    ]
    a, b, c = bank.blocks
    assert a.description == "Status codes, headers and caching."
    assert b.description == "" and c.description == ""
    assert [len(block.items) for block in bank.blocks] == [3, 3, 2]

    a1, a2, a3 = a.items
    assert a1.question == "Which status code tells a client it has sent too many requests?"
    assert a1.answer_format == "a three-digit number"
    assert a1.key == KeyData(answer="429 Too Many Requests", sources=["RFC 6585, section 4"])
    assert (a1.number, a1.line) == (1, 7)
    assert a2.question == (
        "Which response header says how long to wait before retrying\nafter a 503 or a 429?"
    )
    assert a2.key.sources == ["RFC 9110, section 10.2.3", "RFC 9110, section 15.6.4"]
    assert a3.key == KeyData(
        answer="RFC 9110",
        flagged=True,
        flag_note="RFC 7231 was the specification until June 2022;\n"
        "a model trained on older text may say 7231.",
        sources=["RFC 9110"],
    )

    b1, b2, b3 = b.items
    assert not b1.retired and b2.retired
    assert b2.question == "What does round(2.5) return in Python 3?"
    assert b2.key.answer == "2 (round half to even)"
    # Numbered lines indented under an item belong to its question.
    assert b3.question == (
        "Given the list below, which element does\nthe expression xs[-1] return?\n1. alpha\n2. beta"
    )
    assert b3.answer_format == "one word"
    assert b3.key == KeyData(answer="beta", flagged=True, flag_note="")

    c1, c2 = c.items
    assert c1.key.answer == "5432"
    assert c2.key is None

    assert bank.item_count == 8
    assert bank.retired_count == 1
    assert bank.missing_key_count == 1
    assert bank.flagged_count == 2


def test_published_probe_round_trips_through_text_and_json():
    bank = bf.parse_text(PUBLISHED)
    text = bf.dump_text(bank)
    again = bf.parse_text(text)
    assert again == bank
    assert bf.dump_text(again) == text
    assert bf.parse_json(bf.dump_json(bank)) == bank
    assert bf.dump_json(bf.parse_json(bf.dump_json(bank))) == bf.dump_json(bank)


def test_dump_text_layout():
    text = bf.dump_text(bf.parse_text(PUBLISHED))
    assert text.startswith("# Web platform probe, spring 2025\nPrivate probe")
    assert "Block A. HTTP semantics\nStatus codes, headers and caching.\n1. Which status" in text
    assert "   Format: a three-digit number\n" in text
    assert "2. [retired] What does round(2.5) return in Python 3?\n" in text
    assert "   1. alpha\n   2. beta\n" in text
    assert "\nAnswer key\n\nBlock A. HTTP semantics\n1. 429 Too Many Requests\n" in text
    assert "3. RFC 9110 (!) RFC 7231 was the specification until June 2022;\n" in text
    assert "   Sources: RFC 9110, section 10.2.3 ; RFC 9110, section 15.6.4\n" in text
    assert "   Source: RFC 6585, section 4\n" in text
    assert "3. beta (!)\n" in text
    assert text.endswith("Block C. PostgreSQL\n1. 5432\n")


DOC = Path(__file__).resolve().parents[2] / "docs" / "bank-format.md"


def _doc_example(language: str) -> str:
    text = DOC.read_text(encoding="utf-8")
    start = text.index(f"```{language}\n") + len(f"```{language}\n")
    return text[start : text.index("```", start)]


def test_the_examples_in_the_documentation_read_as_described():
    assert _doc_example("text") == PUBLISHED
    bank = bf.parse_json(_doc_example("json"))
    assert bank.name == "Web platform probe, spring 2025"
    assert [i.key.answer if i.key else None for i in bank.items] == ["429 Too Many Requests", None]


def test_the_demo_bank_of_the_project_reads():
    demo = Path(bf.__file__).parents[1] / "demo" / "demo_bank.txt"
    assert demo.exists(), "the demo bank ships with the project"
    bank = bf.load(demo.read_bytes(), demo.name)
    assert len(bank.blocks) == 5
    assert bank.item_count == 30
    assert bank.missing_key_count == 0
    assert bank.flagged_count == 3
    assert bf.parse_text(bf.dump_text(bank)) == bank


# Grammar details -----------------------------------------------------------------------------


def test_run_on_numbering_without_key_headings():
    bank = bf.parse_text(
        text_of(
            "Block A. First",
            "1. a1?",
            "2. a2?",
            "Block B. Second",
            "3. b1?",
            "4. b2?",
            "Answer key",
            "1. A1",
            "4. B2",
            "3. B1",
        )
    )
    assert [[i.number for i in b.items] for b in bank.blocks] == [[1, 2], [3, 4]]
    assert [i.key.answer if i.key else None for i in bank.items] == ["A1", None, "B1", "B2"]


def test_run_on_numbering_with_key_headings():
    bank = bf.parse_text(
        text_of(
            "Block A. First",
            "1. a1?",
            "Block B. Second",
            "2. b1?",
            "3. b2?",
            "Key:",
            "Block A",
            "1. A1",
            "Block B",
            "2. B1",
            "3. B2",
        )
    )
    assert [i.key.answer for i in bank.items] == ["A1", "B1", "B2"]


def test_restart_numbering_single_block_key_needs_no_heading():
    bank = bf.parse_text(text_of("Block A. Only", "1. q1", "2. q2", "Answers", "2. two", "1. one"))
    assert [i.key.answer for i in bank.items] == ["one", "two"]


def test_heading_variants_and_indentation():
    bank = bf.parse_text(
        text_of(
            "  block a. lower case",
            "    1. indented item",
            "    2) indented item two",
            "      still item two",
            "BLOCK B1: colon",
            "1. x",
            "## Block 7 - dash",
            "1. y",
            "Block ZZ \u2013 en dash",
            "1. z",
            "# Block Q",
            "1. no title",
            "## ANSWER KEY",
            " Block A",
            "    1. one",
            "    2. two",
            "       more of two",
        )
    )
    assert [(b.code, b.title) for b in bank.blocks] == [
        ("a", "lower case"),
        ("B1", "colon"),
        ("7", "dash"),
        ("ZZ", "en dash"),
        ("Q", ""),
    ]
    assert bank.blocks[0].items[1].question == "indented item two\nstill item two"
    assert bank.blocks[0].items[1].key.answer == "two\nmore of two"
    # A heading indented two columns or more under an item is part of that item.
    bank = bf.parse_text(text_of("Block A. T", "1. q", "  Block B. inside", "  Answer key", "2. r"))
    assert [i.question for i in bank.items] == ["q\nBlock B. inside\nAnswer key", "r"]
    # One column is not enough: right-aligned numbers stay items.
    bank = bf.parse_text(text_of("Block A. T", " 9. nine", "10. ten", " 1. one"))
    assert [i.number for i in bank.items] == [9, 10, 1]


def test_lines_that_are_not_headings_or_items():
    bank = bf.parse_text(
        text_of(
            "Block A. Things",
            "1. In 1.5 seconds, how far?",
            "1.5 seconds is the time.",
            "Block chain or not?",
            "Keys are not a heading",
            "2023. A year is not an item number",
            "0. nor is zero",
        )
    )
    assert len(bank.blocks[0].items) == 1
    assert bank.blocks[0].items[0].question.splitlines() == [
        "In 1.5 seconds, how far?",
        "1.5 seconds is the time.",
        "Block chain or not?",
        "Keys are not a heading",
        "2023. A year is not an item number",
        "0. nor is zero",
    ]


def test_block_description_is_the_text_between_heading_and_first_item():
    bank = bf.parse_text(
        text_of("Block A. T", "", "First line.", "", "Second paragraph.", "", "1. q")
    )
    assert bank.blocks[0].description == "First line.\n\nSecond paragraph."


def test_front_matter_name_and_description():
    bank = bf.parse_text(text_of("", "My bank", "", "line one", "line two", "", "Block A. T"))
    assert (bank.name, bank.description) == ("My bank", "line one\nline two")
    assert bf.parse_text("## Deep name\nBlock A\n").name == "Deep name"
    assert bf.parse_text("Block A\n1. q\n").name == ""


def test_key_entries_flag_note_sources_and_escapes():
    bank = bf.parse_text(
        text_of(
            "Block A. T",
            "1. q1",
            "2. q2",
            "3. q3",
            "4. q4",
            "5. q5",
            "Answer key",
            "Block A",
            "1. first line",
            "   second line",
            "   (!) the note",
            "   more note",
            "   Sources: a ; b;  c",
            "   Source: d",
            "2. plain \\(!) not a flag",
            "3. yes",
            "   Note: checked on 2025-01-02, no flag",
            "4. answer (!) note with (!) inside",
            "5. answer",
            "   \\Source: is part of the answer",
            "   \\Note: too",
        )
    )
    k1, k2, k3, k4, k5 = (item.key for item in bank.items)
    assert k1 == KeyData(
        answer="first line\nsecond line",
        flagged=True,
        flag_note="the note\nmore note",
        sources=["a", "b", "c", "d"],
    )
    assert k2 == KeyData(answer="plain (!) not a flag")
    assert k3 == KeyData(answer="yes", flag_note="checked on 2025-01-02, no flag")
    assert k4 == KeyData(answer="answer", flagged=True, flag_note="note with (!) inside")
    assert k5.answer == "answer\nSource: is part of the answer\nNote: too"
    assert not k5.sources


def test_question_escapes_and_format_lines():
    bank = bf.parse_text(
        text_of(
            "Block A. T",
            "\\1. a description line that looks like an item",
            "1. \\[retired] is part of the question",
            "   \\Format: is part of the question",
            "   Format: first format line",
            "   FORMAT: second",
            "2. [RETIRED]",
            "   question on the next line",
        )
    )
    block = bank.blocks[0]
    assert block.description == "1. a description line that looks like an item"
    one, two = block.items
    assert not one.retired
    assert one.question == "[retired] is part of the question\nFormat: is part of the question"
    assert one.answer_format == "first format line\nsecond"
    assert two.retired and two.question == "question on the next line"


def test_blank_lines_inside_an_item_are_kept_and_trailing_ones_dropped():
    bank = bf.parse_text(text_of("Block A. T", "1. first", "", "   second", "", "", "2. next"))
    assert [i.question for i in bank.items] == ["first\n\nsecond", "next"]


def test_dump_text_indents_lines_that_look_like_items_or_headings():
    question = "Which line comes first?\n2. looks like an item\nBlock Z. looks like a heading\nAnswer key\n10) also"
    bank = BankData(
        name="Answer key",
        description="1. a description that looks like an item\nBlock Q. and a heading",
        blocks=[
            BlockData(
                code="A",
                title="T",
                description="Key",
                items=[
                    ItemData(
                        question=question,
                        key=KeyData(
                            answer="x\n3. looks like an entry\nBlock A",
                            flagged=True,
                            flag_note="Block B. in the note\nSource: not a source",
                        ),
                    )
                ],
            ),
            BlockData(code="Z", title="Other"),
        ],
    )
    text = bf.dump_text(bank)
    # Continuation lines are indented under the item's text, so they cannot start anything.
    assert "\n   2. looks like an item\n   Block Z. looks like a heading\n   Answer key\n" in text
    assert "\n   3. looks like an entry\n   Block A (!) Block B. in the note\n" in text
    # Free-standing lines (descriptions, the name) are escaped with a backslash instead.
    assert text.startswith("# \\Answer key\n\\1. a description that looks like an item\n")
    assert "Block A. T\n\\Key\n1. Which line comes first?\n" in text
    assert "   \\Source: not a source\n" in text
    assert bf.parse_text(text) == bank


def test_free_text_in_the_answer_key_outside_entries_is_ignored():
    bank = bf.parse_text(
        text_of(
            "Block A. T",
            "1. q",
            "Answer key",
            "(!) marks entries to check against a primary source.",
            "Block A. T",
            "Description repeated here.",
            "1. a",
        )
    )
    assert bank.items[0].key == KeyData(answer="a")


def test_long_runs_of_spaces_do_not_slow_the_parser_down():
    spaces = " " * 300_000
    text = text_of("Block A. T", "1. q", "Answer key", "1. a", "   Sources: a" + spaces + "b")
    text += "Answer" + spaces + "x\nBlock" + spaces + "A\n"
    started = time.perf_counter()
    bank = bf.parse_text(text)
    assert time.perf_counter() - started < 30  # a hang guard, not a speed target (see bench/)
    assert bank.items[0].key.sources == ["a" + spaces + "b"]


# Errors in the text form: each with its line, all collected -------------------------------


def test_empty_file():
    assert problems_of(bf.parse_text, "\n  \n") == [(None, "The file is empty.")]


def test_no_blocks():
    assert problems_of(bf.parse_text, "A bank name\nsome description\n") == [
        (
            None,
            "The file has no blocks: a bank starts with a heading such as "
            "'Block A. HTTP semantics'.",
        )
    ]


def test_numbered_line_before_any_block_heading():
    text = text_of("My bank", "1. an item without a block", "2. another", "Block A. T", "1. q")
    assert problems_of(bf.parse_text, text) == [
        (
            2,
            "item 1 comes before any block heading: put a heading such as "
            "'Block A. HTTP semantics' above the items.",
        )
    ]
    # Without any heading both problems are named.
    assert lines_of(bf.parse_text, "1. a\n2. b\n") == [None, 1]


def test_duplicate_block_code():
    text = text_of("Block A. One", "1. q", "Block B. Two", "1. q", "Block a. Again", "1. q")
    assert problems_of(bf.parse_text, text) == [(5, "block a appears twice (first on line 1).")]


def test_duplicate_item_number_in_a_block():
    text = text_of(
        "Block A. One",  # 1
        "1. q",  # 2
        "2. q",  # 3
        "Block B. Two",  # 4
        "1. q",  # 5
        "2. q",  # 6
        "3. q",  # 7
        "",  # 8
        "3. q",  # 9
        "4. q",  # 10
        "3. q",  # 11
    )
    assert problems_of(bf.parse_text, text) == [
        (9, "item 3 of block B appears twice (first on line 7)."),
        (11, "item 3 of block B appears twice (first on line 7)."),
    ]


def test_duplicate_item_number_across_blocks_with_run_on_numbering():
    text = text_of(
        "Block A. One",  # 1
        "1. q",  # 2
        "2. q",  # 3
        "Block B. Two",  # 4
        "3. q",  # 5
        "2. q",  # 6
    )
    assert problems_of(bf.parse_text, text) == [
        (
            6,
            "item 2 of block B has the same number as item 2 of block A (line 3); the numbers "
            "run on across blocks here (block B starts at 3), so each number can be used only once.",
        )
    ]


def test_key_entry_for_an_item_that_does_not_exist():
    lines = ["Block A. A", "1. q", "Block B. B", "1. q", "Block C. C"]  # lines 1-5
    lines += [f"{n}. q" for n in range(1, 8)]  # lines 6-12: block C has items 1-7
    lines += [""] * 25  # lines 13-37
    lines += ["Answer key", "Block C", "9. nine"]  # lines 38-40
    assert problems_of(bf.parse_text, text_of(*lines)) == [
        (
            40,
            "the key entry for item 9 of block C answers an item that does not exist "
            "(block C has items 1\u20137).",
        )
    ]


def test_key_entry_for_a_missing_item_names_gaps_and_empty_blocks():
    text = text_of(
        "Block A. A",
        "1. q",
        "2. q",
        "4. q",
        "Block B",
        "Key",
        "A",
        "Block A",
        "3. x",
        "Block B",
        "1. y",
    )
    assert problems_of(bf.parse_text, text) == [
        (
            9,
            "the key entry for item 3 of block A answers an item that does not exist "
            "(block A has items 1\u20132, 4).",
        ),
        (
            11,
            "the key entry for item 1 of block B answers an item that does not exist "
            "(block B has no items).",
        ),
    ]


def test_key_entry_for_a_missing_item_with_run_on_numbering():
    text = text_of("Block A. A", "1. q", "2. q", "Block B. B", "3. q", "Answers", "7. x")
    assert problems_of(bf.parse_text, text) == [
        (
            7,
            "the key entry for item 7 answers an item that does not exist "
            "(the items are numbered 1\u20133).",
        ),
    ]


def test_key_entry_under_the_wrong_block_with_run_on_numbering():
    text = text_of("Block A. A", "1. q", "Block B. B", "2. q", "Answer key", "Block B", "1. x")
    assert problems_of(bf.parse_text, text) == [
        (
            7,
            "the key entry for item 1 is under the heading of block B, but item 1 is in "
            "block A (line 2).",
        ),
    ]


def test_duplicate_key_entry():
    text = text_of("Block A. A", "1. q", "2. q", "Answer key", "Block A", "1. x", "2. y", "1. z")
    assert problems_of(bf.parse_text, text) == [
        (8, "the key entry for item 1 of block A appears twice (first on line 6)."),
    ]


def test_empty_question():
    text = text_of("Block A. A", "1. q", "2.", "", "3. [retired]", "4. q")
    assert problems_of(bf.parse_text, text) == [
        (3, "item 2 of block A has an empty question."),
        (5, "item 3 of block A has an empty question."),
    ]


def test_empty_key_answer():
    text = text_of("Block A. A", "1. q", "2. q", "Answer key", "1.", "2. (!) only a note")
    assert problems_of(bf.parse_text, text) == [
        (5, "the key entry for item 1 of block A has an empty answer."),
        (6, "the key entry for item 2 of block A has an empty answer."),
    ]


def test_key_heading_naming_a_block_that_does_not_exist():
    text = text_of(
        "Block A. A",
        "1. q",
        "Block B. B",
        "1. q",
        "Answer key",
        "Block F",
        "1. x",
        "2. y",
        "Block B",
        "1. z",
    )
    assert problems_of(bf.parse_text, text) == [
        (
            6,
            "the answer key has a heading for block F, but there is no block F "
            "(the blocks are A, B).",
        ),
    ]


def test_key_entries_without_block_heading_when_numbering_restarts():
    text = text_of("Block A. A", "1. q", "Block B. B", "1. q", "Answer key", "1. x", "1. y")
    assert problems_of(bf.parse_text, text) == [
        (
            6,
            "key entry 1 comes before any block heading in the answer key; the item numbers "
            "restart in each block, so put each block's heading (such as 'Block A') above "
            "its answers.",
        ),
    ]


def test_second_answer_key_heading():
    text = text_of("Block A. A", "1. q", "Answer key", "1. x", "Key")
    assert problems_of(bf.parse_text, text) == [
        (5, "the answer key starts a second time here (it already started on line 3)."),
    ]


def test_too_long_title_and_answer_format():
    text = text_of("Block A. " + "t" * 201, "1. q", "   Format: " + "f" * 201)
    assert problems_of(bf.parse_text, text) == [
        (1, "the title of block A is 201 characters long; the limit is 200."),
        (2, "the answer format of item 1 of block A is 201 characters long; the limit is 200."),
    ]


def test_all_problems_are_collected_in_one_error():
    text = text_of(
        "Broken bank",  # 1
        "1. before any heading",  # 2
        "Block A. One",  # 3
        "1. q",  # 4
        "2.",  # 5
        "1. again",  # 6
        "Block A. One again",  # 7
        "Block B. Two",  # 8
        "1. q",  # 9
        "2. q",  # 10
        "Answer key",  # 11
        "Block A",  # 12
        "1. a",  # 13
        "1. a again",  # 14
        "3. no such item",  # 15
        "Block X",  # 16
        "1. under a missing block",  # 17
        "Block B",  # 18
        "1.",  # 19
        "2. fine (!) note",  # 20
        "Answers",  # 21
    )
    with pytest.raises(BankFormatError) as caught:
        bf.parse_text(text)
    error = caught.value
    assert [(p.line, p.message) for p in error.problems] == [
        (
            2,
            "item 1 comes before any block heading: put a heading such as "
            "'Block A. HTTP semantics' above the items.",
        ),
        (5, "item 2 of block A has an empty question."),
        (6, "item 1 of block A appears twice (first on line 4)."),
        (7, "block A appears twice (first on line 3)."),
        (14, "the key entry for item 1 of block A appears twice (first on line 13)."),
        (
            15,
            "the key entry for item 3 of block A answers an item that does not exist "
            "(block A has items 1\u20132).",
        ),
        (
            16,
            "the answer key has a heading for block X, but there is no block X "
            "(the blocks are A, B).",
        ),
        (19, "the key entry for item 1 of block B has an empty answer."),
        (21, "the answer key starts a second time here (it already started on line 11)."),
    ]
    assert str(error).splitlines()[0] == (
        "Line 2: item 1 comes before any block heading: put a heading such as "
        "'Block A. HTTP semantics' above the items."
    )
    assert len(str(error).splitlines()) == 9
    assert isinstance(error, ValueError)


def test_problem_and_error_objects():
    assert str(FormatProblem(12, "x is wrong.")) == "Line 12: x is wrong."
    assert str(FormatProblem(None, "The file is empty.")) == "The file is empty."
    error = BankFormatError(
        [FormatProblem(3, "b."), FormatProblem(None, "a."), FormatProblem(1, "c.")]
    )
    assert [p.line for p in error.problems] == [None, 1, 3]
    assert str(error) == "a.\nLine 1: c.\nLine 3: b."
    copy = pickle.loads(pickle.dumps(error))
    assert copy.problems == error.problems
    with pytest.raises(ValueError):
        BankFormatError([])


# Bytes: encoding, size, binary ---------------------------------------------------------------

SMALL = b"# Bank\nBlock A. T\n1. caf\xc3\xa9?\nAnswer key\n1. yes\n"


def test_decode_plain_utf8_bom_and_line_endings():
    expected = bf.load(SMALL)
    assert expected.items[0].question == "caf\u00e9?"
    assert bf.decode(b"\xef\xbb\xbf" + SMALL) == SMALL.decode()
    assert bf.load(b"\xef\xbb\xbf" + SMALL) == expected
    assert bf.load(SMALL.replace(b"\n", b"\r\n")) == expected
    assert bf.load(SMALL.replace(b"\n", b"\r")) == expected
    assert bf.decode(b"a\r\nb\rc\n") == "a\nb\nc\n"


def test_line_numbers_are_the_same_with_crlf():
    data = b"Block A. T\r\n1. q\r\n1. again\r\n"
    assert lines_of(bf.load, data) == [3]


def test_non_utf8_bytes_name_offset_and_line():
    data = b"Block A. T\n1. q\n2. caf\xe9\n"
    assert problems_of(bf.load, data) == [
        (
            None,
            "The file is not UTF-8 text (byte 0xe9 at offset 22, line 3); save it as UTF-8 "
            "and try again.",
        ),
    ]
    # The offset counts the BOM too: it is the offset in the file as uploaded.
    assert "offset 25, line 3" in problems_of(bf.decode, b"\xef\xbb\xbf" + data)[0][1]
    assert "byte 0xff at offset 4, line 2" in problems_of(bf.decode, b"abc\n\xff")[0][1]


def test_nul_and_binary_files_are_refused():
    assert problems_of(bf.decode, b"Block A. T\n1. q\x00\n") == [
        (None, "The file contains a NUL byte (offset 15, line 2): it is a binary file, not text."),
    ]
    png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"
    assert problems_of(bf.decode, png) == [
        (
            None,
            "The file contains the control byte 0x1a (offset 6, line 2): it does not look "
            "like a text file.",
        ),
    ]
    assert "ZIP archive" in problems_of(bf.decode, b"PK\x03\x04rest")[0][1]
    assert "PDF document" in problems_of(bf.decode, b"%PDF-1.7\n")[0][1]
    assert "UTF-16" in problems_of(bf.decode, "Block A".encode("utf-16"))[0][1]
    # Tabs and form feeds are text.
    assert bf.decode(b"a\tb\x0cc") == "a\tb\x0cc"


def test_size_limit():
    assert bf.MAX_BYTES == 16 * 1024 * 1024
    big = b"x" * int(20.3 * 1024 * 1024)
    assert problems_of(bf.decode, big) == [(None, "The file is 20.3 MB; the limit is 16 MB.")]
    just_over = b"x" * (bf.MAX_BYTES + 1)
    assert problems_of(bf.decode, just_over) == [
        (None, "The file is 16777217 bytes; the limit is 16777216 bytes (16 MB)."),
    ]
    assert bf.decode(b"x" * bf.MAX_BYTES) == "x" * bf.MAX_BYTES
    # Text handed straight to a parser has the same limit.
    assert problems_of(bf.parse_text, "x" * (bf.MAX_BYTES + 1))[0][1].startswith("The file is ")
    assert problems_of(bf.parse_json, "\u00e9" * (bf.MAX_BYTES // 2 + 1))[0][1].startswith(
        "The file is "
    )


def test_detect_format():
    assert bf.detect_format('{"schema": "blindprobe.bank"}') == "json"
    assert bf.detect_format('\ufeff  \n {"a": 1}', "bank.txt") == "json"
    assert bf.detect_format("[1, 2]") == "json"
    assert bf.detect_format("Block A. T\n", "bank.JSON") == "json"
    assert bf.detect_format("Block A. T\n", "bank.txt") == "text"
    assert bf.detect_format("# Bank\nBlock A. T\n") == "text"
    assert bf.detect_format("") == "text"


def test_load_dispatches_on_format():
    bank = bf.parse_text(PUBLISHED)
    assert bf.load(bf.dump_json(bank).encode(), "x.json") == bank
    assert bf.load(bf.dump_json(bank).encode()) == bank
    assert bf.load(PUBLISHED.encode(), "probe.txt") == bank
    # A .json name with text content is read as JSON, and says so.
    assert "not valid JSON" in problems_of(bf.load, PUBLISHED.encode(), "bank.json")[0][1]


# JSON ----------------------------------------------------------------------------------------


def minimal_json(**changes) -> dict:
    data = {
        "schema": "blindprobe.bank",
        "version": 1,
        "name": "N",
        "description": "",
        "blocks": [
            {
                "code": "A",
                "title": "T",
                "description": "",
                "items": [
                    {
                        "question": "q?",
                        "answer_format": "",
                        "retired": False,
                        "key": {"answer": "a", "flagged": False, "flag_note": "", "sources": []},
                    },
                ],
            }
        ],
    }
    data.update(changes)
    return data


def test_json_minimal_and_defaults():
    bank = bf.parse_json(json.dumps(minimal_json()))
    assert bank == BankData(
        name="N",
        blocks=[
            BlockData(code="A", title="T", items=[ItemData(question="q?", key=KeyData(answer="a"))])
        ],
    )
    sparse = {
        "schema": "blindprobe.bank",
        "version": 1,
        "blocks": [{"code": "A", "title": "T", "items": [{"question": "q"}]}],
    }
    assert bf.parse_json(json.dumps(sparse)) == BankData(
        blocks=[BlockData(code="A", title="T", items=[ItemData(question="q")])]
    )


def test_json_dump_is_lossless_and_ordered():
    bank = BankData(
        name="  spaced name ",
        description="line\n\n  indented\n",
        blocks=[
            BlockData(
                code="Z",
                title="",
                description=" d ",
                items=[
                    ItemData(
                        question=" q\n",
                        answer_format="f\nf",
                        retired=True,
                        key=KeyData(
                            answer="a; b (!)", flagged=False, flag_note="n", sources=["x ; y", "z"]
                        ),
                    ),
                    ItemData(question="second"),
                ],
            ),
            BlockData(code="A", title="First by name, second by order"),
        ],
    )
    text = bf.dump_json(bank)
    assert json.loads(text)["blocks"][0]["items"][1] == {
        "id": "",
        "topic": "",
        "question": "second",
        "answer_format": "",
        "answer_kind": "",
        "retired": False,
        "retired_reason": "",
        "version": 1,
        "key": None,
    }
    assert list(json.loads(text)) == [
        "schema",
        "version",
        "name",
        "description",
        "language",
        "blocks",
    ]
    assert bf.parse_json(text) == bank
    assert bf.dump_json(bf.parse_json(text)) == text


def test_json_syntax_error_names_line_and_column():
    text = '{\n  "schema": "blindprobe.bank",\n  "version": 1\n  "blocks": []\n}\n'
    assert problems_of(bf.parse_json, text) == [
        (4, "the file is not valid JSON: a comma is missing (column 3)."),
    ]
    trailing = '{\n  "schema": "blindprobe.bank",\n}'
    assert problems_of(bf.parse_json, trailing)[0][0] == 3
    assert "comma too many" in problems_of(bf.parse_json, trailing)[0][1]


def test_json_unknown_schema_and_newer_version():
    assert problems_of(bf.parse_json, '{"schema": "other.thing", "version": 1}') == [
        (1, 'the file is not a bank file: its schema is "other.thing", not "blindprobe.bank".'),
    ]
    assert problems_of(bf.parse_json, '{"version": 1, "blocks": []}') == [
        (
            1,
            'the file is JSON but not a bank file: it has no "schema" field (a bank file has '
            '"schema": "blindprobe.bank").',
        ),
    ]
    newer = json.dumps(minimal_json(version=2, extra="from the future"), indent=1)
    assert problems_of(bf.parse_json, newer) == [
        (
            3,
            "the file uses bank format version 2, which is newer than this app understands "
            "(version 1); update the app, or export the bank in version 1.",
        ),
    ]
    assert problems_of(bf.parse_json, "[]")[0][1].startswith("the file is JSON but not a bank")
    assert lines_of(bf.parse_json, json.dumps(minimal_json(version="1"))) == [1]
    assert lines_of(bf.parse_json, json.dumps(minimal_json(version=0))) == [1]


def test_json_validation_names_path_and_line_and_collects_everything():
    data = minimal_json(name="two\nlines", colour="red")
    del data["version"]
    blocks = data["blocks"]
    blocks[0]["items"].append({"question": "  ", "retired": "yes", "key": {"flagged": 1}})
    blocks[0]["items"].append({"question": 3, "key": "a", "answer_fromat": "x"})
    blocks[0]["items"].append("not an item")
    blocks.append({"code": "a", "title": 7, "items": {}})
    blocks.append(
        {
            "code": "ABC",
            "title": "t" * 201,
            "items": [
                {
                    "question": "ok",
                    "answer_format": "f" * 201,
                    "key": {
                        "answer": "",
                        "sources": ["", "two\nlines", 5, "fine"],
                        "flag_note": None,
                    },
                },
                {"question": "ok\u0000", "key": {"answer": "x", "sources": "RFC"}},
            ],
        }
    )
    blocks.append({"title": "no code", "items": []})
    text = json.dumps(data, indent=2)
    found = problems_of(bf.parse_json, text)

    def line_of(needle: str, occurrence: int = 1) -> int:
        count = 0
        for number, line in enumerate(text.splitlines(), start=1):
            if needle in line if occurrence else line.strip() == needle:
                count += 1
                if count == max(occurrence, 1):
                    return number
        raise AssertionError(needle)

    expected = [
        (1, "the required field 'version' is missing."),
        (
            1,
            "unknown field 'colour' (the fields are schema, version, blocks, name, description, language).",
        ),
        (line_of('"name"'), "name: must be one line of text (no line breaks)."),
        (line_of('"question": "  "'), "blocks[0].items[1].question: must be a non-empty string."),
        (line_of('"retired": "yes"'), "blocks[0].items[1].retired: must be true or false."),
        (
            line_of('"flagged": 1') - 1,
            "blocks[0].items[1].key: the required field 'answer' is missing.",
        ),
        (line_of('"flagged": 1'), "blocks[0].items[1].key.flagged: must be true or false."),
        (
            line_of('"question": 3') - 1,
            "blocks[0].items[2]: unknown field 'answer_fromat' (the fields are question, "
            "id, topic, answer_format, answer_kind, retired, retired_reason, version, key).",
        ),
        (line_of('"question": 3'), "blocks[0].items[2].question: must be a non-empty string."),
        (line_of('"key": "a"'), "blocks[0].items[2].key: must be an object (a key entry) or null."),
        (line_of('"not an item"'), "blocks[0].items[3]: must be an object (an item)."),
        (line_of('"code": "a"'), "blocks[1].code: block a appears twice (first as blocks[0])."),
        (line_of('"title": 7'), "blocks[1].title: must be a string."),
        (line_of('"items": {}'), "blocks[1].items: must be a list of items."),
        (
            line_of('"code": "ABC"'),
            'blocks[2].code: must be one or two letters or digits, such as "A" (found "ABC").',
        ),
        (line_of('"title": "ttt'), "blocks[2].title: is 201 characters long; the limit is 200."),
        (
            line_of('"answer_format": "fff'),
            "blocks[2].items[0].answer_format: is 201 characters long; the limit is 200.",
        ),
        (line_of('"answer": ""'), "blocks[2].items[0].key.answer: must be a non-empty string."),
        (line_of('"",', 0), "blocks[2].items[0].key.sources[0]: must be a non-empty string."),
        (
            line_of('"two\\nlines"', 2),
            "blocks[2].items[0].key.sources[1]: must be one line of text (no line breaks).",
        ),
        (line_of("5,"), "blocks[2].items[0].key.sources[2]: must be a non-empty string."),
        (line_of('"flag_note": null'), "blocks[2].items[0].key.flag_note: must be a string."),
        (
            line_of('"ok\\u0000"'),
            "blocks[2].items[1].question: contains a character that cannot be stored (NUL or a "
            "lone surrogate).",
        ),
        (line_of('"sources": "RFC"'), "blocks[2].items[1].key.sources: must be a list of strings."),
        (line_of('"no code"') - 1, "blocks[3]: the required field 'code' is missing."),
        (
            line_of('"no code"') - 1,
            'blocks[3].code: must be one or two letters or digits, such as "A" (found "").',
        ),
    ]
    assert sorted(found, key=lambda p: p[0]) == sorted(expected, key=lambda p: p[0])
    assert len(found) == len(expected)


def test_json_no_blocks_and_wrong_types_at_the_top():
    assert problems_of(bf.parse_json, json.dumps(minimal_json(blocks=[]))) == [
        (
            1,
            "blocks: the bank has no blocks: add at least one block with its code, title and "
            "items.",
        ),
    ]
    assert problems_of(bf.parse_json, json.dumps(minimal_json(blocks={}, description=5))) == [
        (1, "description: must be a string."),
        (1, "blocks: must be a list of blocks."),
    ]


def test_json_duplicate_field_names():
    text = (
        '{"schema": "blindprobe.bank", "version": 1,\n'
        ' "blocks": [{"code": "A", "title": "T",\n'
        '             "title": "again", "items": []}]}\n'
    )
    assert problems_of(bf.parse_json, text) == [
        (3, "blocks[0]: the field 'title' appears twice (first on line 2); remove one."),
    ]


def test_json_bom_and_deep_nesting():
    bank = bf.parse_json("\ufeff" + json.dumps(minimal_json()))
    assert bank.blocks[0].code == "A"
    deep = json.dumps(minimal_json(extra=[[[[[[[[[[{"x": {"y": [1, 2, {"z": None}]}}]]]]]]]]]]))
    assert problems_of(bf.parse_json, deep)[0][1].startswith("unknown field 'extra'")
    assert problems_of(bf.parse_json, "[" * 100_000)[0][0] in (None, 1)


# Round trips, with generated banks -----------------------------------------------------------

AWKWARD_LINES = [
    "2. looks like an item",
    "10) also looks like an item",
    "Block Z. looks like a heading",
    "## Block A: also a heading",
    "block b",
    "Answer key",
    "Key",
    "answers:",
    "## Answers",
    "Format: a number",
    "Source: RFC 1",
    "Sources: a ; b",
    "Note: hmm",
    "\\",
    "\\x",
    "\\\\(!)",
    "(!)",
    "(!) note",
    "x (!) y",
    "a \\(!) b",
    "[retired] x",
    "[RETIRED]",
    "# title",
    "#",
    "1.",
    "C:\\",
    "\u2013 dash",
    "\u65e5\u672c\u8a9e\u306e\u8cea\u554f\u3067\u3059\u304b\uff1f",
    "Block \u7532. \u898b\u51fa\u3057",
]
ALPHABET = "abXZ019 .,:()!#[]\\-\u2013?\u00e9\u65e5\t"
CODES = ["A", "B", "C", "Z", "AB", "a1", "9", "10", "\u00e9", "\u7532", "b", "q"]

plain_line = st.text(ALPHABET, min_size=1, max_size=25).map(str.strip).filter(bool)
text_line = st.one_of(st.sampled_from(AWKWARD_LINES), plain_line)


def _normal(lines: list[str]) -> str:
    return _tidy(lines)


multi_line = st.lists(st.one_of(text_line, st.just("")), min_size=1, max_size=4).map(_normal)
some_text = multi_line.filter(bool)
maybe_text = st.one_of(st.just(""), multi_line)
source = st.one_of(
    st.sampled_from(
        ["RFC 9110, section 15.5.21", "a;b", ";", "a;", ";b", "Source: x", "(!)", "\\"]
    ),
    st.text(ALPHABET, min_size=1, max_size=20).map(str.strip).filter(bool),
)

key_data = st.builds(
    KeyData,
    answer=some_text,
    flagged=st.booleans(),
    flag_note=maybe_text,
    sources=st.lists(source, max_size=3),
)
item_data = st.builds(
    ItemData,
    question=some_text,
    answer_format=maybe_text,
    retired=st.booleans(),
    key=st.one_of(st.none(), key_data),
)


@st.composite
def banks(draw, item=item_data, line=text_line, free=maybe_text):
    codes = draw(st.lists(st.sampled_from(CODES), min_size=1, max_size=4, unique_by=str.casefold))
    blocks = [
        BlockData(
            code=code,
            title=draw(st.one_of(st.just(""), line)),
            description=draw(free),
            items=draw(st.lists(item, max_size=5)),
        )
        for code in codes
    ]
    return BankData(name=draw(st.one_of(st.just(""), line)), description=draw(free), blocks=blocks)


# BANKFORMAT_EXAMPLES=5000 for a longer hunt.
EXAMPLES = int(os.environ.get("BANKFORMAT_EXAMPLES", "300"))
ROUND_TRIP = settings(
    max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@ROUND_TRIP
@given(banks())
def test_text_round_trip(bank):
    text = bf.dump_text(bank)
    again = bf.parse_text(text)
    assert again == bank
    assert bf.dump_text(again) == text
    assert bf.load(text.encode("utf-8"), "bank.txt") == bank


@ROUND_TRIP
@given(banks())
def test_json_round_trip(bank):
    text = bf.dump_json(bank)
    again = bf.parse_json(text)
    assert again == bank
    assert bf.dump_json(again) == text
    assert bf.load(text.encode("utf-8")) == bank


# Any string the JSON form accepts: leading spaces, control characters, odd line breaks.
any_char = st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00")
any_text = st.text(any_char, max_size=30)
any_line = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00\n\r"), max_size=30
)
any_nonblank = any_text.filter(lambda s: s.strip())
any_key = st.builds(
    KeyData,
    answer=any_nonblank,
    flagged=st.booleans(),
    flag_note=any_text,
    sources=st.lists(any_line.filter(lambda s: s.strip()), max_size=3),
)
any_item = st.builds(
    ItemData,
    question=any_nonblank,
    answer_format=any_text,
    retired=st.booleans(),
    key=st.one_of(st.none(), any_key),
)


@ROUND_TRIP
@given(banks(item=any_item, line=any_line, free=any_text))
def test_json_round_trip_is_lossless_for_any_text(bank):
    text = bf.dump_json(bank)
    assert bf.parse_json(text) == bank
    assert bf.dump_json(bf.parse_json(text)) == text


@ROUND_TRIP
@given(banks(item=any_item, line=any_line, free=any_text))
def test_text_export_of_any_bank_reads_back_and_is_stable(bank):
    # Whitespace at the ends of lines is not kept by the text form, so compare after one pass.
    text = bf.dump_text(bank)
    again = bf.parse_text(text)
    assert bf.dump_text(again) == text
    assert bf.parse_text(bf.dump_text(again)) == again
    assert [len(b.items) for b in again.blocks] == [len(b.items) for b in bank.blocks]
    assert [i.retired for i in again.items] == [i.retired for i in bank.items]
    assert [i.key is None for i in again.items] == [i.key is None for i in bank.items]
