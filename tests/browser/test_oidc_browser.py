"""In Chromium, through a real OpenID Connect issuer on a loopback port (tests/oidc_issuer.py):
an invitee signs in with the provider and lands in the team; an address of a refused domain and
an expired invitation end on a page saying why, and make no account; an owner requires the
provider, after which a member's local password is refused with a message while staff still
log in locally."""

from datetime import timedelta
from pathlib import Path

import pytest
from allauth.socialaccount.models import SocialAccount
from django.contrib.auth import get_user_model
from django.utils import timezone
from playwright.sync_api import expect

from config.settings import csp_allow_issuer, oidc_providers
from probe.models import Invitation, Membership
from probe.services import teams as team_services
from tests.browser.session import forget_session
from tests.oidc_issuer import CLIENT_ID, CLIENT_SECRET, Issuer
from tests.probe import factories

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
PASSWORD = "correct horse battery staple"


@pytest.fixture(scope="module")
def issuer():
    server = Issuer()
    yield server
    server.close()


@pytest.fixture
def oidc(settings, issuer):
    settings.OIDC_ISSUER_URL = issuer.url
    settings.OIDC_CLIENT_ID = CLIENT_ID
    settings.OIDC_CLIENT_SECRET = CLIENT_SECRET
    settings.OIDC_PROVIDER_NAME = "Test IdP"
    settings.OIDC_ALLOWED_DOMAINS = ["example.org"]
    settings.SOCIALACCOUNT_PROVIDERS = oidc_providers(
        issuer.url, CLIENT_ID, CLIENT_SECRET, "Test IdP"
    )
    settings.CONTENT_SECURITY_POLICY = csp_allow_issuer(
        settings.CONTENT_SECURITY_POLICY, issuer.url
    )
    return issuer


def sign_in_with_provider(page, base, email):
    page.goto(base + "/accounts/login/")
    page.get_by_role("button", name="Sign in with Test IdP").click()
    expect(page.get_by_role("heading", name="Test identity provider")).to_be_visible()
    page.get_by_label("E-mail").fill(email)
    page.get_by_role("button", name="Sign in at the provider").click()


def invite(world, email, role="scorer"):
    return team_services.invitation_create(
        team=world.team, by=world.member("owner"), invitee=email, role=role
    ).invitation


def test_an_invitee_signs_in_with_the_provider_and_lands_in_the_team(
    live_server, page, world, oidc
):
    ARTIFACTS.mkdir(exist_ok=True)
    invitation = invite(world, "newcomer@example.org", role="editor")
    sign_in_with_provider(page, live_server.url, "Newcomer@example.org")

    expect(page).to_have_url(live_server.url + world.team.get_absolute_url())
    expect(page.get_by_role("heading", name="Acme probes")).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "oidc_landed_in_team.png"), full_page=True)
    user = get_user_model().objects.get(email__iexact="newcomer@example.org")
    assert not user.has_usable_password()
    assert Membership.objects.get(team=world.team, user=user).role == "editor"
    invitation.refresh_from_db()
    assert invitation.accepted_by == user
    assert SocialAccount.objects.filter(user=user, provider="oidc").count() == 1
    # The application fetched the issuer's endpoints itself, over HTTP.
    assert {"/.well-known/openid-configuration", "/token"} <= set(oidc.requests)

    # A second sign-in is the same account, not a new one.
    forget_session(page)
    sign_in_with_provider(page, live_server.url, "newcomer@example.org")
    expect(page.get_by_role("heading", name="Acme probes")).to_be_visible()
    assert get_user_model().objects.filter(email__iexact="newcomer@example.org").count() == 1


def test_a_refused_domain_and_an_expired_invitation_say_why_and_make_no_account(
    live_server, page, world, oidc
):
    ARTIFACTS.mkdir(exist_ok=True)
    invite(world, "someone@elsewhere.com")
    sign_in_with_provider(page, live_server.url, "someone@elsewhere.com")
    expect(page.get_by_role("heading", name="Sign-in refused")).to_be_visible()
    expect(page.get_by_role("alert")).to_contain_text("Accounts of elsewhere.com cannot sign in")
    page.screenshot(path=str(ARTIFACTS / "oidc_refused_domain.png"), full_page=True)

    late = invite(world, "late@example.org")
    Invitation.objects.filter(pk=late.pk).update(expires=timezone.now() - timedelta(minutes=1))
    sign_in_with_provider(page, live_server.url, "late@example.org")
    expect(page.get_by_role("alert")).to_contain_text("Your invitation to Acme probes has expired")

    sign_in_with_provider(page, live_server.url, "nobody@example.org")
    expect(page.get_by_role("alert")).to_contain_text("There is no invitation for")

    users = get_user_model().objects
    for email in ("someone@elsewhere.com", "late@example.org", "nobody@example.org"):
        assert not users.filter(email__iexact=email).exists(), email
    assert not SocialAccount.objects.exists()
    page.get_by_role("link", name="Back to the login page").click()
    expect(page.get_by_role("button", name="Log in")).to_be_visible()


def test_an_owner_requires_the_provider_and_local_passwords_are_refused(
    live_server, page, world, oidc
):
    base = live_server.url
    scorer = world.member("scorer")
    scorer.email = "scorer@example.org"
    scorer.save()
    staff = factories.UserFactory(username="acme-staff", is_staff=True, email="ops@example.org")
    factories.MembershipFactory(team=world.team, user=staff, role="owner")
    # The owner's own account is linked to the provider: requiring it does not lock them out.
    owner = world.member("owner")
    owner.email = "owner@example.org"
    owner.save()
    SocialAccount.objects.create(user=owner, provider="oidc", uid="owner-at-the-provider")

    page.goto(base + "/accounts/login/")
    page.get_by_label("Username").fill("acme-owner")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.get_by_role("link", name="Members").click()
    page.get_by_label("Require sign-in with Test IdP").check()
    page.locator("#sign-in-heading + p + form").get_by_role("button", name="Save").click()
    expect(page.get_by_text("Members now sign in only through Test IdP.")).to_be_visible()
    world.team.refresh_from_db()
    assert world.team.require_oidc

    forget_session(page)
    page.goto(base + "/accounts/login/")
    page.get_by_label("Username").fill("acme-scorer")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("alert")).to_contain_text("Acme probes requires signing in through")
    page.screenshot(path=str(ARTIFACTS / "oidc_required_refusal.png"), full_page=True)

    # The same member through the provider: their account is linked by its address.
    sign_in_with_provider(page, base, "scorer@example.org")
    expect(page.get_by_role("heading", name="Acme probes")).to_be_visible()
    assert SocialAccount.objects.filter(provider="oidc", user=scorer).exists()

    # Staff log in locally, and never through the provider.
    forget_session(page)
    sign_in_with_provider(page, base, "ops@example.org")
    expect(page.get_by_role("alert")).to_contain_text("Staff and administrator accounts log in")
    page.goto(base + "/accounts/login/")
    page.get_by_label("Username").fill("acme-staff")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("heading", name="Acme probes")).to_be_visible()
