"""Choosing the interface language: the browser's Accept-Language first, then the switcher, which
a signed-in user's account remembers on every browser; dates follow the language."""

import datetime
import json
import re

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import formats, timezone, translation

from probe.models import UserPreference

PASSWORD = "correct horse battery staple"


def _lang(response) -> str:
    return re.search(r'<html lang="([^"]+)"', response.content.decode()).group(1)


def _log_in(client, username, **headers):
    return client.post(
        reverse("login"), {"username": username, "password": PASSWORD}, follow=True, **headers
    )


@pytest.mark.django_db
def test_accept_language_picks_the_language_of_the_login_page(client):
    page = client.get(reverse("login"), HTTP_ACCEPT_LANGUAGE="ja,en;q=0.8")
    assert _lang(page) == "ja" and page["Content-Language"] == "ja"
    assert "ログイン" in page.content.decode()
    english = Client().get(reverse("login"), HTTP_ACCEPT_LANGUAGE="en-GB,en;q=0.9")
    assert _lang(english) == "en" and "Log in" in english.content.decode()


@pytest.mark.django_db
def test_the_login_page_switches_language_without_an_account(client):
    page = client.get(reverse("login"), HTTP_ACCEPT_LANGUAGE="en")
    body = page.content.decode()
    # The switcher is a plain form: a button per language, each in its own name and language.
    assert f'action="{reverse("set_language")}"' in body
    assert '<button type="submit" name="language" value="ja" lang="ja"' in body
    assert ">日本語</button>" in body
    # It returns to the page it was on (the Referer): the form carries no URL of its own.
    switcher = body[body.index('class="language-switch') :]
    assert 'name="next"' not in switcher[: switcher.index("</form>")]
    login_url = "http://testserver" + reverse("login") + "?next=/t/acme/"
    response = client.post(
        reverse("set_language"),
        {"language": "ja"},
        HTTP_ACCEPT_LANGUAGE="en",
        HTTP_REFERER=login_url,
    )
    assert response.status_code == 302 and response["Location"] == login_url
    assert client.cookies["django_language"].value == "ja"
    again = client.get(reverse("login"), HTTP_ACCEPT_LANGUAGE="en")
    assert _lang(again) == "ja"
    # The active language's button is pressed but not disabled: pressing it saves the choice.
    assert 'value="ja" lang="ja" aria-pressed="true">' in again.content.decode()
    assert not UserPreference.objects.exists()  # nobody to remember it on


@pytest.mark.django_db
def test_a_signed_in_users_choice_follows_them_to_another_browser(world):
    user = world.users["scorer"]
    laptop = Client()
    _log_in(laptop, user.username, HTTP_ACCEPT_LANGUAGE="en")
    switched = laptop.post(
        reverse("set_language"),
        {"language": "ja", "next": reverse("home")},
        HTTP_ACCEPT_LANGUAGE="en",
        follow=True,
    )
    assert _lang(switched) == "ja"
    assert UserPreference.objects.get(user=user).language == "ja"
    assert "ログアウト" in switched.content.decode()

    # Another browser that asks for English: after login, the user's own choice wins.
    office = Client()
    before = office.get(reverse("login"), HTTP_ACCEPT_LANGUAGE="en")
    assert _lang(before) == "en"
    after = _log_in(office, user.username, HTTP_ACCEPT_LANGUAGE="en")
    assert _lang(after) == "ja" and after["Content-Language"] == "ja"
    # The cookie follows, so the login page after a logout stays in that language.
    assert office.cookies["django_language"].value == "ja"
    office.post(reverse("logout"), HTTP_ACCEPT_LANGUAGE="en")
    assert _lang(office.get(reverse("login"), HTTP_ACCEPT_LANGUAGE="en")) == "ja"

    # And back to English, from the navigation.
    office = Client()
    _log_in(office, user.username, HTTP_ACCEPT_LANGUAGE="ja")
    back = office.post(
        reverse("set_language"), {"language": "en", "next": reverse("home")}, follow=True
    )
    assert _lang(back) == "en"
    assert UserPreference.objects.get(user=user).language == "en"


