"""Import and export: round trips in both formats, every bad file refused with nothing saved."""

import json
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.urls import reverse

from probe import bankformat
from probe.models import AuditEvent, Bank, Block, Item, KeyEntry
from probe.services.banks import bank_export, bank_import, bank_to_data

DEMO = Path(__file__).resolve().parents[2] / "probe" / "demo" / "demo_bank.txt"

PUBLISHED = """\
Block A. HTTP semantics
Status codes and headers.
  1. Which status code means Too Many Requests?
  2. Which header tells a client when to retry?
     Give the header's name only.
Block B. PostgreSQL
  1. What is the default port?

Answer key
Block A. HTTP semantics
  1. 429
  2. Retry-After (!) check RFC 9110 section 10.2.3
Block B. PostgreSQL
  1. 5432
"""


def snapshot(bank: Bank) -> list:
    """Everything a bank holds, in order, as plain data."""
    return [
        (
            block.code,
            block.title,
            block.description,
            [
                (
                    item.question,
                    item.answer_format,
                    item.retired,
                    None
                    if item.key_entry_or_none is None
                    else (
                        item.key_entry.answer,
                        item.key_entry.flagged,
                        item.key_entry.flag_note,
                        list(item.key_entry.sources),
                    ),
                )
                for item in block.items.select_related("key_entry").order_by("order", "pk")
            ],
        )
        for block in bank.blocks.order_by("order", "pk")
    ]


def counts():
    return (
        Bank.objects.count(),
        Block.objects.count(),
        Item.objects.count(),
        KeyEntry.objects.count(),
    )


def test_plain_text_import_reads_a_published_probe(world):
    bank = bank_import(team=world.team, user=None, data=bankformat.load(PUBLISHED.encode()))
    blocks = snapshot(bank)
    assert [b[0] for b in blocks] == ["A", "B"]
    assert blocks[0][1] == "HTTP semantics" and blocks[0][2] == "Status codes and headers."
    question, _fmt, _retired, key = blocks[0][3][1]
    assert "Give the header's name only." in question
    assert key[0] == "Retry-After" and key[1] is True and key[2] == "check RFC 9110 section 10.2.3"
    assert blocks[1][3][0][3][0] == "5432"


def test_json_round_trip_is_identical(world):
    original = bank_import(team=world.team, user=None, data=bankformat.load(DEMO.read_bytes()))
    Item.objects.filter(pk=original.blocks.first().items.first().pk).update(retired=True)
    exported = bank_export(bank=original, user=None, file_format="json")
    assert json.loads(exported)["schema"] == "blindprobe.bank"
    again = bank_import(
        team=world.team, user=None, data=bankformat.load(exported.encode(), "x.json")
    )
    assert snapshot(again) == snapshot(original)
    assert again.name == original.name and again.description == original.description
    assert bank_export(bank=again, user=None, file_format="json") == exported


def test_text_round_trip_keeps_every_item_and_key(world):
    original = bank_import(team=world.team, user=None, data=bankformat.load(DEMO.read_bytes()))
    text = bank_export(bank=original, user=None, file_format="text")
    again = bank_import(team=world.team, user=None, data=bankformat.load(text.encode(), "x.txt"))
    assert snapshot(again) == snapshot(original)


def test_demo_bank_has_30_items_in_5_blocks_with_flags(world):
    data = bankformat.load(DEMO.read_bytes())
    assert len(data.blocks) == 5
    assert data.item_count == 30
    assert data.missing_key_count == 0
    assert 2 <= data.flagged_count <= 3
    assert all(i.key.flag_note for b in data.blocks for i in b.items if i.key.flagged)


BAD_FILES = [
    ("no blocks", b"1. A question with no block?\n", "block"),
    (
        "duplicate item number",
        b"Block A. T\n1. First?\n2. Second?\n2. Second again?\n",
        "Line 4",
    ),
    (
        "key for a missing item",
        b"Block A. T\n1. First?\n\nAnswer key\nBlock A. T\n1. yes\n7. no such item\n",
        "Line 7",
    ),
    ("empty question", b"Block A. T\n1. First?\n2.\n", "Line 3"),
    ("not UTF-8", "Block A. T\n1. Caf\u00e9?\n".encode("latin-1"), "UTF-8"),
    ("binary", b"\x89PNG\r\n\x1a\n\x00\x00\x00", ""),
    ("too large", b"Block A. T\n" + b"1. " + b"x" * (bankformat.MAX_BYTES + 10) + b"\n", "limit"),
]


