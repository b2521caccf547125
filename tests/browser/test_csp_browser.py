"""In Chromium, under the app's Content-Security-Policy: blind scoring works from start to report
with no violation reported, and an answer written with a right-to-left override does not
display as another answer."""

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from probe.models import Response

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
PASSWORD = "correct horse battery staple"
SPOOF = "\u202e924"  # shown raw, a browser draws it as "429"

# Every violation the browser reports, from every page the test opens (the binding outlives
# navigations; the listener is installed in each new document before its scripts run).
LISTEN = """
document.addEventListener("securitypolicyviolation", function (e) {
  window.cspViolation(e.violatedDirective + " " + (e.blockedURI || "inline") + " " + e.sourceFile);
});
"""

# The digits of an element's text in the order they are drawn, left to right (marks that show
# a hidden character are skipped: their own digits are a code point, not the answer).
DRAWN_DIGITS = """
(element) => {
  const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
  const drawn = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (node.parentElement.closest(".hidden-char")) continue;
    for (let i = 0; i < node.data.length; i++) {
      if (!/[0-9]/.test(node.data[i])) continue;
      const range = document.createRange();
      range.setStart(node, i);
      range.setEnd(node, i + 1);
      drawn.push([node.data[i], range.getBoundingClientRect().left]);
    }
  }
  drawn.sort((a, b) => a[1] - b[1]);
  return drawn.map((d) => d[0]).join("");
}
"""


@pytest.fixture
def watched(page):
    violations, console = [], []
    page.expose_function("cspViolation", lambda text: violations.append(text))
    page.add_init_script(LISTEN)
    page.on(
        "console",
        lambda m: console.append(m.text) if "Content Security Policy" in m.text else None,
    )
    return page, violations, console


@pytest.fixture
def spoofed(world):
    """The first sheet's answer to item 1 is "924" behind a right-to-left override; the other
    sheet answered "429"."""
    response = (
        Response.objects.filter(run__experiment=world.scored, item__position=1)
        .order_by("run__order")
        .first()
    )
    response.answer = SPOOF
    response.save(update_fields=["answer"])
    return world


def log_in(page, base, username):
    page.goto(base + "/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_label("Password").press("Enter")
    expect(page).not_to_have_url(re.compile(r"/accounts/login/"))


def wait_ready(page):
    """Until the focus is where the scorer acts next (an undecided answer, a question, the
    reveal). A function, not a bare expression: Playwright evals an expression, which the CSP
    forbids."""
    page.wait_for_function(
        """() => { const a = document.activeElement;
          return !!a && (a.matches('#scoring-item li.answer:not(.decided)')
            || a.matches('[data-confirm-wrong], [data-reveal]')); }"""
    )


def test_blind_scoring_to_the_report_reports_no_violation(live_server, watched, spoofed):
    page, violations, console = watched
    world = spoofed
    log_in(page, live_server.url, "acme-scorer")
    page.goto(f"{live_server.url}/experiments/{world.scored.pk}/score/")
    expect(page.get_by_role("button", name="Start scoring")).to_be_focused()
    page.keyboard.press("Enter")
    # Each keypress decides at once; the item decided, the next one opens by itself.
    for _ in range(30):
        wait_ready(page)
        if page.locator("[data-reveal]:focus").count():
            break
        if page.locator("[data-confirm-wrong]:focus").count():
            page.keyboard.press("Enter")
            continue
        row = page.locator("#scoring-item li.answer:focus")
        page.keyboard.press("3" if row.locator("[data-choose]").count() else "w")
    expect(page.locator("#queue-status")).to_have_attribute("data-state", "saved")
    expect(page.locator("[data-progress-text]")).to_have_text(
        "5 / 5 judged by you"
    )  # the UNKNOWN one preset, not judged
    page.keyboard.press("Enter")
    expect(page.get_by_role("button", name="Reveal the models")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.get_by_role("link", name="Open the report")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator("#summary-table")).to_be_visible()
    assert violations == [] and console == [], (violations, console)

    # The listener does hear a violation: an inline style set now is refused and reported.
    page.evaluate("document.body.setAttribute('style', 'background: red')")
    expect(page.locator("body")).not_to_have_css("background-color", "rgb(255, 0, 0)")
    page.wait_for_timeout(200)  # the report is queued as a task after the attribute is set
    assert any("style-src-attr" in v for v in violations), violations


def test_an_answer_with_a_right_to_left_override_is_not_drawn_as_another(
    live_server, watched, spoofed
):
    page, violations, _ = watched
    world = spoofed
    log_in(page, live_server.url, "acme-scorer")
    page.goto(f"{live_server.url}/experiments/{world.scored.pk}/score/")
    page.get_by_role("button", name="Start scoring").click()
    expect(page.locator(".item-count")).to_have_text("Item 1 of 3")
    spoof = page.locator(".answer-value", has=page.locator(".hidden-char"))
    expect(spoof).to_have_count(1)
    expect(spoof.locator(".hidden-char")).to_have_text("U+202E")
    expect(spoof.locator(".hidden-char")).to_have_attribute("title", "RIGHT-TO-LEFT OVERRIDE")
    assert spoof.evaluate(DRAWN_DIGITS) == "924"
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "bidi_answer.png"))
    honest = page.locator(".answer-value", has_not=page.locator(".hidden-char"))
    assert honest.evaluate(DRAWN_DIGITS) == "429"
    # The same text put on the page as it is would be drawn as the other sheet's answer: the
    # measure sees the spoof when it is there.
    raw = page.evaluate_handle(
        "(text) => { const p = document.createElement('p'); p.textContent = text;"
        " document.querySelector('main').append(p); return p; }",
        SPOOF,
    )
    assert raw.evaluate(DRAWN_DIGITS) == "429"
    assert violations == []


def test_the_admin_works_under_the_policy(live_server, watched, world):
    page, violations, console = watched
    from tests.probe import factories

    factories.UserFactory(username="site-admin", is_staff=True, is_superuser=True)
    log_in(page, live_server.url, "site-admin")
    for path in [
        "/admin/",
        "/admin/probe/bank/",
        "/admin/probe/bank/add/",
        "/admin/probe/loginattempt/",
    ]:
        page.goto(live_server.url + path)
        expect(page.locator("#content")).to_be_visible()
    page.goto(f"{live_server.url}/admin/probe/bank/{world.bank.pk}/change/")
    expect(page.locator("#content h1")).to_be_visible()
    assert violations == [] and console == [], (violations, console)


def test_the_api_documentation_works_under_the_policy(live_server, watched, world):
    page, violations, console = watched
    log_in(page, live_server.url, "acme-owner")
    page.goto(live_server.url + "/api/docs")
    expect(page.locator(".swagger-ui .info .title")).to_be_visible()
    assert violations == [] and console == [], (violations, console)
