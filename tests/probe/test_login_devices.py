"""A known device: the browser a member logged in from keeps them able to log in there, whatever
others guess from their address or from many addresses; its own guesses are still paused."""

import pytest
from django.core import signing
from django.test import Client

from probe import login_devices
from tests.probe.test_login_lockout import HOME, PASSWORD, _login

OFFICE = "198.51.100.20"  # one outgoing address shared by the victim and an attacker


@pytest.fixture
def own_browser(world):
    """acme-scorer's own browser: they logged in from it at the office, then logged out."""
    browser = Client()
    response = _login(browser, "acme-scorer", PASSWORD, OFFICE)
    assert response.status_code == 302
    assert login_devices.COOKIE in response.cookies
    browser.post("/accounts/logout/")
    return browser


def test_someone_on_the_same_address_cannot_keep_the_member_out_of_their_own_browser(
    world, own_browser
):
    attacker = Client()
    for _ in range(12):
        _login(attacker, "acme-scorer", "wrong guess", OFFICE)
    assert _login(attacker, "acme-scorer", PASSWORD, OFFICE).status_code == 429  # paused there
    assert _login(own_browser, "acme-scorer", PASSWORD, OFFICE).status_code == 302


def test_a_spread_of_addresses_cannot_keep_the_member_out_of_a_new_network(world, own_browser):
    for n in range(45):
        _login(Client(), "acme-scorer", "wrong guess", f"10.4.{n // 200}.{n % 200 + 1}")
    assert _login(Client(), "acme-scorer", PASSWORD, "192.0.2.77").status_code == 429
    # The member, travelling with their own browser:
    assert _login(own_browser, "acme-scorer", PASSWORD, "192.0.2.77").status_code == 302


def test_guesses_from_a_known_device_are_still_paused(world, own_browser, settings):
    for _ in range(settings.LOGIN_FAILURE_LIMIT - 1):
        assert _login(own_browser, "acme-scorer", "wrong guess", HOME).status_code == 200
    _login(own_browser, "acme-scorer", "wrong guess", HOME)  # the one that starts the pause
    assert _login(own_browser, "acme-scorer", PASSWORD, HOME).status_code == 429


@pytest.mark.parametrize("kind", ["another user's", "tampered"])
def test_only_the_users_own_untampered_cookie_counts(world, kind):
    browser = Client()
    if kind == "another user's":
        token = login_devices.device_token("acme-editor")
    else:
        token = login_devices.device_token("acme-scorer")[:-3] + "xyz"
        with pytest.raises(signing.BadSignature):
            signing.loads(token, salt=login_devices.SALT)
    browser.cookies[login_devices.COOKIE] = token
    for _ in range(8):
        _login(Client(), "acme-scorer", "wrong guess", OFFICE)
    assert _login(browser, "acme-scorer", PASSWORD, OFFICE).status_code == 429
