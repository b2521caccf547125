"""In the browser, by keyboard: two scorers score, disagree on a few answers, an editor begins
reconciliation, settles each disagreement with a note, reads the agreement figures, and amends a
key in the key review."""

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from scoring.agreement import report as agreement_report
from scoring.models import FinalBucket, Judgement, KeyDecision
from scoring.reconciliation import selectors as reconcile
from tests.browser.session import forget_session
from tests.conftest import scored_experiment
from tests.probe import factories

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
ANSWERS = [
    [("429", "MEDIUM"), ("Retry-After", "LOW"), ("3.10", "MEDIUM")],
    [("429", "LOW"), ("Retry-Later", "MEDIUM"), ("3.8", "LOW")],
    [("430", "MEDIUM"), ("Retry-After", "MEDIUM"), ("3.10", "LOW")],
]
# What each scorer calls correct (anything else: wrong). They disagree on "429" (two sheets) and "3.8".
CORRECT = {
    "acme-scorer": {"429", "Retry-After", "3.10"},
    "acme-owner": {"Retry-After", "3.10", "3.8"},
}
# The editor's final buckets, by key 1-4, and a note each.
FINAL = {"429": ("1", "RFC 6585 §4"), "3.8": ("3", "match needs 3.10")}


def log_in(page, live_server, username):
    forget_session(page)
    page.goto(live_server.url + "/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill("correct horse battery staple")
    page.get_by_label("Password").press("Enter")
    expect(page.get_by_role("heading", name="Acme probes")).to_be_visible()


# htmx copies the old attributes onto the swapped-in elements until it settles: wait for that.
SETTLED = "!document.querySelector('.htmx-request, .htmx-swapping, .htmx-settling, .htmx-added')"


def wait_for_open(page, selector):
    page.wait_for_function(
        f"() => {{ const li = document.activeElement && document.activeElement.closest('{selector}');"
        f" return {SETTLED} && li && !li.classList.contains('decided'); }}"
    )


def focused_answer(page) -> str:
    return page.evaluate(
        "() => { const li = document.activeElement.closest('li'); "
        "return li ? (li.querySelector('.answer-value') || li).innerText.trim() : ''; }"
    )


def score_by_keyboard(page, live_server, experiment, username):
    log_in(page, live_server, username)
    page.goto(f"{live_server.url}/experiments/{experiment.pk}/score/")
    expect(page.get_by_role("button", name="Start scoring")).to_be_focused()
    page.keyboard.press("Enter")
    judged = 0
    for position in (1, 2, 3):
        expect(page.locator(".item-count")).to_have_text(f"Item {position} of 3")
        for _group in range(2):
            wait_for_open(page, "li.answer")
            answer = focused_answer(page)
            size = page.evaluate("() => document.activeElement.dataset.tokens.split(',').length")
            page.keyboard.press("c" if answer in CORRECT[username] else "w")
            judged += size
            expect(page.locator("[data-progress-text]")).to_have_text(f"{judged} / 9 judged by you")
        # The item decided, the next one opens by itself.
    assert judged == 9
    expect(page.locator("#queue-status")).to_have_attribute("data-state", "saved")


def test_two_scorers_disagree_and_an_editor_reconciles(live_server, page, world):
    ARTIFACTS.mkdir(exist_ok=True)
    configs = [world.config] + [
        factories.ModelConfigFactory(team=world.team, label=f"Browser config {i}") for i in (2, 3)
    ]
    experiment = scored_experiment(
        world,
        configs=configs,
        answers=ANSWERS,
        name="Reconciled in the browser",
    )
    for username in CORRECT:
        score_by_keyboard(page, live_server, experiment, username)
    assert Judgement.objects.filter(assignment__experiment=experiment).count() == 18

    # The editor begins reconciliation and settles each disagreement by keyboard.
    log_in(page, live_server, "acme-editor")
    page.goto(f"{live_server.url}/experiments/{experiment.pk}/reconcile/")
    expect(page.get_by_role("button", name="Begin reconciliation")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.get_by_text("Reconciliation has begun")).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "reconcile_overview.png"), full_page=True)
    page.keyboard.press("Enter")  # "Settle disagreements" has the focus
    expect(page).to_have_url(re.compile(r"/reconcile/1/$"))
    page.evaluate("window.__notReloaded = true")
    settled = 0
    for position, rows in ((1, 2), (3, 1)):
        expect(page.locator(".item-count")).to_have_text(f"Item {position} of 3")
        if settled == 0:
            page.screenshot(path=str(ARTIFACTS / "reconcile_item.png"), full_page=True)
        for _row in range(rows):
            wait_for_open(page, "li.disagreement")
            answer = focused_answer(page)
            key, note = FINAL[answer]
            page.keyboard.press("e")
            page.keyboard.type(note)
            page.keyboard.press("Escape")
            page.keyboard.press(key)
            settled += 1
            expect(page.locator("li.disagreement.decided")).to_have_count(
                settled if position == 1 else settled - 2
            )
        if position == 1:
            page.keyboard.press("n")
    assert page.evaluate("window.__notReloaded") is True  # settled without a page load
    finals = {
        f.response.answer + f.response.confidence: f
        for f in FinalBucket.objects.filter(unanimous=False)
    }
    assert {k: (f.bucket, f.note) for k, f in finals.items()} == {
        "429MEDIUM": ("correct", "RFC 6585 §4"),
        "429LOW": ("correct", "RFC 6585 §4"),
        "3.8LOW": ("hedged_wrong", "match needs 3.10"),
    }
    assert all(f.decided_by.username == "acme-editor" for f in finals.values())
    summary = reconcile.reconcile_summary(experiment)
    assert (
        summary.complete
        and summary.unanimous == 6
        and reconcile.final_bucket_rows(experiment).count() == 9
    )

    # The agreement page: 6 of 9 agree; Cohen's kappa (54/81 - 37/81) / (44/81) = 17/44.
    page.goto(f"{live_server.url}/experiments/{experiment.pk}/agreement/")
    report = agreement_report.agreement_report(experiment)
    assert report.overall.cohen_kappa == pytest.approx(17 / 44)
    overall = page.locator("tr.overall")
    expect(overall).to_contain_text("66.7 %")
    expect(overall).to_contain_text("0.386")
    expect(page.locator("table.confusion td.off")).to_have_count(3)  # C/CW, C/HW, HW/C
    page.screenshot(path=str(ARTIFACTS / "reconcile_agreement.png"), full_page=True)

    # The one final report: figures from the final buckets, and the agreement beside them.
    from scoring.report.build import final_source, report_build

    page.goto(f"{live_server.url}/experiments/{experiment.pk}/final-report/")
    final = report_build(final_source(experiment), w=1.0)
    for config in final.configs:
        for run in config.runs:
            group = page.locator(
                "#summary-table tbody.config-group",
                has=page.locator(".config-head", has_text=config.label),
            )
            cells = group.locator(f'tr[data-run="{run.repeat}"] td').all_inner_texts()
            assert [int(c) for c in cells[:4]] == [
                run.counts.correct,
                run.counts.confident_wrong,
                run.counts.hedged_wrong,
                run.counts.abstained,
            ]
    expect(page.locator("#agreement-table")).to_contain_text("66.7 %")
    expect(page.locator("#agreement-table")).to_contain_text("0.386")
    page.screenshot(path=str(ARTIFACTS / "final_report.png"), full_page=True)

    # A scorer marked "429" Correct, so no answer of item 1 is a suspect; the other scorer
    # disputes the key, which puts the item at the top of the key review.
    from scoring.models import Assignment
    from scoring.queue import services

    services.dispute_raise(
        assignment=Assignment.objects.get(experiment=experiment, user__username="acme-owner"),
        item=experiment.items.get(position=1),
        note="RFC 6585 says 429",
    )
    # The key review, by keyboard too: the first open entry has the focus; S, the source, Esc,
    # 2 (amended: the cursor goes to the new text), Ctrl+Enter.
    page.goto(f"{live_server.url}/experiments/{experiment.pk}/key-review/")
    expect(page.locator("#review-1")).to_be_focused()
    page.screenshot(path=str(ARTIFACTS / "review_queue.png"), full_page=True)
    page.keyboard.press("s")
    page.keyboard.type("RFC 6585 §4")
    page.keyboard.press("Escape")
    page.keyboard.press("2")
    expect(page.locator("#id_k1-new_answer")).to_be_focused()
    page.keyboard.type("429")
    page.keyboard.press("Control+Enter")
    expect(page.locator("#review-1")).to_contain_text("6 judgements sent back to their scorers")
    decision = KeyDecision.objects.get()
    assert (decision.outcome, decision.new_answer, decision.source, decision.rechecked) == (
        "amended",
        "429",
        "RFC 6585 §4",
        6,
    )
    assert Judgement.objects.filter(needs_recheck=True).count() == 6
