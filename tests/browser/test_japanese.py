"""The app in Japanese, in Chromium: a Japanese browser gets Japanese pages, the user switches to
English and back, and scores a small experiment of Japanese sheets by keyboard alone.

The sheets are pasted replies (the manual provider) written the way Japanese replies come back:
full-width labels and digits, an abstention in Japanese. Screenshots of the main pages go to
test-artifacts/ja/, and every page is checked for text that overflows or is cut off.
"""

from pathlib import Path

import pytest
from django.db import transaction
from playwright.sync_api import expect

from probe import bankformat
from probe.models import Experiment, ModelConfig, PromptVersion, UserPreference
from probe.services.banks import bank_import
from probe.services.collection import experiment_rollup, run_paste
from probe.services.experiments import experiment_create, experiment_finish, experiment_start
from probe.services.prompts import prompt_defaults_ensure
from probe.sheetparser import normalise_answer
from scoring.models import Assignment, Bucket, Judgement

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "test-artifacts" / "ja"

BANK = """\
Block A. 日本の地理
山、川、都市についての設問。
1. 日本の首都はどこですか？
2. 日本で一番高い山は何ですか？
3. 日本で一番長い川は何ですか？

Answer key

Block A. 日本の地理
1. 東京
2. 富士山
3. 信濃川
"""
SHEETS = {
    "甲モデル（手動）": (
        "１．ＡＮＳＷＥＲ：東京\nＣＯＮＦＩＤＥＮＣＥ：ＨＩＧＨ\n"
        "２．ＡＮＳＷＥＲ：富士山\nＣＯＮＦＩＤＥＮＣＥ：ＨＩＧＨ\n"
        "３．ＡＮＳＷＥＲ：分かりません\nＣＯＮＦＩＤＥＮＣＥ：ＬＯＷ\n"
    ),
    "乙モデル（手動）": (
        "1. ANSWER: 東京\nCONFIDENCE: MEDIUM\n"
        "2. ANSWER: 北岳\nCONFIDENCE: HIGH\n"
        "3. ANSWER: 利根川\nCONFIDENCE: LOW\n"
    ),
}

# Text cut off or pushed out of its box: the page scrolls sideways, or an element that hides
# its overflow holds more than it shows.
OVERFLOW_JS = """() => {
  const out = [];
  const doc = document.documentElement;
  if (doc.scrollWidth > window.innerWidth + 1) out.push('page ' + doc.scrollWidth + 'px wide');
  for (const el of document.querySelectorAll('body *')) {
    const style = getComputedStyle(el);
    if (style.display === 'none' || style.visibility === 'hidden' || !el.offsetParent) continue;
    if (el.closest('pre, textarea, .diff, [role=dialog][hidden]')) continue;
    const hides = ['hidden', 'clip'].includes(style.overflowX) || style.textOverflow === 'ellipsis';
    if (hides && el.scrollWidth > el.clientWidth + 1 && el.clientWidth > 1) {
      out.push(el.tagName.toLowerCase() + '.' + el.className + ': ' + el.textContent.trim().slice(0, 40));
    }
  }
  return out;
}"""


@pytest.fixture
def japanese_experiment(world):
    data = bankformat.load(BANK.encode("utf-8"))
    bank = bank_import(team=world.team, user=None, data=data, name="日本の地理（デモ）")
    configs = [
        ModelConfig.objects.create(
            team=world.team, label=label, provider="manual", model_name="chat-window"
        )
        for label in SHEETS
    ]
    prompt_defaults_ensure(team=world.team)
    prompt = PromptVersion.objects.get(team=world.team, name="Default (Japanese)")
    experiment = experiment_create(
        team=world.team,
        user=world.users["editor"],
        bank=bank,
        prompt_version=prompt,
        configs=configs,
        repeats=1,
        name="日本語の盲検採点",
        seed=3,
    )
    experiment_start(experiment=experiment, user=world.users["editor"], queue=False)
    for run in experiment.runs.select_related("model_config"):
        with transaction.atomic():
            run_paste(run=run, user=world.users["editor"], text=SHEETS[run.model_config.label])
    experiment_rollup(experiment_pk=experiment.pk)
    experiment.refresh_from_db()
    # Pasted runs wait for an editor to finish collecting; only then does the key open.
    experiment = experiment_finish(experiment=experiment, user=world.users["editor"])
    experiment.refresh_from_db()
    assert experiment.status == Experiment.Status.COLLECTED
    return experiment


