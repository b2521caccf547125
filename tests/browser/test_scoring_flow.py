"""A whole demo experiment, collected from the simulator, scored blind with the keyboard alone.

The experiment is the demo bank (30 items) put to three simulated configurations twice, collected
through the real adapter and collection code from the local simulator. A scorer then judges every
answer in Chromium without touching the mouse, reveals, and the report's counts and figures are
checked against the judgements the scorer made.
"""

import re
from collections import Counter
from pathlib import Path

import pytest
from playwright.sync_api import expect

from adapters.simulator_server import start_simulator_in_thread
from probe import bankformat
from probe.models import Experiment, ModelConfig, PromptVersion
from probe.services.banks import bank_import
from probe.services.collection import collect_unit_sync, experiment_rollup
from probe.services.experiments import experiment_create, experiment_start
from probe.services.prompts import prompt_defaults_ensure
from scoring import metrics
from scoring.models import Assignment, Judgement
from tests.keyreading import says_the_key
from tests.replay import allow_loopback_port

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
DEMO = ROOT / "probe" / "demo" / "demo_bank.txt"
PROFILES = {
    "Expert": "sim-expert",
    "Overconfident": "sim-overconfident",
    "Cautious": "sim-cautious",
}


@pytest.fixture
def collected(world):
    data = bankformat.load(DEMO.read_bytes())
    bank = bank_import(team=world.team, user=None, data=data, name="Demo bank")
    knowledge = {
        "items": [
            {"question": item.question, "answer": item.key.answer}
            for block in data.blocks
            for item in block.items
        ]
    }
    server, base_url = start_simulator_in_thread(knowledge, latency_scale=0.0)
    allow_loopback_port(base_url)
    try:
        configs = [
            ModelConfig.objects.create(
                team=world.team,
                label=f"{label} (simulated)",
                provider="simulator",
                model_name=model,
                base_url=base_url,
            )
            for label, model in PROFILES.items()
        ]
        prompt_defaults_ensure(team=world.team)
        prompt = PromptVersion.objects.get(team=world.team, name="Default (English)")
        experiment = experiment_create(
            team=world.team,
            user=world.users["editor"],
            bank=bank,
            prompt_version=prompt,
            configs=configs,
            repeats=2,
            name="Keyboard only",
            seed=7,
        )
        experiment_start(experiment=experiment, user=world.users["editor"], queue=False)
        for run in experiment.runs.all():
            collect_unit_sync(run_pk=run.pk, sleep=lambda s: None)
        experiment_rollup(experiment_pk=experiment.pk)
    finally:
        server.stop()
    experiment.refresh_from_db()
    assert experiment.status == Experiment.Status.COLLECTED
    assert experiment.items.count() == 30 and experiment.runs.count() == 6
    return experiment


def mark_fragment(page) -> None:
    """Tag the item fragment on the page, so the test can wait until a response replaces it."""
    page.evaluate("document.getElementById('scoring-item').dataset.stale = '1'")


def wait_for_new_fragment(page) -> None:
    # A swap is over when the new fragment has settled (htmx lends it the old attributes until
    # then) and the page's script has put the focus somewhere.
    # A function, not a bare expression: Playwright evals an expression, which the CSP forbids.
    page.wait_for_function(
        "() => !document.getElementById('scoring-item').dataset.stale"
        " && !document.querySelector('.htmx-settling, .htmx-swapping, .htmx-request')"
        " && document.activeElement && document.activeElement !== document.body"
    )


def judged_count(page) -> int:
    text = page.locator(".progress-wrap .small").inner_text()
    return int(re.match(r"(\d+)", text).group(1))


def decide_focused(page, key) -> tuple[str, bool]:
    """Press C or W on the focused answer as the key says; returns the key pressed and whether
    a HIGH confidence was among the answer's (a wrong one the confirmation may ask about)."""
    focused = page.locator("#scoring-item li.answer:focus")
    expect(focused).to_have_count(1)
    value = focused.locator(".answer-value")
    # As a person reads it: the simulated answer says the key in its own words.
    correct = value.count() > 0 and says_the_key(value.inner_text(), key)
    mark_fragment(page)
    pressed = "c" if correct else "w"
    high = focused.locator(".conf-high").count() > 0
    page.keyboard.press(pressed)
    wait_for_new_fragment(page)
    return pressed, high


