"""The permission matrix, built from the URL resolver so that new views are covered unasked.

Every URL x {anonymous, member of another team, viewer, scorer, editor, owner} x {GET, POST}
gets the status its ``team_view`` declaration promises, and no response shows another team's
data. A view without a declaration fails here unless it is one of the few open or admin pages.
"""

import pytest
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from probe.models import ROLE_RANK, Membership, Role
from probe.services.teams import invitation_create
from tests.conftest import KEY_ANSWERS, OTHER_TEAM_TEXT

USER_KINDS = ["anonymous", "outsider", "viewer", "scorer", "editor", "owner"]

# Views that are deliberately not team views, with what an anonymous visitor gets.
UNSCOPED = {
    "home": 302,  # redirects to the first team, or says there is none
    "healthz": 200,  # the load balancer's health check: says "ok" and nothing else
    "login": 200,
    "logout": 302,  # POST only for members; an anonymous visitor is sent to login first
    "set_language": 405,  # the language switcher: POST only, open so the login page has it
    "javascript-catalog": 200,  # the translations static/js uses, the login page's too
    "password_change": 302,  # a member's own password: login first
    "time_zone": 302,  # a member's own time zone: login first
    "inbox": 302,  # a member's own notifications: login first
    "password_reset": 200,  # "ask an owner", or the e-mail form when mail is configured
    "password_reset_done": 200,
    "password_reset_confirm": 200,  # a wrong link says it no longer works
    "invitation_accept": 410,  # a wrong invitation link says it is not valid
    # A user's own API tokens: personal, not a team's; someone else's token is a 404
    # (tests/api/test_tokens.py).
    "token_list": 302,
    "token_revoke": 302,
    # Sign-in through the identity provider (django-allauth): the login page again under the
    # name allauth links to, and its own steps. Without a configured provider, its login and
    # callback are a 404; the signup step without a sign-in under way goes back to login.
    "account_login": 200,
    "account_logout": 302,
    "account_inactive": 200,
    "openid_connect_login": 404,
    "openid_connect_callback": 404,
    "socialaccount_login_cancelled": 200,
    "socialaccount_login_error": 401,  # says the sign-in did not complete
    "socialaccount_signup": 302,
    # The bucket badges' stylesheet, written from the scheme registry: no team's data.
    "scoring:bucket_css": 200,
}
# Open views whose URL carries a token or an id: filled with one that matches nothing.
UNSCOPED_KWARGS = {
    "token_revoke": {"token_pk": 1},
    "password_reset_confirm": {"uidb64": "MQ", "token": "no-such-token"},
    "invitation_accept": {"token": "no-such-invitation"},
    "openid_connect_login": {"provider_id": "oidc"},
    "openid_connect_callback": {"provider_id": "oidc"},
}


def _walk(patterns, prefix=""):
    for entry in patterns:
        if isinstance(entry, URLResolver):
            namespace = f"{prefix}{entry.namespace}:" if entry.namespace else prefix
            if entry.namespace == "admin":
                continue  # Django's own admin: staff only, covered in test_admin_is_staff_only
            if entry.namespace == "api":
                continue  # token-authenticated: its own matrix is tests/api/test_api_matrix.py
            yield from _walk(entry.url_patterns, namespace)
        elif isinstance(entry, URLPattern) and entry.name:
            yield f"{prefix}{entry.name}", entry


ALL_URLS = dict(_walk(get_resolver().url_patterns))
TEAM_URLS = {name: p for name, p in ALL_URLS.items() if hasattr(p.callback, "team_view")}


def test_every_view_is_declared():
    undeclared = sorted(set(ALL_URLS) - set(TEAM_URLS) - set(UNSCOPED))
    assert not undeclared, (
        f"views without @team_view (add it, or list them in UNSCOPED): {undeclared}"
    )


def _kwargs_for(pattern, world, kind="viewer", name=""):
    from scoring.models import Assignment

    # Scoring pages work on the collected experiment; a scorer's pages on their own assignment
    # (for a visitor outside the team, on the viewer's: they must not reach it).
    holder = (
        world.users[kind]
        if kind in {"viewer", "scorer", "editor", "owner"}
        else world.users["viewer"]
    )
    assignment, _ = Assignment.objects.get_or_create(experiment=world.scored, user=holder)
    invitation = world.team.invitations.filter(accepted=None, revoked=None).first()
    if invitation is None:
        invitation = invitation_create(
            team=world.team, by=world.users["owner"], invitee="new@example.org", role="viewer"
        ).invitation
    values = {
        "team_slug": world.team.slug,
        "bank_pk": world.bank.pk,
        "block_pk": world.blocks[0].pk,
        "item_pk": world.items[0].pk,
        "member_pk": Membership.objects.get(team=world.team, user=world.users["viewer"]).pk,
        "invitation_pk": invitation.pk,
        "prompt_pk": world.prompt.pk,
        "config_pk": world.config.pk,
        "experiment_pk": world.experiment.pk,
        "run_pk": world.runs[0].pk,
        "assignment_token": assignment.token,
        "position": 1,
        "what": "responses",
        "fmt": "csv",
    }
    if name.startswith("scoring:"):
        values["experiment_pk"] = world.scored.pk
    names = pattern.pattern.converters.keys()
    if "comment_pk" in names or "response_pk" in names:
        values.update(_discussion_kwargs(world, holder, assignment, name))
    missing = set(names) - set(values)
    assert not missing, f"the matrix does not know how to fill {missing}: add them to _kwargs_for"
    return {name: values[name] for name in names}