@pytest.fixture
def browser_context_args(browser_context_args):
    # A Japanese browser: Accept-Language ja-JP.
    return {**browser_context_args, "locale": "ja-JP"}


def shoot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    expect(page.locator("html")).to_have_attribute("lang", "ja")
    assert page.evaluate(OVERFLOW_JS) == [], f"{name}: text overflows or is cut off"
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def wait_ready(page) -> None:
    """Until the focus is where the scorer acts next (an undecided answer, a question, the next
    item or the reveal). A function, not a bare expression: the CSP forbids eval."""
    page.wait_for_function(
        """() => { const a = document.activeElement;
          return !!a && (a.matches('#scoring-item li.answer:not(.decided)')
            || a.matches('[data-confirm-wrong], [data-reveal], [data-next]')); }"""
    )


# The numbers of the report's table cells whose digits the browser laid out on more than one line.
BROKEN_NUMBERS = """() => {
  const broken = [];
  for (const cell of document.querySelectorAll(".report-table td.num")) {
    const text = cell.firstChild;
    if (!text || text.nodeType !== Node.TEXT_NODE) continue;
    for (const match of text.textContent.matchAll(/[0-9.,]+/g)) {
      const range = document.createRange();
      range.setStart(text, match.index);
      range.setEnd(text, match.index + match[0].length);
      if (range.getClientRects().length > 1) broken.push(match[0]);
    }
  }
  return broken;
}"""


def test_japanese_browser_switches_language_and_scores_by_keyboard(
    live_server, page, world, japanese_experiment
):
    experiment = japanese_experiment
    page.goto(live_server.url + "/")
    expect(page.get_by_role("heading", name="ログイン")).to_be_visible()
    shoot(page, "01_login")
    page.get_by_label("ユーザー名").fill("acme-scorer")
    page.get_by_label("パスワード").fill("correct horse battery staple")
    page.get_by_label("パスワード").press("Enter")
    expect(page.get_by_role("button", name="ログアウト")).to_be_visible()
    shoot(page, "02_team_home")

    # To English and back, from the navigation, by keyboard.
    page.get_by_role("button", name="English").focus()
    page.keyboard.press("Enter")
    expect(page.locator("html")).to_have_attribute("lang", "en")
    expect(page.get_by_role("button", name="Log out")).to_be_visible()
    assert UserPreference.objects.get(user=world.users["scorer"]).language == "en"
    page.get_by_role("button", name="日本語").focus()
    page.keyboard.press("Enter")
    expect(page.locator("html")).to_have_attribute("lang", "ja")
    expect(page.get_by_role("button", name="ログアウト")).to_be_visible()
    assert UserPreference.objects.get(user=world.users["scorer"]).language == "ja"

    page.goto(f"{live_server.url}/experiments/{experiment.pk}/")
    expect(page.get_by_role("heading", name="日本語の盲検採点")).to_be_visible()
    shoot(page, "03_experiment")

    page.goto(f"{live_server.url}/experiments/{experiment.pk}/score/")
    expect(page.get_by_role("button", name="採点を開始")).to_be_focused()
    shoot(page, "04_scoring_start")
    page.keyboard.press("Enter")

    for position in range(1, 4):
        expect(page.locator(".item-count")).to_have_text(f"設問 {position} / 3")
        key = normalise_answer(page.locator(".scoring-key .key-answer").inner_text())
        if position == 1:
            shoot(page, "05_scoring_item")
        # Each keypress decides at once; the item decided, the next one opens by itself.
        while True:
            wait_ready(page)
            if page.locator("[data-confirm-wrong]:focus").count():
                # 北岳 with HIGH confidence: the app asks, in Japanese, before marking it wrong.
                expect(page.get_by_text("この回答は HIGH の確信度で出されました。")).to_be_visible()
                shoot(page, "06_confirm_wrong")
                page.keyboard.press("Enter")
                continue
            focused = page.locator("#scoring-item li.answer:focus")
            if not focused.count():
                break  # the next item (or the reveal) has the focus
            value = focused.locator(".answer-value")
            correct = value.count() > 0 and normalise_answer(value.inner_text()) == key
            page.keyboard.press("c" if correct else "w")
            if position < 3 and page.locator(".item-count").inner_text() != f"設問 {position} / 3":
                break
    expect(page.locator("#queue-status")).to_have_attribute("data-state", "saved")

    page.keyboard.press("?")
    expect(page.locator("#help-overlay")).to_be_visible()
    shoot(page, "07_scoring_help")
    page.keyboard.press("Escape")

    assignment = Assignment.objects.get(experiment=experiment, user=world.users["scorer"])
    buckets = {
        (j.response.run.model_config.label, j.response.item.position): j.bucket
        for j in Judgement.objects.filter(assignment=assignment).select_related(
            "response__run__model_config", "response__item"
        )
    }
    assert buckets == {
        ("甲モデル（手動）", 1): Bucket.CORRECT,
        ("甲モデル（手動）", 2): Bucket.CORRECT,
        ("甲モデル（手動）", 3): Bucket.ABSTAINED,  # 分かりません, read as UNKNOWN
        ("乙モデル（手動）", 1): Bucket.CORRECT,
        ("乙モデル（手動）", 2): Bucket.CONFIDENT_WRONG,
        ("乙モデル（手動）", 3): Bucket.HEDGED_WRONG,
    }

    page.keyboard.press("Enter")  # every answer decided: on to the reveal
    expect(page.get_by_role("button", name="モデルを開示する")).to_be_focused()
    shoot(page, "08_reveal")
    page.keyboard.press("Enter")
    expect(page.get_by_role("link", name="レポートを開く")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator("#summary-table")).to_be_visible()
    expect(page.get_by_text("正味有用値").first).to_be_visible()
    shoot(page, "09_report")
    # In a narrow window (a phone) the tables squeeze their columns, and Japanese text may break anywhere:
    # a number still never breaks inside itself ("54.5" over two lines reads as two numbers).
    page.set_viewport_size({"width": 360, "height": 900})
    broken = page.evaluate(BROKEN_NUMBERS)
    assert broken == [], broken
    shoot(page, "09_report_narrow")


