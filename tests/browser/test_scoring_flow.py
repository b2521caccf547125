"""A whole demo experiment, collected from the simulator, scored blind with the keyboard alone.

The experiment is the demo bank (30 items) put to three simulated configurations twice, collected
through the real adapter and collection code from the local simulator. A scorer then judges every
answer in Chromium without touching the mouse, reveals, and the report's counts and figures are
checked against the judgements the scorer made.
"""

import re
from collections import Counter
from dataclasses import dataclass
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
from scoring.models import Assignment, DecisionReceipt, Judgement, JudgementChange
from scoring.schemes import FOUR
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
    "Sloppy": "sim-sloppy",
}


def collect_demo(world, profiles: dict, name: str, text: bytes | None = None):
    """The bank ``text`` (the demo bank by default) put to the simulated ``profiles`` twice."""
    data = bankformat.load(text if text is not None else DEMO.read_bytes())
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
            for label, model in profiles.items()
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
            name=name,
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
    assert experiment.items.count() == 30 and experiment.runs.count() == 2 * len(profiles)
    return experiment


@pytest.fixture
def collected(world):
    """The demo bank put to three simulated configurations twice: 30 items x 6 sheets."""
    return collect_demo(world, {k: PROFILES[k] for k in list(PROFILES)[:3]}, "Keyboard only")


@pytest.fixture
def collected8(world):
    """The demo bank put to all four simulated configurations twice: 30 items x 8 sheets."""
    return collect_demo(world, PROFILES, "Eight sheets")


def wait_ready(page) -> None:
    """Until the page has put the focus where the scorer acts next: an undecided answer, a
    question, the next item or the reveal (never the body, never a decided answer)."""
    # A function, not a bare expression: Playwright evals an expression, which the CSP forbids.
    page.wait_for_function(
        """() => {
          const a = document.activeElement;
          return !!a && (a.matches('#scoring-item li.answer:not(.decided)')
            || a.matches('[data-confirm-wrong], [data-reveal], [data-next], [data-cancel]'));
        }"""
    )


def wait_saved(page) -> None:
    expect(page.locator("#queue-status")).to_have_attribute("data-state", "saved", timeout=20_000)


def judged_count(page) -> int:
    """Every answer judged: those the scorer judged ("N / M judged by you") and those set
    before they began (UNKNOWN or missing)."""
    text = page.locator("[data-progress-text]").inner_text()
    preset = int(page.locator("#scoring-item").get_attribute("data-preset") or 0)
    return int(re.match(r"(\d+)", text).group(1)) + preset


def key_for(page, key_answer: str) -> str:
    """The key the scorer presses on the focused answer: C when it matches the key, 3 when the
    answer's confidence leaves the bucket open, W otherwise."""
    focused = page.locator("#scoring-item li.answer:focus")
    expect(focused).to_have_count(1)
    value = focused.locator(".answer-value")
    # As a person reads it: the simulated answer says the key in its own words.
    if value.count() and says_the_key(value.inner_text(), key_answer):
        return "c"
    return "3" if focused.locator("[data-choose]").count() else "w"


# Keypresses per response for the demo experiment (30 items x 8 sheets) before decisions were
# recorded in the browser: Enter to each next item, and a confirmation on every item with a
# HIGH-confidence answer marked wrong.
KEYPRESSES_PER_RESPONSE_BEFORE = 0.525
TARGET_KEYPRESSES_PER_RESPONSE = 0.35


@dataclass
class Keys:
    """What scoring every answer by keyboard took."""

    decisions: int = 0  # C, W or a bucket's number: one per group of identical answers
    confirmations: int = 0  # "A" at the question a HIGH answer marked wrong asks
    advances: int = 0  # Enter to open the next item (none, unless the manual step is kept)
    groups: int = 0  # the undecided groups each item showed when it opened

    @property
    def pressed(self) -> int:
        return self.decisions + self.confirmations + self.advances


def score_everything(page, n_items: int) -> Keys:
    """Decide every answer of the experiment by keyboard as the key says, turning the
    confirmation off at its first question."""
    keys, item = Keys(), None
    while True:
        wait_ready(page)
        if page.locator("[data-reveal]:focus").count():
            return keys
        if page.locator("[data-confirm-wrong]:focus").count():
            keys.confirmations += 1
            page.keyboard.press("a")  # mark it wrong, and ask no more this session
            continue
        if page.locator("[data-next]:focus").count():
            page.keyboard.press("Enter")
            keys.advances += 1
            continue
        shown = page.locator(".item-count").inner_text()
        if shown != item:
            item = shown
            keys.groups += page.locator("#scoring-item li.answer:not(.decided)").count()
        key = normalise_answer(page.locator(".scoring-key .key-answer").inner_text())
        page.keyboard.press(key_for(page, key))
        keys.decisions += 1


