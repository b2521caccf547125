"""CSV and JSON Lines: one item per row in the common benchmark shape; round trips and refusals
with the line of every problem."""

import json
from pathlib import Path

import pytest

from probe import bankformat as bf
from probe.bankformat import BankData, BlockData, ItemData, KeyData

DOCUMENTS = Path(__file__).resolve().parent / "documents"


def problems_of(call, text):
    with pytest.raises(bf.BankFormatError) as caught:
        call(text)
    return [(p.line, p.message) for p in caught.value.problems]


def test_a_benchmark_csv_reads_exactly():
    bank = bf.load((DOCUMENTS / "benchmark.csv").read_bytes(), "benchmark.csv")
    assert [(b.code, b.title, len(b.items)) for b in bank.blocks] == [
        ("A", "Web platform", 3),
        ("B", "Python", 3),
    ]
    first, second, third = bank.blocks[0].items
    assert (first.ref, first.topic, first.answer_format) == (
        "web-0001",
        "HTTP status codes",
        "number",
    )
    assert first.key == KeyData(answer="429", sources=["RFC 6585", "RFC 9110"])
    assert second.question == (
        "Which response header says how long to wait before retrying\nafter a 503 or a 429?"
    )
    assert second.line == 3 and third.line == 5  # a record over two lines: the next starts on 5
    assert third.key.flagged and third.key.flag_note.startswith("RFC 7231 was")
    python = bank.blocks[1].items
    assert python[1].key == KeyData(answer="2", flag_note="Round half to even.")
    assert python[2].key is None  # no target: an item without a key entry


def test_a_benchmark_jsonl_reads_exactly():
    bank = bf.load((DOCUMENTS / "benchmark.jsonl").read_bytes(), "benchmark.jsonl")
    assert [(b.code, b.title) for b in bank.blocks] == [("A", "PostgreSQL"), ("B", "Django")]
    pg = bank.blocks[0].items
    assert pg[0].key == KeyData(answer="5432", sources=["PostgreSQL docs, 19.3"])
    assert pg[1].key == KeyData(
        answer="15", flagged=True, flag_note="Check the release notes of 15."
    )
    assert bank.blocks[1].items[0].key.sources == ["Django docs", "settings reference"]
    assert bank.blocks[1].items[0].line == 4  # the blank line 3 is skipped, lines still count


@pytest.mark.parametrize("name", ["benchmark.csv", "benchmark.jsonl"])
@pytest.mark.parametrize(
    "dump,parse", [(bf.dump_csv, bf.parse_csv), (bf.dump_jsonl, bf.parse_jsonl)]
)
def test_round_trips_are_lossless(name, dump, parse):
    bank = bf.load((DOCUMENTS / name).read_bytes(), name)
    text = dump(bank)
    assert parse(text) == bank
    assert dump(parse(text)) == text
    # and across formats: CSV -> JSON Lines -> JSON -> CSV
    assert bf.parse_json(bf.dump_json(bf.parse_jsonl(bf.dump_jsonl(bank)))) == bank


def test_a_bank_with_codes_titles_retired_items_and_awkward_sources_round_trips():
    bank = BankData(
        blocks=[
            BlockData(
                code="H",
                title="HTTP, semantics",
                items=[
                    ItemData(
                        question='Line one, "quoted"\nline two',
                        answer_format="a three-digit number",
                        retired=True,
                        topic="status",
                        ref="h1",
                        key=KeyData(answer="429", sources=["a ; b", "c"], flagged=True),
                    ),
                    ItemData(question="No key?"),
                ],
            ),
            BlockData(
                code="2", title="", items=[ItemData(question="日本語の問い？", key=KeyData("答え"))]
            ),
        ]
    )
    for dump, parse in [(bf.dump_csv, bf.parse_csv), (bf.dump_jsonl, bf.parse_jsonl)]:
        assert parse(dump(bank)) == bank


def test_the_csv_export_has_every_column_in_order():
    bank = bf.load((DOCUMENTS / "benchmark.csv").read_bytes(), "benchmark.csv")
    header = bf.dump_csv(bank).split("\r\n", 1)[0]
    assert header == "\ufeff" + (
        "id,domain,topic,question,target,source_refs,answer_format,block,block_description,answer_kind,flagged,flag_note,sources_checked,retired,retired_reason,version,bank_name,bank_description,bank_language"
    )
    record = json.loads(bf.dump_jsonl(bank).split("\n", 1)[0])
    assert list(record) == header.lstrip("\ufeff").split(",")


@pytest.mark.parametrize(
    "text,expected",
    [
        (
            "question,colour\nQ?,red\n",
            [
                (
                    1,
                    "unknown column 'colour' (the columns are id, domain, topic, question, target, source_refs, answer_format, block, block_description, answer_kind, flagged, flag_note, sources_checked, retired, retired_reason, version, bank_name, bank_description, bank_language).",
                )
            ],
        ),
        ("id,key\n1,x\n", [(1, "the required column 'question' is missing.")]),
        ("question,question\nQ?,Q?\n", [(1, "the column 'question' appears twice.")]),
        (
            "id,question,key\na,First?,1\nb,,2\na,Third?,3\n",
            [(3, "question: must not be empty."), (4, "the id a appears twice (first on line 2).")],
        ),
        ("question,key\nQ?,x,extra\n", [(2, "the row has 3 cells, but the header has 2 columns.")]),
        (
            "question,flagged\nQ?,perhaps\n",
            [(2, 'flagged: must be true or false (found "perhaps").')],
        ),
        (
            "question,key,flagged\nQ?,,true\n",
            [(2, "key: the item is flagged or has a note or sources, but no key answer.")],
        ),
        (
            "block,block_title,question\nABC,T,Q?\n",
            [(2, "block: must be one or two letters or digits, such as A (found ABC).")],
        ),
        (
            "block,block_title,question\nA,One,Q?\nA,Two,R?\n",
            [(3, "block A is called “Two” here but “One” on line 2.")],
        ),
        ("question\n", [(None, "The file has a header but no items.")]),
    ],
)
def test_csv_refusals_name_every_line(text, expected):
    assert problems_of(bf.parse_csv, text) == expected