def test_main_pages_in_japanese_for_an_owner(live_server, page, world, japanese_experiment):
    page.goto(live_server.url + "/")
    page.get_by_label("ユーザー名").fill("acme-owner")
    page.get_by_label("パスワード").fill("correct horse battery staple")
    page.get_by_label("パスワード").press("Enter")
    expect(page.get_by_role("button", name="ログアウト")).to_be_visible()
    bank = japanese_experiment.bank
    team = world.team.slug
    for name, path, heading in [
        ("10_bank", f"/banks/{bank.pk}/", "日本の地理（デモ）"),
        ("11_bank_import", f"/t/{team}/banks/import/", "設問バンクをインポート"),
        ("12_experiments", f"/t/{team}/experiments/", "実験"),
        ("13_new_experiment", f"/t/{team}/experiments/new/", "新しい実験"),
        ("14_prompts", f"/t/{team}/prompts/", "プロンプトのバージョン"),
        ("15_models", f"/t/{team}/models/", "モデル設定"),
        ("16_new_model", f"/t/{team}/models/new/", "新しいモデル設定"),
        ("17_members", f"/t/{team}/members/", "メンバー"),
        ("18_audit", f"/t/{team}/audit/", "監査ログ"),
        ("19_key_review", f"/experiments/{japanese_experiment.pk}/key-review/", None),
        ("20_run", f"/runs/{japanese_experiment.runs.first().pk}/", None),
    ]:
        page.goto(live_server.url + path)
        if heading:
            expect(page.get_by_role("heading", name=heading).first).to_be_visible()
        shoot(page, name)
    # A smaller window: the navigation wraps, nothing is pushed out.
    page.set_viewport_size({"width": 1024, "height": 768})
    page.goto(f"{live_server.url}/banks/{bank.pk}/")
    shoot(page, "21_bank_1024px")
    page.goto(f"{live_server.url}/experiments/{japanese_experiment.pk}/")
    shoot(page, "22_experiment_1024px")