@pytest.mark.django_db
def test_a_user_who_never_chose_gets_their_browsers_language(world):
    other = Client()
    _log_in(other, world.users["viewer"].username, HTTP_ACCEPT_LANGUAGE="en")
    other.post(reverse("set_language"), {"language": "ja", "next": "/"})
    # A second user on the same browser has no choice of their own: the browser decides.
    other.post(reverse("logout"))
    page = _log_in(other, world.users["editor"].username, HTTP_ACCEPT_LANGUAGE="en")
    assert _lang(page) == "ja"  # the cookie this browser carries
    fresh = _log_in(Client(), world.users["editor"].username, HTTP_ACCEPT_LANGUAGE="en")
    assert _lang(fresh) == "en"
    assert not UserPreference.objects.filter(user=world.users["editor"]).exists()


@pytest.mark.django_db
def test_an_unknown_language_or_an_outside_next_changes_nothing(world, client):
    client.force_login(world.users["owner"])
    response = client.post(reverse("set_language"), {"language": "xx", "next": "/"})
    assert response.status_code == 302
    assert not UserPreference.objects.exists()
    response = client.post(
        reverse("set_language"), {"language": "ja", "next": "https://evil.example/"}
    )
    assert response["Location"] == "/"  # never off the site
    assert client.get(reverse("set_language")).status_code == 405


@pytest.mark.django_db
def test_the_javascript_catalogue_is_translated_and_open_before_login(client):
    response = client.get(reverse("javascript-catalog"), HTTP_ACCEPT_LANGUAGE="ja")
    assert response.status_code == 200
    body = response.content.decode()
    assert "コピーしました" in body or json.dumps("コピーしました")[1:-1] in body
    page = client.get(reverse("login"), HTTP_ACCEPT_LANGUAGE="ja").content.decode()
    scripts = re.findall(r"<script([^>]*)>", page)
    assert scripts and all("src=" in attrs for attrs in scripts), "an inline script"
    catalogue = page.index(reverse("javascript-catalog"))
    assert catalogue < page.index("js/copy.js")


def test_dates_follow_the_language():
    moment = datetime.datetime(2026, 3, 14, 9, 30, tzinfo=datetime.UTC)
    # One format per language, for tables and sentences alike, always with the zone.
    with translation.override("en"):
        assert formats.date_format(moment, "SHORT_DATETIME_FORMAT") == "14 Mar 2026, 09:30 UTC"
        assert formats.date_format(moment, "DATE_FORMAT") == "14 Mar 2026"
    with translation.override("ja"):
        assert formats.date_format(moment, "SHORT_DATETIME_FORMAT") == "2026年3月14日 09:30 UTC"
        assert formats.date_format(moment, "DATETIME_FORMAT") == "2026年3月14日 09:30 UTC"
        assert formats.date_format(moment, "DATE_FORMAT") == "2026年3月14日"
        assert formats.number_format(1234.5, 1, force_grouping=True) == "1,234.5"


@pytest.mark.django_db
def test_a_page_shows_its_dates_in_the_users_language(world, client):
    client.force_login(world.users["owner"])
    url = reverse("probe:experiment_list", kwargs={"team_slug": world.team.slug})
    created = timezone.localtime(world.experiment.created)
    ja = client.get(url, HTTP_ACCEPT_LANGUAGE="ja").content.decode()
    en = client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    with translation.override("ja"):
        assert formats.date_format(created, "DATETIME_FORMAT") in ja
    with translation.override("en"):
        assert formats.date_format(created, "DATETIME_FORMAT") in en


@pytest.mark.django_db
def test_a_failed_attempt_says_what_went_wrong_in_the_users_language(world, client):
    from probe.models import Attempt

    run = world.runs[0]
    Attempt.objects.create(
        run=run,
        outcome=Attempt.Outcome.RETRYABLE,
        error_kind="rate_limit",
        error_message="openai_chat: HTTP 429 rate_limit_exceeded: slow down",
    )
    client.force_login(world.users["owner"])
    url = reverse("probe:run_detail", kwargs={"run_pk": run.pk})
    ja = client.get(url, HTTP_ACCEPT_LANGUAGE="ja").content.decode()
    assert "<strong>レート制限中</strong> openai_chat: HTTP 429" in ja
    assert "エラー（再試行）" in ja
    en = client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "<strong>Rate limited</strong> openai_chat: HTTP 429" in en
