"""The API's permission matrix, read from its routes so a new endpoint is covered unasked.

Every operation x {no token, member of another team, viewer, scorer, editor, owner} gets the
status its role promises (401, 404, 403, or an answer), and no answer shows another team's data,
or a key to those who may not see one, or a model's identity to a blinded scorer.
"""

import pytest

from api.urls import api
from probe.models import ROLE_RANK, Role
from tests.conftest import KEY_ANSWERS, OTHER_TEAM_TEXT

pytestmark = pytest.mark.django_db

KINDS = ["anonymous", "outsider", "viewer", "scorer", "editor", "owner"]

# The role each operation needs (None: any authenticated user). A new operation fails
# test_every_operation_is_declared until it is listed here.
NEEDED = {
    "me": None,
    "bank_list": Role.VIEWER,
    "bank_import": Role.EDITOR,
    "bank_export": Role.EDITOR,
    "prompt_list": Role.VIEWER,
    "config_list": Role.EDITOR,
    "config_create": Role.EDITOR,
    "experiment_list": Role.VIEWER,
    "experiment_create": Role.EDITOR,
    "experiment_detail": Role.VIEWER,
    "experiment_start": Role.EDITOR,
    "experiment_cancel": Role.EDITOR,
    "follow_up_plan": Role.EDITOR,
    "follow_up_create": Role.EDITOR,
    "results_figures": Role.VIEWER,
    "results_responses": Role.VIEWER,
    "compare_experiments": Role.VIEWER,
    "experiment_grading": Role.SCORER,
}
# What a permitted request may get besides 200/201: results before any reveal (409), an
# action on an experiment in the wrong state (409), an empty body refused (422).
ALSO_FINE = {
    "results_figures": {409},
    "results_responses": {409},
    "experiment_start": {409},
    "experiment_cancel": {409},
    "compare_experiments": {409, 422},
    "experiment_grading": {409},  # still blind to the experiment: nothing, whatever exists
}


def _operations():
    for _prefix, router in api._routers:
        for path, view in router.path_operations.items():
            for operation in view.operations:
                for method in operation.methods:
                    yield operation.view_func.__name__, method, path


OPERATIONS = sorted(_operations())


def test_every_operation_is_declared():
    assert {name for name, _m, _p in OPERATIONS} == set(NEEDED)


def _path(path: str, world) -> str:
    return path.replace("{slug}", world.team.slug).replace("{bank_id}", str(world.bank.pk)).replace(
        "{experiment_id}", str(world.scored.pk)
    ) + (f"?baseline={world.scored.pk}&candidate={world.scored.pk}" if path == "/compare" else "")


BANK_TEXT = "Block A. Matrix\n1. A matrix question?\n\nAnswer key\nBlock A\n1. matrix answer\n"


def _body(name: str, world) -> dict:
    """A body of the right shape, so that the request reaches the access check."""
    return {
        "bank_import": {"content": BANK_TEXT, "name": "Matrix bank"},
        "config_create": {"label": "Matrix config", "provider": "manual", "model_name": "chat"},
        "experiment_create": {
            "bank": world.bank.pk,
            "prompt_version": world.prompt.pk,
            "configs": [world.config.pk],
        },
    }.get(name, {})


