"""The import preview of plain text: warnings about prose around a probe, and the readings they
offer. The documents in documents/ were written for these tests: a copy of a web page with
headings and prose, a document with notes after the key, a key section without its heading."""

from pathlib import Path

import pytest
from django.utils import translation

from probe import bankformat as bf
from probe.bankformat import BankData, BlockData, ItemData, KeyData, Readings
from probe.bankformat.lexicon import ranges

DOCUMENTS = Path(__file__).resolve().parent / "documents"


def read(name: str) -> bytes:
    return (DOCUMENTS / name).read_bytes()


def text_of(*lines: str) -> str:
    return "\n".join(lines) + "\n"


def summary(result) -> list[tuple[str, int, str]]:
    return [(w.kind, w.line, w.reading) for w in result.warnings]


def item(question, answer, flagged=False, note=""):
    return ItemData(question=question, key=KeyData(answer=answer, flagged=flagged, flag_note=note))


WEB_PAGE_PROBE = BankData(
    name="A small private probe of browser knowledge",
    blocks=[
        BlockData(
            code="A",
            title="Rendering",
            items=[
                item(
                    "Which CSS property creates a new stacking context when set to any value"
                    " other than auto?",
                    "z-index",
                ),
                item(
                    "In which year was the first public working draft of CSS Grid Layout"
                    " published?",
                    "2011",
                    True,
                    'the draft of April 2011 was published under the name "Grid Layout";'
                    " check the W3C history page.",
                ),
                item(
                    "Which HTML element is used to lazy-load nothing at all, by default,"
                    " in every browser?",
                    "iframe",
                ),
            ],
        ),
        BlockData(
            code="B",
            title="Networking",
            items=[
                item("Which HTTP status code means Too Many Requests?", "429"),
                item(
                    "Which response header tells a client how long to wait before retrying?",
                    "Retry-After",
                ),
                item("What is the default port of HTTPS?", "443"),
            ],
        ),
    ],
)


def test_a_web_page_copy_is_read_as_written_and_every_piece_of_prose_is_pointed_at():
    result = bf.preview(read("web_page.txt"), "web_page.txt")
    assert result.ok  # the grammar reads it, wrongly: that is what the warnings are for
    assert summary(result) == [
        ("description", 2, "drop:2-7"),
        ("paragraph", 14, "drop:14"),
        ("heading", 20, "drop:20"),
        ("trailing", 33, "drop:33-37"),
    ]
    b3 = result.bank.blocks[1].items[2]
    assert b3.question.endswith("Show the answer key")
    assert "Thanks to everyone" in b3.key.flag_note and b3.key.flagged  # the glued paragraph
    assert all(str(w).startswith(f"Line {w.line}: ") for w in result.warnings)


def test_accepting_the_suggested_readings_imports_exactly_the_probe_of_the_web_page():
    result = bf.preview_suggested(read("web_page.txt"), "web_page.txt")
    assert result.warnings == [] and result.problems == []
    assert result.readings.codes == ("drop:2-7", "drop:14", "drop:20", "drop:33-37")
    assert result.bank == WEB_PAGE_PROBE
    assert [i.key.flagged for i in result.bank.items] == [False, True, False, False, False, False]
    assert result.name == "A small private probe of browser knowledge"


def test_notes_after_the_key_are_offered_to_be_dropped():
    result = bf.preview(read("notes_after_key.txt"), "notes.txt")
    assert summary(result) == [("trailing", 20, "drop:20-22")]
    last = result.bank.blocks[1].items[1].key
    assert "Notes on scoring" in last.answer  # glued on, as the grammar reads it
    accepted = bf.preview(result.text, "notes.txt", Readings.from_codes(["drop:20-22"]))
    assert accepted.warnings == []
    keys = [(i.key.answer, i.key.flagged, i.key.flag_note) for i in accepted.bank.items]
    assert keys == [
        ("100", False, ""),
        ("shared_buffers", False, ""),
        ("10", True, "Version 10, released in October 2017."),
        ("pg_replication_slots", False, ""),
    ]


def test_a_key_without_its_heading_is_found_by_the_repeated_block_headings():
    result = bf.preview(read("key_without_heading.txt"), "trivia.txt")
    assert not result.ok
    assert [(p.line, p.message) for p in result.problems] == [
        (13, "block A appears twice (first on line 3)."),
        (16, "block B appears twice (first on line 7)."),
    ]
    # The key starts at the sentence that announces it, not at the repeated heading.
    assert summary(result) == [("key", 13, "key:11")]
    assert result.warnings[0].suggestion == "Read the answer key from line 11."
    accepted = bf.preview(result.text, "trivia.txt", Readings.from_codes(["key:11"]))
    assert accepted.ok and accepted.warnings == []
    assert [i.key.answer for i in accepted.bank.items] == [
        "PEP 498",
        "match",
        "dataclasses",
        "groupby",
    ]
    assert [i.key.flagged for i in accepted.bank.items] == [False, False, False, True]


