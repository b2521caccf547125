"""A person logs in, imports a text bank, edits an item inline and sees it persist."""

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from probe.models import Item

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"

BANK_TEXT = """\
Block A. HTTP semantics
1. Which status code means Too Many Requests?
2. Which header says when to retry?

Block B. PostgreSQL
1. What is the default port?

Answer key
Block A. HTTP semantics
1. 429
2. Retry-After (!) RFC 9110 10.2.3
Block B. PostgreSQL
1. 5432
"""


def test_import_edit_inline_and_reload(live_server, page, world, tmp_path):
    ARTIFACTS.mkdir(exist_ok=True)
    bank_file = tmp_path / "http.txt"
    bank_file.write_text(BANK_TEXT)

    page.goto(live_server.url + "/")
    expect(page).to_have_url(re.compile(r"/accounts/login/"))
    page.get_by_label("Username").fill("acme-editor")
    page.get_by_label("Password").fill("correct horse battery staple")
    page.get_by_label("Password").press("Enter")
    expect(page.get_by_role("heading", name="Acme probes")).to_be_visible()

    page.get_by_role("link", name="Import a bank").click()
    page.get_by_label("Bank file").set_input_files(str(bank_file))
    page.get_by_label("Bank name").fill("HTTP and PostgreSQL")
    page.get_by_role("button", name="Preview").click()
    expect(page.get_by_role("heading", name="Check the import")).to_be_visible()
    page.get_by_role("button", name="Import", exact=True).click()
    expect(page.get_by_role("heading", name="HTTP and PostgreSQL")).to_be_visible()
    expect(page.get_by_text("Imported 3 items in 2 blocks")).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "bank_detail.png"), full_page=True)

    item = Item.objects.get(
        question="Which header says when to retry?", block__bank__name="HTTP and PostgreSQL"
    )
    row = page.locator(f"#item-{item.pk}")
    page.evaluate("window.__notReloaded = true")
    row.get_by_role("link", name="Edit").click()
    question = row.get_by_label("Question")
    expect(question).to_be_focused()
    question.fill("Which response header says how long to wait before retrying?")
    question.press("Control+Enter")
    expect(row.get_by_text("Which response header says how long to wait")).to_be_visible()
    expect(row.get_by_label("Question")).to_have_count(0)
    assert page.evaluate("window.__notReloaded") is True  # saved in place: no page load

    page.reload()
    expect(page.locator(f"#item-{item.pk}")).to_contain_text(
        "Which response header says how long to wait before retrying?"
    )
    item.refresh_from_db()
    assert item.question == "Which response header says how long to wait before retrying?"


def test_keyboard_move_and_the_shared_move_control(live_server, page, world):
    page.goto(live_server.url + "/accounts/login/")
    page.get_by_label("Username").fill("acme-editor")
    page.get_by_label("Password").fill("correct horse battery staple")
    page.get_by_label("Password").press("Enter")
    page.goto(live_server.url + world.bank.get_absolute_url())
    first, second, third = world.items
    page.evaluate("window.__notReloaded = true")

    # Up on the second item of block A: the two rows trade places, the focus stays on the arrow.
    up = page.locator(f"#item-{second.pk}").get_by_role("button", name="Move up")
    up.focus()
    up.press("Enter")
    articles = page.locator("#item-list article.item")
    expect(articles.first).to_have_id(f"item-{second.pk}")
    expect(articles.nth(1)).to_have_id(f"item-{first.pk}")
    expect(page.locator(f"#item-{second.pk} .item-num")).to_contain_text("A1")
    expect(page.locator(f"#item-{second.pk}").get_by_role("button", name="Move up")).to_be_focused()
    assert page.locator(f"#item-{first.pk}").count() == 1  # the old row is gone, not doubled

    # Tick both items of block A and move them to block B with the one control.
    page.locator(f"#select-{first.pk}").check()
    page.locator(f"#select-{second.pk}").check()
    page.get_by_label("Move selected to block").select_option(label="B. Python")
    page.get_by_role("button", name="Move", exact=True).click()
    expect(page.get_by_text("2 items moved to block B.")).to_be_visible()
    expect(page.locator(f"#item-{third.pk} .item-num")).to_contain_text("B1")
    expect(page.locator(f"#item-{second.pk} .item-num")).to_contain_text("B2")
    expect(page.locator(f"#item-{first.pk} .item-num")).to_contain_text("B3")
    assert page.evaluate("window.__notReloaded") is True
    assert list(
        Item.objects.filter(block=world.blocks[1]).order_by("order").values_list("pk", flat=True)
    ) == [third.pk, second.pk, first.pk]