def _discussion_kwargs(world, holder, assignment, name) -> dict:
    """A comment of the holder's own (so that editing it is theirs to do). Response comments
    answer 404 to anyone still blind (tests/discussion covers it): here the holder has revealed,
    so that the matrix checks the roles."""
    from django.utils import timezone

    from probe.models import KeyEntryComment, Response
    from scoring.models import ResponseComment

    response = Response.objects.filter(run__experiment=world.scored).order_by("pk").first()
    if name.startswith("scoring:"):
        assignment.revealed_at = timezone.now()
        assignment.save(update_fields=["revealed_at"])
        comment = ResponseComment.objects.create(
            response=response, experiment=world.scored, author=holder, text="a remark"
        )
    else:
        comment = KeyEntryComment.objects.create(
            item=world.items[0], author=holder, text="a remark", written_blind=True
        )
    return {"comment_pk": comment.pk, "response_pk": response.pk}


def _expected(kind: str, needed: str | None, method: str = "GET") -> set[int]:
    if kind == "anonymous":
        return {302}
    if needed is None:
        return {405}
    if kind == "outsider":
        return {404}
    if ROLE_RANK[Role(kind)] < ROLE_RANK[Role(needed)]:
        return {403}
    # A POST with no data may be refused as bad input (400), never as forbidden or missing; a
    # POST that only records (the page saying which item it shows) answers 204.
    return {200, 204, 302, 400} if method == "POST" else {200, 302}


@pytest.mark.parametrize("method", ["GET", "POST"])
@pytest.mark.parametrize("kind", USER_KINDS)
@pytest.mark.parametrize("name", sorted(TEAM_URLS))
def test_matrix(client, world, name, kind, method):
    pattern = TEAM_URLS[name]
    url = reverse(name, kwargs=_kwargs_for(pattern, world, kind, name))
    if kind != "anonymous":
        client.force_login(world.users[kind])
    response = client.get(url) if method == "GET" else client.post(url, {})
    needed = pattern.callback.team_view[method]
    expected = _expected(kind, needed, method)
    assert response.status_code in expected, (
        f"{method} {url} as {kind}: {response.status_code}, expected {sorted(expected)}"
    )
    if kind == "anonymous":
        assert response["Location"].startswith(reverse("login"))
    body = response.content.decode("utf-8", "replace")
    if kind != "outsider":
        for text in OTHER_TEAM_TEXT:
            assert text not in body, f"{method} {url} as {kind} shows {text!r}"
    if kind in {"anonymous", "outsider", "viewer", "scorer"}:
        for answer in KEY_ANSWERS:
            assert answer not in body, f"{method} {url} as {kind} shows the key {answer!r}"


@pytest.mark.parametrize("kind", [k for k in USER_KINDS if k != "anonymous"])
def test_other_teams_objects_are_404_for_every_scope(client, world, kind):
    """Reaching the other team's objects by id: 404 for everyone here, never 403.

    (Anonymous visitors never get that far: test_matrix shows they are sent to login.)"""
    client.force_login(world.users[kind])
    other_item = world.other_bank.blocks.get().items.get()
    urls = [
        reverse("probe:team_home", kwargs={"team_slug": world.other_team.slug}),
        reverse("probe:bank_detail", kwargs={"bank_pk": world.other_bank.pk}),
        reverse("probe:bank_export", kwargs={"bank_pk": world.other_bank.pk}) + "?format=json",
        reverse("probe:item_edit", kwargs={"item_pk": other_item.pk}),
        reverse("probe:item_detail", kwargs={"item_pk": other_item.pk}),
        reverse("probe:block_edit", kwargs={"block_pk": other_item.block_id}),
    ]
    for url in urls:
        response = client.get(url)
        if kind == "outsider":  # the other team's own owner reaches them
            assert response.status_code == 200, url
        else:
            assert response.status_code == 404, url
            assert b"Rival" not in response.content


@pytest.mark.parametrize("name,expected", sorted(UNSCOPED.items()))
def test_unscoped_views_for_anonymous(client, db, name, expected):
    response = client.get(reverse(name, kwargs=UNSCOPED_KWARGS.get(name)))
    assert response.status_code == expected
    if name == "home":
        assert response["Location"].startswith(reverse("login"))
    if name == "healthz":
        assert response.content == b"ok"


def test_home_redirects_a_member_to_their_team(client, world):
    client.force_login(world.users["scorer"])
    response = client.get(reverse("home"))
    assert response.status_code == 302
    assert response["Location"] == reverse("probe:team_home", kwargs={"team_slug": "acme"})


def test_admin_is_staff_only(client, world):
    client.force_login(world.users["owner"])
    response = client.get("/admin/")
    assert response.status_code == 302 and "/admin/login/" in response["Location"]
    world.users["owner"].is_staff = True
    world.users["owner"].is_superuser = True
    world.users["owner"].save()
    client.force_login(world.users["owner"])
    assert client.get("/admin/probe/bank/").status_code == 200


def test_htmx_request_without_session_is_sent_to_login(client, world):
    response = client.get(
        reverse("probe:bank_detail", kwargs={"bank_pk": world.bank.pk}), HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 401
    assert response["HX-Redirect"].startswith(reverse("login"))