def test_a_key_without_heading_in_a_single_block_is_found_by_the_numbering_starting_again():
    text = text_of(
        "Block A. Only",  # 1
        "1. First?",  # 2
        "2. Second?",  # 3
        "",  # 4
        "1. one",  # 5
        "2. two",  # 6
    )
    result = bf.preview(text)
    assert [(p.line) for p in result.problems] == [5, 6]
    assert summary(result) == [("key", 5, "key:5")]
    accepted = bf.preview(text, "", Readings.from_codes(["key:5"]))
    assert [i.key.answer for i in accepted.bank.items] == ["one", "two"]


def test_item_1000_after_item_999_is_an_item():
    # A block of a large bank (the app's own text export numbers past 999) reads as it was
    # written: a number from 1000 on that continues its block is the next item, no warning.
    lines = ["Block A. Many"] + [f"{n}. Question {n}?" for n in range(1, 1002)]
    result = bf.preview(text_of(*lines))
    assert result.bank.item_count == 1001 and result.warnings == []
    assert [i.question for i in result.bank.items[-3:]] == [
        "Question 999?",
        "Question 1000?",
        "Question 1001?",
    ]


def test_a_numbered_list_inside_an_item_is_not_taken_for_the_next_item():
    text = text_of(
        "Block A. Lists",
        "3. Given the list below, which element does xs[-1] return?",
        "     1. alpha",
        "     4. beta",
    )
    assert bf.preview(text).warnings == []


def test_an_indented_next_number_is_offered_as_the_next_item():
    text = text_of("Block A. T", "1. First?", "     2. Second?")
    result = bf.preview(text)
    assert summary(result) == [("lookalike", 3, "item:3")]
    accepted = bf.preview(text, "", Readings.from_codes(["item:3"]))
    assert [i.question for i in accepted.bank.items] == ["First?", "Second?"]


def test_a_q_numbered_line_is_offered_as_an_item():
    text = text_of("Block A. T", "1. First?", "Q2. Second?")
    assert summary(bf.preview(text)) == [("lookalike", 3, "item:3")]
    accepted = bf.preview_suggested(text)
    assert [(i.number, i.question) for i in accepted.bank.items] == [(1, "First?"), (2, "Second?")]


def test_a_document_heading_between_items_is_offered_to_be_left_out():
    text = text_of(
        "Block A. T",  # 1
        "1. First?",  # 2
        "Section 2: further questions",  # 3
        "Block B. U",  # 4
        "1. Other?",  # 5
    )
    result = bf.preview(text)
    assert summary(result) == [("heading", 3, "drop:3")]
    assert "line 3 reads like a heading of the document" in result.warnings[0].message


def test_a_question_of_many_lines_is_pointed_at():
    text = text_of(
        "Block A. T",
        "1. What is the first line?",
        "This is the second line.",
        "A third line of the article goes on and on.",
        "A fourth line of the article goes on and on.",
        "A fifth line of the article goes on and on.",
    )
    result = bf.preview(text)
    assert summary(result) == [("long", 2, "drop:3-6")]
    assert "item 1 of block A is 5 lines long" in result.warnings[0].message


def test_a_flag_inside_a_sentence_of_the_prose_is_offered_to_be_left_out():
    text = text_of(
        "Block A. T",  # 1
        "1. First?",  # 2
        "Answer key",  # 3
        "1. yes",  # 4
        "entries marked (!) must be checked against a primary source before marking.",  # 5
    )
    result = bf.preview(text)
    assert result.bank.items[0].key.flagged
    assert summary(result) == [("flag", 5, "drop:5")]
    fixed = bf.preview_suggested(text)
    assert fixed.bank.items[0].key == KeyData(answer="yes")


def test_a_flag_note_that_reads_like_a_paragraph_is_pointed_at():
    note = "This is a sentence. " * 20
    text = text_of("Block A. T", "1. First?", "Answer key", f"1. yes (!) {note}")
    result = bf.preview(text)
    assert [(w.kind, w.line, w.reading) for w in result.warnings] == [("flag", 4, "")]
    assert "reads like prose" in result.warnings[0].message


@pytest.mark.parametrize("name", ["demo_bank.txt"])
def test_a_well_formed_probe_has_no_warnings(name):
    demo = Path(bf.__file__).parents[1] / "demo" / name
    assert bf.preview(demo.read_bytes(), name).warnings == []


