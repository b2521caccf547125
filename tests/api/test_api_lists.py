"""Every list of the API comes in pages with its total, and costs the same number of queries at
1 row as at 50: each list endpoint is found in the OpenAPI schema (a GET whose answer has a
``count``), so a new list is held to it unasked."""

from itertools import count

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from api.pagination import PAGE_SIZE
from api.urls import api
from api.views.results import RESPONSES_PAGE_SIZE
from probe.models import Bank, Experiment, ModelConfig, PromptVersion
from tests.report.conftest import build
from tests.scoring.factories import score_all

SERIAL = count()


def _add_banks(world, n):
    Bank.objects.bulk_create(
        Bank(team=world.team, name=f"Extra bank {i}") for i in (next(SERIAL) for _ in range(n))
    )


def _add_prompts(world, n):
    PromptVersion.objects.bulk_create(
        PromptVersion(
            team=world.team, name=f"Extra {i}", version=1, language="en", text="t", content_hash="h"
        )
        for i in (next(SERIAL) for _ in range(n))
    )


def _add_configs(world, n):
    ModelConfig.objects.bulk_create(
        ModelConfig(team=world.team, label=f"Extra {i}", provider="simulator", model_name="sim")
        for i in (next(SERIAL) for _ in range(n))
    )


def _add_experiments(world, n):
    Experiment.objects.bulk_create(
        Experiment(
            team=world.team,
            name=f"Extra {i}",
            bank=world.bank,
            bank_name=world.bank.name,
            prompt_version=world.prompt,
            seed=i,
        )
        for i in (next(SERIAL) for _ in range(n))
    )


LISTS = {
    "/api/teams/{slug}/banks": _add_banks,
    "/api/teams/{slug}/prompts": _add_prompts,
    "/api/teams/{slug}/configs": _add_configs,
    "/api/teams/{slug}/experiments": _add_experiments,
    "/api/experiments/{experiment_id}/results/responses": None,  # below
}


def _list_paths() -> set[str]:
    schema = api.get_openapi_schema()
    found = set()
    for path, operations in schema["paths"].items():
        answer = operations.get("get", {}).get("responses", {}).get(200, {})
        ref = answer.get("content", {}).get("application/json", {}).get("schema", {}).get("$ref")
        if ref and "count" in schema["components"]["schemas"][ref.rsplit("/", 1)[1]]["properties"]:
            found.add(path)
    return found


def test_every_list_endpoint_is_held_here():
    assert _list_paths() == set(LISTS)


def _queries(api_for, path) -> tuple[int, dict]:
    client = api_for("editor")
    client.get("/me")  # the token's first use of the day is recorded: not the list's cost
    with CaptureQueriesContext(connection) as captured:
        response = client.get(path.removeprefix("/api"))
    assert response.status_code == 200, response.content
    return len(captured), response.json()


@pytest.mark.parametrize("path", [p for p, add in LISTS.items() if add is not None])
def test_a_list_costs_the_same_queries_at_1_and_at_50_rows(world, api_for, path):
    add = LISTS[path]
    url = path.format(slug=world.team.slug)
    add(world, 1)
    few, body = _queries(api_for, url)
    assert body["page"] == 1 and body["page_size"] == PAGE_SIZE
    assert body["count"] == len(body["items"])
    add(world, 49)
    many, body = _queries(api_for, url)
    assert body["count"] == len(body["items"]) and body["count"] >= 50
    assert many == few, f"{path}: {few} queries at 1 row, {many} at 50"


def test_a_second_page_holds_the_rest(world, api_for):
    _add_banks(world, PAGE_SIZE + 5)
    client = api_for("viewer")
    first = client.get(f"/teams/{world.team.slug}/banks").json()
    second = client.get(f"/teams/{world.team.slug}/banks", page=2).json()
    assert first["count"] == second["count"] == len(first["items"]) + len(second["items"])
    assert len(first["items"]) == PAGE_SIZE
    assert not {b["id"] for b in first["items"]} & {b["id"] for b in second["items"]}
    beyond = client.get(f"/teams/{world.team.slug}/banks", page=0)
    assert beyond.status_code == 422 and beyond.json()["problems"][0]["field"] == "page"


def test_the_responses_listing_costs_the_same_queries_at_1_and_at_50_rows(world, api_for):
    counts = []
    for n in (1, 50):
        built = build(world, {("Alpha", 1): "C" * n}, name=f"Listing {n}")
        score_all(built.experiment, world.users["editor"])
        path = f"/api/experiments/{built.experiment.pk}/results/responses"
        queries, body = _queries(api_for, path)
        assert body["count"] == n == len(body["responses"]) and body["source"] == "scorer"
        assert body["page_size"] == RESPONSES_PAGE_SIZE
        counts.append(queries)
    assert counts[0] == counts[1], counts
