"""A provider is shown by its name in the reader's language on the final report, the scorer's
report and a run's page, never by the machine name it is stored under (``simulator``); the
JSON export keeps the machine name for scripts."""

import json
import re

import pytest
from django.urls import reverse
from django.utils import translation

from probe.models import Run
from probe.provider_labels import finish_reason_label, provider_label, provider_labels
from scoring.queue import services
from tests.i18n.test_pages_ja import _Text
from tests.report.test_final_report import make_team

pytestmark = pytest.mark.django_db

MACHINE_NAMES = re.compile(r"\b(?:openai_chat|openai_responses|anthropic|gemini|simulator)\b")


def _read(body: str) -> str:
    parser = _Text()
    parser.feed(body)
    return " ".join(parser.chunks)


def _japanese(client, url):
    response = client.get(url, HTTP_ACCEPT_LANGUAGE="ja")
    assert response.status_code == 200 and response["Content-Language"] == "ja"
    return response.content.decode()


@pytest.fixture
def team(world):
    return make_team(world)


def test_the_final_report_names_the_provider_in_japanese(client, world, team):
    client.force_login(world.users["owner"])
    body = _japanese(client, reverse("scoring:final_report", args=[team.experiment.pk]))
    with translation.override("ja"):
        label = provider_label("simulator")
    assert "シミュレーション" in label and label in body
    assert MACHINE_NAMES.findall(_read(body)) == []


def test_the_scorers_report_names_the_provider_in_japanese(client, world, team):
    services.assignment_reveal(assignment=team.a)
    client.force_login(world.users["scorer"])
    body = _japanese(client, reverse("scoring:report", args=[team.a.token]))
    with translation.override("ja"):
        assert provider_label("simulator") in body
    assert MACHINE_NAMES.findall(_read(body)) == []


def test_a_runs_page_names_the_provider_in_japanese(client, world, team):
    client.force_login(world.users["owner"])
    run = team.experiment.runs.order_by("pk").first()
    body = _japanese(client, reverse("probe:run_detail", args=[run.pk]))
    with translation.override("ja"):
        assert f"· {provider_label('simulator')}" in body
    assert MACHINE_NAMES.findall(_read(body)) == []


def test_the_json_export_keeps_the_machine_name(client, world, team):
    client.force_login(world.users["owner"])
    url = reverse("scoring:final_export", args=[team.experiment.pk, "responses", "json"])
    response = client.get(url, HTTP_ACCEPT_LANGUAGE="ja")
    text = b"".join(response.streaming_content) if response.streaming else response.content
    assert '"simulator"' in text.decode() and "シミュレーション" not in text.decode()
    json.loads(text)


def test_every_provider_has_a_japanese_label_and_an_unknown_one_stays_as_stored():
    with translation.override("ja"):
        labels = provider_labels()
        assert provider_label("retired_api") == "retired_api" and provider_label("") == ""
    with translation.override("en"):
        english = provider_labels()
    assert set(labels) == {
        "openai_chat",
        "openai_responses",
        "anthropic",
        "gemini",
        "manual",
        "simulator",
    }
    for name in labels:
        assert labels[name] != name
    assert labels["simulator"] != english["simulator"]


def test_a_runs_page_says_why_a_reply_ended_and_the_effort_in_japanese(client, world, team):
    run = team.experiment.runs.order_by("pk").first()
    run.attempts.update(finish_reason="length")
    Run.objects.filter(pk=run.pk).update(
        config_snapshot={**run.config_snapshot, "reasoning_effort": "high"}
    )
    client.force_login(world.users["owner"])
    body = _japanese(client, reverse("probe:run_detail", args=[run.pk]))
    assert "トークンの上限で打ち切り" in body and 'data-reason="length"' in body
    text = _read(body)
    assert "推論の強さ 高" in text
    assert re.search(r"\blength\b", text) is None and re.search(r"\bhigh\b", text) is None
    with translation.override("ja"):
        assert finish_reason_label("SOMETHING_NEW") == "SOMETHING_NEW"
        assert finish_reason_label("MAX_TOKENS") == finish_reason_label("max_tokens")
