"""Every page is served with a strict Content-Security-Policy and needs nothing it forbids.

The crawl reuses the permission matrix's URL enumeration, so a new page is covered unasked: each
one, fetched as the owner and as a scorer (in full and as an htmx fragment), must carry the
policy header and contain no inline script, no inline event handler, no style attribute or
element and no javascript: URL, because the policy would block them in a browser.
"""

import json
import re
from html.parser import HTMLParser

import pytest
from django.urls import reverse

from tests.probe.test_permissions import TEAM_URLS, UNSCOPED, UNSCOPED_KWARGS, _kwargs_for


class InlineFinder(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.problems: list[str] = []
        self._in_inline_script = False

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name.startswith("on"):
                self.problems.append(f"<{tag} {name}=...> (inline handler)")
            if name == "style":
                self.problems.append(f"<{tag} style={value!r}> (style attribute)")
            if name in {"href", "src", "action", "formaction"} and (
                value or ""
            ).strip().lower().startswith("javascript:"):
                self.problems.append(f"<{tag} {name}={value!r}> (javascript: URL)")
        attributes = dict(attrs)
        if tag == "script" and not attributes.get("src"):
            self._in_inline_script = True
        if tag == "style":
            self.problems.append("<style> element")

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_inline_script = False

    def handle_data(self, data):
        if self._in_inline_script and data.strip():
            self.problems.append(f"inline <script>: {data.strip()[:60]!r}")


def _policy(response) -> dict[str, list[str]]:
    header = response["Content-Security-Policy"]
    directives = {}
    for part in header.split(";"):
        words = part.split()
        if words:
            directives[words[0]] = words[1:]
    return directives


def assert_strict(response, where: str) -> None:
    assert "Content-Security-Policy" in response, f"{where}: no Content-Security-Policy header"
    policy = _policy(response)
    assert policy.get("default-src") == ["'self'"], f"{where}: {policy}"
    assert policy.get("frame-ancestors") == ["'none'"], f"{where}: {policy}"
    header = response["Content-Security-Policy"]
    assert "unsafe-inline" not in header and "unsafe-eval" not in header, where
    if "text/html" not in response.get("Content-Type", ""):
        return
    finder = InlineFinder()
    finder.feed(response.content.decode("utf-8", "replace"))
    assert not finder.problems, f"{where}: {finder.problems}"


def test_the_finder_sees_what_the_policy_blocks():
    finder = InlineFinder()
    finder.feed(
        '<button onclick="x()">a</button><span style="width: 3%"></span>'
        "<script>alert(1)</script><script src='/static/a.js'></script>"
        '<a href="javascript:void(0)">b</a><style>p{}</style>'
    )
    assert len(finder.problems) == 5


@pytest.mark.parametrize("kind", ["owner", "scorer"])
def test_every_team_page_is_strict(client, world, kind):
    client.force_login(world.users[kind])
    seen = 0
    for name, pattern in sorted(TEAM_URLS.items()):
        if pattern.callback.team_view["GET"] is None:
            continue
        url = reverse(name, kwargs=_kwargs_for(pattern, world, kind, name))
        for extra in ({}, {"HTTP_HX_REQUEST": "true"}):
            response = client.get(url, **extra)
            assert_strict(response, f"GET {url} as {kind} {extra}")
            seen += response.status_code == 200
    assert seen > 25  # the crawl reached the pages, not just refusals


def test_pages_with_the_key_and_with_filters_are_strict(client, world):
    client.force_login(world.users["owner"])
    bank = reverse("probe:bank_detail", kwargs={"bank_pk": world.bank.pk})
    for url in [f"{bank}?key=1", f"{bank}?q=status&key=1", f"{bank}?flagged=1"]:
        assert_strict(client.get(url), url)


@pytest.mark.parametrize("name", sorted(UNSCOPED))
def test_open_pages_are_strict(client, db, name):
    response = client.get(reverse(name, kwargs=UNSCOPED_KWARGS.get(name)))
    assert_strict(response, name)


@pytest.mark.parametrize("name", sorted(UNSCOPED))
def test_open_and_personal_pages_of_a_logged_in_user_are_strict(client, world, name):
    client.force_login(world.users["owner"])
    response = client.get(reverse(name, kwargs=UNSCOPED_KWARGS.get(name)))
    assert_strict(response, name)


def test_pages_shown_after_a_post_are_strict(client, world):
    client.force_login(world.users["owner"])
    members = reverse("probe:member_list", kwargs={"team_slug": "acme"})
    issued = client.post(members, {"invitee": "new@example.org", "role": "viewer"})
    assert_strict(issued, "invitation link")
    refused = client.post(members, {"invitee": "nobody", "role": "viewer"})
    assert refused.status_code == 422
    assert_strict(refused, "refused invitation")
    membership = world.team.memberships.get(user=world.users["viewer"])
    reset = client.post(reverse("probe:member_reset_link", kwargs={"member_pk": membership.pk}))
    assert_strict(reset, "reset link")
    path = re.search(
        r'<code id="issued-link">https?://[^/]+([^<]+)</code>', issued.content.decode()
    )[1]
    client.logout()
    assert_strict(client.get(path), "invitation accept, logged out")
    client.force_login(world.users["outsider"])
    assert_strict(client.get(path), "invitation accept, logged in")
    assert_strict(client.get(reverse("password_change")), "password change")
    client.logout()
    for n in range(6):
        locked = client.post(reverse("login"), {"username": "acme-viewer", "password": f"x{n}"})
    assert locked.status_code == 429
    assert_strict(locked, "locked out")


def test_the_htmx_config_turns_off_injected_styles(client, world):
    client.force_login(world.users["owner"])
    body = client.get(reverse("probe:team_home", kwargs={"team_slug": "acme"})).content.decode()
    metas = re.findall(r'<meta name="htmx-config" content=\'([^\']*)\'>', body)
    assert len(metas) == 1
    assert json.loads(metas[0])["includeIndicatorStyles"] is False
