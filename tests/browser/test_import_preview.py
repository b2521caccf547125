"""A person pastes a whole article that contains a probe, reads the warnings, accepts the
suggested readings and imports exactly the probe: its items, key entries and flags, no prose."""

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from probe.models import Bank, Item, KeyEntry

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
DOCUMENTS = Path(__file__).resolve().parents[1] / "bankformat" / "documents"


def log_in(page, live_server):
    page.goto(live_server.url + "/")
    page.get_by_label("Username").fill("acme-editor")
    page.get_by_label("Password").fill("correct horse battery staple")
    page.get_by_label("Password").press("Enter")
    expect(page.get_by_role("heading", name="Acme probes")).to_be_visible()


def test_paste_an_article_accept_the_readings_and_import_the_probe(live_server, page, world):
    ARTIFACTS.mkdir(exist_ok=True)
    banks_before = Bank.objects.count()
    log_in(page, live_server)
    page.get_by_role("link", name="Import a bank").click()
    page.get_by_label("…or paste the text").fill((DOCUMENTS / "web_page.txt").read_text())
    page.get_by_role("button", name="Preview").click()

    expect(page.get_by_role("heading", name="Check the import")).to_be_visible()
    warnings = page.locator("#import-warnings .warning")
    expect(warnings).to_have_count(4)
    expect(warnings.nth(2)).to_contain_text("Line 20")
    expect(warnings.nth(2)).to_contain_text("reads like a heading of the document")
    # As read now, the article's last paragraph is glued onto the key entry of B3.
    expect(page.locator(".import-items").nth(1)).to_contain_text("Show the answer key")
    page.screenshot(path=str(ARTIFACTS / "import_preview_warnings.png"), full_page=True)
    assert Bank.objects.count() == banks_before  # nothing saved by a preview

    # Keyboard only: choose the first suggestion with the space bar, then preview again.
    first = page.get_by_role("radio", name=re.compile("^Accept:")).first
    first.focus()
    first.press("Space")
    page.get_by_role("button", name="Preview with the chosen readings").click()
    expect(page.locator(".taken-list li")).to_have_count(1)
    expect(page.locator("#import-warnings .warning")).to_have_count(3)

    page.get_by_role("button", name="Accept every suggested reading").click()
    expect(page.locator("#import-warnings .warning")).to_have_count(0)
    expect(page.locator(".taken-list li")).to_have_count(4)
    expect(page.locator(".import-counts")).to_contain_text("6")
    page.screenshot(path=str(ARTIFACTS / "import_preview_accepted.png"), full_page=True)
    expect(page.get_by_label("Bank name")).to_have_value(
        "A small private probe of browser knowledge"
    )
    page.get_by_role("button", name="Import", exact=True).click()
    expect(page.get_by_text("Imported 6 items in 2 blocks")).to_be_visible()
    expect(page).to_have_url(re.compile(r"/banks/\d+/"))

    bank = Bank.objects.get(name="A small private probe of browser knowledge")
    assert bank.description == ""
    questions = list(
        Item.objects.filter(block__bank=bank)
        .order_by("block__order", "order")
        .values_list("question", flat=True)
    )
    assert questions[2].endswith("in every browser?") and questions[5] == (
        "What is the default port of HTTPS?"
    )
    keys = KeyEntry.objects.filter(item__block__bank=bank)
    assert sorted(k.answer for k in keys) == sorted(
        ["z-index", "2011", "iframe", "429", "Retry-After", "443"]
    )
    assert [k.answer for k in keys if k.flagged] == ["2011"]


def test_a_web_page_copy_with_show_the_key_imports_by_one_press(live_server, page, world):
    """A web page copy whose last paragraph runs into "Show the key" right before the key: one
    press of "Accept every suggested reading" settles every warning (the readings compose), the
    Import button appears only then, and the bank is named after the article, not the site."""
    log_in(page, live_server)
    page.get_by_role("link", name="Import a bank").click()
    text = (DOCUMENTS / "networking_web_page.txt").read_text()
    page.get_by_label("…or paste the text").fill(text)
    page.get_by_role("button", name="Preview").click()
    expect(page.locator("#import-problems")).to_contain_text("block A appears twice")
    expect(page.get_by_role("button", name="Import", exact=True)).to_have_count(0)

    page.get_by_role("button", name="Accept every suggested reading").click()
    expect(page.locator("#import-problems")).to_have_count(0)
    expect(page.locator("#import-warnings .warning")).to_have_count(0)
    expect(page.get_by_role("button", name="Accept every suggested reading")).to_have_count(0)
    expect(page.locator(".import-counts")).to_contain_text("20")
    expect(page.locator("#line-57")).to_contain_text("answer key starts here")
    expect(page.get_by_label("Bank name")).to_have_value(
        "What our models still get wrong about Linux networking"
    )
    page.screenshot(path=str(ARTIFACTS / "import_preview_networking.png"), full_page=True)
    page.get_by_role("button", name="Import", exact=True).click()
    expect(page.get_by_text("Imported 20 items in 4 blocks")).to_be_visible()

    bank = Bank.objects.get(name="What our models still get wrong about Linux networking")
    keys = KeyEntry.objects.filter(item__block__bank=bank)
    assert keys.count() == 20
    assert sorted(k.answer for k in keys if k.flagged) == sorted(["fc00::/7", "60", "255", "-o"])
    assert not Item.objects.filter(block__bank=bank, question__contains="scoring").exists()
