"""The login lockout: no number of guesses gets past it, an account's own success clears nothing
of anyone else's, and nobody can keep another member out of their own address.

Counters live in PostgreSQL (probe.models.LoginAttempt); time is moved on by ageing the rows.
"""

import re
import threading
from datetime import timedelta

import pytest
from django.conf import settings
from django.core import mail
from django.db import connection
from django.db.models import F
from django.test import Client
from django.urls import reverse

from probe.models import AuditEvent, LoginAttempt, Membership, UserPreference
from probe.selectors.logins import login_pause, pause_delay
from tests.probe import factories

PASSWORD = "correct horse battery staple"
LOGIN = "/accounts/login/"
HOME = "203.0.113.10"  # the victim's own address, where they have logged in before


def _login(client, username, password, ip):
    return client.post(LOGIN, {"username": username, "password": password}, REMOTE_ADDR=ip)


def _checked(username="acme-scorer") -> int:
    """How many wrong passwords were actually checked for this username (refusals count none)."""
    return LoginAttempt.objects.filter(username=username, kind="failed").count()


def _age(seconds: float) -> None:
    """Move every counter `seconds` into the past: as if that much time went by."""
    LoginAttempt.objects.update(created=F("created") - timedelta(seconds=seconds))


@pytest.fixture
def victim(world):
    """acme-scorer, who has logged in from HOME before."""
    client = Client()
    assert _login(client, "acme-scorer", PASSWORD, HOME).status_code == 302
    return world.users["scorer"]


def test_an_attackers_own_logins_from_the_same_address_clear_nothing_of_the_victims(client, world):
    """The bypass: 40 guesses at the victim, each followed by the attacker's own successful
    login from the same address. Only LOGIN_FAILURE_LIMIT passwords are ever checked."""
    attacker = Client()
    statuses = []
    for n in range(40):
        statuses.append(_login(client, "acme-scorer", f"guess-{n}", "198.51.100.66").status_code)
        assert _login(attacker, "acme-editor", PASSWORD, "198.51.100.66").status_code == 302
        attacker.logout()
    limit = settings.LOGIN_FAILURE_LIMIT
    assert statuses[: limit - 1] == [200] * (limit - 1)
    assert set(statuses[limit - 1 :]) == {429}
    assert _checked() == limit
    # The victim's right password from that address is refused too: the pair is paused.
    assert _login(client, "acme-scorer", PASSWORD, "198.51.100.66").status_code == 429
    assert "_auth_user_id" not in client.session


def test_refused_attempts_neither_count_nor_extend_the_pause_and_each_pause_doubles(client, world):
    limit, ip = settings.LOGIN_FAILURE_LIMIT, "198.51.100.7"
    for n in range(limit):
        _login(client, "acme-scorer", f"guess-{n}", ip)
    pauses = []
    for round_ in range(4):
        first = login_pause(username="acme-scorer", ip_address=ip)
        for n in range(10):  # hammering during the pause
            assert _login(client, "acme-scorer", f"more-{round_}-{n}", ip).status_code == 429
        assert login_pause(username="acme-scorer", ip_address=ip).until == first.until
        assert _checked() == limit + round_
        pauses.append(first.seconds_left())
        _age(first.seconds_left() + 1)  # the pause runs out: one more guess is checked
        assert login_pause(username="acme-scorer", ip_address=ip) is None
        assert _login(client, "acme-scorer", f"after-{round_}", ip).status_code == 429
    base = settings.LOGIN_DELAY_SECONDS
    for n, seconds in enumerate(pauses):
        assert base * 2**n - 5 <= seconds <= base * 2**n
    # The delay grows to its ceiling and stays there.
    assert pause_delay(limit + 100, limit) == timedelta(minutes=settings.LOGIN_MAX_DELAY_MINUTES)


def test_a_right_password_waits_out_the_pause_and_then_logs_in(client, world):
    for n in range(settings.LOGIN_FAILURE_LIMIT):
        _login(client, "acme-scorer", f"guess-{n}", "198.51.100.7")
    assert _login(client, "acme-scorer", PASSWORD, "198.51.100.7").status_code == 429
    _age(settings.LOGIN_DELAY_SECONDS + 1)
    assert _login(client, "acme-scorer", PASSWORD, "198.51.100.7").status_code == 302


def test_hundreds_of_guesses_from_elsewhere_do_not_keep_the_victim_out_of_home(client, victim):
    """The weapon: before, five requests from anywhere locked any user out everywhere."""
    for n in range(200):
        _login(client, "acme-scorer", f"guess-{n}", "192.0.2.99")
    assert _checked() <= settings.LOGIN_FAILURE_LIMIT + 1
    assert _login(Client(), "acme-scorer", PASSWORD, HOME).status_code == 302
    # A first-time address is not paused by someone else's guesses either.
    assert _login(Client(), "acme-scorer", PASSWORD, "198.51.100.200").status_code == 302


