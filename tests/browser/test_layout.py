"""The main pages hold their layout in Japanese and English on a phone (390 px), a tablet (768 px)
and a laptop (1280 px).

One browser page visits the bank list, the bank, the experiment, a scoring item, the report, the
agreement figures, the key review, reconciliation, the members page and the audit log of an
experiment two scorers have scored and a lead has begun to reconcile, the final report of a second
one whose disagreements are all settled (the first one's is still locked) and the page of its
simulated run, and the import preview of a Japanese article, in each language, at each width.
Each time it fails on what a reader would see broken:

- the page wider than the window, or an element whose right edge is past the window outside a
  container that scrolls sideways;
- a number, a code or a word of Latin text in a table, or a bucket name, laid out over two lines
  (「MEDI/UM」, 「100/%」); a table heading without a space broken inside itself;
- a table wider than its card outside a scroll container that the keyboard can reach (tabindex 0)
  and that has a name;
- a Japanese label of a few words (a badge, a button, a short table cell, a figure's name)
  broken inside a word (「開示/済み」, 「回答シー/ト」), not at its spaces or punctuation;
- a table or a chart that scrolls sideways without a shadow showing there is more;
- in Japanese, a provider's machine name (``simulator``) instead of its label;
- a date broken inside itself (「2026年12月3」/「日」: it may break only at its spaces), a button in
  a table or a user's name over two lines (「変/更」);
- a text field too narrow for the text it holds (the bank's name on the import preview);
- a question or an answer squeezed narrower than a few characters;
- a chart's legend or label cut off by the edge of its drawing, or running into the next entry;
  a chart's text drawn smaller than 10 px (a drawing scaled down to a phone's width), or a drawing
  wider than its card outside a scroll container the keyboard can reach;
- text upper-cased by CSS that upper-casing changes beyond ASCII (κ shown as "K");
- on a phone, the top bar taller than a collapsed bar, or its menu not opened by the keyboard,
  or the language switcher out of reach once it is open.

Screenshots of every page go to test-artifacts/layout/ when LAYOUT_SHOTS=1, and of a failing one
always.
"""

import os
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse
from playwright.sync_api import expect

from probe.models import Response
from probe.services import teams as team_services
from scoring.models import Bucket
from scoring.queue import services
from scoring.reconciliation import finals
from scoring.reconciliation import services as reconcile_services
from scoring.review import services as review_services
from tests import builders
from tests.probe import factories
from tests.scoring.factories import score_all

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "test-artifacts" / "layout"
ARTICLE = ROOT / "tests" / "bankformat" / "documents" / "japanese_article.txt"
PREVIEW = {"en": "Preview", "ja": "プレビュー"}
ACCEPT = {"en": "Accept every suggested reading", "ja": "提案された読み方をすべて受け入れる"}
WIDTHS = (390, 768, 1280)
# The names providers are stored under, never shown to a reader of the Japanese interface.
PROVIDER_CODES = re.compile(r"\b(?:openai_chat|openai_responses|anthropic|gemini|simulator)\b")
# The top bar of a phone, collapsed: the product's name and the menu button on one line.
COLLAPSED_TOPBAR_PX = 64

