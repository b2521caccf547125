"""Accounts: login throttling, password change and reset links, invitations."""

import re
import time
from datetime import timedelta

import pytest
from django.core import mail
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils import timezone

from probe.middleware import SESSION_TIME_ZONE_KEY
from probe.models import AuditEvent, Invitation, Membership, UserPreference
from probe.services import teams as team_services
from tests.probe import factories

PASSWORD = "correct horse battery staple"
LOGIN = "/accounts/login/"


def _without_csrf(body: str) -> str:
    # The masked CSRF token differs on every response.
    return re.sub(r'"X-CSRFToken": "[^"]*"|name="csrfmiddlewaretoken" value="[^"]*"', "", body)


def _login(client, username, password, ip="127.0.0.1"):
    return client.post(LOGIN, {"username": username, "password": password}, REMOTE_ADDR=ip)


# Throttling (tests/probe/test_login_lockout.py has the lockout itself) ------------------


def test_the_proxy_address_is_not_taken_for_the_client(client, world, settings):
    """Behind one proxy the client's address is the last X-Forwarded-For entry; what the client
    wrote to the left of it cannot move it out of its lockout."""
    settings.TRUSTED_PROXY_COUNT = 1
    for n in range(settings.LOGIN_ADDRESS_FAILURE_LIMIT):
        client.post(
            LOGIN,
            {"username": f"nobody-{n}", "password": "x"},
            REMOTE_ADDR="10.0.0.2",
            HTTP_X_FORWARDED_FOR=f"192.0.2.{n}, 203.0.113.50",
        )
    response = client.post(
        LOGIN,
        {"username": "acme-viewer", "password": PASSWORD},
        REMOTE_ADDR="10.0.0.2",
        HTTP_X_FORWARDED_FOR="192.0.2.200, 203.0.113.50",
    )
    assert response.status_code == 429
    response = client.post(
        LOGIN,
        {"username": "acme-viewer", "password": PASSWORD},
        REMOTE_ADDR="10.0.0.2",
        HTTP_X_FORWARDED_FOR="203.0.113.51",
    )
    assert response.status_code == 302


# Password change and reset -----------------------------------------------------------------


def test_every_member_changes_their_own_password(client, world):
    client.force_login(world.users["scorer"])
    url = reverse("password_change")
    wrong = client.post(url, {"old_password": "nope", "new_password1": "x", "new_password2": "x"})
    assert wrong.status_code == 200 and "incorrectly" in wrong.content.decode()
    response = client.post(
        url,
        {
            "old_password": PASSWORD,
            "new_password1": "a much longer passphrase 42",
            "new_password2": "a much longer passphrase 42",
        },
        follow=True,
    )
    assert "Your password has been changed" in response.content.decode()
    client.logout()
    assert _login(client, "acme-scorer", "a much longer passphrase 42").status_code == 302


def _reset_link(client, world, member="scorer"):
    client.force_login(world.users["owner"])
    membership = Membership.objects.get(team=world.team, user=world.users[member])
    response = client.post(reverse("probe:member_reset_link", kwargs={"member_pk": membership.pk}))
    assert response.status_code == 200
    assert "no-store" in response["Cache-Control"]
    return re.search(r'<code id="issued-link">([^<]+)</code>', response.content.decode())[1]


def test_an_owner_hands_over_a_one_time_reset_link_that_lifts_a_lockout(client, world):
    for n in range(6):
        _login(client, "acme-scorer", f"guess-{n}")
    assert _login(client, "acme-scorer", PASSWORD).status_code == 429
    url = _reset_link(client, world)
    client.logout()
    path = url.split("testserver", 1)[1]
    form = client.get(path, follow=True)
    assert "For the account acme-scorer" in form.content.decode()
    new = "a brand new passphrase 7"
    done = client.post(
        form.redirect_chain[-1][0], {"new_password1": new, "new_password2": new}, follow=True
    )
    assert "Your new password is set" in done.content.decode()
    assert _login(client, "acme-scorer", new).status_code == 302
    client.logout()
    # Used once, the link no longer works.
    again = client.get(path, follow=True)
    assert "This link no longer works" in again.content.decode()
    assert AuditEvent.objects.filter(team=world.team, subject="password reset").count() == 1


