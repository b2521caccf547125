"""Writes over the API: what a script does, what bad input gets, and that a refusal saves nothing."""

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from probe.models import Bank, Experiment, Run
from tests.api.test_follow_ups import _collected
from tests.probe import factories

pytestmark = pytest.mark.django_db

BANK = """Block A. HTTP
1. Which status code means Too Many Requests?
2. Which header says when to retry?

Answer key
Block A
1. 429
2. Retry-After (!) check RFC 9110
"""


def _counts():
    return (Bank.objects.count(), Experiment.objects.count(), Run.objects.count())


def test_a_script_imports_a_bank_creates_an_experiment_and_follows_it_up(world, api_for):
    editor = api_for("editor")
    imported = editor.post(f"/teams/{world.team.slug}/banks", {"content": BANK, "name": "CI bank"})
    assert imported.status_code == 201, imported.content
    body = imported.json()
    assert body["items"] == 2 and body["blocks"] == 1 and body["bank"]["name"] == "CI bank"
    bank_id = body["bank"]["id"]
    banks = editor.get(f"/teams/{world.team.slug}/banks").json()
    assert any(b["id"] == bank_id for b in banks["items"]) and banks["count"] == len(banks["items"])
    exported = editor.get(f"/banks/{bank_id}/export", format="json")
    assert json.loads(exported.content)["blocks"][0]["items"][1]["key"]["flagged"] is True

    prompts = editor.get(f"/teams/{world.team.slug}/prompts").json()["items"]
    configs = editor.get(f"/teams/{world.team.slug}/configs").json()["items"]
    created = editor.post(
        f"/teams/{world.team.slug}/experiments",
        {
            "bank": bank_id,
            "prompt_version": prompts[0]["id"],
            "configs": [configs[0]["id"]],
            "repeats": 2,
            "mode": "item",
            "name": "From CI",
            "seed": 11,
        },
    )
    assert created.status_code == 201, created.content
    experiment = created.json()
    assert experiment["status"] == "ready" and experiment["items"] == 2
    assert experiment["expected_responses"] == 4 and experiment["responses"] == 0
    assert [r["status"] for r in experiment["runs"]] == ["pending", "pending"]

    cancelled = editor.post(f"/experiments/{experiment['id']}/cancel")
    assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"
    again = editor.post(f"/experiments/{experiment['id']}/cancel")
    assert again.status_code == 409 and "cannot be cancelled" in again.json()["detail"]


def test_follow_up_over_the_api_with_an_included_run(world, api_for):
    origin = _collected(world)
    editor = api_for("editor")
    plan = editor.get(f"/experiments/{origin.pk}/follow-up", items="snapshot").json()
    assert plan["items"] == 3 and plan["added"] == plan["removed"] == []
    made = editor.post(
        f"/experiments/{origin.pk}/follow-up",
        {"include_runs": [world.runs[1].pk], "name": "Again"},
    )
    assert made.status_code == 201, made.content
    body = made.json()
    assert body["follows"] == origin.pk and body["name"] == "Again"
    included = [r for r in body["runs"] if r["included_from_experiment"] == origin.pk]
    assert len(included) == 1 and included[0]["status"] == "collected"
    assert included[0]["responses"] == 3


@pytest.mark.parametrize(
    "body,field",
    [
        ({"bank": -1}, "bank"),
        ({"prompt_version": 0}, "prompt_version"),
        ({"configs": []}, "configs"),
        ({"configs": ["one"]}, "configs.0"),
        ({"repeats": 0}, "repeats"),
        ({"repeats": "two"}, "repeats"),
        ({"mode": "batch"}, "mode"),
        ({"seed": -5}, "seed"),
        ({"noise_floor": 5000}, "noise_floor"),
        ({"surprise": 1}, "surprise"),
    ],
)
def test_bad_fields_are_named_and_nothing_is_saved(world, api_for, body, field):
    valid = {"bank": world.bank.pk, "prompt_version": world.prompt.pk, "configs": [world.config.pk]}
    before = _counts()
    response = api_for("editor").post(f"/teams/{world.team.slug}/experiments", valid | body)
    assert response.status_code == 422, response.content
    assert field in {p["field"] for p in response.json()["problems"]}
    assert _counts() == before


def test_another_teams_ids_in_a_body_are_refused_by_field(world, api_for):
    rival_config = factories.ModelConfigFactory(team=world.other_team, label="Rival model")
    rival_prompt = factories.PromptVersionFactory(team=world.other_team)
    before = _counts()
    editor = api_for("editor")
    for body, field in (
        ({"bank": world.other_bank.pk}, "bank"),
        ({"prompt_version": rival_prompt.pk}, "prompt_version"),
        ({"configs": [rival_config.pk]}, "configs"),
    ):
        valid = {
            "bank": world.bank.pk,
            "prompt_version": world.prompt.pk,
            "configs": [world.config.pk],
        }
        response = editor.post(f"/teams/{world.team.slug}/experiments", valid | body)
        assert response.status_code == 422
        problems = response.json()["problems"]
        assert [p["field"] for p in problems] == [field]
        assert "Rival" not in response.content.decode()
    assert _counts() == before


def test_a_refused_bank_file_lists_its_problems_by_line(world, api_for):
    before = _counts()
    response = api_for("editor").post(
        f"/teams/{world.team.slug}/banks", {"content": "Block A. X\n1. A question?\n1. Again?\n"}
    )
    assert response.status_code == 422
    problems = response.json()["problems"]
    assert problems and all(p["field"].startswith("content") for p in problems)
    assert any(":" in p["field"] for p in problems), "a line number names where"
    assert _counts() == before


def test_an_oversized_body_is_413_and_saves_nothing(world, api_for, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 10_000
    before = _counts()
    response = api_for("editor").post(f"/teams/{world.team.slug}/banks", {"content": "x" * 20_000})
    assert response.status_code == 413
    assert "too large" in response.json()["detail"]
    assert _counts() == before


@pytest.mark.parametrize("raw", [b"{", b"[]", b"null", b'"text"', b"\xff\xfe", b"{" * 1000])
def test_unparseable_bodies_are_4xx_with_json(world, api_for, raw):
    before = _counts()
    response = api_for("editor").post(f"/teams/{world.team.slug}/experiments", raw=raw)
    assert 400 <= response.status_code < 500
    assert response.json()["detail"]
    assert _counts() == before


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)
FIELDS = [
    "bank",
    "prompt_version",
    "configs",
    "repeats",
    "mode",
    "name",
    "seed",
    "scheme",
    "hide_confidence",
    "noise_floor",
    "items",
    "include_runs",
    "content",
    "filename",
]


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(body=st.dictionaries(st.sampled_from(FIELDS) | st.text(max_size=6), JSON_VALUES))
def test_fuzzed_write_bodies_never_error_and_never_half_save(world, api_for, body):
    editor = api_for("editor")
    for url in (
        f"/teams/{world.team.slug}/experiments",
        f"/teams/{world.team.slug}/banks",
        f"/experiments/{world.scored.pk}/follow-up",
    ):
        before = _counts()
        response = editor.post(url, body)
        assert response.status_code < 500, (url, body, response.content[:300])
        assert response["Content-Type"].startswith("application/json")
        if response.status_code >= 400:
            assert response.json()["detail"]
            assert _counts() == before, (url, body)