PROBLEMS_JS = """() => {
  const out = [];
  const USER_TEXT = '.question, .answer-value, .question-text, bdi.text, .config-label, .username, time, textarea, pre';
  const vw = window.innerWidth;
  const doc = document.documentElement;
  const visible = (el) => {
    const s = getComputedStyle(el);
    return s.display !== 'none' && s.visibility !== 'hidden' && el.getClientRects().length > 0;
  };
  const scroller = (el) => {
    for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
      const o = getComputedStyle(p).overflowX;
      if (o === 'auto' || o === 'scroll') return p;
    }
    return null;
  };
  const closedDetails = (el) => {
    for (let d = el.closest('details'); d; d = d.parentElement && d.parentElement.closest('details')) {
      if (!d.open && !el.closest('summary')) return true;
    }
    return false;
  };
  const name = (el) => el.tagName.toLowerCase() + (el.className && typeof el.className === 'string'
    ? '.' + el.className.trim().split(/\\s+/).join('.') : '') + ' "' +
    (el.textContent || '').trim().replace(/\\s+/g, ' ').slice(0, 40) + '"';
  if (doc.scrollWidth > vw + 1) out.push('page is ' + doc.scrollWidth + 'px wide in a ' + vw + 'px window');
  for (const el of document.querySelectorAll('body *')) {
    if (el.closest('svg') && el.tagName.toLowerCase() !== 'svg') continue;
    if (closedDetails(el) || !visible(el)) continue;
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) continue;
    if (el.closest('.skip-link, .visually-hidden')) continue;
    const parent = el.parentElement;
    const parentOut = parent && parent !== document.body && parent.getBoundingClientRect().right > vw + 1;
    if (r.right > vw + 1 && !scroller(el) && !parentOut) out.push('past the window (right edge ' + Math.round(r.right) + 'px): ' + name(el));
    const s = getComputedStyle(el);
    if (s.textTransform === 'uppercase') {
      const t = el.textContent || '';
      if (/[^\\x00-\\x7f]/.test(t) && t.replace(/[\\x00-\\x7f]/g, '') !== t.replace(/[\\x00-\\x7f]/g, '').toUpperCase()) {
        out.push('upper-cased by CSS beyond ASCII: ' + name(el));
      }
    }
  }
  // The rectangles of an element's own text (not of a swatch or an icon beside it), and how
  // many lines they fill: a rectangle starts a new line when it begins below the last one's middle.
  const textRects = (el) => {
    const rects = [];
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (!node.textContent.trim() || node.parentElement.closest('.visually-hidden')) continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      rects.push(...[...range.getClientRects()].filter((q) => q.width > 0));
    }
    return rects;
  };
  const lineCount = (rects) => {
    let lines = 0, last = null;
    for (const q of [...rects].sort((a, b) => a.top - b.top)) {
      if (!last || q.top > last.top + last.height / 2) { lines += 1; last = q; }
    }
    return lines;
  };
  // Words of Latin text, numbers and codes in tables never break inside themselves; a heading
  // without a space stays on one line.
  const broken = (node, re) => {
    const found = [];
    for (const m of node.textContent.matchAll(re)) {
      const range = document.createRange();
      range.setStart(node, m.index);
      range.setEnd(node, m.index + m[0].length);
      if (lineCount([...range.getClientRects()].filter((q) => q.width > 0)) > 1) found.push(m[0]);
    }
    return found;
  };
  for (const cell of document.querySelectorAll('table th, table td')) {
    if (!visible(cell) || closedDetails(cell)) continue;
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (node.parentElement.closest('bdi.text, .answer-value, .question, textarea, pre')) continue;
      for (const w of broken(node, /[A-Za-z0-9\\u00b1\\u2212+.,:%\\u03b1\\u03ba]+/g)) {
        out.push('broken inside a word in a table: "' + w + '" in ' + name(cell));
      }
    }
    if (cell.tagName === 'TH' && !/\\s/.test(cell.textContent.trim()) && cell.textContent.trim()) {
      if (lineCount(textRects(cell)) > 1) out.push('table heading broken: ' + name(cell));
    }
  }
  // A label in Japanese (a badge, a button, a link or a word in a table, a figure's name: text of
  // a few words, not a sentence) breaks only at its spaces and punctuation, never inside a word:
  // 「開示/済み」, 「回答シー/ト」. What users wrote (a configuration's label) is theirs.
  const LABELS = 'table td, table th, dt, button, .button, .badge, label, .tag';
  for (const label of document.querySelectorAll(LABELS)) {
    if (!visible(label) || closedDetails(label)) continue;
    const walker = document.createTreeWalker(label, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent.trim();
      if (!text || text.length > 16 || node.parentElement.closest(USER_TEXT)) continue;
      for (const w of broken(node, /[\\u3040-\\u30ff\\u3400-\\u9fff\\uff10-\\uff19\\uff21-\\uff3a\\uff41-\\uff5a]+/g)) {
        out.push('label broken inside a word: "' + w + '" in ' + name(label));
      }
    }
  }
  // A box that scrolls sideways shows that it does: a shadow on the side that has more.
  for (const box of document.querySelectorAll('.table-scroll, .chart-scroll')) {
    if (!visible(box) || closedDetails(box) || box.scrollWidth <= box.clientWidth + 1) continue;
    if (!/gradient/.test(getComputedStyle(box).backgroundImage)) out.push('scrolls sideways without a shadow showing there is more: ' + name(box));
  }
  // A date and time breaks only at its spaces: 「2026年12月3日」「22:15」「JST」 each stay whole.
  for (const time of document.querySelectorAll('time')) {
    if (!visible(time) || closedDetails(time)) continue;
    const walker = document.createTreeWalker(time, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const w of broken(node, /\\S+/g)) out.push('date broken inside "' + w + '" in ' + name(time));
    }
  }
  // A field shows the whole of the text it holds.
  for (const field of document.querySelectorAll('input[type=text], input:not([type])')) {
    if (!visible(field) || closedDetails(field) || !field.value) continue;
    if (field.scrollWidth > field.clientWidth + 1) {
      out.push('field too narrow for its text (' + field.scrollWidth + 'px in ' + field.clientWidth + 'px): ' + (field.name || field.id));
    }
  }
  for (const badge of document.querySelectorAll('.bucket, .status-badge, .conf, .tag, .item-count, kbd, .table button, .table .button, .username')) {
    if (!visible(badge) || closedDetails(badge) || badge.closest('.reasons')) continue;
    if (lineCount(textRects(badge)) > 1) out.push('name over two lines: ' + name(badge));
  }
  // Text a person reads keeps a readable width (a question squeezed to one character a line).
  for (const text of document.querySelectorAll('.question, .question-text, .review-question, .answer-value, .table td.words')) {
    if (!visible(text) || closedDetails(text)) continue;
    // Running text (inline) wraps in its parent's width: that is the width it has to read in.
    const box = getComputedStyle(text).display === 'inline' ? text.parentElement : text;
    if (box.getBoundingClientRect().width < 96) out.push('squeezed to ' + Math.round(box.getBoundingClientRect().width) + 'px: ' + name(text));
  }
  // Running text (a note, a sentence) wraps across the width it has: never a character or two a
  // line down the screen, as in a flex item squeezed to nothing beside its neighbours.
  const textWalker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = textWalker.nextNode(); node; node = textWalker.nextNode()) {
    const chars = node.textContent.replace(/\\s+/g, '').length;
    const parent = node.parentElement;
    if (chars < 8 || !parent || parent.closest('svg, pre, textarea, script, style, .visually-hidden')) continue;
    if (!visible(parent) || closedDetails(parent)) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    const lines = lineCount([...range.getClientRects()].filter((q) => q.width > 0));
    if (lines >= 4 && chars / lines < 3) out.push('text squeezed to ' + lines + ' lines of a character or two: ' + name(parent));
  }
  // A table wider than its card scrolls inside a container the keyboard can reach, with a name.
  for (const table of document.querySelectorAll('table')) {
    if (!visible(table) || closedDetails(table)) continue;
    const box = table.closest('.table-scroll');
    if (!box) { out.push('table outside a scroll container: ' + name(table)); continue; }
    if (box.getAttribute('tabindex') !== '0' || !(box.getAttribute('aria-label') || box.getAttribute('aria-labelledby'))) {
      out.push('scroll container without tabindex=0 and a name: ' + name(table));
    }
  }
  // Chart text stays inside its drawing, and a legend entry ends before the next one begins.
  for (const svg of document.querySelectorAll('svg.chart-svg')) {
    if (!visible(svg)) continue;
    const box = svg.getBoundingClientRect();
    // Drawn at a size a reader reads on a phone: no text under 10 px once the drawing is scaled.
    const scale = svg.getScreenCTM() ? svg.getScreenCTM().a : 1;
    for (const text of svg.querySelectorAll('text')) {
      const px = parseFloat(getComputedStyle(text).fontSize) * scale;
      if (text.getBoundingClientRect().width > 0 && px < 9.95) {
        out.push('chart text ' + px.toFixed(1) + 'px high: "' + text.textContent.trim().slice(0, 30) + '"');
        break;
      }
    }
    // Wider than its card: the drawing scrolls in a container the keyboard reaches, with a name.
    const holder = scroller(svg);
    const card = svg.closest('figure') || svg.parentElement;
    if (box.width > card.getBoundingClientRect().width + 1 || holder) {
      if (!holder) out.push('chart wider than its card outside a scroll container');
      else if (holder.getAttribute('tabindex') !== '0' || !(holder.getAttribute('aria-label') || holder.getAttribute('aria-labelledby'))) {
        out.push('chart scroll container without tabindex=0 and a name');
      }
    }
    for (const text of svg.querySelectorAll('text')) {
      const r = text.getBoundingClientRect();
      if (r.width === 0) continue;
      if (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1) {
        out.push('chart text cut off: "' + text.textContent.trim().slice(0, 30) + '"');
      }
    }
    for (const legend of svg.querySelectorAll('.legend')) {
      const texts = [...legend.querySelectorAll('text')];
      const rects = [...legend.querySelectorAll('rect')];
      texts.forEach((text, i) => {
        const next = rects[i + 1];
        if (next && text.getBoundingClientRect().right > next.getBoundingClientRect().left - 1) {
          out.push('legend entry runs into the next: "' + text.textContent.trim() + '"');
        }
      });
    }
  }
  return out;
}"""