def test_keyword_lines_after_a_blank_are_not_prose():
    text = text_of(
        "Block A. T",
        "1. First?",
        "",
        "Format: one word",
        "Answer key",
        "1. yes",
        "",
        "Source: RFC 9110",
    )
    assert bf.preview(text).warnings == []


def test_a_json_file_has_no_warnings_and_is_previewed():
    result = bf.preview(bf.dump_json(WEB_PAGE_PROBE).encode(), "bank.json")
    assert result.file_format == "json" and result.bank == WEB_PAGE_PROBE
    assert result.warnings == []


def test_a_file_refused_before_reading_has_no_text_and_says_why():
    result = bf.preview(b"\x00\x01binary", "x.bin")
    assert not result.ok and result.text == ""
    assert "NUL byte" in str(result.problems[0])


@pytest.mark.parametrize("code", ["drop:0", "rm:3", "drop:5-2", "key:3-4", "item:", "drop:1e3"])
def test_a_reading_code_that_is_not_one_is_refused(code):
    with pytest.raises(bf.ReadingError):
        Readings.from_codes([code])


def test_reading_codes_are_kept_in_order_without_repeats():
    readings = Readings.from_codes(["drop:3-4", "key:9", "drop:3-4", "", "item:12"])
    assert readings.codes == ("drop:3-4", "key:9", "item:12")
    assert readings.drop == {3, 4} and readings.key_at == 9 and readings.items == {12}
    assert bf.describe_reading("drop:3-4") == "Leave out lines 3–4."


@pytest.mark.parametrize(
    "filename,expected",
    [("spring_probe-2025.txt", "spring probe-2025"), ("", ""), ("dir/x y.txt", "x y")],
)
def test_the_bank_name_comes_from_the_file_name_when_the_document_has_no_title(filename, expected):
    result = bf.preview(b"Block A. T\n1. First?\n", filename)
    assert result.bank.name == "" and result.name == expected


def test_the_bank_name_is_the_document_title_before_the_file_name():
    assert bf.preview(read("notes_after_key.txt"), "x.txt").name == "Probe: PostgreSQL operations"


def test_a_whole_published_article_imports_exactly_its_probe_once_the_readings_are_taken():
    """The 30-item demo probe as a blog post publishes it: site navigation, a title, prose, a
    paragraph between two blocks, "Show the answer key", the key without its heading, then
    notes with a (!) in a sentence and a numbered list of references."""
    article = read("published_article.txt")
    demo = bf.load((Path(bf.__file__).parents[1] / "demo" / "demo_bank.txt").read_bytes())
    as_read = bf.preview(article, "published_article.txt")
    assert not as_read.ok  # the key's block headings repeat: refused as written
    assert summary(as_read) == [
        ("description", 1, "drop:1-3,5-9"),
        ("paragraph", 29, "drop:29"),
        ("key", 58, "key:56"),
    ]
    assert as_read.warnings[0].suggestion == "Leave out lines 1–3 and 5–9."
    result = bf.preview_suggested(article, "published_article.txt")
    assert result.readings.codes == ("drop:1-3,5-9", "drop:29", "key:56", "drop:106-114")
    assert result.warnings == [] and result.problems == []
    assert result.bank.blocks == demo.blocks  # every item, key entry, source and flag
    assert result.bank.flagged_count == 3 and result.bank.item_count == 30
    assert result.name == "The tools this project stands on" and result.bank.description == ""


def test_the_title_is_the_markdown_heading_of_the_front_matter():
    text = text_of("Skip to content", "# The real title", "A line.", "Block A. T", "1. Q?")
    bank = bf.parse_text(text)
    assert bank.name == "The real title" and bank.description == "Skip to content\nA line."


def test_a_drop_code_of_several_ranges():
    readings = Readings.from_codes(["drop:1-3,5,7-8"])
    assert readings.drop == {1, 2, 3, 5, 7, 8}
    assert bf.describe_reading("drop:1-3,5,7-8") == "Leave out lines 1–3, 5, 7–8."
    with translation.override("ja"):
        assert bf.describe_reading("drop:1-2,4-5") == "1〜2、4〜5 行目を除く。"
        assert bf.describe_reading("drop:3-4") == "3〜4 行目を除く。"
        assert ranges([1, 2, 3, 5, 7, 8]) == "1〜3、5、7〜8"
    assert ranges([1, 2, 3, 5, 7, 8]) == "1–3, 5, 7–8"
    with pytest.raises(bf.ReadingError):
        Readings.from_codes(["drop:3-1,5"])
