"""Scoring shortcuts with a Japanese IME on: its keydowns say "Process" in event.key, keyCode 229
and isComposing, and the page must act on the key pressed (event.code) outside text fields while
a note keeps taking the IME's text."""

import re

import pytest
from playwright.sync_api import expect

from scoring.models import Assignment, DecisionReceipt, Judgement, JudgementChange
from tests.browser.test_scoring_flow import (
    ARTIFACTS,
    PROFILES,
    collect_demo,
    sign_in,
    start_scoring,
    wait_ready,
    wait_saved,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# A function, not a bare expression: the page's CSP forbids evaluating strings.
IME_KEYDOWN = """([code, target]) => {
  const el = target ? document.querySelector(target) : document.activeElement;
  const event = new KeyboardEvent("keydown", {
    key: "Process", code: code, keyCode: 229, which: 229, isComposing: true,
    bubbles: true, cancelable: true,
  });
  el.dispatchEvent(event);
  return event.defaultPrevented;
}"""


# The same keydown with Shift held, as the IME reports "?" (Shift+Slash) or Shift+1.
IME_SHIFT_KEYDOWN = """([code]) => {
  const event = new KeyboardEvent("keydown", {
    key: "Process", code: code, keyCode: 229, which: 229, isComposing: true, shiftKey: true,
    bubbles: true, cancelable: true,
  });
  document.activeElement.dispatchEvent(event);
  return event.defaultPrevented;
}"""


@pytest.fixture
def collected2(world):
    """The demo bank put to two simulated configurations twice: 30 items x 4 sheets."""
    profiles = {k: PROFILES[k] for k in ("Expert", "Sloppy")}
    return collect_demo(world, profiles, "IME on")


def test_an_ime_keydown_decides_once_and_moves_the_focus_on(live_server, page, world, collected2):
    sign_in(page, live_server)
    start_scoring(page, live_server, collected2)
    wait_ready(page)
    assignment = Assignment.objects.get(experiment=collected2, user=world.users["scorer"])
    preset = Judgement.objects.filter(assignment=assignment).count()
    tokens = page.evaluate("() => document.activeElement.dataset.tokens")
    assert page.evaluate(IME_KEYDOWN, ["Digit1", None]) is True  # taken, so no IME text
    wait_saved(page)
    wait_ready(page)
    assert page.evaluate("() => document.activeElement.dataset.tokens") != tokens
    changes = JudgementChange.objects.filter(assignment=assignment)
    assert changes.count() == len(tokens.split(","))
    assert set(changes.values_list("new_bucket", flat=True)) == {"correct"}
    assert DecisionReceipt.objects.filter(assignment=assignment).count() == 1
    assert Judgement.objects.filter(assignment=assignment).count() == preset + changes.count()
    expect(page.locator("[data-ime-hint]")).to_have_count(0)
    # A key the IME swallows without naming it: nothing is decided, the page says what to do.
    page.evaluate(IME_KEYDOWN, ["", None])
    expect(page.locator("[data-ime-hint]")).to_contain_text("half-width")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "scoring_ime_hint.png"))
    assert JudgementChange.objects.filter(assignment=assignment).count() == changes.count()


def test_typing_a_note_with_the_ime_decides_nothing(live_server, page, world, collected2):
    sign_in(page, live_server)
    start_scoring(page, live_server, collected2)
    wait_ready(page)
    assignment = Assignment.objects.get(experiment=collected2, user=world.users["scorer"])
    tokens = page.evaluate("() => document.activeElement.dataset.tokens")
    page.keyboard.press("1")  # a note belongs to a decided answer
    wait_saved(page)
    # Back to item 1 as the server has it (the note form comes with the saved decision).
    page.goto(re.sub(r"/\d+/$", "/1/", page.url))
    expect(page.locator(".item-count")).to_have_text("Item 1 of 30")
    answer = page.locator(f'li.answer[data-tokens="{tokens}"]')
    expect(answer).to_have_class(re.compile(r"\bdecided\b"))
    answer.focus()
    page.keyboard.press("m")
    note = answer.locator("[data-note]")
    expect(note).to_be_focused()
    # The IME composes "２" then "w" in the note, its keydowns naming Digit2 and KeyW: text,
    # not a change of bucket.
    cdp = page.context.new_cdp_session(page)
    assert page.evaluate(IME_KEYDOWN, ["Digit2", None]) is False
    cdp.send("Input.imeSetComposition", {"text": "２", "selectionStart": 1, "selectionEnd": 1})
    cdp.send("Input.insertText", {"text": "２"})
    assert page.evaluate(IME_KEYDOWN, ["KeyW", None]) is False
    cdp.send("Input.imeSetComposition", {"text": "ｗ", "selectionStart": 1, "selectionEnd": 1})
    cdp.send("Input.insertText", {"text": "ｗ"})
    expect(note).to_have_value("２ｗ")
    expect(note).to_be_focused()
    expect(page.locator("[data-ime-hint]")).to_have_count(0)
    page.wait_for_timeout(500)  # a decision would be sent at once
    wait_saved(page)
    changes = JudgementChange.objects.filter(assignment=assignment)
    assert changes.count() == len(tokens.split(","))
    assert set(changes.values_list("new_bucket", flat=True)) == {"correct"}


def test_the_help_and_the_other_keys_it_lists_work_with_the_ime_on(
    live_server, page, world, collected2
):
    """? (Shift+Slash), Esc, the arrows, Shift+1 and U, each pressed while the IME composes:
    every key the help lists acts by its place, and none leaves the hint that the IME took it."""
    sign_in(page, live_server)
    start_scoring(page, live_server, collected2)
    wait_ready(page)
    overlay = page.locator("#help-overlay")
    assert page.evaluate(IME_SHIFT_KEYDOWN, ["Slash"]) is True
    expect(overlay).to_be_visible()
    page.evaluate(IME_KEYDOWN, ["Escape", None])
    expect(overlay).to_be_hidden()
    first = page.evaluate("() => document.activeElement.dataset.tokens")
    assert page.evaluate(IME_KEYDOWN, ["ArrowDown", None]) is True
    assert page.evaluate(IME_KEYDOWN, ["ArrowUp", None]) is True
    assert page.evaluate("() => document.activeElement.dataset.tokens") == first
    assignment = Assignment.objects.get(experiment=collected2, user=world.users["scorer"])
    # Shift+1: the rest of the item's answers are correct.
    assert page.evaluate(IME_SHIFT_KEYDOWN, ["Digit1"]) is True
    wait_saved(page)
    decided = JudgementChange.objects.filter(assignment=assignment).count()
    assert decided >= 2
    assert page.evaluate(IME_KEYDOWN, ["KeyU", None]) is True  # undo
    wait_saved(page)
    expect(page.locator("[data-ime-hint]")).to_have_count(0)