def _configs(world):
    return [
        factories.ModelConfigFactory(
            team=world.team, label=label, model_name=model, provider=provider
        )
        for label, model, provider in [
            ("gpt-4.1-mini (temperature 0)", "gpt-4.1-mini", "openai_chat"),
            ("claude-sonnet-4-5 思考あり", "claude-sonnet-4-5", "anthropic"),
            ("sim-overconfident", "sim-overconfident", "simulator"),
        ]
    ]


def _reviewed(world, configs, name, *, settle=False):
    """An experiment of three configurations x two repeats over 12 items in three blocks, scored
    by the scorer and the owner (who disagree on a few answers), revealed, a key decision and a
    dispute, and reconciliation begun by the editor; with `settle`, every disagreement settled by
    the editor, so the final report opens."""
    letters = {
        ("gpt", 1): "CCmcWMHAHCCm",
        ("gpt", 2): "CCmcWHHAHCCC",
        ("claude", 1): "CmmcAAHAHCmm",
        ("claude", 2): "CmccAAHAACmm",
        ("sim", 1): "CWWWMMCWWCWW",
        ("sim", 2): "CWWMMMCWWCWW",
    }
    sheets = [
        builders.Sheet(configs[index], letters[(short, repeat)], repeat)
        for index, short in enumerate(("gpt", "claude", "sim"))
        for repeat in (1, 2)
    ]
    collected = world.collected_experiment(
        sheets,
        items=builders.snapshot_items(
            12,
            question="Which status code or header does case {n} call for?",
            blocks=[
                ("A", "HTTP semantics", 5),
                # Japanese titles, read in the English pages too: never 「デー/タ形式」.
                ("B", "ネットワーク", 4),
                ("C", "データ形式", 3),
            ],
            flagged=lambda index: index == 1,
        ),
        name=name,
    )
    experiment = collected.experiment
    scorer = score_all(experiment, world.users["scorer"])
    owner = services.assignment_start(experiment=experiment, user=world.users["owner"])
    # The owner reads a few answers differently from the scorer.
    for response in Response.objects.filter(run__experiment=experiment).exclude(answer="UNKNOWN"):
        kind = response.answer.split(" ")[0]
        if response.item.position in (3, 7) and kind == "wrong":
            services.judgement_decide(assignment=owner, responses=[response], verdict="correct")
        elif kind == "key":
            services.judgement_decide(assignment=owner, responses=[response], verdict="correct")
        elif kind == "wrong":
            services.judgement_decide(assignment=owner, responses=[response], verdict="wrong")
        else:
            services.judgement_decide(
                assignment=owner, responses=[response], bucket=Bucket.HEDGED_WRONG
            )
    services.assignment_reveal(assignment=owner)
    services.dispute_raise(
        assignment=scorer,
        item=experiment.items.get(position=4),
        note="The key names the header, the question asks for the status code.",
    )
    review_services.key_decision_create(
        item=experiment.items.get(position=2),
        user=world.users["editor"],
        outcome="confirmed",
        source="RFC 9110 §10.2.3",
    )
    reconcile_services.reconciliation_start(experiment=experiment, user=world.users["editor"])
    if settle:
        open_ones = Response.objects.filter(run__experiment=experiment, final__isnull=True)
        for response in open_ones:
            finals.final_bucket_set(
                experiment=experiment,
                response=response,
                user=world.users["editor"],
                bucket=response.judgements.get(assignment=scorer).bucket,
                note="Read against the source.",
            )
    owner.refresh_from_db()
    return experiment, owner