def test_score_a_demo_experiment_by_keyboard_reveal_and_check_the_report(
    live_server, page, world, collected
):
    ARTIFACTS.mkdir(exist_ok=True)
    page.goto(live_server.url + "/")
    page.get_by_label("Username").fill("acme-scorer")
    page.get_by_label("Password").fill("correct horse battery staple")
    page.get_by_label("Password").press("Enter")
    page.goto(f"{live_server.url}/experiments/{collected.pk}/score/")
    expect(page.get_by_role("button", name="Start scoring")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator(".item-count")).to_have_text("Item 1 of 30")

    # Two tabs on item 1 decide the same answer: the second says so, nothing errs.
    second = page.context.new_page()
    second.goto(page.url)
    first_key = page.locator(".scoring-key .key-answer").inner_text()
    same_tokens = page.evaluate("document.activeElement.dataset.tokens")
    assert second.evaluate("document.activeElement.dataset.tokens") == same_tokens
    decide_focused(second, first_key)
    if second.locator("[data-confirm-wrong]").count():
        mark_fragment(second)
        second.keyboard.press("Enter")
        wait_for_new_fragment(second)
    expect(
        second.locator(f'#scoring-item li.answer.decided[data-tokens="{same_tokens}"]')
    ).to_have_count(1)
    # A 4xx fragment with a message is swapped in and shown (htmx alone would drop it).
    second.evaluate(
        "document.querySelector('#scoring-item li.answer .answer-actions input[name=tokens]')"
        ".value = 'gone'"
    )
    second.locator("#scoring-item li.answer").first.focus()
    mark_fragment(second)
    second.keyboard.press("c")
    wait_for_new_fragment(second)
    expect(second.locator("#scoring-item .message.error")).to_have_text(
        "That answer is not on this item any more: nothing was saved."
    )
    second.close()

    total = 30 * 6
    keypresses = 0
    confirmations = 0
    high_wrong = 0  # what a confirmation asked every time would have asked
    first_decision = True
    for position in range(1, 31):
        expect(page.locator(".item-count")).to_have_text(f"Item {position} of 30")
        key = page.locator(".scoring-key .key-answer").inner_text()
        if position == 1:
            page.screenshot(path=str(ARTIFACTS / "scoring_item.png"))
        asked_here = 0
        while page.locator("#scoring-item li.answer:not(.decided)").count() or first_decision:
            pressed, high = decide_focused(page, key)
            keypresses += 1
            if first_decision:
                # The first tab's page was stale: the answer the other tab decided.
                first_decision = False
                expect(page.locator("#scoring-item .message")).to_contain_text("Already decided so")
                continue
            high_wrong += pressed == "w" and high
            # A HIGH-confidence answer marked wrong asks first, once per item; one Enter confirms.
            if page.locator("[data-confirm-wrong]").count():
                expect(page.locator("[data-confirm-wrong]")).to_be_focused()
                if not confirmations:
                    page.screenshot(path=str(ARTIFACTS / "scoring_confirm.png"))
                mark_fragment(page)
                page.keyboard.press("Enter")
                keypresses += 1
                confirmations += 1
                asked_here += 1
                wait_for_new_fragment(page)
            elif page.get_by_text("choose it (keys 1 to 4)").count():
                mark_fragment(page)
                page.keyboard.press("3")  # hedged wrong: the parse left the confidence open
                keypresses += 1
                wait_for_new_fragment(page)
        assert asked_here <= 1, f"item {position} asked {asked_here} times"
        if position < 30:
            page.keyboard.press("n")
            keypresses += 1

    # The same run with the confirmation asked on every HIGH-confidence answer marked wrong (as
    # before it became an experiment option, default once per item): one Enter more for each.
    every_time = keypresses - confirmations + high_wrong
    print(
        f"\nkeypresses for the demo experiment ({total} responses): {keypresses}"
        f" (asked every time: {every_time}); confirmations asked: {confirmations}"
        f" of {high_wrong} HIGH-confidence answers marked wrong"
    )
    assert judged_count(page) == total
    scorer = world.users["scorer"]
    assignment = Assignment.objects.get(experiment=collected, user=scorer)
    assert Judgement.objects.filter(assignment=assignment).count() == total
    assert 0 < confirmations <= 30
    assert confirmations < high_wrong and keypresses < every_time

    # The key review amends item 2's key: the scorer's decisions on it come back, and the
    # re-check shows the old and the new key side by side.
    from scoring.review_services import key_decision_create

    item2 = collected.items.get(position=2)
    key_decision_create(
        item=item2,
        user=world.users["editor"],
        outcome="amended",
        new_answer="An amended key",
        source="A primary source, p. 12",
    )
    page.reload()
    expect(page.locator(".recheck-banner")).to_be_visible()
    mark_fragment(page)
    page.keyboard.press("o")  # the next open item, across items: item 2's re-check
    wait_for_new_fragment(page)
    expect(page.locator(".item-count")).to_have_text("Item 2 of 30")
    expect(page.locator(".scoring-key .key-answer")).to_have_text("An amended key")
    expect(page.locator(".key-amended")).to_contain_text("Amended in key review on")
    expect(page.locator(".key-amended .key-was")).to_have_text(item2.key_answer)
    expect(page.locator(".recheck-detail").first).to_contain_text("made against the earlier key")
    page.screenshot(path=str(ARTIFACTS / "scoring_recheck.png"), full_page=True)
    while page.locator("#scoring-item li.answer.recheck").count():
        page.locator("#scoring-item li.answer.recheck").first.focus()
        mark_fragment(page)
        page.keyboard.press("1")  # the bucket directly: asks nothing
        wait_for_new_fragment(page)
    assert not Judgement.objects.filter(assignment=assignment, needs_recheck=True).exists()

    # The item overview, by one key: every item done; jump to item 30 by its number.
    page.keyboard.press("g")
    expect(page.locator("#scoring-overview")).to_be_visible()
    expect(page.locator(".overview-grid li")).to_have_count(30)
    expect(page.locator('.overview-grid li[data-state="done"]')).to_have_count(30)
    page.screenshot(path=str(ARTIFACTS / "scoring_overview.png"), full_page=True)
    expect(page.locator("[data-jump]")).to_be_focused()
    page.keyboard.type("30")
    page.keyboard.press("Enter")
    expect(page.locator(".item-count")).to_have_text("Item 30 of 30")

    # At 1024 px the bucket buttons keep their labels.
    page.set_viewport_size({"width": 1024, "height": 800})
    button = page.locator("#scoring-item .bucket-btn[data-key='2']").first
    expect(button).to_contain_text("Confidently wrong")
    assert button.evaluate("b => b.scrollWidth <= b.clientWidth + 1 && b.offsetWidth > 80")
    page.screenshot(path=str(ARTIFACTS / "scoring_1024.png"))
    page.set_viewport_size({"width": 1366, "height": 900})
    expect(page.locator("[data-reveal]")).to_be_focused()
    page.keyboard.press("Enter")  # every answer decided: on to the reveal (the focused link)
    expect(page.get_by_role("button", name="Reveal the models")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.get_by_role("link", name="Open the report")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator("#summary-table")).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "report.png"), full_page=True)
    # At 1280 px the per-block table fits its box, and the charts write whole labels.
    page.set_viewport_size({"width": 1280, "height": 900})
    fits = page.locator("#block-table").evaluate(
        "t => [t.parentElement.scrollWidth, t.parentElement.clientWidth]"
    )
    page.locator("#block-table").screenshot(path=str(ARTIFACTS / "report_blocks_1280.png"))
    page.locator("svg.chart-svg").first.screenshot(path=str(ARTIFACTS / "report_chart_1280.png"))
    assert fits[0] <= fits[1], f"the per-block table overflows its box: {fits}"
    labels = page.locator("svg.chart-svg text.row-label").evaluate_all(
        "els => els.map(e => e.textContent.trim())"
    )
    assert labels and not any("…" in label for label in labels), labels
    assert any(label.startswith("Cautious (simulated)") for label in labels), labels

    # The report's counts and figures, against the judgements just made.
    judgements = Judgement.objects.filter(assignment=assignment).select_related("response__run")
    by_run = {}
    for j in judgements:
        by_run.setdefault(j.response.run, Counter())[j.bucket] += 1
    for run, counts in by_run.items():
        label = run.config_snapshot["label"]
        group = page.locator("tbody.config-group", has=page.locator(".config-head", has_text=label))
        row = group.locator(f'tr[data-run="{run.repeat}"]')
        cells = [c.strip() for c in row.locator("td").all_inner_texts()]
        expected_counts = [counts[b] for b in metrics.FOUR_BUCKETS]
        assert [int(c) for c in cells[:4]] == expected_counts, (label, run.repeat, cells)
        figures = metrics.four_bucket_figures(metrics.BucketCounts(*expected_counts))
        # Each figure is followed by its 95 % interval in brackets: "25 (19–30)".
        net, _, net_interval = cells[6].partition(" (")
        assert float(net) == pytest.approx(figures.net_usable) and net_interval.endswith(")")
        knowledge = cells[4].partition(" (")[0]
        assert float(knowledge.rstrip(" %")) == pytest.approx(100 * figures.knowledge, abs=0.05)