def _assert_one_key_per_group(keys: Keys) -> None:
    """The keys a scorer needs: one per group of identical answers and nothing else (no Enter
    between items, at most one confirmation before "A" turns it off). How many groups there are
    is the answers' doing: the per-response figure printed beside the target depends on how
    alike the sheets' answers are (bench/README.md)."""
    assert keys.advances == 0
    assert keys.confirmations <= 1
    assert keys.decisions == keys.groups


def sign_in(page, live_server, username="acme-scorer") -> None:
    page.goto(live_server.url + "/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill("correct horse battery staple")
    page.get_by_label("Password").press("Enter")
    expect(page.get_by_role("button", name="Log out")).to_be_visible()


def start_scoring(page, live_server, experiment) -> None:
    page.goto(f"{live_server.url}/experiments/{experiment.pk}/score/")
    expect(page.get_by_role("button", name="Start scoring")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator(".item-count")).to_have_text("Item 1 of 30")


def test_score_a_demo_experiment_by_keyboard_reveal_and_check_the_report(
    live_server, page, world, collected
):
    ARTIFACTS.mkdir(exist_ok=True)
    sign_in(page, live_server)
    start_scoring(page, live_server, collected)
    page.screenshot(path=str(ARTIFACTS / "scoring_item.png"))

    # Two tabs on item 1 decide the same answer: the second to arrive says so, nothing errs.
    second = page.context.new_page()
    second.goto(page.url)
    first_key = normalise_answer(page.locator(".scoring-key .key-answer").inner_text())
    same_tokens = page.evaluate("() => document.activeElement.dataset.tokens")
    assert second.evaluate("() => document.activeElement.dataset.tokens") == same_tokens
    pressed = key_for(second, first_key)
    second.keyboard.press(pressed)
    if second.locator("[data-confirm-wrong]:focus").count():
        second.keyboard.press("Enter")
    wait_saved(second)
    second.close()
    page.keyboard.press(pressed)
    first_keys = 1
    if page.locator("[data-confirm-wrong]:focus").count():
        page.keyboard.press("Enter")
        first_keys += 1
    wait_saved(page)
    expect(page.locator("#scoring-item [data-client-notice]")).to_contain_text("Already decided so")

    total = 30 * 6
    keys = score_everything(page, 30)
    keypresses, confirmations = keys.pressed + first_keys, keys.confirmations
    wait_saved(page)
    per_response = keypresses / total
    print(
        f"\nkeypresses for the demo experiment ({total} responses): {keypresses},"
        f" {per_response:.3f} per response (target <= {TARGET_KEYPRESSES_PER_RESPONSE};"
        f" before: {KEYPRESSES_PER_RESPONSE_BEFORE}); confirmations asked: {confirmations}"
    )
    assert judged_count(page) == total
    scorer = world.users["scorer"]
    assignment = Assignment.objects.get(experiment=collected, user=scorer)
    assert Judgement.objects.filter(assignment=assignment).count() == total
    _assert_one_key_per_group(keys)

    # The key review amends item 2's key: the scorer's decisions on it come back, and the
    # re-check shows the old and the new key side by side.
    from scoring.review.services import key_decision_create

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
    page.keyboard.press("o")  # the next open item, across items: item 2's re-check
    expect(page.locator(".item-count")).to_have_text("Item 2 of 30")
    expect(page.locator(".scoring-key .key-answer")).to_have_text("An amended key")
    expect(page.locator(".key-amended")).to_contain_text("Amended in key review on")
    expect(page.locator(".key-amended .key-was")).to_have_text(item2.key_answer)
    expect(page.locator(".recheck-detail").first).to_contain_text("made against the earlier key")
    page.screenshot(path=str(ARTIFACTS / "scoring_recheck.png"), full_page=True)
    # A re-check of decisions already made asks no confirmation, whatever the answer.
    rechecks = page.locator("#scoring-item li.answer.recheck").count()
    assert rechecks
    for _ in range(rechecks):
        page.locator("#scoring-item li.answer.recheck").first.focus()
        page.keyboard.press("w")
        expect(page.locator("[data-client-confirm]")).to_have_count(0)
    wait_saved(page)
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
    # At 1366 px the card takes the width: every column of the sheets' table shows, none cut.
    table = page.locator("section.card .table-scroll").first
    box = table.evaluate("t => [t.scrollWidth, t.clientWidth]")
    page.screenshot(path=str(ARTIFACTS / "reveal_1366.png"), full_page=True)
    assert box[0] <= box[1] + 1, f"the reveal's table is cut off: {box}"
    expect(table.locator("th").last).to_be_in_viewport()
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
        expected_counts = [counts[b] for b in FOUR.buckets]
        assert [int(c) for c in cells[:4]] == expected_counts, (label, run.repeat, cells)
        figures = metrics.four_bucket_figures(metrics.BucketCounts(*expected_counts))
        # Each figure is followed by its 95 % interval in brackets: "25 (19–30)".
        net, _, net_interval = cells[6].partition(" (")
        assert float(net) == pytest.approx(figures.net_usable) and net_interval.endswith(")")
        knowledge = cells[4].partition(" (")[0]
        assert float(knowledge.rstrip(" %")) == pytest.approx(100 * figures.knowledge, abs=0.05)


# Each answer row at a width: the answer's box, the strip's, whether the group count sits on the
# answer's line, the strip's labels, and the confidence chips of an abstained group.
ROW_LAYOUT = """() => Array.from(document.querySelectorAll('#scoring-item li.answer')).map(li => {
  const text = li.querySelector('.answer-text').getBoundingClientRect();
  const strip = li.querySelector('.answer-actions').getBoundingClientRect();
  const value = li.querySelector('.answer-value, .answer-none').getBoundingClientRect();
  const size = li.querySelector('.group-size');
  const labels = Array.from(li.querySelectorAll('.answer-actions button'))
    .map(b => { const c = b.cloneNode(true); c.querySelectorAll('kbd').forEach(k => k.remove());
                return c.textContent.trim(); });
  const buckets = Array.from(li.querySelectorAll('.answer-actions button'))
    .map(b => (b.getAttribute('title') || '').trim());
  const chips = Array.from(li.querySelectorAll('.answer-text .tag, .answer-text .conf, .answer-text .answer-none, .answer-state .bucket'))
    .map(c => c.textContent.trim());
  return {
    row: li.getBoundingClientRect().width, chips: chips,
    stateBuckets: Array.from(li.querySelectorAll('.answer-state .bucket')).map(c => c.textContent.trim()),
    bucketNames: labels.concat(buckets).filter(Boolean),
    text: text.width, strip: strip.width, answerFirst: text.left < strip.left,
    oneLine: strip.top < text.bottom,
    sizeBeside: !size || Math.abs(size.getBoundingClientRect().top - value.top) < 14,
    labels: labels,
    abstainedChips: li.querySelector('.answer-none') ? li.querySelectorAll('.conf').length : 0,
  };
})"""


def check_rows(page, name: str) -> None:
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))
    rows = page.evaluate(ROW_LAYOUT)
    assert rows, name
    for row in rows:
        assert row["answerFirst"] and row["oneLine"], (name, row)
        assert row["text"] > row["strip"], f"{name}: the answer is narrower than the strip: {row}"
        assert row["sizeBeside"], f"{name}: the group count is not beside the answer: {row}"
        assert len(set(row["labels"])) == len(row["labels"]), f"{name}: a label twice: {row}"
        assert row["abstainedChips"] == 0, f"{name}: confidence chips on an abstention: {row}"
        # The answer first and widest: most of the row, the strip only its keys.
        assert row["text"] >= 0.6 * row["row"], f"{name}: the answer has under 60 %: {row}"
        # No chip says again what a bucket (its chip on the row, or a button's) says.
        others = [c for c in row["chips"] if c not in row["stateBuckets"]]
        for chip in others:
            for bucket in row["bucketNames"]:
                assert bucket.lower() not in chip.lower(), f"{name}: {chip!r} repeats {bucket!r}"


