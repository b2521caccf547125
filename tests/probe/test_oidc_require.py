"""Requiring the identity provider for a team cannot lock its owner out: an owner whose own
account could not sign in through it is refused with the reason, and the Members page lists
the members who would lose access."""

import pytest
from allauth.socialaccount.models import SocialAccount
from django.urls import reverse

pytestmark = pytest.mark.django_db


@pytest.fixture
def oidc(settings):
    settings.OIDC_ISSUER_URL = "https://idp.example.org"
    settings.OIDC_CLIENT_ID = "blind-probe"
    settings.OIDC_PROVIDER_NAME = "Test IdP"
    settings.OIDC_ALLOWED_DOMAINS = ["example.org"]


def require(client, world):
    return client.post(
        reverse("probe:team_sign_in", kwargs={"team_slug": world.team.slug}),
        {"require_oidc": "on"},
        follow=True,
    )


def test_an_owner_outside_the_allowed_domains_cannot_require_the_provider(client, world, oidc):
    owner = world.member("owner")
    owner.email = "owner@elsewhere.test"
    owner.save()
    client.force_login(owner)
    page = require(client, world)
    world.team.refresh_from_db()
    assert not world.team.require_oidc
    assert b"Accounts of elsewhere.test cannot sign in through Test IdP here" in page.content
    assert b"would lock you out" in page.content


def test_an_owner_with_no_linked_account_cannot_require_it_until_linked(client, world, oidc):
    owner = world.member("owner")
    owner.email = "owner@example.org"
    owner.save()
    client.force_login(owner)
    page = require(client, world)
    world.team.refresh_from_db()
    assert not world.team.require_oidc
    assert b"Your account is not linked to Test IdP yet" in page.content
    SocialAccount.objects.create(user=owner, provider="oidc", uid="owner-1")
    page = require(client, world)
    world.team.refresh_from_db()
    assert world.team.require_oidc
    assert b"Members now sign in only through Test IdP." in page.content


def test_the_members_page_lists_who_would_lose_access(client, world, oidc):
    owner, scorer = world.member("owner"), world.member("scorer")
    owner.email, scorer.email = "owner@example.org", "scorer@elsewhere.test"
    owner.save()
    scorer.save()
    client.force_login(owner)
    page = client.get(reverse("probe:member_list", kwargs={"team_slug": world.team.slug}))
    text = page.content.decode()
    block = text[text.index('id="require-oidc-locked-out"') :]
    block = block[: block.index("</div>")]
    assert "would lose access" in block
    assert scorer.username in block and "scorer@elsewhere.test" in block
    assert owner.username not in block
