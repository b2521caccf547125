"""In Chromium: an unbroken 200,000-character answer stays inside its card on every page that
shows answers (the run page, its raw replies, the scoring page, the key review, reconciliation),
folded with "Show all", which opens from the keyboard and shows the whole text; a 1,000-character
unbroken answer, below the fold, wraps and never runs under the decision buttons."""

import json
import re

import pytest
from playwright.sync_api import expect

from probe.models import Attempt, Response
from scoring.models import Bucket
from scoring.queue import services
from scoring.reconciliation import services as reconcile_services
from tests.browser.session import forget_session
from tests.browser.test_accounts_browser import log_in
from tests.scoring.factories import judge, judge_everything, responses_in_order

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LONG = ("Supercalifragilistic" * 10_000)[:200_000]  # no space anywhere
MIDDLE = "0123456789" * 100  # 1,000 characters, shown whole

# For each element: its box, and the box of the card (or answer row, or cell) holding it.
BOXES = """(selector) => [...document.querySelectorAll(selector)].map((el) => {
  const holder = el.closest("li.answer, .raw-block, td, .card, section");
  const a = el.getBoundingClientRect(), b = holder.getBoundingClientRect();
  return {left: a.left, right: a.right, width: a.width,
          holderLeft: b.left, holderRight: b.right, holder: holder.className || holder.tagName};
})"""


def assert_inside(page, selector):
    boxes = page.evaluate(BOXES, selector)
    assert boxes, f"nothing matches {selector} on {page.url}"
    for box in boxes:
        assert box["width"] > 0, f"{selector} is not shown on {page.url}"
        assert box["left"] >= box["holderLeft"] - 1 and box["right"] <= box["holderRight"] + 1, (
            f"{selector} overflows its {box['holder']} on {page.url}: {box}"
        )
    overflow = page.evaluate(
        "document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    assert overflow <= 0, f"{page.url} scrolls sideways by {overflow}px"


def open_all_with_the_keyboard(page):
    folded = page.locator("details.long-text")
    expect(folded.first).to_be_visible()
    # The raw reply holds the answer with its number and confidence around it.
    more = re.compile(r"Show all \(200,0\d\d characters\)")
    expect(folded.first.locator(".long-text-more")).to_have_text(more)
    expect(folded.first.locator(".long-text-full")).to_be_hidden()
    assert_inside(page, "details.long-text")
    folded.first.locator("summary").focus()
    page.keyboard.press("Space")
    full = folded.first.locator(".long-text-full")
    expect(full).to_be_visible()
    assert full.inner_text().replace("\n", "").count("Supercalifragilistic") == 10_000
    assert_inside(page, ".long-text-full")


@pytest.fixture
def long_world(world):
    first = responses_in_order(world.scored, position=1)[0]
    Response.objects.filter(pk=first.pk).update(answer=LONG)
    Attempt.objects.filter(run=first.run).update(
        text=f"1. {LONG} (HIGH)", raw_body=json.dumps({"content": f"1. {LONG} (HIGH)"})
    )
    second = responses_in_order(world.scored, position=2)[1]
    Response.objects.filter(pk=second.pk).update(answer=MIDDLE)
    return world, first


def test_a_long_unbroken_answer_stays_in_its_card_everywhere(live_server, page, long_world):
    world, first = long_world
    base = live_server.url
    scorer = services.assignment_start(experiment=world.scored, user=world.users["scorer"])

    # The blind scoring page: folded, and the answer column never reaches the buttons.
    log_in(page, base, "acme-scorer")
    page.goto(f"{base}/score/{scorer.token}/1/")
    open_all_with_the_keyboard(page)
    assert_inside(page, ".answer-value")
    page.goto(f"{base}/score/{scorer.token}/2/")
    middle = page.locator(".answer-value", has_text=MIDDLE[:30])
    expect(middle).to_be_visible()
    assert middle.inner_text().replace("\n", "") == MIDDLE
    assert_inside(page, ".answer-value")
    row = page.locator("li.answer", has=middle)
    text_box = middle.bounding_box()
    state_box = row.locator(".answer-state").bounding_box()
    assert text_box["x"] + text_box["width"] <= state_box["x"] + 1, "runs under the buttons"

    # Two scorers disagree on the long answer; reconciliation begins; the owner looks.
    judge_everything(scorer, Bucket.CORRECT)
    editor = services.assignment_start(experiment=world.scored, user=world.users["editor"])
    judge_everything(editor, Bucket.CORRECT)
    judge(editor, {first: Bucket.CONFIDENT_WRONG})
    # A dispute on it puts the item in the key review, with the answer beside the note.
    services.dispute_raise(
        assignment=scorer, item=first.item, note="Is this right?", response=first
    )
    reconcile_services.reconciliation_start(experiment=world.scored, user=world.users["owner"])
    forget_session(page)
    log_in(page, base, "acme-owner")
    for path in (
        f"/runs/{first.run_id}/?key=1",  # a simulated model: its answers show beside the key
        f"/runs/{first.run_id}/raw/",
        f"/experiments/{world.scored.pk}/key-review/",
        f"/experiments/{world.scored.pk}/reconcile/1/",
    ):
        page.goto(base + path)
        open_all_with_the_keyboard(page)