def test_eight_sheets_by_keyboard_rows_at_two_widths_and_two_languages(
    live_server, page, browser, world, collected8
):
    """The probe's own 30 items x 8 sheets: keypresses per response within the target, and the
    answer rows at 1280 and 1920 px in English and Japanese."""
    ARTIFACTS.mkdir(exist_ok=True)
    sign_in(page, live_server)
    start_scoring(page, live_server, collected8)
    # One decision in, so that a decided row is on the screenshot too.
    key = normalise_answer(page.locator(".scoring-key .key-answer").inner_text())
    page.keyboard.press(key_for(page, key))
    first = 1
    if page.locator("[data-confirm-wrong]:focus").count():
        page.keyboard.press("Enter")
        first += 1
    wait_saved(page)
    # The decided row says its bucket, and no longer "undecided" beside it.
    expect(page.locator("#scoring-item li.answer.decided .bucket").first).to_be_visible()
    expect(page.locator("#scoring-item li.answer.decided .answer-state")).not_to_contain_text(
        "undecided"
    )
    item_url = page.url
    for width in (1280, 1920):
        page.set_viewport_size({"width": width, "height": 900})
        check_rows(page, f"scoring_rows_en_{width}")
    japanese = browser.new_context(locale="ja-JP", viewport={"width": 1280, "height": 900})
    ja = japanese.new_page()
    ja.goto(live_server.url + "/")
    ja.get_by_label("ユーザー名").fill("acme-scorer")
    ja.get_by_label("パスワード").fill("correct horse battery staple")
    ja.get_by_label("パスワード").press("Enter")
    expect(ja.get_by_role("button", name="ログアウト")).to_be_visible()
    ja.goto(item_url)
    expect(ja.locator("html")).to_have_attribute("lang", "ja")
    for width in (1280, 1920):
        ja.set_viewport_size({"width": width, "height": 900})
        check_rows(ja, f"scoring_rows_ja_{width}")
    japanese.close()
    page.set_viewport_size({"width": 1366, "height": 900})

    total = 30 * 8
    page.locator("#scoring-item li.answer:not(.decided)").first.focus()
    keys = score_everything(page, 30)
    keypresses, confirmations = keys.pressed + first, keys.confirmations
    wait_saved(page)
    per_response = keypresses / total
    print(
        f"\nkeypresses for the probe's 30 items x 8 sheets: {keypresses},"
        f" {per_response:.3f} per response (target <= {TARGET_KEYPRESSES_PER_RESPONSE};"
        f" before: {KEYPRESSES_PER_RESPONSE_BEFORE}); confirmations asked: {confirmations}"
    )
    assignment = Assignment.objects.get(experiment=collected8, user=world.users["scorer"])
    assert Judgement.objects.filter(assignment=assignment).count() == total
    _assert_one_key_per_group(keys)