def test_no_reset_link_for_staff_or_someone_in_a_team_the_owner_does_not_own(client, world):
    client.force_login(world.users["owner"])
    factories.MembershipFactory(team=world.other_team, user=world.users["editor"], role="viewer")
    admin = factories.UserFactory(username="site-admin", is_staff=True, is_superuser=True)
    factories.MembershipFactory(team=world.team, user=admin, role="viewer")
    for user, message in [
        (world.users["editor"], "also a member of a team you do not own"),
        (admin, "reset by an administrator"),
    ]:
        membership = Membership.objects.get(team=world.team, user=user)
        response = client.post(
            reverse("probe:member_reset_link", kwargs={"member_pk": membership.pk}), follow=True
        )
        body = response.content.decode()
        assert message in body and "issued-link" not in body


def test_without_mail_the_reset_page_says_ask_an_owner(client, db):
    response = client.post(reverse("password_reset"), {"email": "someone@example.org"})
    assert "Ask an owner of your team" in response.content.decode()
    assert mail.outbox == []


def test_with_mail_the_reset_page_mails_a_link_and_says_the_same_for_unknown_addresses(
    client, world, settings
):
    settings.EMAIL_ENABLED = True
    world.users["viewer"].email = "viewer@example.org"
    world.users["viewer"].save()
    known = client.post(reverse("password_reset"), {"email": "viewer@example.org"}, follow=True)
    unknown = client.post(reverse("password_reset"), {"email": "ghost@example.org"}, follow=True)
    assert _without_csrf(known.content.decode()) == _without_csrf(unknown.content.decode())
    assert len(mail.outbox) == 1 and mail.outbox[0].to == ["viewer@example.org"]
    assert "/accounts/reset/" in mail.outbox[0].body


# Invitations -------------------------------------------------------------------------------


def _invite(client, world, invitee, role="scorer"):
    client.force_login(world.users["owner"])
    return client.post(
        reverse("probe:member_list", kwargs={"team_slug": "acme"}),
        {"invitee": invitee, "role": role},
    )


def _link(response) -> str:
    url = re.search(r'<code id="issued-link">([^<]+)</code>', response.content.decode())[1]
    return url.split("testserver", 1)[1]


@pytest.mark.parametrize("language", ["en", "ja"])
def test_the_issued_link_says_until_when_in_the_users_zone_alone(client, world, language):
    client.force_login(world.users["owner"])
    session = client.session
    session[SESSION_TIME_ZONE_KEY] = ["Asia/Tokyo", int(time.time())]
    session.save()
    response = client.post(
        reverse("probe:member_list", kwargs={"team_slug": "acme"}),
        {"invitee": "zone@example.org", "role": "scorer"},
        HTTP_ACCEPT_LANGUAGE=language,
    )
    body = re.sub(r"\s+", " ", response.content.decode())
    sentence = re.search(r"<p>[^<]*<time[^>]*>[^<]*</time>[^<]*</p>", body)[0]
    assert {"en": "until", "ja": "まで"}[language] in sentence, sentence
    assert "JST" in sentence and "UTC" not in sentence, sentence


@pytest.mark.parametrize("invitee", ["nobody-at-all", "rival-owner", "site-admin"])
def test_the_reply_does_not_tell_whether_a_username_exists(client, world, invitee):
    factories.UserFactory(username="site-admin", is_staff=True, is_superuser=True)
    response = _invite(client, world, invitee)
    assert response.status_code == 422
    body = response.content.decode()
    assert "By username you can invite only someone who already shares one of your teams" in body
    assert not Invitation.objects.exists()
    assert not Membership.objects.filter(team=world.team, user__username=invitee).exists()


def test_replies_for_unknown_and_existing_usernames_are_the_same(client, world):
    bodies = [_invite(client, world, name).content.decode() for name in ("rival-owner", "zzz")]
    strip = [re.sub(r'value="[^"]*"', "", _without_csrf(b)) for b in bodies]
    assert strip[0] == strip[1]


