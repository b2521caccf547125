"""In Chromium: an owner invites a newcomer, who creates an account from the link and lands in
the team; a withdrawn link stops working; twenty wrong passwords end on the lockout page."""

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from probe.models import Membership

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
PASSWORD = "correct horse battery staple"


def log_in(page, base, username, password=PASSWORD):
    page.goto(base + "/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Log in").click()


def test_invite_by_email_create_the_account_and_withdraw_another(live_server, page, world):
    ARTIFACTS.mkdir(exist_ok=True)
    base = live_server.url
    log_in(page, base, "acme-owner")
    page.get_by_role("link", name="Members").click()
    page.get_by_label("E-mail address or username").fill("newcomer@example.org")
    page.locator("#id_role").select_option("editor")
    page.get_by_role("button", name="Create invitation").click()
    expect(page.get_by_role("heading", name="Invitation link")).to_be_visible()
    link = page.locator("#issued-link").inner_text()
    assert link.startswith(base + "/invitations/")
    page.screenshot(path=str(ARTIFACTS / "invitation_link.png"), full_page=True)

    # A second invitation, which the owner then withdraws (the confirm dialog is accepted).
    page.get_by_role("link", name="Back to the members").click()
    page.get_by_label("E-mail address or username").fill("mistake@example.org")
    page.get_by_role("button", name="Create invitation").click()
    withdrawn = page.locator("#issued-link").inner_text()
    page.get_by_role("link", name="Back to the members").click()
    pending = page.locator("#invitations")
    expect(pending).to_contain_text("newcomer@example.org")
    expect(pending).to_contain_text("mistake@example.org")
    page.screenshot(path=str(ARTIFACTS / "members_invitations.png"), full_page=True)
    page.once("dialog", lambda dialog: dialog.accept())
    pending.locator("tr", has_text="mistake@example.org").get_by_role(
        "button", name="Withdraw"
    ).click()
    expect(page.get_by_text("The invitation to mistake@example.org is withdrawn.")).to_be_visible()
    expect(page.locator("#invitations")).not_to_contain_text("mistake@example.org")

    # The owner's nerve fails once: dismissing the dialog keeps the invitation.
    page.once("dialog", lambda dialog: dialog.dismiss())
    page.locator("#invitations tr", has_text="newcomer@example.org").get_by_role(
        "button", name="Withdraw"
    ).click()
    expect(page.locator("#invitations")).to_contain_text("newcomer@example.org")

    page.get_by_role("button", name="Log out").click()
    page.goto(withdrawn)
    expect(page.get_by_role("alert")).to_contain_text("not valid")

    page.goto(link)
    expect(page.get_by_role("heading", name="Join Acme probes")).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "invitation_accept.png"), full_page=True)
    page.get_by_label("Username").fill("newcomer")
    page.get_by_label("Password", exact=True).fill("a long enough passphrase")
    page.get_by_label("Password confirmation").fill("a long enough passphrase")
    page.get_by_role("button", name="Create account and join").click()
    expect(page).to_have_url(re.compile(r"/t/acme/$"))
    expect(page.get_by_text("Your account is ready. Welcome to Acme probes.")).to_be_visible()
    membership = Membership.objects.get(team=world.team, user__username="newcomer")
    assert membership.role == "editor"

    # Used once: the same link now says so, even to its new member.
    page.goto(link)
    expect(page.get_by_role("alert")).to_contain_text("already been used")


def test_an_invited_colleague_accepts_while_logged_in(live_server, page, world):
    from tests.probe import factories

    colleague = factories.UserFactory(username="colleague")
    factories.MembershipFactory(team=world.other_team, user=colleague)
    factories.MembershipFactory(team=world.other_team, user=world.users["owner"])
    base = live_server.url
    log_in(page, base, "acme-owner")
    page.goto(base + "/t/acme/members/")
    page.get_by_label("E-mail address or username").fill("colleague")
    page.get_by_role("button", name="Create invitation").click()
    link = page.locator("#issued-link").inner_text()
    page.get_by_role("button", name="Log out").click()

    # Logged out, the link asks for a login and comes back to itself.
    page.goto(link)
    expect(page.get_by_role("button", name="Create account and join")).to_have_count(0)
    page.get_by_role("link", name="Log in to accept").click()
    page.get_by_label("Username").fill("colleague")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.get_by_role("button", name="Accept the invitation").click()
    expect(page.get_by_text("Welcome to Acme probes.")).to_be_visible()
    assert Membership.objects.filter(team=world.team, user=colleague, role="scorer").exists()


def test_twenty_wrong_passwords_end_on_the_lockout_page(live_server, page, world):
    ARTIFACTS.mkdir(exist_ok=True)
    base = live_server.url
    for n in range(20):
        log_in(page, base, "acme-viewer", f"wrong-{n}")
        if page.get_by_role("heading", name="Too many failed logins").count():
            break
    assert n == 4  # the fifth wrong password is the last one tried
    expect(page.get_by_role("alert")).to_contain_text("Try again in 1 minute")
    page.screenshot(path=str(ARTIFACTS / "login_locked.png"), full_page=True)
    log_in(page, base, "acme-viewer")
    expect(page.get_by_role("heading", name="Too many failed logins")).to_be_visible()


def test_an_owner_hands_over_a_reset_link_and_the_member_sets_a_new_password(
    live_server, page, world
):
    ARTIFACTS.mkdir(exist_ok=True)
    base = live_server.url
    log_in(page, base, "acme-owner")
    page.goto(base + "/t/acme/members/")
    page.locator("#members tr", has_text="acme-scorer").get_by_role(
        "button", name="Password-reset link"
    ).click()
    expect(page.get_by_role("heading", name="Password-reset link")).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "reset_link.png"), full_page=True)
    link = page.locator("#issued-link").inner_text()
    page.get_by_role("button", name="Log out").click()

    page.goto(link)
    expect(page.get_by_text("For the account acme-scorer.")).to_be_visible()
    page.get_by_label("New password", exact=True).fill("a fresh passphrase 2026")
    page.get_by_label("New password confirmation").fill("a fresh passphrase 2026")
    page.get_by_role("button", name="Set password").click()
    expect(page.get_by_text("Your new password is set. Log in with it.")).to_be_visible()
    log_in(page, base, "acme-scorer", "a fresh passphrase 2026")
    expect(page).to_have_url(re.compile(r"/t/acme/$"))

    # The member changes it again themselves, from their name in the top bar.
    page.get_by_role("link", name="acme-scorer").click()
    expect(page.get_by_role("heading", name="Change your password")).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "password_change.png"), full_page=True)
    page.get_by_label("Old password").fill("a fresh passphrase 2026")
    page.get_by_label("New password", exact=True).fill("another passphrase 2027")
    page.get_by_label("New password confirmation").fill("another passphrase 2027")
    page.get_by_role("button", name="Change password").click()
    expect(page.get_by_text("Your password has been changed.")).to_be_visible()

    page.goto(link)  # used once: the link is dead
    expect(page.get_by_role("alert")).to_contain_text("This link no longer works")
