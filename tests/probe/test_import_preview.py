"""The import preview in the browser and on the command line: nothing is saved before the
confirm, and the confirm reads the document's text again with the accepted readings."""

from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.urls import reverse

from probe.models import AuditEvent, Bank, Item, KeyEntry

DOCUMENTS = Path(__file__).resolve().parents[1] / "bankformat" / "documents"
WEB_PAGE = (DOCUMENTS / "web_page.txt").read_text()
READINGS = ["drop:2-7", "drop:14", "drop:20", "drop:33-37"]


def url(world):
    return reverse("probe:bank_import", kwargs={"team_slug": world.team.slug})


def counts():
    return Bank.objects.count(), Item.objects.count(), KeyEntry.objects.count()


def confirm(client, world, *, readings, shown=None, text=WEB_PAGE, name="", **extra):
    return client.post(
        url(world),
        {
            "source_text": text,
            "filename": "",
            "name": name,
            "reading": readings,
            "shown": ",".join(readings if shown is None else shown),
            "action": "import",
            **extra,
        },
    )


def test_the_preview_of_an_upload_shows_the_bank_and_saves_nothing(client, world):
    client.force_login(world.users["editor"])
    before, audit = counts(), AuditEvent.objects.count()
    response = client.post(url(world), {"file": SimpleUploadedFile("web.txt", WEB_PAGE.encode())})
    body = response.content.decode()
    assert response.status_code == 200
    assert "Check the import" in body and "From the file web.txt." in body
    assert "4 open warnings" in body and "Line 33" in body and 'value="drop:33-37"' in body
    assert "Which CSS property creates a new stacking context" in body
    assert counts() == before and AuditEvent.objects.count() == audit


def test_accept_every_suggested_reading_on_the_page(client, world):
    client.force_login(world.users["editor"])
    response = client.post(
        url(world), {"source_text": WEB_PAGE, "action": "accept", "filename": "", "name": ""}
    )
    body = response.content.decode()
    assert "0 open warnings" in body
    for code in READINGS:
        assert f'value="{code}" checked' in body
    assert f'name="shown" value="{",".join(READINGS)}"' in body
    assert Bank.objects.filter(team=world.team).count() == 1  # the world's bank only


def test_import_with_the_accepted_readings_saves_exactly_the_probe(client, world):
    client.force_login(world.users["editor"])
    response = confirm(client, world, readings=READINGS)
    assert response.status_code == 302
    bank = Bank.objects.get(name="A small private probe of browser knowledge")
    assert bank.description == ""
    assert Item.objects.filter(block__bank=bank).count() == 6
    entries = KeyEntry.objects.filter(item__block__bank=bank)
    assert [e.answer for e in entries.filter(flagged=True)] == ["2011"]
    assert not Item.objects.filter(block__bank=bank, question__contains="answer key").exists()
    event = AuditEvent.objects.get(bank=bank, action=AuditEvent.Action.IMPORT)
    assert event.details["readings"] == READINGS


def test_import_does_not_trust_anything_parsed_posted_back(client, world):
    """Only the text and reading codes are read; a forged parsed bank is ignored."""
    client.force_login(world.users["editor"])
    confirm(
        client,
        world,
        readings=READINGS,
        name="Forged",
        bank='{"blocks": [{"code": "Z", "items": [{"question": "forged?"}]}]}',
        blocks="Z",
    )
    bank = Bank.objects.get(name="Forged")
    assert list(bank.blocks.values_list("code", flat=True)) == ["A", "B"]
    assert not Item.objects.filter(question="forged?").exists()


def test_import_with_readings_other_than_the_preview_shows_the_preview_again(client, world):
    client.force_login(world.users["editor"])
    before = counts()
    response = confirm(client, world, readings=READINGS, shown=READINGS[:2])
    assert response.status_code == 200
    assert "The readings changed" in response.content.decode()
    assert counts() == before


