"""Two tabs of one browser, a re-check answered, and the start page with decisions still unsent.

On the demo experiment (30 items x 6 simulated sheets, collected through the real adapter): a
decision refused because another tab decided otherwise is shown on the tab that made it, and
only there, and nothing on that row or in the status line says it is being sent or saved; a
re-check answered loses its labels and the banner's count at once; the start page says what
waits before it offers the reveal, and sends what this browser still holds.
"""

import pytest
from playwright.sync_api import expect

from scoring.models import Assignment, DecisionReceipt, Judgement
from tests.browser.test_scoring_flow import (
    collected,  # noqa: F401 (the fixture)
    sign_in,
    start_scoring,
    wait_ready,
    wait_saved,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def row(page, tokens: str):
    return page.locator(f'#scoring-item li.answer[data-tokens="{tokens}"]')


def stay_on_the_item(page) -> None:
    """Turn off "open the next item by itself" (this browser's preference, for every tab)."""
    page.locator("#auto-advance").uncheck()
    page.locator("#scoring-item li.answer:not(.decided)").first.focus()


def test_a_refusal_shows_on_the_tab_it_refused_and_only_there(
    live_server,
    page,
    world,
    collected,  # noqa: F811
):
    sign_in(page, live_server)
    start_scoring(page, live_server, collected)
    stay_on_the_item(page)
    wait_ready(page)
    second = page.context.new_page()
    second.goto(page.url)
    wait_ready(second)
    tokens = page.evaluate("() => document.activeElement.dataset.tokens")
    assert second.evaluate("() => document.activeElement.dataset.tokens") == tokens

    # A decides Correct; B, which still shows the answer undecided, decides bucket 3.
    page.keyboard.press("c")
    wait_saved(page)
    second.keyboard.press("3")
    refused = row(second, tokens)
    expect(refused.locator("[data-attention]")).to_be_visible()
    expect(refused.locator("[data-attention]")).to_contain_text("another")
    # Refused is neither "sending" nor saved, and the status line does not say all is saved.
    expect(refused.locator("[data-sync]")).not_to_contain_text("sending")
    expect(refused.locator("[data-sync]")).not_to_contain_text("saved")
    status = second.locator("#queue-status [data-status-text]")
    expect(status).not_to_have_text("Every decision is saved.")
    expect(status).to_have_text("Every other decision is saved.")
    expect(second.locator("#queue-status [data-attention-link]")).to_be_visible()

    # A reloads: its decision was saved, and nothing of B's refusal shows on it.
    page.reload()
    wait_ready(page)
    expect(row(page, tokens).locator(".answer-state .bucket")).to_have_text("Correct")
    expect(row(page, tokens).locator("[data-attention]")).to_have_count(0)
    expect(page.locator("#queue-status [data-attention-link]")).to_be_hidden()
    expect(page.locator("#queue-status [data-status-text]")).to_have_text(
        "Every decision is saved."
    )

    # B reloads: the refusal is B's, and stays on B's row until B decides it anew.
    second.reload()
    expect(row(second, tokens).locator("[data-attention]")).to_be_visible()
    row(second, tokens).focus()
    second.keyboard.press("c")  # the server holds Correct: the same bucket, saved
    wait_saved(second)
    expect(row(second, tokens).locator("[data-attention]")).to_have_count(0)
    expect(second.locator("#queue-status [data-status-text]")).to_have_text(
        "Every decision is saved."
    )
    second.close()


def test_a_recheck_answered_updates_its_row_and_the_banner_and_the_start_page_says_what_waits(
    live_server,
    page,
    world,
    collected,  # noqa: F811
):
    from scoring.review.services import key_decision_create

    sign_in(page, live_server)
    start_scoring(page, live_server, collected)
    stay_on_the_item(page)
    item_url = page.url
    page.goto(item_url.replace("/1/", "/2/"))
    wait_ready(page)
    page.keyboard.press("Shift+C")  # every answer of item 2 correct
    wait_saved(page)
    assignment = Assignment.objects.get(experiment=collected, user=world.users["scorer"])
    judged_on_2 = Judgement.objects.filter(
        assignment=assignment, response__item__position=2
    ).count()
    assert judged_on_2

    item2 = collected.items.get(position=2)
    key_decision_create(
        item=item2,
        user=world.users["editor"],
        outcome="amended",
        new_answer="An amended key",
        source="A primary source, p. 12",
    )
    page.reload()
    banner = page.locator(".recheck-banner")
    expect(banner).to_be_visible()
    # The banner counts answers, as the rows' group sizes add up.
    rows = page.locator("#scoring-item li.answer.recheck")
    sizes = [
        int(s.strip("×"))
        for s in rows.evaluate_all(
            "els => els.map(li => (li.querySelector('.group-size') || {}).textContent || '1')"
        )
    ]
    back = Judgement.objects.filter(assignment=assignment, needs_recheck=True).count()
    assert back and sum(sizes) == back
    expect(banner).to_have_attribute("data-rechecks", str(back))
    word = "answer you judged is" if back == 1 else "answers you judged are"
    expect(banner).to_contain_text(f"{back} {word} back for a re-check")

    # One re-check answered: its row and the banner change at once, no reload.
    first = rows.first
    tokens = first.get_attribute("data-tokens")
    first.focus()
    page.keyboard.press("c")
    wait_saved(page)
    answered = row(page, tokens)
    expect(answered.locator(".recheck-tag")).to_have_count(0)
    expect(answered.locator(".recheck-detail")).to_have_count(0)
    left = back - sizes[0]
    if left:
        expect(banner).to_have_attribute("data-rechecks", str(left))
        expect(banner).to_contain_text(f"{left} answer")
    else:
        expect(banner).to_be_hidden()
    page.screenshot(path="test-artifacts/recheck_answered.png", full_page=True)

    # A decision the server never hears waits in this browser; the start page says so, and
    # that re-checks wait, and sends it once the server answers.
    if left:
        before = Judgement.objects.filter(assignment=assignment, needs_recheck=False).count()
        page.route("**/record/", lambda route: route.abort())
        rows.first.focus()
        page.keyboard.press("c")
        expect(page.locator("#queue-status")).to_have_attribute("data-state", "failed")
        page.goto(f"{live_server.url}/experiments/{collected.pk}/score/")
        expect(page.locator("[data-start-rechecks]")).to_contain_text("back for a re-check")
        waiting = page.locator("#queue-start")
        expect(waiting).to_be_visible()
        expect(waiting).to_contain_text("1 decision not sent yet from this browser")
        page.unroute("**/record/")
        expect(waiting).to_be_hidden(timeout=20_000)
        after = Judgement.objects.filter(assignment=assignment, needs_recheck=False).count()
        assert after > before
    # The reveal is refused while re-checks wait, and says why.
    page.goto(f"{live_server.url}/experiments/{collected.pk}/score/")
    page.locator("[data-start-reveal]").click()
    if Judgement.objects.filter(assignment=assignment, needs_recheck=True).exists():
        expect(page.locator("[data-reveal-rechecks]")).to_contain_text("back for a re-check")


def test_a_decision_another_tab_queued_is_not_erased_when_this_tab_saves(
    live_server,
    page,
    world,
    collected,  # noqa: F811
):
    """Two tabs share the browser's queue: tab B queues a decision it cannot send, tab A then
    queues one of its own, and B is closed. A's save must keep B's decision, so that it is sent
    (once) when the connection returns."""
    sign_in(page, live_server)
    start_scoring(page, live_server, collected)
    stay_on_the_item(page)
    wait_ready(page)
    assert page.url.rstrip("/").endswith("/1")
    second = page.context.new_page()
    second.goto(page.url.rstrip("/")[: -len("1")] + "2/")  # B scores the next item
    wait_ready(second)
    assignment = Assignment.objects.get(experiment=collected, user=world.users["scorer"])
    before = Judgement.objects.filter(assignment=assignment).count()

    page.context.route("**/record/", lambda route: route.abort())
    second.keyboard.press("1")  # B: queued, not sent
    expect(second.locator("#queue-status")).to_have_attribute("data-state", "failed")
    page.bring_to_front()
    page.locator("#scoring-item li.answer:not(.decided)").first.focus()
    page.keyboard.press("1")  # A: queued too; A saves the queue the tabs share
    expect(page.locator("#queue-status")).to_have_attribute("data-state", "failed")
    second.close()
    assert Judgement.objects.filter(assignment=assignment).count() == before

    page.context.unroute("**/record/")
    page.reload()
    wait_saved(page)
    after = Judgement.objects.filter(assignment=assignment)
    assert DecisionReceipt.objects.filter(assignment=assignment).count() == 2, (
        "B's decision was kept and sent, and each decision applied once"
    )
    assert {
        j.response.item.position
        for j in after.exclude(verdict="preset").select_related("response__item")
    } >= {1, 2}
