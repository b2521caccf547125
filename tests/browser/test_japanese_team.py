"""A Japanese team runs a whole experiment in Chromium, in Japanese, in Tokyo time.

The owner pastes a Japanese article (ideographic spaces, full-width digits, （！） flags, prose
around the probe) into the import page and imports it exactly by accepting the suggested
readings, with no editing. Two simulated models answer it. Two scorers score it with a Japanese
IME on (keydowns that say "Process", keyCode 229, the key only in event.code): one on a phone
(390 px), one on a laptop (1280 px). The owner reviews a flagged key entry against a source,
begins reconciliation, settles the disagreements and opens the final report. Every page on the
way is in Japanese (no English but what users and models wrote, names and tokens: the crawl's
rule, tests/i18n/test_pages_ja.py), nothing is cut off or pushed out, and every date is written
in the users' zone (JST). Screenshots go to test-artifacts/ja-team/.
"""

import re
from collections import defaultdict
from pathlib import Path

import pytest
from django.utils import translation
from playwright.sync_api import expect

from adapters.simulator_server import start_simulator_in_thread
from probe.models import Bank, Experiment, ModelConfig, PromptVersion
from probe.services.collection import collect_unit_sync, experiment_rollup
from probe.services.experiments import experiment_create, experiment_start
from probe.services.preferences import user_language_set, user_time_zone_set
from probe.services.prompts import prompt_defaults_ensure
from scoring.models import FinalBucket, Judgement, KeyDecision
from tests.bankformat.test_japanese_documents import ARTICLE_PROBE
from tests.browser.session import forget_session
from tests.browser.test_japanese import OVERFLOW_JS
from tests.browser.test_scoring_flow import wait_ready, wait_saved
from tests.browser.test_scoring_ime import IME_KEYDOWN
from tests.i18n import test_pages_ja
from tests.i18n.test_pages_ja import _user_data, english_left
from tests.keyreading import says_the_key
from tests.replay import allow_loopback_port
from tests.review.test_browser_reconcile import SETTLED

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "test-artifacts" / "ja-team"
ARTICLE = ROOT / "tests" / "bankformat" / "documents" / "japanese_article.txt"
PASSWORD = "correct horse battery staple"
PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1280, "height": 900}
# Key pressed -> the code a Japanese IME's keydown carries.
CODES = {"c": "KeyC", "w": "KeyW", "3": "Digit3"}
# A date and time as a Japanese page writes one: 2026年12月2日 23:41 JST.
JST_TIME = re.compile(r"\d{4}年\d{1,2}月\d{1,2}日 \d\d:\d\d JST")


# Names the reports cite beside the crawl's list: two statisticians (Wilson's interval, Gwet's AC1)
# and a benchmark.
NAMES = {"Wilson", "SimpleQA", "Gwet", "AC"}


@pytest.fixture(autouse=True)
def _names(monkeypatch):
    monkeypatch.setattr(test_pages_ja, "ALLOWED", test_pages_ja.ALLOWED | NAMES)


@pytest.fixture
def browser_context_args(browser_context_args):
    return {**browser_context_args, "locale": "ja-JP", "timezone_id": "Asia/Tokyo"}


@pytest.fixture
def team(world):
    for kind in ("owner", "editor", "scorer"):
        user_language_set(user=world.users[kind], language="ja")
        user_time_zone_set(user=world.users[kind], time_zone="Asia/Tokyo")
    return world


def look(page, name: str, *, dates: bool = False) -> None:
    """The page as the team sees it: Japanese, nothing cut off, no English left, in JST; then
    its screenshot."""
    expect(page.locator("html")).to_have_attribute("lang", "ja")
    assert page.evaluate(OVERFLOW_JS) == [], f"{name}: text overflows or is cut off"
    html = page.content()
    # What the user pasted is theirs, on the preview before it is stored as well.
    pasted = {line.strip() for line in ARTICLE.read_text(encoding="utf-8").splitlines()}
    for block in ARTICLE_PROBE:
        pasted |= {block.title, block.description}
        for item in block.items:
            pasted |= {item.question, item.key.answer, item.key.flag_note, *item.key.sources}
    data = sorted({*_user_data(), *(t for t in pasted if len(t) >= 2)}, key=len, reverse=True)
    left = english_left(html, data)
    assert left == [], f"{name}: English left: {left}"
    text = page.locator("body").inner_text()
    assert " UTC" not in text, f"{name}: a date in UTC"
    if dates:
        assert JST_TIME.search(text), f"{name}: no date in JST"
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)
    if page.viewport_size["width"] < 500:  # a phone: its first screen as the reader sees it
        page.screenshot(path=str(SHOTS / f"{name}_screen.png"))


