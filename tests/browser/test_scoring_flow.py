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
from probe.sheetparser import normalise_answer
from scoring import metrics
from scoring.models import Assignment, Judgement

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

    total = 30 * 6
    keypresses = 0
    for position in range(1, 31):
        expect(page.locator(".item-count")).to_have_text(f"Item {position} of 30")
        key = normalise_answer(page.locator(".scoring-key .key-answer").inner_text())
        if position == 1:
            page.screenshot(path=str(ARTIFACTS / "scoring_item.png"))
        while page.locator("#scoring-item li.answer:not(.decided)").count():
            focused = page.locator("#scoring-item li.answer:focus")
            expect(focused).to_have_count(1)
            text = focused.locator(".answer-text").inner_text()
            value = focused.locator(".answer-value")
            correct = value.count() > 0 and normalise_answer(value.inner_text()) == key
            mark_fragment(page)
            page.keyboard.press("c" if correct else "w")
            keypresses += 1
            wait_for_new_fragment(page)
            # A HIGH-confidence answer marked wrong asks first; one Enter confirms.
            if page.locator("[data-confirm-wrong]").count():
                expect(page.locator("[data-confirm-wrong]")).to_be_focused()
                mark_fragment(page)
                page.keyboard.press("Enter")
                keypresses += 1
                wait_for_new_fragment(page)
            elif page.get_by_text("choose it (keys 1 to 4)").count():
                mark_fragment(page)
                page.keyboard.press("3")  # hedged wrong: the parse left the confidence open
                keypresses += 1
                wait_for_new_fragment(page)
            assert text  # the answer row had content
        if position < 30:
            page.keyboard.press("n")
            keypresses += 1

    assert judged_count(page) == total
    scorer = world.users["scorer"]
    assignment = Assignment.objects.get(experiment=collected, user=scorer)
    assert Judgement.objects.filter(assignment=assignment).count() == total
    # Grouping identical answers: fewer decisions than answers.
    assert keypresses < total

    page.keyboard.press("Enter")  # every answer decided: on to the reveal
    expect(page.get_by_role("button", name="Reveal the models")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.get_by_role("link", name="Open the report")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator("#summary-table")).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "report.png"), full_page=True)

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
        assert float(cells[6]) == pytest.approx(figures.net_usable)
        assert float(cells[4].rstrip(" %")) == pytest.approx(100 * figures.knowledge, abs=0.05)
