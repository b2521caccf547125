"""Keypresses per response with "the rest" (Shift + a bucket's key), on simulated sheets.

Two 30-item x 8-sheet experiments, every sheet written by the local simulator's four profiles
(twice each) through the real adapter and collection code, none hand-made: the probe's own demo
bank, and a fresh bank of keys of every shape the simulator rewords (years, counts, decimals,
names, codes, phrases, sentences), whose answers are rarely byte-identical. A scorer decides the
focused answer, or, once every answer still undecided on the item takes the same key, gives them
all that key at once with Shift; the confident-wrong question is answered "A" the first time.
The figures are printed and recorded in bench/README.md.
"""

import random
from dataclasses import dataclass

import pytest
from playwright.sync_api import expect

from probe.sheetparser import normalise_answer
from scoring.models import Assignment, Judgement
from tests.browser.test_scoring_flow import (
    PROFILES,
    TARGET_KEYPRESSES_PER_RESPONSE,
    collect_demo,
    sign_in,
    start_scoring,
    wait_ready,
    wait_saved,
)
from tests.keyreading import says_the_key

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ROWS = """() => Array.from(document.querySelectorAll('#scoring-item li.answer')).map(li => ({
  focused: li === document.activeElement,
  decided: li.classList.contains('decided'),
  text: (li.querySelector('.answer-value') || {}).innerText || '',
  choose: !!li.querySelector('[data-choose]'),
}))"""


def fresh_bank(size: int = 30) -> bytes:
    """A bank in the plain-text form, 5 blocks of 6, with keys of every shape."""
    rng = random.Random(2026)
    lines, keys = ["# A fresh probe", "", ""], ["Answer key", ""]
    for b, code in enumerate("ABCDE"):
        lines += [f"Block {code}. Topic {code}"]
        keys += [f"Block {code}. Topic {code}"]
        for i in range(1, 7):
            n = 6 * b + i
            shape = n % 8
            key = [
                str(rng.randint(1500, 2020)),
                str(rng.randint(2, 900)),
                f"{rng.uniform(0, 99):.2f}",
                f"Ada Name{n}",
                f"Retry-After-{n}",
                f"RFC {1000 + n}",
                f"{n % 10} (round half to even {n})",
                f"The lock {n} is held while the client writes its log",
            ][shape]
            lines.append(f"{i}. What is the value of Thing{n}?")
            keys.append(f"{i}. {key}")
        lines.append("")
        keys.append("")
    return "\n".join(lines + keys).encode()


@dataclass
class Keys:
    pressed: int = 0
    rest: int = 0  # of which Shift + a key: the rest of an item at once
    confirmations: int = 0
    groups: int = 0  # one key per group of identical answers would take this many


def key_of(row: dict, key_answer: str) -> str:
    if row["text"] and says_the_key(row["text"], key_answer):
        return "c"
    return "3" if row["choose"] else "w"


def score_with_the_rest(page) -> Keys:
    keys, shown = Keys(), None
    while True:
        wait_ready(page)
        if page.locator("[data-reveal]:focus").count():
            return keys
        if page.locator("[data-confirm-wrong]:focus").count():
            page.keyboard.press("a")
            keys.pressed += 1
            keys.confirmations += 1
            continue
        item = page.locator(".item-count").inner_text()
        rows = page.evaluate(ROWS)
        if item != shown:
            shown = item
            keys.groups += sum(1 for r in rows if not r["decided"])
        key_answer = normalise_answer(page.locator(".scoring-key .key-answer").inner_text())
        wanted = {key_of(r, key_answer) for r in rows if not r["decided"]}
        if len(wanted) == 1:
            page.keyboard.press("Shift+" + wanted.pop().upper())
            keys.rest += 1
        else:
            (focused,) = [r for r in rows if r["focused"]]
            page.keyboard.press(key_of(focused, key_answer))
        keys.pressed += 1


def score_and_count(page, live_server, world, experiment, label: str) -> float:
    sign_in(page, live_server)
    start_scoring(page, live_server, experiment)
    keys = score_with_the_rest(page)
    wait_saved(page)
    total = 30 * 8
    assignment = Assignment.objects.get(experiment=experiment, user=world.users["scorer"])
    judgements = Judgement.objects.filter(assignment=assignment)
    assert judgements.count() == total
    per_response = keys.pressed / total
    print(
        f"\nkeypresses, {label} (30 items x 8 simulated sheets): {keys.pressed}"
        f" ({keys.rest} of them Shift + a key for the rest of an item,"
        f" {keys.confirmations} confirmation), {per_response:.3f} per response"
        f" (target <= {TARGET_KEYPRESSES_PER_RESPONSE}); one key per group: {keys.groups},"
        f" {keys.groups / total:.3f}"
    )
    assert keys.confirmations <= 1
    return per_response, judgements


def test_the_rest_of_a_fresh_bank_in_few_keys(live_server, page, world):
    experiment = collect_demo(world, PROFILES, "Fresh sheets", text=fresh_bank())
    per_response, judgements = score_and_count(page, live_server, world, experiment, "fresh bank")
    assert per_response <= TARGET_KEYPRESSES_PER_RESPONSE
    # Each answer's bucket is the one its key gave: the rest took the same as one by one would.
    assert judgements.filter(verdict="correct", bucket="correct").count() > 0


def test_the_rest_of_the_demo_bank_in_few_keys(live_server, page, world):
    experiment = collect_demo(world, PROFILES, "Demo sheets")
    per_response, _judgements = score_and_count(page, live_server, world, experiment, "demo bank")
    assert per_response <= TARGET_KEYPRESSES_PER_RESPONSE


