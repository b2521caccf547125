"""In Chromium, by keyboard alone: a lead writes a comment on a key entry, completing a mention
from the list under the text field; the mentioned editor sees the notification and follows it
to the comment."""

from pathlib import Path

import pytest
from playwright.sync_api import expect

from probe.models import KeyEntryComment, Notification
from tests.browser.session import forget_session

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
PASSWORD = "correct horse battery staple"


def log_in(page, base, username):
    page.goto(base + "/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()


def test_a_comment_with_a_mention_by_keyboard_and_its_notification(live_server, page, world):
    ARTIFACTS.mkdir(exist_ok=True)
    base = live_server.url
    editor = world.users["editor"]
    editor.first_name, editor.last_name = "Eri", "Sato"
    editor.save()
    item = world.items[0]
    log_in(page, base, "acme-owner")
    page.goto(f"{base}/items/{item.pk}/?key=1")
    field = page.get_by_label("Add a comment")
    field.focus()
    page.keyboard.type("Is the key complete? @acme-e")
    options = page.locator(".mention-list [role=option][data-username]")
    expect(options).to_have_count(1)
    expect(options.first).to_contain_text("Eri Sato")
    expect(field).to_have_attribute("aria-expanded", "true")
    page.screenshot(path=str(ARTIFACTS / "discussion_mention_list.png"), full_page=True)
    page.keyboard.press("Enter")  # takes the highlighted member, does not send the form
    expect(field).to_have_value("Is the key complete? @acme-editor ")
    page.keyboard.type("please check RFC 6585.")
    page.keyboard.press("Tab")  # to the Comment button
    page.keyboard.press("Enter")
    thread = page.locator(f"#key-thread-{item.pk}")
    expect(thread.locator(".comment-text")).to_contain_text("please check RFC 6585.")
    expect(thread.locator(".mention")).to_have_text("@acme-editor")
    page.screenshot(path=str(ARTIFACTS / "discussion_key_thread.png"), full_page=True)
    assert KeyEntryComment.objects.get().text.startswith("Is the key complete? @acme-editor")
    assert Notification.objects.get(kind="mentioned").user == editor

    forget_session(page)
    log_in(page, base, "acme-editor")
    expect(page.locator("#unread-count")).to_have_text("1")
    page.get_by_role("link", name="Notifications").click()
    sentence = "acme-owner mentioned you in a comment in Acme secret bank."
    expect(page.get_by_text(sentence)).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "discussion_inbox.png"), full_page=True)
    page.get_by_role("link", name=sentence).click()
    expect(page.locator(".comment-text")).to_contain_text("please check RFC 6585.")
