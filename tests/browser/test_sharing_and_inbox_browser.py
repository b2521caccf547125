"""In Chromium: a lead shares an experiment's items among two scorers from the Scorers page;
a scorer sees the count in the top bar, opens the inbox and follows its link to the scoring."""

from pathlib import Path

import pytest
from playwright.sync_api import expect

from scoring.allocation.selectors import item_counts
from tests.browser.session import forget_session

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
PASSWORD = "correct horse battery staple"


def log_in(page, base, username):
    page.goto(base + "/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()


def test_a_lead_shares_the_items_and_a_scorer_follows_the_notification(live_server, page, world):
    ARTIFACTS.mkdir(exist_ok=True)
    base = live_server.url
    experiment = world.scored
    log_in(page, base, "acme-owner")
    page.goto(f"{base}/experiments/{experiment.pk}/scorers/")
    share = page.locator("section", has=page.get_by_role("heading", name="Who judges which items"))
    share.get_by_label("acme-scorer").check()
    share.get_by_label("acme-editor").check()
    share.get_by_label("Scorers per item (empty: all of the pool)").fill("1")
    share.get_by_role("button", name="Share out the items").click()
    expect(page.get_by_text("The items are shared out: each to 1 of 2 scorers")).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "scorers_shared.png"), full_page=True)
    assert set(item_counts(experiment).values()) == {1}

    forget_session(page)
    log_in(page, base, "acme-scorer")
    expect(page.locator("#unread-count")).to_have_text("1")
    page.get_by_role("link", name="Notifications").click()
    expect(page.get_by_text("You have items to score in Scored.")).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "inbox.png"), full_page=True)
    page.get_by_role("link", name="You have items to score in Scored.").click()
    expect(page).to_have_url(f"{base}/experiments/{experiment.pk}/score/")