def test_shift_c_gives_the_rest_of_the_item_and_the_help_says_so(live_server, page, world):
    experiment = collect_demo(world, PROFILES, "Rest rules", text=fresh_bank())
    sign_in(page, live_server)
    start_scoring(page, live_server, experiment)
    wait_ready(page)
    undecided = page.locator("#scoring-item li.answer:not(.decided)")
    n = undecided.count()
    assert n > 1
    item_2 = f"/score/{Assignment.objects.get(experiment=experiment).token}/2/"
    with page.expect_response(
        lambda r: r.request.method == "POST" and r.url.endswith(item_2)
    ) as shown:
        page.keyboard.press("Shift+C")  # item 1 done: item 2 opens, and the page says so
    assert shown.value.status == 204
    wait_saved(page)
    assignment = Assignment.objects.get(experiment=experiment, user=world.users["scorer"])
    on_item_1 = Judgement.objects.filter(assignment=assignment, response__item__position=1)
    # Every answer shown (the abstentions came preset) took C from the one keypress: each of
    # the n groups, identical answers together.
    assert on_item_1.filter(verdict="correct").count() >= n
    assert on_item_1.exclude(verdict__in=["correct", "preset"]).count() == 0
    assert on_item_1.count() == 8
    expect(page.locator(".item-count")).to_have_text("Item 2 of 30")
    # The help names it.
    page.keyboard.press("?")
    expect(page.locator("#help-overlay")).to_contain_text("the rest are correct")


def test_variants_and_the_rest_key_at_two_widths_in_both_languages(live_server, browser, world):
    """A group written four ways shows the other three beside its answer, the strip stays one
    line, and the help names Shift: screenshots at 1280 and 1920 px, English and Japanese."""
    from scoring.queue import services
    from tests.browser.test_scoring_flow import ARTIFACTS
    from tests.conftest import scored_experiment
    from tests.probe import factories

    configs = [factories.ModelConfigFactory(team=world.team) for _ in range(5)]
    experiment = scored_experiment(
        world,
        configs,
        [
            [("Retry-After", "HIGH")],
            [("retry-after.", "LOW")],
            [("ＲＥＴＲＹ-ＡＦＴＥＲ", "HIGH")],
            [("Retry-After!", "MEDIUM")],
            [("Expires", "HIGH")],
        ],
        name="Variants",
    )
    assignment = services.assignment_start(experiment=experiment, user=world.users["scorer"])
    ARTIFACTS.mkdir(exist_ok=True)
    for locale, username, password, logout in (
        ("en-GB", "Username", "Password", "Log out"),
        ("ja-JP", "ユーザー名", "パスワード", "ログアウト"),
    ):
        context = browser.new_context(locale=locale, viewport={"width": 1280, "height": 800})
        page = context.new_page()
        page.goto(live_server.url + "/")
        page.get_by_label(username).fill("acme-scorer")
        page.get_by_label(password).fill("correct horse battery staple")
        page.get_by_label(password).press("Enter")
        expect(page.get_by_role("button", name=logout)).to_be_visible()
        page.goto(f"{live_server.url}/score/{assignment.token}/1/")
        row = page.locator("#scoring-item li.answer", has=page.locator(".variants"))
        expect(row).to_have_count(1)
        expect(row.locator(".variant")).to_have_count(3)
        for width in (1280, 1920):
            page.set_viewport_size({"width": width, "height": 800})
            strip = row.locator(".answer-actions").bounding_box()
            # The answer's column (its text runs across it), wider than the strip of keys.
            value = row.locator(".answer-text").bounding_box()
            assert value["width"] > strip["width"], (locale, width, value, strip)
            tops = row.locator(".answer-actions button").evaluate_all(
                "els => els.map(e => Math.round(e.getBoundingClientRect().top))"
            )
            assert len(set(tops)) == 1, (locale, width, tops)  # the strip: one line
            page.screenshot(path=str(ARTIFACTS / f"scoring_variants_{locale[:2]}_{width}.png"))
        page.keyboard.press("?")
        expect(page.locator("#help-overlay")).to_contain_text("Shift")
        page.screenshot(path=str(ARTIFACTS / f"scoring_help_{locale[:2]}.png"))
        context.close()


def test_the_rest_marked_wrong_asks_once_before_a_high_answer_and_then_saves_them_all(
    live_server, page, world
):
    from probe.models import Experiment
    from scoring.queue import services
    from tests.conftest import scored_experiment
    from tests.probe import factories

    configs = [factories.ModelConfigFactory(team=world.team) for _ in range(3)]
    experiment = scored_experiment(
        world,
        configs,
        [[("wrong one", "HIGH")], [("wrong two", "LOW")], [("wrong three", "HIGH")]],
        name="Rest wrong",
    )
    Experiment.objects.filter(pk=experiment.pk).update(confirm_wrong=Experiment.ConfirmWrong.ALWAYS)
    assignment = services.assignment_start(experiment=experiment, user=world.users["scorer"])
    sign_in(page, live_server)
    page.goto(f"{live_server.url}/score/{assignment.token}/1/")
    wait_ready(page)
    page.keyboard.press("Shift+W")
    # One question for the lot, on a HIGH answer; nothing is sent before it is answered.
    expect(page.locator("[data-client-confirm]")).to_have_count(1)
    expect(page.locator("[data-confirm-wrong]")).to_be_focused()
    assert not Judgement.objects.filter(assignment=assignment).exists()
    page.keyboard.press("Enter")
    wait_saved(page)
    buckets = sorted(
        Judgement.objects.filter(assignment=assignment).values_list("bucket", flat=True)
    )
    assert buckets == ["confident_wrong", "confident_wrong", "hedged_wrong"]