def test_a_multi_line_record_counts_the_lines_it_spans():
    text = 'question,key\n"First\nsecond\nthird",x\n,y\n'
    assert problems_of(bf.parse_csv, text) == [(5, "question: must not be empty.")]


def test_an_unclosed_quote_is_refused_with_its_line():
    problems = problems_of(bf.parse_csv, 'question,key\nQ?,x\n"open,y\n')
    assert problems[0][0] == 3 and "cannot be read" in problems[0][1]


@pytest.mark.parametrize(
    "text,expected",
    [
        (
            '{"question": "Q?"}\n{"question": "R?", "key": 5}\n[1]\n{"question": "S?",}\n',
            [
                (2, "key: must be text."),
                (3, "the line must be a JSON object (one item)."),
                (
                    4,
                    "the line is not valid JSON: a field name in double quotes was expected (is there a comma too many?) (column 19).",
                ),
            ],
        ),
        (
            '{"question": "Q?", "flagged": "maybe"}\n',
            [(1, 'flagged: must be true or false (found "maybe").')],
        ),
        (
            '{"question": "Q?", "source_refs": [1, 2]}\n{"question": "Q?", "difficulty": 3}\n',
            [
                (1, "source_refs: must be a list of strings."),
                (
                    2,
                    "unknown column 'difficulty' (the columns are id, domain, topic, question, target, source_refs, answer_format, block, block_description, answer_kind, flagged, flag_note, sources_checked, retired, retired_reason, version, bank_name, bank_description, bank_language).",
                ),
            ],
        ),
    ],
)
def test_jsonl_refusals_name_every_line(text, expected):
    assert problems_of(bf.parse_jsonl, text) == expected


@pytest.mark.parametrize(
    "text,filename,expected",
    [
        ("question,key\nQ?,x\n", "", "csv"),
        ("id,domain,question,target\n1,D,Q?,x\n", "", "csv"),
        ('{"question": "Q?"}\n', "", "jsonl"),
        ('{"schema": "blindprobe.bank"}', "", "json"),
        ("Block A. T\n1. Q?\n", "", "text"),
        ("question, key\n", "items.txt", "csv"),  # the header says CSV, whatever the name
        ("anything", "x.csv", "csv"),
        ("anything", "x.ndjson", "jsonl"),
        ("Question, what is this\n", "", "text"),
    ],
)
def test_which_format(text, filename, expected):
    assert bf.detect_format(text, filename) == expected


def test_a_csv_file_with_a_byte_order_mark_and_crlf_reads():
    raw = "\ufeffid,question,target\r\nq1,First?,yes\r\n".encode()
    bank = bf.load(raw, "items.csv")
    assert bank.items[0].ref == "q1" and bank.items[0].key.answer == "yes"


def test_the_preview_of_a_csv_file_shows_the_bank_and_its_name_from_the_file():
    result = bf.preview((DOCUMENTS / "benchmark.csv").read_bytes(), "web_benchmark.csv")
    assert result.ok and result.file_format == "csv" and result.warnings == []
    assert result.name == "web benchmark"


def test_an_answer_format_that_names_a_kind_sets_the_answer_kind_too():
    bank = bf.load((DOCUMENTS / "benchmark.csv").read_bytes(), "benchmark.csv")
    assert [i.answer_kind for i in bank.items] == [
        "number",
        "identifier",
        "identifier",
        "identifier",
        "number",
        "name",
    ]
    assert bank.items[0].answer_format == "number"  # kept as written


def test_answer_kind_and_sources_checked_round_trip_and_are_checked():
    text = "question,key,answer_kind,sources_checked\nQ?,x,short phrase,2025-03-01\nR?,y,,\n"
    bank = bf.parse_csv(text)
    assert bank.items[0].answer_kind == "short_phrase"
    assert bank.items[0].key.sources_checked == "2025-03-01"
    assert bank.items[1].answer_kind == "" and bank.items[1].key.sources_checked == ""
    for dump, parse in [(bf.dump_csv, bf.parse_csv), (bf.dump_jsonl, bf.parse_jsonl)]:
        assert parse(dump(bank)) == bank
    assert bf.parse_json(bf.dump_json(bank)) == bank
    bad = "question,key,answer_kind,sources_checked\nQ?,x,essay,1 March\n"
    assert problems_of(bf.parse_csv, bad) == [
        (
            2,
            "answer_kind: must be one of date, name, number, identifier, short_phrase, free_text, or empty (found essay).",
        ),
        (2, "sources_checked: must be a date written YYYY-MM-DD (found 1 March)."),
    ]


def test_the_answer_kinds_are_those_of_the_model():
    from probe.models import AnswerKind

    assert tuple(AnswerKind.values) == bf.ANSWER_KINDS
