"""The import preview in the browser and on the command line: nothing is saved before the
confirm, and the confirm reads the document's text again with the accepted readings."""

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.urls import reverse

from probe import bankformat
from probe.models import AuditEvent, Bank, Item, KeyEntry
from probe.services import banks as bank_services

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
            "shown": " ".join(readings if shown is None else shown),
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
    assert f'name="shown" value="{" ".join(READINGS)}"' in body
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


# The whole flow of the page, as a browser would post it --------------------------------------

NETWORKING = ["networking_web_page.txt", "networking_blog.md", "networking_plain.txt"]


class _PreviewForm(HTMLParser):
    """The fields the preview page would post, as a browser fills them: hidden fields, ticked
    checkboxes, the checked radio of each group, the name box; and the buttons it shows."""

    def __init__(self, body: str) -> None:
        super().__init__()
        self.fields: list[tuple[str, str]] = []
        self.buttons: list[str] = []
        self._textarea: str | None = None
        self.feed(body)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "textarea" and a.get("name") == "source_text":
            self._textarea = ""
        elif tag == "button" and a.get("name") == "action":
            self.buttons.append(a["value"])
        elif tag == "input" and a.get("name"):
            kind = a.get("type", "text")
            if kind in ("checkbox", "radio") and "checked" not in a:
                return
            self.fields.append((a["name"], a.get("value", "")))

    def handle_data(self, data):
        if self._textarea is not None:
            self._textarea += data

    def handle_endtag(self, tag):
        if tag == "textarea" and self._textarea is not None:
            # The template starts the text on the line after the tag, as browsers drop it.
            self.fields.append(("source_text", self._textarea.removeprefix("\n")))
            self._textarea = None

    def post(self, action: str) -> dict:
        data: dict[str, list[str]] = {}
        for name, value in self.fields:
            data.setdefault(name, []).append(value)
        assert action in self.buttons, f"no {action} button on the page: {self.buttons}"
        return {**data, "action": action}


def test_a_pasted_article_imports_exactly_by_accepting_every_suggestion_on_the_page(client, world):
    """Paste, preview (refused, no Import button), press "Accept every suggested reading" until
    it is gone, then Import: the bank saved is exactly the probe, under the article's title."""
    client.force_login(world.users["editor"])
    for name in NETWORKING:
        before = counts()
        page = client.post(url(world), {"text": (DOCUMENTS / name).read_text()})
        assert page.status_code == 400  # the key's block headings repeat: refused as read
        form = _PreviewForm(page.content.decode())
        assert "import" not in form.buttons and "accept" in form.buttons
        presses = 0
        while "accept" in form.buttons:
            presses += 1
            page = client.post(url(world), form.post("accept"))
            form = _PreviewForm(page.content.decode())
            assert presses < 5
        assert presses == 1  # one press settles everything: the readings compose
        body = page.content.decode()
        assert page.status_code == 200 and "0 open warnings" in body
        response = client.post(url(world), form.post("import"))
        assert response.status_code == 302, name
        bank = Bank.objects.get(pk=response.url.rstrip("/").split("/")[-1])
        expected = bankformat.load((DOCUMENTS / "networking_probe.txt").read_bytes())
        saved = bank_services.bank_to_data(bank)
        if name.endswith("plain.txt"):  # hard-wrapped at 80 columns: the breaks are kept
            for item in saved.items:
                item.question = item.question.replace("\n", " ")
                item.key.flag_note = item.key.flag_note.replace("\n", " ")
        assert saved.blocks == expected.blocks
        assert bank.name in (
            "What our models still get wrong about Linux networking",
            "LINUX NETWORKING PROBE, WINTER 2026",
        )
        assert "Skip to content" not in bank.name and bank.description == ""
        assert KeyEntry.objects.filter(item__block__bank=bank, flagged=True).count() == 4
        assert counts()[0] == before[0] + 1
        event = AuditEvent.objects.get(bank=bank, action=AuditEvent.Action.IMPORT)
        command = bankformat.preview_suggested((DOCUMENTS / name).read_bytes(), name)
        assert set(event.details["readings"]) == set(command.readings.codes)