def log_in(page, live_server, username: str) -> None:
    forget_session(page)
    page.goto(live_server.url + "/accounts/login/")
    page.get_by_label("ユーザー名").fill(username)
    page.get_by_label("パスワード").fill(PASSWORD)
    page.get_by_label("パスワード").press("Enter")
    # (On a phone the navigation, and its log-out button, is folded into the menu.)
    expect(page.get_by_role("heading", name="Acme probes")).to_be_visible()


def import_the_article(page, live_server, world) -> Bank:
    page.goto(f"{live_server.url}/t/{world.team.slug}/banks/import/")
    page.locator("textarea[name=text], textarea").first.fill(ARTICLE.read_text(encoding="utf-8"))
    page.get_by_role("button", name="プレビュー", exact=True).click()
    page.get_by_role("button", name="提案された読み方をすべて受け入れる").click()
    expect(page.locator("#import-warnings .warning")).to_have_count(0)
    look(page, "01_import_preview")
    page.get_by_role("button", name="インポート", exact=True).click()
    expect(page).to_have_url(re.compile(r"/banks/\d+/$"))
    look(page, "02_bank")
    return Bank.objects.get(name="社内データ基盤プローブ 2026年冬版")


def collect(world, bank: Bank) -> Experiment:
    """Two simulated models answer the bank in Japanese (the Japanese prompt), through the
    simulator's HTTP server, as the collection worker does."""
    from probe.services.banks import bank_to_data

    data = bank_to_data(bank)
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
                label=label,
                provider="simulator",
                model_name=model,
                base_url=base_url,
            )
            for label, model in (("熟練（シミュレーション）", "sim-expert"), ("雑", "sim-sloppy"))
        ]
        prompt_defaults_ensure(team=world.team)
        prompt = PromptVersion.objects.get(team=world.team, name="Default (Japanese)")
        experiment = experiment_create(
            team=world.team,
            user=world.users["owner"],
            bank=bank,
            prompt_version=prompt,
            configs=configs,
            repeats=1,
            name="冬版プローブ（！）　第１回",
            seed=11,
        )
        experiment_start(experiment=experiment, user=world.users["owner"], queue=False)
        for run in experiment.runs.all():
            collect_unit_sync(run_pk=run.pk, sleep=lambda s: None)
        experiment_rollup(experiment_pk=experiment.pk)
    finally:
        server.stop()
    experiment.refresh_from_db()
    assert experiment.status == Experiment.Status.COLLECTED
    return experiment


def score_with_the_ime(page, live_server, experiment, *, strict: bool) -> None:
    """Every answer decided by IME-style keydowns on the focused answer. A strict scorer marks
    wrong any answer that does not say the key; the other lets the first answer of item 1 pass
    as correct whatever it says (so the two disagree there)."""
    n_items = experiment.items.count()
    page.goto(f"{live_server.url}/experiments/{experiment.pk}/score/")
    expect(page.get_by_role("button", name="採点を開始")).to_be_focused()
    look(page, "start")
    page.keyboard.press("Enter")
    lenient_done = strict
    for position in range(1, n_items + 1):
        # An item every answer of which abstained has nothing to decide: the page passes over it.
        counter = page.locator(".item-count")
        expect(counter).to_have_text(re.compile(rf"設問 \d+ / {n_items}"))
        if int(re.search(r"設問 (\d+) /", counter.inner_text()).group(1)) > position:
            continue
        expect(counter).to_have_text(f"設問 {position} / {n_items}")
        key = page.locator(".scoring-key .key-answer").inner_text()
        while True:
            wait_ready(page)
            if page.locator("[data-confirm-wrong]:focus").count():
                page.keyboard.press("Enter")  # yes, wrong although it was given HIGH
                continue
            focused = page.locator("#scoring-item li.answer:focus")
            if not focused.count():
                break
            value = focused.locator(".answer-value")
            if not lenient_done:
                press, lenient_done = "c", True
            elif value.count() and says_the_key(value.inner_text(), key):
                press = "c"
            else:
                press = "3" if focused.locator("[data-choose]").count() else "w"
            if press == "3":
                # The bucket is open: choose it (a hedged answer: 留保付き誤答).
                assert page.evaluate(IME_KEYDOWN, [CODES[press], None]) is True
                continue
            assert page.evaluate(IME_KEYDOWN, [CODES[press], None]) is True
            if position < n_items and not page.locator(".item-count").inner_text().startswith(
                f"設問 {position} "
            ):
                break
    wait_saved(page)