@pytest.mark.parametrize("label,raw,needle", BAD_FILES, ids=[b[0] for b in BAD_FILES])
def test_bad_file_refused_in_the_browser_nothing_saved(client, world, label, raw, needle):
    client.force_login(world.users["editor"])
    before = counts()
    audit_before = AuditEvent.objects.count()
    response = client.post(
        reverse("probe:bank_import", kwargs={"team_slug": world.team.slug}),
        {"file": SimpleUploadedFile("probe.txt", raw), "name": ""},
    )
    assert response.status_code in (200, 400)
    body = response.content.decode()
    assert "Nothing was saved" in body or "limit" in body
    assert needle in body
    assert counts() == before
    assert AuditEvent.objects.count() == audit_before


@pytest.mark.parametrize("label,raw,needle", BAD_FILES, ids=[b[0] for b in BAD_FILES])
def test_bad_file_refused_on_the_command_line_nothing_saved(tmp_path, world, label, raw, needle):
    path = tmp_path / "probe.txt"
    path.write_bytes(raw)
    before = counts()
    with pytest.raises(CommandError) as error:
        call_command("import_bank", str(path), team=world.team.slug)
    assert "nothing was saved" in str(error.value).lower()
    assert needle in str(error.value)
    assert counts() == before


def test_all_problems_are_listed_with_lines(client, world):
    raw = b"Block A. T\n1. First?\n1. Again?\n3.\n\nAnswer key\nBlock A. T\n9. no\n"
    client.force_login(world.users["editor"])
    response = client.post(
        reverse("probe:bank_import", kwargs={"team_slug": world.team.slug}),
        {"text": raw.decode()},
    )
    body = response.content.decode()
    for line in ("Line 3", "Line 4", "Line 8"):
        assert line in body


def test_items_without_a_key_are_imported_and_listed_as_missing(client, world):
    client.force_login(world.users["editor"])
    url = reverse("probe:bank_import", kwargs={"team_slug": world.team.slug})
    text = "Block A. T\n1. Keyed?\n2. Unkeyed?\n\nAnswer key\nBlock A. T\n1. yes\n"
    preview = client.post(url, {"text": text, "name": "Half keyed"})
    assert preview.status_code == 200 and not Bank.objects.filter(name="Half keyed").exists()
    response = client.post(
        url,
        {"source_text": text, "name": "Half keyed", "action": "import", "shown": ""},
        follow=True,
    )
    bank = Bank.objects.get(name="Half keyed", team=world.team)
    assert "1 without a key" in response.content.decode()
    listing = client.get(bank.get_absolute_url() + "?missing_key=1").content.decode()
    assert "Unkeyed?" in listing and "Keyed?" not in listing.replace("Unkeyed?", "")
    event = AuditEvent.objects.get(bank=bank, action=AuditEvent.Action.IMPORT)
    assert event.user == world.users["editor"] and event.details["missing_key"] == 1


def test_export_in_the_browser_downloads_and_is_audited(client, world):
    client.force_login(world.users["editor"])
    url = reverse("probe:bank_export", kwargs={"bank_pk": world.bank.pk})
    response = client.get(url + "?format=text")
    assert response["Content-Disposition"].startswith(
        'attachment; filename="acme-secret-bank.txt"; filename*=UTF-8'
    )
    text = response.content.decode()
    assert "Answer key" in text and "(!)" in text
    data = bankformat.load(client.get(url + "?format=json").content, "b.json")
    assert data == bank_to_data(world.bank)
    assert AuditEvent.objects.filter(bank=world.bank, action=AuditEvent.Action.EXPORT).count() == 2