def test_no_import_button_while_a_warning_that_changes_items_is_open(client, world):
    """The key and the footnotes read, but a paragraph after item D5 that a Format line ties to
    the item not yet settled: the bank reads, yet the page offers no Import and refuses a
    hand-made one. (Prose between the last item and the key's heading alone is the document's
    and is left out with nothing to settle.)"""
    client.force_login(world.users["editor"])
    last_item = " 5. Which ping option sets the number of data bytes to send?\n\n"
    text = (DOCUMENTS / "networking_plain.txt").read_text()
    assert last_item in text
    text = text.replace(
        last_item,
        f"{last_item}See the man page of ping for the details of this one.\n   Format: an option\n\n",
    )
    readings = ["drop:4-8", "key:63", "drop:99-106"]
    page = client.post(
        url(world), {"source_text": text, "reading": readings, "shown": " ".join(readings)}
    )
    body = page.content.decode()
    assert page.status_code == 200 and "What will be saved" in body
    form = _PreviewForm(body)
    assert "import" not in form.buttons and 'id="import-waits"' in body
    assert "1 warning would change an item, a key entry or a flag" in body
    before = counts()
    forged = confirm(client, world, readings=readings, text=text)
    assert forged.status_code == 200 and counts() == before
    # Keeping the text as written settles it too: the person decides, the page imports.
    kept = ["keep:56", *readings]
    response = confirm(client, world, readings=kept, text=text, name="Kept")
    assert response.status_code == 302
    last = Item.objects.filter(block__bank__name="Kept").order_by("block__order", "order").last()
    assert "Show the key" not in last.question and "man page of ping" in last.question


def test_a_radio_choice_joins_the_readings_and_is_listed_as_taken(client, world):
    client.force_login(world.users["editor"])
    text = (DOCUMENTS / "networking_web_page.txt").read_text()
    page = client.post(url(world), {"text": text})
    form = _PreviewForm(page.content.decode())
    data = form.post("preview")
    data["choice-2"] = ["keep:37"]
    body = client.post(url(world), data).content.decode()
    assert "Keep line 37 as written." in body and 'value="keep:37" checked' in body


@pytest.mark.parametrize("name", NETWORKING)
def test_the_command_accept_suggested_imports_exactly_what_the_page_does(tmp_path, world, name):
    path = tmp_path / name
    path.write_bytes((DOCUMENTS / name).read_bytes())
    with pytest.raises(CommandError, match="refused"):
        call_command("import_bank", str(path), team=world.team.slug)
    call_command("import_bank", str(path), team=world.team.slug, accept_suggested=True)
    bank = Bank.objects.filter(team=world.team).latest("pk")
    assert bank.name != "Skip to content"
    saved = bank_services.bank_to_data(bank)
    page = bankformat.preview_suggested((DOCUMENTS / name).read_bytes(), name)
    assert saved.blocks == page.bank.blocks and bank.name == page.name
    event = AuditEvent.objects.get(bank=bank, action=AuditEvent.Action.IMPORT)
    assert event.details["readings"] == list(page.readings.codes)


def test_the_command_waits_while_a_warning_that_changes_items_is_open(tmp_path, world):
    path = tmp_path / "web.txt"
    path.write_text(WEB_PAGE)
    before = counts()
    with pytest.raises(CommandError, match="would change items, key entries or flags"):
        call_command("import_bank", str(path), team=world.team.slug)
    assert counts() == before
    keep = ["keep:2", "keep:14", "keep:20", "keep:33"]
    call_command("import_bank", str(path), team=world.team.slug, accept=keep)
    assert counts()[0] == before[0] + 1


def test_the_page_names_a_reading_another_one_overrides(client, world):
    client.force_login(world.users["editor"])
    text = (DOCUMENTS / "networking_web_page.txt").read_text()
    readings = ["key:57", "key:59"]
    body = client.post(
        url(world), {"source_text": text, "reading": readings, "shown": " ".join(readings)}
    ).content.decode()
    assert "No effect: the answer key already starts at line 57" in body