def test_a_superuser_sharing_a_team_is_not_invitable(client, world):
    admin = factories.UserFactory(username="site-admin", is_staff=True, is_superuser=True)
    factories.MembershipFactory(team=world.other_team, user=admin, role="viewer")
    factories.MembershipFactory(team=world.other_team, user=world.users["owner"], role="viewer")
    response = _invite(client, world, "site-admin")
    assert response.status_code == 422 and not Invitation.objects.exists()


def test_invite_by_username_of_someone_sharing_a_team_and_accept_while_logged_in(client, world):
    colleague = factories.UserFactory(username="colleague")
    factories.MembershipFactory(team=world.other_team, user=colleague)
    factories.MembershipFactory(team=world.other_team, user=world.users["owner"])
    path = _link(_invite(client, world, "colleague", role="editor"))
    assert not Membership.objects.filter(team=world.team, user=colleague).exists()
    # Another logged-in account cannot use it.
    client.force_login(world.users["outsider"])
    refused = client.post(path, {"accept": "1"})
    assert refused.status_code == 410 and "for another account" in refused.content.decode()
    client.force_login(colleague)
    page = client.get(path)
    assert "Join Acme probes" in page.content.decode()
    assert "no-store" in page["Cache-Control"]
    joined = client.post(path, {"accept": "1"})
    assert joined.status_code == 302
    assert Membership.objects.get(team=world.team, user=colleague).role == "editor"
    again = client.post(path, {"accept": "1"})
    assert again.status_code == 410 and "already been used" in again.content.decode()


def test_invite_by_email_creates_an_account_and_is_one_time(client, world):
    response = _invite(client, world, "New.Person@Example.org", role="viewer")
    path = _link(response)
    assert mail.outbox == []  # no mail server configured: the owner hands the link over
    client.logout()
    page = client.get(path).content.decode()
    assert "Create account and join" in page and "Log in to accept" in page
    mismatch = client.post(
        path,
        {"signup": "1", "username": "newperson", "password1": "a" * 12, "password2": "b" * 12},
    )
    assert mismatch.status_code == 200 and "didn" in mismatch.content.decode()
    joined = client.post(
        path,
        {
            "signup": "1",
            "username": "newperson",
            "password1": "a long enough passphrase",
            "password2": "a long enough passphrase",
        },
    )
    assert joined.status_code == 302 and joined["Location"] == "/t/acme/"
    membership = Membership.objects.get(team=world.team, user__username="newperson")
    assert membership.role == "viewer" and membership.user.email == "new.person@example.org"
    assert not membership.user.is_staff
    client.logout()
    assert client.get(path).status_code == 410


@pytest.mark.parametrize("taken", ["acme-viewer", "ACME-Viewer"])
def test_a_taken_username_at_sign_up_says_what_to_do_and_keeps_the_invitation(client, world, taken):
    path = _link(_invite(client, world, "fresh@example.org"))
    client.logout()
    password = "a long enough passphrase"
    response = client.post(
        path, {"signup": "1", "username": taken, "password1": password, "password2": password}
    )
    assert response.status_code == 200
    body = response.content.decode()
    assert "This username is taken: choose another one." in body
    assert "log in to accept the invitation instead" in body
    assert "A user with that username already exists" not in body
    assert "acme-viewer@" not in body  # nothing about the account holding the name
    assert Invitation.objects.get(email="fresh@example.org").accepted is None
    assert _login(client, "acme-viewer", PASSWORD).status_code == 302  # its password untouched
    client.logout()
    joined = client.post(
        path, {"signup": "1", "username": "fresh", "password1": password, "password2": password}
    )
    assert joined.status_code == 302


def test_invitation_mail_is_sent_when_mail_is_configured(client, world, settings):
    settings.EMAIL_ENABLED = True
    response = _invite(client, world, "someone@example.org")
    assert "It has been sent to that address" in response.content.decode()
    assert mail.outbox[0].to == ["someone@example.org"]
    assert _link(response) in mail.outbox[0].body