def test_guesses_from_many_addresses_pause_the_username_with_a_bounded_growing_delay(
    client, victim
):
    """Many addresses (a botnet) can pause the username for new addresses, for a bounded,
    growing delay; the victim's own address is never paused by it."""
    per_address = settings.LOGIN_FAILURE_LIMIT
    addresses = [f"192.0.2.{n}" for n in range(1, 2 * settings.LOGIN_USERNAME_ADDRESSES + 1)]
    for ip in addresses:
        for n in range(per_address):
            _login(client, "acme-scorer", f"guess-{ip}-{n}", ip)
    # Twice the addresses it takes, yet the guesses stop once that many addresses have tried.
    needed = max(
        settings.LOGIN_USERNAME_FAILURE_LIMIT, settings.LOGIN_USERNAME_ADDRESSES * per_address
    )
    assert _checked() <= needed + 1
    # A new address is paused, for no longer than the ceiling.
    response = _login(Client(), "acme-scorer", PASSWORD, "198.51.100.201")
    assert response.status_code == 429
    minutes = int(re.search(r"Try again in (\d+) minute", response.content.decode())[1])
    assert 1 <= minutes <= settings.LOGIN_MAX_DELAY_MINUTES
    pause = login_pause(username="acme-scorer", ip_address="198.51.100.201")
    assert pause.scope == "username"
    assert pause.seconds_left() <= settings.LOGIN_DELAY_SECONDS * 2  # its first, short pause
    # Each further wrong password, from anywhere new, doubles it.
    _age(pause.seconds_left() + 1)
    _login(client, "acme-scorer", "one more", "192.0.2.250")
    second = login_pause(username="acme-scorer", ip_address="198.51.100.201")
    assert second.scope == "username"
    assert second.seconds_left() > pause.seconds_left() * 1.5
    # The victim's own address is not: they log in at once.
    assert _login(Client(), "acme-scorer", PASSWORD, HOME).status_code == 302
    # And once the delay has passed, so does a new address.
    _age(second.seconds_left() + 1)
    assert _login(Client(), "acme-scorer", PASSWORD, "198.51.100.201").status_code == 302


def test_one_address_guessing_many_usernames_is_paused_but_members_known_there_are_not(
    client, world
):
    """Spraying from an office address pauses that address for new logins; a colleague who
    has logged in there before still gets in."""
    office = "203.0.113.9"
    assert _login(Client(), "acme-viewer", PASSWORD, office).status_code == 302
    for n in range(settings.LOGIN_ADDRESS_FAILURE_LIMIT):
        _login(client, f"nobody-{n % 4}-{n}", "wrong", office)
    assert _login(client, "someone-else", "wrong", office).status_code == 429
    assert _login(Client(), "acme-editor", PASSWORD, office).status_code == 429
    assert _login(Client(), "acme-viewer", PASSWORD, office).status_code == 302
    assert _login(Client(), "acme-editor", PASSWORD, "198.51.100.7").status_code == 302


def test_case_variants_of_a_username_share_its_counter(client, world):
    for n, name in enumerate(["acme-scorer", "ACME-scorer", "Acme-Scorer", "acme-SCORER"] * 3):
        _login(client, name, f"guess-{n}", "198.51.100.7")
    assert _checked() == settings.LOGIN_FAILURE_LIMIT