def _expected(kind: str, name: str) -> set[int]:
    needed = NEEDED[name]
    if kind == "anonymous":
        return {401}
    if needed is None:
        return {200}
    if kind == "outsider":
        return {404}
    if ROLE_RANK[Role(kind)] < ROLE_RANK[Role(needed)]:
        return {403}
    return {200, 201} | ALSO_FINE.get(name, set())


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name,method,path", OPERATIONS)
def test_matrix(world, api_for, name, method, path, kind):
    client = api_for(kind)
    url = _path(path, world)
    response = client.get(url) if method == "GET" else client.post(url, _body(name, world))
    expected = _expected(kind, name)
    assert response.status_code in expected, (
        f"{method} {url} as {kind}: {response.status_code} {response.content[:200]!r}, "
        f"expected {sorted(expected)}"
    )
    assert response.status_code < 500
    body = response.content.decode("utf-8", "replace")
    if response.status_code >= 400:
        assert response.json()["detail"], "every refusal says why"
    if kind != "outsider":
        for text in OTHER_TEAM_TEXT:
            assert text not in body, f"{method} {url} as {kind} shows {text!r}"
    if kind in {"anonymous", "outsider", "viewer", "scorer"}:
        for answer in KEY_ANSWERS:
            assert answer not in body, f"{method} {url} as {kind} shows the key {answer!r}"
    if kind == "scorer":  # not revealed: no model's identity anywhere
        for secret in ("Acme-secret-config-label", "Acme-second-config-label", "sim-"):
            assert secret not in body, f"{method} {url} as a blinded scorer shows {secret!r}"


@pytest.mark.parametrize("kind", ["viewer", "scorer", "editor", "owner"])
def test_another_teams_ids_are_404_never_403(world, api_for, kind):
    client = api_for(kind)
    other_bank = world.other_bank
    for url in (
        f"/teams/{world.other_team.slug}/banks",
        f"/teams/{world.other_team.slug}/experiments",
        f"/banks/{other_bank.pk}/export",
    ):
        response = client.get(url)
        assert response.status_code == 404, url
        assert "Rival" not in response.content.decode()


def test_a_blinded_editor_sees_runs_without_their_identity(world, api_for):
    from scoring.queue import services

    editor = world.users["editor"]
    services.assignment_start(experiment=world.scored, user=editor)
    detail = api_for("editor").get(f"/experiments/{world.scored.pk}").json()
    assert detail["blinded"] is True
    assert [set(run) for run in detail["runs"]] == [
        {"number", "status", "responses", "items", "config", "label", "repeat"}
        | {"included_from_experiment", "error"}
    ] * len(detail["runs"])
    assert all(run["label"] is None and run["config"] is None for run in detail["runs"])
    # And steering the runs is for another editor.
    assert api_for("editor").post(f"/experiments/{world.scored.pk}/cancel").status_code == 403


def test_an_unblinded_editor_sees_each_runs_configuration(world, api_for):
    detail = api_for("editor").get(f"/experiments/{world.scored.pk}").json()
    assert detail["blinded"] is False
    assert {run["label"] for run in detail["runs"]} == {
        "Acme-secret-config-label",
        "Acme-second-config-label",
    }
    assert detail["responses"] == detail["expected_responses"] == 6


def test_the_schema_is_served_to_members_only(client, world):
    assert client.get("/api/openapi.json").status_code == 302
    client.force_login(world.users["viewer"])
    schema = client.get("/api/openapi.json").json()
    assert "/api/experiments/{experiment_id}/follow-up" in schema["paths"]
    assert client.get("/api/docs").status_code == 200
    # The endpoints themselves take no session: a token is needed.
    assert client.get("/api/me").status_code == 401


def test_keys_in_bank_exports_are_for_editors_and_not_cached(world, api_for):
    response = api_for("editor").get(f"/banks/{world.bank.pk}/export", format="text")
    assert response.status_code == 200
    assert KEY_ANSWERS[0] in response.content.decode()
    assert response["Cache-Control"] == "no-store"
    assert api_for("viewer").get(f"/banks/{world.bank.pk}/export").status_code == 403


@pytest.mark.parametrize("slug", ["acme", "rival", "no-such-team"])
def test_a_malformed_body_is_422_whatever_the_team(world, api_for, slug):
    """Validation comes first, and says the same for every team: nothing about what exists."""
    response = api_for("viewer").post(f"/teams/{slug}/experiments", {"bank": "x"})
    assert response.status_code == 422
    fields = {p["field"] for p in response.json()["problems"]}
    assert {"bank", "prompt_version", "configs"} <= fields