def test_an_expired_or_withdrawn_link_does_nothing(client, world):
    expired = _link(_invite(client, world, "late@example.org"))
    Invitation.objects.filter(email="late@example.org").update(
        expires=timezone.now() - timedelta(minutes=1)
    )
    withdrawn = _link(_invite(client, world, "gone@example.org"))
    invitation = Invitation.objects.get(email="gone@example.org")
    members = reverse("probe:member_list", kwargs={"team_slug": "acme"})
    page = client.get(members).content.decode()
    assert "late@example.org" in page and "gone@example.org" in page and "expired" in page
    client.post(reverse("probe:invitation_revoke", kwargs={"invitation_pk": invitation.pk}))
    pending = client.get(members).content.decode().split("Pending invitations")[-1]
    assert "late@example.org" in pending and "gone@example.org" not in pending
    client.force_login(world.users["outsider"])
    for path, message in [(expired, "has expired"), (withdrawn, "not valid")]:
        response = client.post(path, {"accept": "1"})
        assert response.status_code == 410 and message in response.content.decode()
    assert not Membership.objects.filter(team=world.team, user=world.users["outsider"]).exists()


def test_inviting_again_replaces_the_pending_link(client, world):
    first = _link(_invite(client, world, "twice@example.org"))
    second = _link(_invite(client, world, "twice@example.org"))
    assert Invitation.objects.filter(email="twice@example.org", revoked=None).count() == 1
    client.logout()
    assert client.get(first).status_code == 410
    assert client.get(second).status_code == 200


def test_a_staff_account_cannot_accept_an_email_invitation(client, world):
    path = _link(_invite(client, world, "boss@example.org"))
    admin = factories.UserFactory(username="site-admin", is_staff=True)
    client.force_login(admin)
    response = client.post(path, {"accept": "1"})
    assert (
        response.status_code == 410
        and "Staff and administrator accounts" in response.content.decode()
    )
    assert not Membership.objects.filter(user=admin).exists()


def test_an_invitation_with_an_unknown_role_is_refused(world):
    with pytest.raises(ValidationError, match="Choose a role"):
        team_services.invitation_create(
            team=world.team, by=world.users["owner"], invitee="a@example.org", role="god"
        )


def test_a_member_opening_an_invitation_does_not_use_it_up(client, world):
    path = _link(_invite(client, world, "someone@example.org"))
    client.force_login(world.users["viewer"])
    response = client.post(path, {"accept": "1"})
    assert response.status_code == 410 and "already a member" in response.content.decode()
    assert Membership.objects.get(team=world.team, user=world.users["viewer"]).role == "viewer"
    client.force_login(world.users["outsider"])
    assert client.post(path, {"accept": "1"}).status_code == 302


def test_a_lockout_tried_from_many_addresses_is_one_audit_entry(client, world, settings):
    for n in range(settings.LOGIN_USERNAME_FAILURE_LIMIT + 5):
        _login(client, "acme-editor", f"guess-{n}", ip=f"203.0.113.{n % 40 + 1}")
    events = AuditEvent.objects.filter(team=world.team, action=AuditEvent.Action.LOGIN_LOCKED)
    assert events.count() == 1


def test_staff_see_invitations_in_the_admin_but_cannot_make_one_there(client, world):
    _invite(client, world, "listed@example.org")
    admin = factories.UserFactory(username="site-admin", is_staff=True, is_superuser=True)
    client.force_login(admin)
    assert "listed@example.org" in client.get("/admin/probe/invitation/").content.decode()
    assert client.get("/admin/probe/invitation/add/").status_code == 403


def test_a_first_sign_in_from_a_japanese_browser_keeps_japanese_as_the_users_language(
    client, world
):
    path = _link(_invite(client, world, "nihongo@example.org", role="viewer"))
    client.logout()
    password = "a long enough passphrase"
    joined = client.post(
        path,
        {"signup": "1", "username": "nihongo", "password1": password, "password2": password},
        HTTP_ACCEPT_LANGUAGE="ja,en;q=0.5",
    )
    assert joined.status_code == 302
    user = Membership.objects.get(team=world.team, user__username="nihongo").user
    assert UserPreference.objects.get(user=user).language == "ja"
    # The active language's button stays pressable: choosing it explicitly saves it.
    page = client.get("/t/acme/", HTTP_ACCEPT_LANGUAGE="ja")
    assert b'value="ja" lang="ja" aria-pressed="true">' in page.content