@pytest.fixture
def reviewed(world):
    """An experiment reconciliation has begun on, and one whose disagreements are all settled."""
    configs = _configs(world)
    experiment, owner = _reviewed(world, configs, "Layout at three widths")
    settled, _owner = _reviewed(world, configs, "Layout, reconciled", settle=True)
    return experiment, owner, settled


def _sign_in(context, live_server, user, language):
    client = Client()
    client.force_login(user)
    host = live_server.url.split("//", 1)[1].split(":")[0]
    context.clear_cookies()
    context.add_cookies(
        [
            {
                "name": settings.SESSION_COOKIE_NAME,
                "value": client.cookies[settings.SESSION_COOKIE_NAME].value,
                "domain": host,
                "path": "/",
            },
            {"name": settings.LANGUAGE_COOKIE_NAME, "value": language, "domain": host, "path": "/"},
        ]
    )


def _check_topbar(page, language) -> list[str]:
    """On a phone the top bar is one line; its menu opens by keyboard and shows the switcher."""
    problems = []
    height = page.locator(".topbar").bounding_box()["height"]
    if height > COLLAPSED_TOPBAR_PX:
        problems.append(
            f"top bar {height:.0f}px high on a phone (collapsed: {COLLAPSED_TOPBAR_PX})"
        )
    menu = page.locator(".topbar-menu > summary")
    if not menu.is_visible():
        return [*problems, "no menu button in the top bar on a phone"]
    menu.focus()
    page.keyboard.press("Enter")
    other = "English" if language == "ja" else "日本語"
    switch = page.locator(".topbar .language-switch").get_by_role("button", name=other)
    if not switch.is_visible():
        problems.append("the language switcher is not shown once the menu is open")
    else:
        box = switch.bounding_box()
        if box["x"] < 0 or box["x"] + box["width"] > 391:
            problems.append(f"the language switcher is outside the window: {box}")
    problems += [f"menu open: {p}" for p in page.evaluate(PROBLEMS_JS)]
    page.keyboard.press("Escape")  # closes it, the focus back on its button
    if page.locator(".topbar-menu").evaluate("d => d.open"):
        problems.append("Escape does not close the top bar's menu")
    return problems