def test_command_line_round_trip(tmp_path, world, capsys):
    path = tmp_path / "demo.txt"
    path.write_bytes(DEMO.read_bytes())
    call_command("import_bank", str(path), team=world.team.slug, name="From the terminal")
    assert "30 items" in capsys.readouterr().out
    bank = Bank.objects.get(name="From the terminal")
    out = tmp_path / "out.json"
    call_command("export_bank", str(bank.pk), format="json", output=str(out))
    call_command("import_bank", str(out), team=world.team.slug, name="Second copy")
    assert snapshot(Bank.objects.get(name="Second copy")) == snapshot(bank)
    call_command("export_bank", "From the terminal", format="text")
    assert "Block A. HTTP semantics" in capsys.readouterr().out


def test_import_command_names_an_unknown_team(tmp_path, db):
    path = tmp_path / "x.txt"
    path.write_text(PUBLISHED)
    with pytest.raises(CommandError, match="no team"):
        call_command("import_bank", str(path), team="nope")


JAPANESE = Path(__file__).resolve().parents[1] / "bankformat" / "documents" / "japanese.txt"


def test_a_japanese_bank_imports_and_its_text_export_keeps_japanese_headings(world):
    bank = bank_import(team=world.team, user=None, data=bankformat.load(JAPANESE.read_bytes()))
    assert bank.text_language == "ja"
    text = bank_export(bank=bank, user=None, file_format="text")
    assert "ブロックA. レンダリング" in text and "解答鍵" in text and "Block" not in text
    again = bank_import(team=world.team, user=None, data=bankformat.load(text.encode()))
    assert snapshot(again) == snapshot(bank) and again.text_language == "ja"
    data = bankformat.load(bank_export(bank=bank, user=None, file_format="json").encode())
    assert data.language == "ja" and data == bank_to_data(bank)


BENCHMARK = Path(__file__).resolve().parents[1] / "bankformat" / "documents"


@pytest.mark.parametrize(
    "name,file_format", [("benchmark.csv", "csv"), ("benchmark.jsonl", "jsonl")]
)
def test_benchmark_files_import_and_export_losslessly(client, world, name, file_format):
    raw = (BENCHMARK / name).read_bytes()
    bank = bank_import(team=world.team, user=None, data=bankformat.load(raw, name), name="Bench")
    assert bank_to_data(bank).blocks == bankformat.load(raw, name).blocks  # a CSV has no name
    item = Item.objects.filter(block__bank=bank).order_by("block__order", "order").first()
    assert item.ref and item.topic
    client.force_login(world.users["editor"])
    url = reverse("probe:bank_export", kwargs={"bank_pk": bank.pk})
    response = client.get(url + f"?format={file_format}")
    assert response["Content-Disposition"].endswith(f".{file_format}")
    again = bankformat.load(response.content, f"x.{file_format}")
    assert again.blocks == bank_to_data(bank).blocks
    copy = bank_import(team=world.team, user=None, data=again, name="Copy")
    assert snapshot(copy) == snapshot(bank)


def test_a_bad_csv_is_refused_in_the_browser_with_its_lines_and_nothing_saved(client, world):
    client.force_login(world.users["editor"])
    before = counts()
    raw = b"id,question,target\nq1,First?,yes\nq1,,no\n"
    response = client.post(
        reverse("probe:bank_import", kwargs={"team_slug": world.team.slug}),
        {"file": SimpleUploadedFile("items.csv", raw)},
    )
    body = response.content.decode()
    assert response.status_code == 400 and "Nothing was saved" in body
    assert "Line 3: question: must not be empty." in body
    assert "Line 3: the id q1 appears twice (first on line 2)." in body
    assert counts() == before


def test_the_command_line_exports_csv_and_jsonl(tmp_path, world, capsys):
    path = tmp_path / "bench.csv"
    path.write_bytes((BENCHMARK / "benchmark.csv").read_bytes())
    call_command("import_bank", str(path), team=world.team.slug, name="Bench CSV")
    bank = Bank.objects.get(name="Bench CSV")
    for file_format in ("csv", "jsonl"):
        out = tmp_path / f"out.{file_format}"
        call_command("export_bank", str(bank.pk), format=file_format, output=str(out))
        assert bankformat.load(out.read_bytes(), out.name).blocks == bank_to_data(bank).blocks