def test_a_japanese_team_runs_a_whole_experiment(live_server, page, team):
    world = team
    owner_page = page

    # The owner imports the article exactly, by the import page's suggestions alone.
    owner_page.set_viewport_size(LAPTOP)
    log_in(owner_page, live_server, "acme-owner")
    bank = import_the_article(owner_page, live_server, world)
    from probe.services.banks import bank_to_data

    assert bank_to_data(bank).blocks == ARTICLE_PROBE

    # As the owner's own request would (an audit entry is written in its writer's language).
    with translation.override("ja"):
        experiment = collect(world, bank)
    owner_page.goto(f"{live_server.url}/experiments/{experiment.pk}/")
    look(owner_page, "03_experiment", dates=True)

    # Two scorers, a phone and a laptop, both with the IME on.
    for username, size, strict in (("acme-scorer", PHONE, True), ("acme-editor", LAPTOP, False)):
        page.set_viewport_size(size)
        log_in(page, live_server, username)
        score_with_the_ime(page, live_server, experiment, strict=strict)
        look(page, f"04_scored_{username}_{size['width']}px")
        page.keyboard.press("Enter")  # on to the reveal
        expect(page.get_by_role("button", name="モデルを開示する")).to_be_focused()
        page.keyboard.press("Enter")
        expect(page.get_by_role("link", name="レポートを開く")).to_be_focused()
        page.keyboard.press("Enter")
        expect(page.locator("#summary-table")).to_be_visible()
        look(page, f"05_report_{username}_{size['width']}px")
    judged = Judgement.objects.filter(assignment__experiment=experiment)
    assert judged.count() == 2 * 2 * experiment.items.count()

    # The owner reviews a flagged key entry against a primary source: confirmed.
    owner_page.set_viewport_size(LAPTOP)
    log_in(owner_page, live_server, "acme-owner")
    owner_page.goto(f"{live_server.url}/experiments/{experiment.pk}/key-review/")
    look(owner_page, "06_key_review")
    flagged = experiment.items.filter(key_flagged=True).order_by("position").first()
    entry = owner_page.locator(f"#review-{flagged.position}")
    entry.focus()
    owner_page.keyboard.press("s")
    owner_page.keyboard.type("PostgreSQL 15 リリースノート")
    owner_page.keyboard.press("Escape")
    owner_page.keyboard.press("1")
    owner_page.keyboard.press("Control+Enter")
    expect(entry).to_have_class(re.compile(r"\bis-decided\b"))
    expect(entry).to_contain_text("PostgreSQL 15 リリースノート")
    decision = KeyDecision.objects.get(item=flagged)
    assert decision.outcome == "confirmed" and decision.source == "PostgreSQL 15 リリースノート"
    look(owner_page, "07_key_reviewed", dates=True)

    # Reconciliation: begun by keyboard, each disagreement settled.
    owner_page.goto(f"{live_server.url}/experiments/{experiment.pk}/reconcile/")
    expect(owner_page.get_by_role("button", name="すり合わせを始める")).to_be_focused()
    owner_page.keyboard.press("Enter")
    look(owner_page, "08_reconcile_overview")
    buckets = defaultdict(set)
    for response, bucket, position in judged.values_list(
        "response", "bucket", "response__item__position"
    ):
        buckets[position, response].add(bucket)
    positions = sorted({position for (position, _r), b in buckets.items() if len(b) > 1})
    assert positions, "the two scorers disagree somewhere"
    owner_page.keyboard.press("Enter")  # "Settle disagreements" has the focus
    expect(owner_page).to_have_url(re.compile(r"/reconcile/\d+/$"))
    look(owner_page, "09_reconcile_item")
    for position in positions:
        owner_page.goto(f"{live_server.url}/experiments/{experiment.pk}/reconcile/{position}/")
        open_rows = owner_page.locator("li.disagreement:not(.decided)")
        while open_rows.count():
            open_rows.first.focus()
            # 1: the final bucket is Correct, pressed with the IME on.
            assert owner_page.evaluate(IME_KEYDOWN, ["Digit1", None]) is True
            owner_page.wait_for_function(f"() => {SETTLED}")
    unsettled = [
        f for f in FinalBucket.objects.filter(response__run__experiment=experiment) if not f.bucket
    ]
    assert unsettled == []
    owner_page.goto(f"{live_server.url}/experiments/{experiment.pk}/final-report/")
    expect(owner_page.locator("#summary-table")).to_be_visible()
    look(owner_page, "10_final_report_1280px", dates=True)
    owner_page.set_viewport_size(PHONE)
    look(owner_page, "11_final_report_390px", dates=True)
    owner_page.goto(f"{live_server.url}/experiments/{experiment.pk}/agreement/")
    # Names listed the Japanese way: 「acme-scorer、acme-editor の間」.
    expect(owner_page.get_by_text("acme-scorer、acme-editor").first).to_be_visible()
    look(owner_page, "12_agreement_390px")
    owner_page.goto(f"{live_server.url}/t/{world.team.slug}/audit/")
    look(owner_page, "13_audit_390px", dates=True)
