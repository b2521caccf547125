"""No input makes the bank import answer 500 or print a traceback: random and adversarial files
(huge lines, deep nesting, binary junk, NULs, byte order marks, mixed encodings, empty files,
only whitespace, enormous counts) go through the preview, "Accept every suggested reading", the
import, the upload and the paste of the page, and ``import_bank --dry-run``; each ends in a
result or a refusal with a message (a 4xx on the page, a CommandError on the command line).
A bank over the item limit is refused with its count and the limit, never cut."""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.test import override_settings
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from probe import bankformat as bf
from probe.models import Bank, Item

# Pieces of the grammar and of pasted documents, so random files reach deep into the reader.
FRAGMENTS = [
    "Block A. Title",
    "## Block B: Other",
    "ブロックＣ　表題",
    "A. レンダリング",
    "Answer key",
    "解答鍵",
    "Answers (don't peek):",
    "Show the key",
    "1. A question?",
    "2) Another one",
    "１．全角",
    "1000. After 999",
    "Q7. Loose",
    "   3. indented",
    "Format: a number",
    "Source: RFC 9110 ; RFC 6585",
    "Note: a note",
    "(!) flagged",
    "2011 （！） note",
    "\\(!) escaped",
    "[retired] old",
    "# Title",
    "<title>T</title>",
    "title: Y",
    "Skip to content",
    "Home · Blog · About",
    "=====",
    "---",
    "Notes",
    "References",
    "第2章",
    "",
    "   ",
    "\t",
    "{",
    "[",
    '{"question": "q"}',
    "id,question,key",
    "\ufeff",
    "\u3000",
    "\u200b",
    "\x0b",
    "\x0c",
]
line = st.one_of(
    st.sampled_from(FRAGMENTS),
    st.text(max_size=40),
    st.builds(lambda f, t: f + t, st.sampled_from(FRAGMENTS), st.text(max_size=20)),
)
document = st.lists(line, max_size=40).map("\n".join)
raw_bytes = st.one_of(
    st.binary(max_size=300),
    document.map(lambda text: text.encode("utf-8", "surrogatepass")),
    st.builds(
        lambda head, junk, tail: head.encode() + junk + tail.encode(),
        document,
        st.sampled_from([b"\x00", b"\xff\xfe", b"\xef\xbb\xbf", b"\x93\xfa", b"\xe9", b"\x82\xa0"]),
        document,
    ),
    st.sampled_from([b"", b" ", b"\n\n\n", b"\xef\xbb\xbf", b"\xff\xfe\x00\x00", b"PK\x03\x04"]),
)
FILENAMES = ["", "bank.txt", "bank.json", "bank.jsonl", "bank.csv", "bank"]


def adversarial() -> list[tuple[str, bytes]]:
    """The inputs that answered 500 or were cut before, and their relatives."""
    nest = 50_000
    return [
        ("a 900 KB line", b"x" * 900_000),
        ("a 900 KB line after a heading", b"Block A. T\n" + b"y" * 900_000),
        ("a 10,000-character block title", b"Block A. " + b"t" * 10_000 + b"\n1. Q?\n"),
        ("a 500,000-character question", b"Block A. T\n1. " + b"q" * 500_000 + b"\n"),
        ("a 500,000-character key entry", b"Block A. T\n1. Q?\nKey\n1. " + b"k" * 500_000),
        ("a 300,000-character flag note", b"Block A. T\n1. Q?\nKey\n1. a (!) " + b"n " * 150_000),
        ("deeply nested JSON arrays", b"[" * nest + b"]" * nest),
        ("deeply nested JSON objects", b'{"a":' * nest + b"1" + b"}" * nest),
        (
            "a JSON Lines row nested deep",
            b'{"question": "q", "x": ' + b"[" * nest + b"]" * nest + b"}",
        ),
        (
            "nested JSON in a CSV cell",
            b'question,source_refs\nq,"' + b"[" * 1000 + b"]" * 1000 + b'"',
        ),
        ("only whitespace", b" \t\n\r\n \x0c\n"),
        ("a NUL", b"Block A. T\n1. Q\x00?\n"),
        ("UTF-16", "Block A. T\n1. Q?\n".encode("utf-16")),
        ("Shift JIS", "ブロックA．データベース\n１．問い\n".encode("shift_jis")),
        ("a lone surrogate escape in JSON", b'{"schema": "blindprobe.bank", "name": "\\ud800"}'),
        (
            "a huge integer in JSON",
            b'{"schema": "blindprobe.bank", "version": 1' + b"0" * 10_000 + b"}",
        ),
        ("a number of seven digits", b"Block A. T\n9999999. Q?\n"),
        (
            "5,000 block headings",
            b"".join(b"Block %d. T\n1. Q?\n" % (i % 99) for i in range(5_000)),
        ),
    ]


def assert_preview_holds(data: bytes, filename: str) -> None:
    result = bf.preview(data, filename)
    assert result.ok or result.problems  # a bank or the reasons it is refused
    assert all(str(problem) for problem in result.problems)
    for warning in result.warnings:
        assert str(warning) and warning.suggestion
        if warning.reading:
            bf.Readings.from_codes([warning.reading])  # every offered code is a reading
    taken = bf.preview_suggested(data, filename)
    assert taken.ok or taken.problems