def test_a_japanese_article_imports_exactly_on_the_page_with_one_press(client, world):
    client.force_login(world.users["editor"])
    text = (DOCUMENTS / "japanese_article.txt").read_text()
    form = _PreviewForm(client.post(url(world), {"text": text}).content.decode())
    presses = 0
    while "accept" in form.buttons:
        presses += 1
        form = _PreviewForm(client.post(url(world), form.post("accept")).content.decode())
        assert presses < 5
    response = client.post(url(world), form.post("import"))
    assert presses == 1 and response.status_code == 302
    bank = Bank.objects.get(pk=response.url.rstrip("/").split("/")[-1])
    expected = bankformat.preview_suggested(text.encode(), "").bank
    assert bank_services.bank_to_data(bank).blocks == expected.blocks
    assert [b.code for b in expected.blocks] == ["A", "B", "C"] and expected.item_count == 15
    assert bank.name == "社内データ基盤プローブ 2026年冬版" and bank.text_language == "ja"


def test_a_japanese_article_with_prose_before_the_key_imports_with_no_press(client, world):
    """Prose between the last item and 「解答鍵」 asks nothing: the first preview offers Import,
    and what it saves is the probe, on the page and on the command line alike."""
    client.force_login(world.users["editor"])
    name = "japanese_prose_before_key.txt"
    text = (DOCUMENTS / name).read_text()
    form = _PreviewForm(client.post(url(world), {"text": text}).content.decode())
    assert "accept" not in form.buttons and "import" in form.buttons
    response = client.post(url(world), form.post("import"))
    assert response.status_code == 302
    bank = Bank.objects.get(pk=response.url.rstrip("/").split("/")[-1])
    questions = [item.question for item in bank_services.bank_to_data(bank).items]
    assert questions[-1] == "証明書の失効を確かめる、OCSP 以外の仕組みは何か。"
    assert not any("以上の設問" in question for question in questions)
    assert bank.name == "小さな監視プローブ（試用版）" and bank.text_language == "ja"


def test_the_command_imports_a_japanese_article_with_prose_before_the_key_as_it_is(tmp_path, world):
    path = tmp_path / "probe.txt"
    path.write_bytes((DOCUMENTS / "japanese_prose_before_key.txt").read_bytes())
    call_command("import_bank", str(path), team=world.team.slug)
    bank = Bank.objects.filter(team=world.team).latest("pk")
    saved = bank_services.bank_to_data(bank)
    assert saved.blocks == bankformat.preview(path.read_bytes()).bank.blocks
    assert [item.key.answer for item in saved.items] == ["9090", "9093", "90", "CRL"]


def test_items_of_a_numeric_block_are_labelled_with_a_separator_and_keep_their_keys(client, world):
    """第３ブロック's items are 3-1 and 3-2 on the bank page, never 31 and 32 (which read as
    item 31 of another numbering), and each shows the key entry the key section gave it."""
    client.force_login(world.users["editor"])
    text = (DOCUMENTS / "japanese_ordinal.txt").read_text()
    form = _PreviewForm(client.post(url(world), {"text": text}).content.decode())
    response = client.post(url(world), form.post("import"))
    assert response.status_code == 302
    bank = Bank.objects.get(pk=response.url.rstrip("/").split("/")[-1])
    body = client.get(reverse("probe:bank_detail", args=[bank.pk]) + "?key=1").content.decode()
    rows = re.findall(
        r'<div class="item-num">.*?</span>([^<]+)</label>.*?<span class="key-answer">([^<]*)<',
        body,
        flags=re.S,
    )
    assert rows == [
        ("1-1", "9090"),
        ("1-2", "rate"),
        ("2-1", "journalctl"),
        ("2-2", "emerg（緊急）"),
        ("2-3", "compress"),
        ("3-1", "90"),
        ("3-2", "CRL（証明書失効リスト）"),
    ]