def test_decisions_made_offline_are_saved_once_when_the_connection_returns(
    live_server, page, world, collected8
):
    sign_in(page, live_server)
    start_scoring(page, live_server, collected8)
    page.wait_for_load_state("networkidle")  # the next items are fetched ahead
    assignment = Assignment.objects.get(experiment=collected8, user=world.users["scorer"])
    preset = Judgement.objects.filter(assignment=assignment).count()
    page.context.set_offline(True)
    decided = 0
    while decided < 10:
        wait_ready(page)
        if page.locator("[data-confirm-wrong]:focus").count():
            page.keyboard.press("a")
            continue
        key = normalise_answer(page.locator(".scoring-key .key-answer").inner_text())
        page.keyboard.press(key_for(page, key))
        decided += 1
    expect(page.locator("#queue-status")).to_have_attribute("data-state", "failed")
    expect(page.locator("#queue-status")).to_contain_text("10 decisions not saved yet")
    assert Judgement.objects.filter(assignment=assignment).count() == preset
    page.context.set_offline(False)
    wait_saved(page)
    changes = JudgementChange.objects.filter(assignment=assignment)
    assert DecisionReceipt.objects.filter(assignment=assignment).count() == 10
    assert len({c.batch for c in changes}) == 10
    # Each judgement made once: one change each, none undone, none twice.
    assert changes.values("judgement").distinct().count() == changes.count()
    assert Judgement.objects.filter(assignment=assignment).count() == preset + changes.count()


def test_a_queued_decision_survives_a_reload_and_a_lost_reply_applies_once(
    live_server, page, world, collected8
):
    sign_in(page, live_server)
    start_scoring(page, live_server, collected8)
    assignment = Assignment.objects.get(experiment=collected8, user=world.users["scorer"])
    # The server never hears: the decision waits in the browser, across a reload.
    page.route("**/record/", lambda route: route.abort())
    wait_ready(page)  # the script has put the focus on the first answer
    tokens = page.evaluate("() => document.activeElement.dataset.tokens")
    page.keyboard.press("1")
    expect(page.locator("#queue-status")).to_have_attribute("data-state", "failed")
    page.reload()
    expect(page.locator("#queue-status")).to_contain_text("1 decision not saved yet")
    if page.locator(".item-count").inner_text() != "Item 1 of 30":
        page.keyboard.press("p")  # the whole item was one group: it had moved on
    expect(page.locator(f'li.answer.pending[data-tokens="{tokens}"]')).to_have_count(1)
    assert not JudgementChange.objects.filter(assignment=assignment).exists()
    page.unroute("**/record/")
    # The server applies the next one but its reply is lost: the browser sends it again.
    lost = []

    def lose_reply(route):
        if not lost:
            lost.append(route.fetch())
            route.abort()
        else:
            route.continue_()

    page.route("**/record/", lose_reply)
    page.locator("#queue-status [data-retry]").click()
    wait_saved(page)
    assert lost and lost[0].status == 200
    changes = JudgementChange.objects.filter(assignment=assignment)
    assert changes.count() == len(tokens.split(","))
    assert DecisionReceipt.objects.filter(assignment=assignment).count() == 1
    assert set(changes.values_list("new_bucket", flat=True)) == {"correct"}
