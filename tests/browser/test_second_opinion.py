"""The second opinion by keyboard: the scorer commits item 1 (C, C), the item stays with the
grader's verdict beside the answer it disagrees on, T takes it (recorded with the grader's
reason as the cause), Enter goes on to item 2, which shows nothing of a grader."""

import pytest
from playwright.sync_api import expect

from grading import engine, services
from grading.models import SecondOpinion
from scoring.models import Assignment, Judgement
from tests.browser.test_scoring_flow import ARTIFACTS, sign_in, wait_ready, wait_saved
from tests.grading.conftest import graded_world  # noqa: F401 (the fixture)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_commit_then_take_the_second_opinion_by_keyboard(live_server, page, graded_world):  # noqa: F811
    world = graded_world
    experiment = world.grading.experiment
    grader = services.grader_create(team=world.team, user=None, label="Rules")
    job = services.grading_start(experiment=experiment, grader=grader, user=None, queue=False)
    assert engine.job_grade(job_pk=job.pk) == "done"
    ARTIFACTS.mkdir(exist_ok=True)
    sign_in(page, live_server)
    page.goto(f"{live_server.url}/experiments/{experiment.pk}/score/")
    expect(page.get_by_role("button", name="Start scoring")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator(".item-count")).to_have_text("Item 1 of 6")
    wait_ready(page)
    expect(page.locator("[data-opinion]")).to_have_count(0)
    page.keyboard.press("c")
    wait_ready(page)
    page.keyboard.press("c")
    # The next item opens at once, as without a grader: nothing waits for a second opinion.
    expect(page.locator(".item-count")).to_have_text("Item 2 of 6")
    expect(page.locator("[data-opinion]")).to_have_count(0)
    # Once item 1's decisions are saved, the status line names its second opinion; V opens it.
    link = page.locator("#queue-status [data-opinion-link]")
    expect(link).to_be_visible()
    expect(link).to_contain_text("item 1")
    page.keyboard.press("v")
    pending = page.locator("li.answer [data-opinion-pending]")
    expect(pending).to_have_count(1)
    expect(page.locator(".item-count")).to_have_text("Item 1 of 6")
    expect(link).to_be_hidden()
    expect(page.locator("li.answer:focus [data-opinion-pending]")).to_have_count(1)
    page.screenshot(path=str(ARTIFACTS / "second_opinion.png"))
    page.keyboard.press("t")
    expect(page.locator("[data-opinion-pending]")).to_have_count(0)
    expect(page.get_by_text("You changed your bucket")).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "second_opinion_taken.png"))
    page.keyboard.press("Enter")
    expect(page.locator(".item-count")).to_have_text("Item 2 of 6")
    expect(page.locator("[data-opinion]")).to_have_count(0)
    wait_saved(page)

    assignment = Assignment.objects.get(experiment=experiment, user=world.users["scorer"])
    opinion = SecondOpinion.objects.get(assignment=assignment, action="change")
    assert (opinion.first_bucket, opinion.new_bucket) == ("correct", "confident_wrong")
    assert opinion.grade.reason in opinion.cause
    assert Judgement.objects.get(assignment=assignment, response=opinion.response).bucket == (
        "confident_wrong"
    )