def _at_each_width(page, language, name, every_shot) -> list[str]:
    problems = []
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        found = page.evaluate(PROBLEMS_JS)
        if width == WIDTHS[0] and name in ("bank", "report"):
            found += _check_topbar(page, language)
        shot = SHOTS / f"{language}_{width}_{name}.png"
        if found or every_shot:
            SHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(shot), full_page=True)
        problems += [f"{language} {width}px {name}: {p}" for p in found]
    return problems


def test_main_pages_hold_at_three_widths_in_both_languages(live_server, page, world, reviewed):
    experiment, owner, settled = reviewed
    assert not Response.objects.filter(run__experiment=settled, final__isnull=True).exists()
    simulated = settled.runs.get(model_config__provider="simulator", repeat=1)
    team = world.team.slug
    pages = {
        "bank_list": reverse("probe:team_home", args=[team]),
        "bank": reverse("probe:bank_detail", args=[world.bank.pk]),
        "experiment": reverse("probe:experiment_detail", args=[experiment.pk]),
        "scoring": reverse("scoring:item", args=[owner.token, 3]),
        "report": reverse("scoring:report", args=[owner.token]),
        "final_report": reverse("scoring:final_report", args=[settled.pk]),
        "run": reverse("probe:run_detail", args=[simulated.pk]),
        "agreement": reverse("scoring:agreement", args=[experiment.pk]),
        "key_review": reverse("scoring:key_review", args=[experiment.pk]),
        "reconcile": reverse("scoring:reconcile", args=[experiment.pk]),
        "members": reverse("probe:member_list", args=[team]),
        "audit": reverse("probe:audit_log", args=[team]),
    }
    every_shot = os.environ.get("LAYOUT_SHOTS") == "1"
    problems = []
    for language in ("ja", "en"):
        _sign_in(page.context, live_server, world.users["owner"], language)
        for name, path in pages.items():
            page.set_viewport_size({"width": WIDTHS[-1], "height": 900})
            response = page.goto(live_server.url + path)
            assert response.status == 200, (name, response.status)
            expect(page.locator("html")).to_have_attribute("lang", language)
            if language == "ja":
                codes = PROVIDER_CODES.findall(page.locator("main").inner_text())
                problems += [
                    f"ja {name}: the provider's machine name {code!r} shown" for code in codes
                ]
            problems += _at_each_width(page, language, name, every_shot)
        # The import preview of a Japanese article, its readings accepted, and a long Japanese
        # name for the bank in its field.
        page.set_viewport_size({"width": WIDTHS[-1], "height": 900})
        page.goto(live_server.url + reverse("probe:bank_import", args=[team]))
        page.locator("textarea").first.fill(ARTICLE.read_text(encoding="utf-8"))
        page.get_by_role("button", name=PREVIEW[language], exact=True).click()
        page.get_by_role("button", name=ACCEPT[language]).click()
        expect(page.locator("#id_name")).to_have_value("社内データ基盤プローブ 2026年冬版")
        page.locator("#id_name").fill("社内データ基盤プローブ 2026年冬版（第２版）")
        problems += _at_each_width(page, language, "import_preview", every_shot)
    assert not problems, f"{len(problems)} layout problems:\n" + "\n".join(problems[:80])