@pytest.mark.django_db(transaction=True)
def test_concurrent_guesses_cannot_slip_in_under_the_limit(world):
    """Twenty guesses at once: each records itself before its check and counts those before
    it, so no more than the limit are ever checked."""
    barrier = threading.Barrier(20)
    statuses = []

    def guess(n):
        try:
            barrier.wait()
            statuses.append(
                _login(Client(), "acme-scorer", f"guess-{n}", "198.51.100.7").status_code
            )
        finally:
            connection.close()

    threads = [threading.Thread(target=guess, args=(n,)) for n in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(statuses) == 20
    assert _checked() <= settings.LOGIN_FAILURE_LIMIT
    assert statuses.count(200) <= settings.LOGIN_FAILURE_LIMIT - 1


def test_the_account_is_told_once_by_mail_in_its_own_language(client, world, settings):
    settings.EMAIL_ENABLED = True
    user = world.users["scorer"]
    user.email = "scorer@example.org"
    user.save()
    UserPreference.objects.create(user=user, language="ja")
    for n in range(settings.LOGIN_FAILURE_LIMIT + 3):
        _login(client, "acme-scorer", f"guess-{n}", "198.51.100.7")
    for n in range(settings.LOGIN_FAILURE_LIMIT):
        _login(client, "acme-scorer", f"other-{n}", "198.51.100.8")
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["scorer@example.org"]
    assert "一時停止" in message.subject
    assert "198.51.100.7" in message.body and "acme-scorer" in message.body
    assert "http://testserver/accounts/password/reset/" in message.body
    events = AuditEvent.objects.filter(team=world.team, action=AuditEvent.Action.LOGIN_LOCKED)
    assert events.count() == 1


def test_no_mail_without_a_mail_server_or_for_a_name_nobody_has(client, world, settings):
    world.users["scorer"].email = "scorer@example.org"
    world.users["scorer"].save()
    for n in range(settings.LOGIN_FAILURE_LIMIT):
        _login(client, "acme-scorer", f"guess-{n}", "198.51.100.7")
    settings.EMAIL_ENABLED = True
    for n in range(settings.LOGIN_FAILURE_LIMIT):
        _login(client, "no-such-user", f"guess-{n}", "198.51.100.7")
    assert mail.outbox == []


def test_the_owners_reset_link_lifts_the_pause_everywhere(client, world):
    for ip in [f"192.0.2.{n}" for n in range(1, 2 * settings.LOGIN_USERNAME_ADDRESSES + 1)]:
        for n in range(settings.LOGIN_FAILURE_LIMIT):
            _login(client, "acme-scorer", f"guess-{n}", ip)
    assert _login(client, "acme-scorer", PASSWORD, "192.0.2.1").status_code == 429
    assert _login(client, "acme-scorer", PASSWORD, "198.51.100.3").status_code == 429
    client.force_login(world.users["owner"])
    membership = Membership.objects.get(team=world.team, user=world.users["scorer"])
    issued = client.post(reverse("probe:member_reset_link", kwargs={"member_pk": membership.pk}))
    link = re.search(r'<code id="issued-link">([^<]+)</code>', issued.content.decode())[1]
    client.logout()
    form = client.get(link.split("testserver", 1)[1], follow=True)
    new = "a brand new passphrase 7"
    client.post(form.redirect_chain[-1][0], {"new_password1": new, "new_password2": new})
    assert _checked() == 0
    assert _login(Client(), "acme-scorer", new, "192.0.2.1").status_code == 302
    assert _login(Client(), "acme-scorer", new, "198.51.100.3").status_code == 302


def test_the_mailed_reset_link_lifts_the_pause(client, world, settings):
    settings.EMAIL_ENABLED = True
    world.users["scorer"].email = "scorer@example.org"
    world.users["scorer"].save()
    for n in range(settings.LOGIN_FAILURE_LIMIT):
        _login(client, "acme-scorer", f"guess-{n}", "198.51.100.7")
    assert _login(client, "acme-scorer", PASSWORD, "198.51.100.7").status_code == 429
    mail.outbox.clear()
    client.post(reverse("password_reset"), {"email": "scorer@example.org"})
    link = re.search(r"http://testserver(/accounts/reset/\S+)", mail.outbox[0].body)[1]
    form = client.get(link, follow=True)
    new = "a brand new passphrase 8"
    client.post(form.redirect_chain[-1][0], {"new_password1": new, "new_password2": new})
    assert _login(client, "acme-scorer", new, "198.51.100.7").status_code == 302


def test_the_admin_login_is_behind_the_same_lockout(client, world):
    factories.UserFactory(username="site-admin", is_staff=True, is_superuser=True)
    for n in range(settings.LOGIN_FAILURE_LIMIT + 5):
        client.post(
            "/admin/login/",
            {"username": "site-admin", "password": f"guess-{n}"},
            REMOTE_ADDR="198.51.100.7",
        )
    assert _checked("site-admin") == settings.LOGIN_FAILURE_LIMIT
    assert _login(client, "site-admin", PASSWORD, "198.51.100.7").status_code == 429


def test_odd_input_gets_the_login_page_not_an_error(client, world, settings):
    settings.TRUSTED_PROXY_COUNT = 1
    for username, password in [("acme\x00scorer", "x"), ("a" * 5000, "x"), ("acme-scorer", "\x00")]:
        assert _login(client, username, password, "198.51.100.7").status_code == 200
    response = client.post(
        LOGIN,
        {"username": "acme-scorer", "password": "wrong"},
        REMOTE_ADDR="10.0.0.2",
        HTTP_X_FORWARDED_FOR="x" * 500,
    )
    assert response.status_code == 200
    assert _login(client, "acme-scorer", PASSWORD, "198.51.100.7").status_code == 302