@settings(max_examples=300, deadline=None)
@given(raw_bytes, st.sampled_from(FILENAMES))
def test_the_preview_of_any_file_is_a_bank_or_its_problems(data, filename):
    assert_preview_holds(data, filename)


@pytest.mark.parametrize("what,data", adversarial(), ids=[name for name, _ in adversarial()])
def test_the_preview_of_an_adversarial_file_is_a_bank_or_its_problems(what, data):
    assert_preview_holds(data, "")
    assert_preview_holds(data, "bank.json")


def test_a_bank_over_the_item_limit_is_refused_with_its_count_not_cut():
    """Before, item numbers stopped at 99,999 and a 300,000-line bank was read as 99,999 items
    with the rest glued onto the last one."""
    text = "Block A. T\n" + "".join(f"{n}. Q{n}?\n" for n in range(1, 300_001))
    result = bf.preview(text)
    assert not result.ok
    assert [str(p) for p in result.problems] == [
        "The bank has 300,000 items; the limit is 50,000 items per bank. Nothing was cut: "
        "split the file into several banks."
    ]


@override_settings(BANK_MAX_ITEMS=5)
@pytest.mark.parametrize("file_format", ["text", "json", "csv", "jsonl"])
def test_the_item_limit_is_a_setting_and_holds_in_every_format(file_format):
    def bank(n):
        items = [bf.ItemData(question=f"Q{i}?") for i in range(n)]
        return bf.DUMPERS[file_format](bf.BankData(blocks=[bf.BlockData("A", "T", items=items)]))

    assert bf.preview(bank(5), f"b.{file_format}").ok
    refused = bf.preview(bank(6), f"b.{file_format}")
    assert not refused.ok and "6 items; the limit is 5 items" in str(refused.problems[0])
    with pytest.raises(bf.BankFormatError, match="the limit is 5"):
        bf.load(bank(6).encode(), f"b.{file_format}")


# The page and the command line -------------------------------------------------------------


def url(world):
    return reverse("probe:bank_import", kwargs={"team_slug": world.team.slug})


def through_the_page(client, world, data: bytes, filename: str) -> None:
    """Upload, paste, accept every suggestion and import: every answer is below 500 (the test
    client raises any exception a view lets escape)."""
    upload = client.post(
        url(world), {"file": SimpleUploadedFile(filename or "bank.txt", data), "name": ""}
    )
    assert upload.status_code < 500
    text = data.decode("utf-8", "replace")
    pasted = client.post(url(world), {"text": text})
    assert pasted.status_code < 500
    for action in ("accept", "import", "preview"):
        response = client.post(
            url(world),
            {"source_text": text, "filename": filename, "name": "", "action": action},
        )
        assert response.status_code < 500
        if response.status_code == 302:  # imported: what was shown is what was saved
            bank = Bank.objects.filter(team=world.team).latest("pk")
            assert (
                Item.objects.filter(block__bank=bank).count()
                == bf.preview(text, filename).bank.item_count
            )


def through_the_command(tmp_path, world, data: bytes, filename: str) -> None:
    path = tmp_path / (filename or "bank")
    path.write_bytes(data)
    for options in ({"dry_run": True}, {"dry_run": True, "accept_suggested": True}, {}):
        try:
            call_command("import_bank", str(path), team=world.team.slug, **options)
        except CommandError as error:
            assert str(error)  # a refusal with its reasons, never another exception


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(raw_bytes, st.sampled_from(FILENAMES))
def test_the_page_and_the_command_answer_any_file_without_a_server_error(
    client, world, tmp_path, capsys, data, filename
):
    client.force_login(world.users["editor"])
    through_the_page(client, world, data, filename)
    through_the_command(tmp_path, world, data, filename)
    capsys.readouterr()


@pytest.mark.parametrize("what,data", adversarial(), ids=[name for name, _ in adversarial()])
def test_the_page_and_the_command_answer_adversarial_files_without_a_server_error(
    client, world, tmp_path, capsys, what, data
):
    client.force_login(world.users["editor"])
    through_the_page(client, world, data, "")
    through_the_command(tmp_path, world, data, "")
    capsys.readouterr()


def test_the_page_refuses_a_bank_over_the_limit_with_its_count(client, world):
    text = "Block A. T\n" + "".join(f"{n}. Q{n}?\n" for n in range(1, 50_002))
    client.force_login(world.users["editor"])
    before = Bank.objects.count()
    response = client.post(url(world), {"text": text})
    assert response.status_code == 400
    assert "The bank has 50,001 items; the limit is 50,000 items per bank" in (
        response.content.decode()
    )
    assert Bank.objects.count() == before


def test_json_nested_too_deep_is_refused_with_a_message():
    deep = "[" * 100_000 + "]" * 100_000
    for filename in ("", "bank.json", "bank.jsonl"):
        result = bf.preview(deep, filename)
        assert not result.ok and "nested far too deeply" in str(result.problems[0])
    row = json.dumps({"question": "q"})[:-1] + ', "x": ' + deep + "}"
    result = bf.preview(row + "\n", "bank.jsonl")
    assert "the line is not valid JSON: it is nested far too deeply." in str(result.problems[0])