# The block table of a Japanese bank on a phone: each block's title and description keep room
# for a few words (never 「デー/タベ/ース」, a description one character a line), so the table
# scrolls inside its container instead of squeezing its column of words.
BLOCK_CELLS_JS = """() => [...document.querySelectorAll('#block-summary tbody tr')].map((row) => {
  const cell = row.querySelector('td');
  const title = [...cell.childNodes].find((n) => n.nodeType === 3 && n.textContent.trim());
  const range = document.createRange();
  range.selectNodeContents(title);
  const tops = new Set([...range.getClientRects()].filter((q) => q.width > 0).map((q) => Math.round(q.top)));
  return {text: title.textContent.trim(), width: cell.getBoundingClientRect().width, lines: tops.size};
})"""


def test_a_japanese_banks_blocks_keep_their_words_on_a_phone(live_server, page, world):
    bank = factories.BankFactory(team=world.team, name="社内ナレッジ 2026年冬版")
    for code, title in (("A", "データベース"), ("B", "ネットワークと通信"), ("3", "日本の地理")):
        block = factories.BlockFactory(
            bank=bank,
            code=code,
            title=title,
            description="トランザクションと分離レベルの既定値、接続の上限についての設問",
        )
        factories.ItemFactory(block=block, question="PostgreSQL の既定のポート番号は何ですか。")
    _sign_in(page.context, live_server, world.users["owner"], "ja")
    page.set_viewport_size({"width": WIDTHS[0], "height": 900})
    assert page.goto(live_server.url + reverse("probe:bank_detail", args=[bank.pk])).status == 200
    cells = page.evaluate(BLOCK_CELLS_JS)
    assert len(cells) == 3
    squeezed = [c for c in cells if c["width"] < 96 or c["lines"] > 2]
    problems = [f"ja 390px bank: {p}" for p in page.evaluate(PROBLEMS_JS)]
    if squeezed or problems:
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / "ja_390_bank_blocks.png"), full_page=True)
    assert not squeezed, squeezed
    assert not problems, problems
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "ja_390_bank_blocks.png"), full_page=True)


def test_short_names_roles_and_pastes_keep_their_words_on_a_phone(live_server, page, world):
    """A short user name leaves 「（あなた）」 a narrow column, a pending invitation shows its role
    (「閲覧者」), and a manual run's attempt says who pasted it (「alice が貼り付け」): each stays
    whole at a phone's and a tablet's width, in both languages."""
    owner = world.users["owner"]
    owner.username = "alice"
    owner.save()
    team_services.invitation_create(
        team=world.team, by=owner, invitee="dave@example.org", role="viewer"
    )
    config = factories.ModelConfigFactory(
        team=world.team, label="Chat window", provider="manual", model_name="chat"
    )
    experiment = world.collected_experiment(
        [builders.Sheet(config, "CW", 1)],
        items=builders.snapshot_items(2, question="Which port does case {n} use?"),
        name="Pasted",
    ).experiment
    run = experiment.runs.get()
    attempt = run.attempts.first()
    attempt.pasted_by = owner
    attempt.save(update_fields=["pasted_by"])
    pages = {
        "members": reverse("probe:member_list", args=[world.team.slug]),
        "run_pasted": reverse("probe:run_detail", args=[run.pk]),
    }
    problems = []
    for language in ("ja", "en"):
        _sign_in(page.context, live_server, owner, language)
        for name, path in pages.items():
            assert page.goto(live_server.url + path).status == 200
            expect(page.locator("html")).to_have_attribute("lang", language)
            problems += _at_each_width(page, language, name, os.environ.get("LAYOUT_SHOTS") == "1")
    assert not problems, "\n".join(problems)