def test_import_of_a_text_refused_as_read_shows_the_problems_and_saves_nothing(client, world):
    client.force_login(world.users["editor"])
    before = counts()
    text = (DOCUMENTS / "key_without_heading.txt").read_text()
    response = confirm(client, world, readings=[], text=text)
    body = response.content.decode()
    assert response.status_code == 400
    assert "Line 13: block A appears twice" in body and "Nothing was saved" in body
    assert 'value="key:11"' in body
    assert counts() == before
    assert confirm(client, world, readings=["key:11"], text=text).status_code == 302


def test_a_reading_code_that_is_not_one_is_refused_and_nothing_saved(client, world):
    client.force_login(world.users["editor"])
    before = counts()
    response = confirm(client, world, readings=["delete:everything"])
    assert "start the import anew" in response.content.decode()
    assert counts() == before


def test_a_viewer_cannot_post_a_preview(client, world):
    client.force_login(world.users["viewer"])
    assert confirm(client, world, readings=READINGS).status_code == 403
    assert not Bank.objects.filter(name__startswith="A small private probe").exists()


def test_dry_run_prints_the_preview_and_saves_nothing(tmp_path, world, capsys):
    path = tmp_path / "article.txt"
    path.write_text(WEB_PAGE)
    before = counts()
    call_command("import_bank", str(path), team=world.team.slug, dry_run=True)
    out = capsys.readouterr().out
    assert "Dry run" in out and "4 warnings:" in out
    assert "Line 20: line 20 reads like a heading of the document" in out
    assert "[--accept drop:20, or --accept keep:20 to keep it as written]" in out
    assert "Block A. Rendering (line 9)" in out and "(!) the draft of April 2011" in out
    assert "2 flagged (!)" in out
    assert counts() == before


def test_dry_run_with_the_suggested_readings_prints_the_probe_only(tmp_path, world, capsys):
    path = tmp_path / "article.txt"
    path.write_text(WEB_PAGE)
    call_command(
        "import_bank", str(path), team=world.team.slug, dry_run=True, accept_suggested=True
    )
    out = capsys.readouterr().out
    assert "warning" not in out and "1 flagged (!)" in out and "Thanks to everyone" not in out
    assert counts()[0] == Bank.objects.count()


def test_the_command_imports_with_readings_by_code(tmp_path, world, capsys):
    path = tmp_path / "trivia.txt"
    path.write_bytes((DOCUMENTS / "key_without_heading.txt").read_bytes())
    with pytest.raises(CommandError, match="refused"):
        call_command("import_bank", str(path), team=world.team.slug, dry_run=True)
    with pytest.raises(CommandError, match="nothing was saved"):
        call_command("import_bank", str(path), team=world.team.slug)
    call_command("import_bank", str(path), team=world.team.slug, accept=["key:11"])
    bank = Bank.objects.get(name="Python trivia, round 3")
    assert KeyEntry.objects.filter(item__block__bank=bank).count() == 4


def test_the_command_refuses_a_code_that_is_not_a_reading(tmp_path, world):
    path = tmp_path / "trivia.txt"
    path.write_text(WEB_PAGE)
    with pytest.raises(CommandError, match="not a reading"):
        call_command("import_bank", str(path), team=world.team.slug, accept=["drop:x"])


def test_the_bank_name_comes_from_the_file_name_on_the_command_line(tmp_path, world):
    path = tmp_path / "ops_probe.txt"
    path.write_text("Block A. T\n1. First?\n")
    call_command("import_bank", str(path), team=world.team.slug)
    assert Bank.objects.filter(name="ops probe").exists()


def test_a_long_document_shows_only_the_lines_around_its_warnings(client, world):
    lines = ["Block A. Many"]  # 800 items of three lines: 2,401 lines
    for n in range(1, 801):
        lines += [f"{n}. Question {n}?", "   (a second line", "   and a third)"]
    lines.insert(1201, "")
    lines.insert(1202, "A paragraph of the article.")  # after item 400, lines 1202-1203
    client.force_login(world.users["editor"])
    body = client.post(url(world), {"text": "\n".join(lines) + "\n"}).content.decode()
    assert "Line 1203" in body and 'id="line-1203"' in body  # the paragraph, with its warning
    assert 'id="line-1200"' in body and 'id="line-10"' not in body
    assert 'class="gap"' in body
    assert "Question 10?" in body  # every item is still in what will be saved
