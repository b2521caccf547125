"""Time zones a person finds in their own language: the members page and the time zone page offer
the common zones by the name their people use (「日本標準時」), every other one by its IANA name,
each with its offset from UTC, and store the IANA name."""

import datetime
import re
from html import unescape

import pytest
from django.urls import reverse
from django.utils import translation

from probe.models import Team, UserPreference
from probe.selectors.preferences import time_zone_names
from probe.zone_labels import COMMON_ZONES, utc_offset, zone_label
from tests.conftest import login

pytestmark = pytest.mark.django_db

OPTION = re.compile(r'<option value="([^"]*)"[^>]*>([^<]*)</option>')
WINTER = datetime.datetime(2026, 1, 15, 12, 0, tzinfo=datetime.UTC)
SUMMER = datetime.datetime(2026, 7, 15, 12, 0, tzinfo=datetime.UTC)


def _select(body: str, select_id: str) -> dict[str, str]:
    select = body.split(f'id="{select_id}"', 1)[1].split("</select>", 1)[0]
    return {value: unescape(label) for value, label in OPTION.findall(select)}


def test_the_members_page_names_the_zones_in_japanese_and_offers_every_one(client, world):
    login(client, world.users["owner"])
    url = reverse("probe:member_list", args=[world.team.slug])
    body = client.get(url, HTTP_ACCEPT_LANGUAGE="ja").content.decode()
    options = _select(body, "team-time-zone")
    assert options.pop("") == "サーバーのタイムゾーン（協定世界時）"
    assert set(options) == time_zone_names()  # every zone, each once, by its IANA name
    assert options["Asia/Tokyo"] == "日本標準時（Asia/Tokyo、UTC+9）"
    assert options["UTC"] == "協定世界時（UTC）"
    assert re.fullmatch(r"America/Lima（UTC-5）", options["America/Lima"])
    assert "主なタイムゾーン" in body and "その他のタイムゾーン" in body
    client.post(
        reverse("probe:team_time_zone", args=[world.team.slug]), {"time_zone": "Asia/Tokyo"}
    )
    assert Team.objects.get(pk=world.team.pk).time_zone == "Asia/Tokyo"
    again = _select(client.get(url, HTTP_ACCEPT_LANGUAGE="ja").content.decode(), "team-time-zone")
    assert again["Asia/Tokyo"] == options["Asia/Tokyo"]
    assert 'value="Asia/Tokyo" selected' in client.get(url).content.decode()


def test_the_time_zone_page_offers_the_same_labels_and_saves_the_iana_name(client, world):
    login(client, world.users["scorer"])
    body = client.get(reverse("time_zone"), HTTP_ACCEPT_LANGUAGE="ja").content.decode()
    options = _select(body, "id_time_zone")
    assert options["Asia/Tokyo"] == "日本標準時（Asia/Tokyo、UTC+9）"
    assert options["Asia/Kolkata"] == "インド標準時（Asia/Kolkata、UTC+5:30）"
    assert "My team" not in body and "Coordinated" not in body
    client.post(reverse("time_zone"), {"time_zone": "Asia/Seoul"})
    assert UserPreference.objects.get(user=world.users["scorer"]).time_zone == "Asia/Seoul"


def test_in_english_the_same_zones_read_in_english():
    with translation.override("en"):
        assert zone_label("Asia/Tokyo") == "Japan Standard Time (Asia/Tokyo, UTC+9)"
        assert zone_label("Africa/Abidjan") == "Africa/Abidjan (UTC+0)"


def test_every_common_zone_exists_and_has_a_japanese_name():
    for name, common in COMMON_ZONES.items():
        assert name in time_zone_names(), name
        with translation.override("ja"):
            japanese = str(common)
        with translation.override("en"):
            assert japanese != str(common), name
        assert re.search(r"[\u3040-\u30ff\u3400-\u9fff]", japanese), (name, japanese)


@pytest.mark.parametrize(
    "zone,at,offset",
    [
        ("Asia/Tokyo", WINTER, "UTC+9"),
        ("UTC", WINTER, "UTC+0"),
        ("Asia/Kolkata", WINTER, "UTC+5:30"),
        ("America/St_Johns", WINTER, "UTC-3:30"),
        ("America/St_Johns", SUMMER, "UTC-2:30"),
        ("Europe/Paris", WINTER, "UTC+1"),
        ("Europe/Paris", SUMMER, "UTC+2"),
    ],
)
def test_the_offset_is_the_one_in_force(zone, at, offset):
    assert utc_offset(zone, at) == offset
