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
