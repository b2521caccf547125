"""Every date and time in the user's zone, with its zone, in one format per language."""

import datetime
import re
import zoneinfo
from pathlib import Path

import pytest
from django.template import Context, Template
from django.urls import reverse
from django.utils import timezone, translation

from probe.models import Experiment, UserPreference
from tests.conftest import login

PASSWORD = "correct horse battery staple"
ROOT = Path(__file__).resolve().parents[2]
WHEN = datetime.datetime(2026, 12, 1, 13, 2, tzinfo=datetime.UTC)


def _log_in(client, user, **extra):
    return client.post(
        reverse("login"), {"username": user.get_username(), "password": PASSWORD, **extra}
    )


@pytest.fixture
def dated(world):
    Experiment.objects.filter(pk=world.experiment.pk).update(created=WHEN)
    return reverse("probe:experiment_detail", kwargs={"experiment_pk": world.experiment.pk})


@pytest.mark.parametrize(
    "zone,language,shown",
    [
        ("Asia/Tokyo", "ja", "2026年12月1日 22:02 JST"),
        ("UTC", "en", "1 Dec 2026, 13:02 UTC"),
        ("Europe/Paris", "en", "1 Dec 2026, 14:02 CET"),
        ("America/New_York", "ja", "2026年12月1日 08:02 EST"),
    ],
)
def test_the_browsers_zone_offered_at_login_is_the_one_dates_are_shown_in(
    client, world, dated, zone, language, shown
):
    user = world.users["scorer"]
    assert _log_in(client, user, time_zone=zone).status_code == 302
    assert UserPreference.objects.get(user=user).time_zone == zone
    body = client.get(dated, HTTP_ACCEPT_LANGUAGE=language).content.decode()
    assert f'<time datetime="2026-12-01T13:02:00+00:00">{shown}</time>' in body


def test_a_zone_the_user_chose_is_kept_whatever_the_browser_says(client, world, dated):
    user = world.users["scorer"]
    UserPreference.objects.create(user=user, time_zone="Asia/Tokyo", time_zone_chosen=True)
    _log_in(client, user, time_zone="Europe/Paris")
    assert UserPreference.objects.get(user=user).time_zone == "Asia/Tokyo"
    assert "22:02 JST" in client.get(dated).content.decode()


def test_without_a_choice_every_login_takes_the_browsers_zone(client, world, dated):
    """Signed in from Tokyo first, then from New York: the pages follow the browser, as the
    time zone page says, until the user chooses a zone there."""
    user = world.users["scorer"]
    _log_in(client, user, time_zone="Asia/Tokyo")
    assert "22:02 JST" in client.get(dated).content.decode()
    client.logout()
    _log_in(client, user, time_zone="America/New_York")
    assert UserPreference.objects.get(user=user).time_zone == "America/New_York"
    assert "08:02 EST" in client.get(dated).content.decode()
    page = client.get(reverse("time_zone")).content.decode()
    assert '<option value="America/New_York" selected>' in page
    # Chosen on the page: kept at the next login from elsewhere.
    client.post(reverse("time_zone"), {"time_zone": "Asia/Tokyo"})
    client.logout()
    _log_in(client, user, time_zone="Europe/Paris")
    assert UserPreference.objects.get(user=user).time_zone == "Asia/Tokyo"
    assert "22:02 JST" in client.get(dated).content.decode()
    # Back to none chosen (the team's): the browser's is taken again at the next login.
    client.post(reverse("time_zone"), {"time_zone": ""})
    client.logout()
    _log_in(client, user, time_zone="Europe/Paris")
    assert "14:02 CET" in client.get(dated).content.decode()


def test_a_zone_that_does_not_exist_is_ignored(client, world, dated):
    user = world.users["scorer"]
    _log_in(client, user, time_zone="Mars/Olympus_Mons")
    assert not UserPreference.objects.filter(user=user).exclude(time_zone="").exists()
    assert "13:02 UTC" in client.get(dated).content.decode()  # the server's


def test_the_team_zone_an_owner_sets_applies_to_members_with_none(client, world, dated):
    login(client, world.users["owner"])
    page = client.get(reverse("probe:member_list", kwargs={"team_slug": world.team.slug}))
    assert 'name="time_zone"' in page.content.decode()
    client.post(
        reverse("probe:team_time_zone", kwargs={"team_slug": world.team.slug}),
        {"time_zone": "Asia/Tokyo"},
    )
    world.team.refresh_from_db()
    assert world.team.time_zone == "Asia/Tokyo"
    login(client, world.users["viewer"])
    assert "22:02 JST" in client.get(dated).content.decode()


def test_only_an_owner_sets_the_team_zone(client, world):
    login(client, world.users["editor"])
    url = reverse("probe:team_time_zone", kwargs={"team_slug": world.team.slug})
    assert client.post(url, {"time_zone": "Asia/Tokyo"}).status_code == 403
    world.team.refresh_from_db()
    assert world.team.time_zone == ""


def test_the_time_zone_page_saves_a_zone_and_refuses_an_unknown_one(client, world, dated):
    login(client, world.users["scorer"])
    url = reverse("time_zone")
    refused = client.post(url, {"time_zone": "Nowhere/Atlantis"})
    assert refused.status_code == 422
    client.post(url, {"time_zone": "Asia/Kolkata"})
    assert UserPreference.objects.get(user=world.users["scorer"]).time_zone == "Asia/Kolkata"
    body = client.get(dated).content.decode()
    assert "18:32 IST" in body  # at once, without logging in again
    assert f'href="{url}"' in body  # the top bar links to the page


@pytest.mark.parametrize(
    "language,expected",
    [("ja", "2026年12月1日"), ("en", "1 Dec 2026")],
)
def test_a_date_alone_is_written_the_languages_way(language, expected):
    with translation.override(language), timezone.override(zoneinfo.ZoneInfo("Asia/Tokyo")):
        text = Template("{% load time_tags %}{{ value|day }}").render(Context({"value": WHEN}))
    assert text == f'<time datetime="2026-12-01">{expected}</time>'
    assert "12月 2026" not in text


def test_relative_times_read_as_a_person_says_them():
    moment = timezone.now() - datetime.timedelta(minutes=3, seconds=5)
    with translation.override("ja"):
        text = Template("{% load time_tags %}{{ value|ago }}").render(Context({"value": moment}))
    assert re.search(r">3\s*分前</time>$", text), text


def test_no_template_formats_a_date_by_hand():
    # Every date goes through time_tags (when, day, ago): a hand-written format would show
    # another format, or lose the zone.
    offenders = [
        str(path.relative_to(ROOT))
        for path in (ROOT / "templates").rglob("*.html")
        if re.search(r"\|date(:|\b)", path.read_text())
    ]
    assert not offenders, offenders
