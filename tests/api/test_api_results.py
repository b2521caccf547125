"""Results over the API follow the report's rules: nothing before the reveal, the team's final
figures once reconciliation is complete, keys only for those who may see them."""

import pytest

from scoring.reconciliation import services as reconcile_services
from tests.report.conftest import build
from tests.scoring.factories import score_all

pytestmark = pytest.mark.django_db

SHEETS = {("Alpha", 1): "CCCCWWAH", ("Alpha", 2): "CCCWWWAH", ("Beta", 1): "CCCCCCAA"}


def test_results_wait_for_the_reveal_then_the_final_buckets(world, api_for):
    built = build(world, SHEETS)
    experiment = built.experiment
    scorer, editor, viewer = api_for("scorer"), api_for("editor"), api_for("viewer")
    url = f"/experiments/{experiment.pk}/results/figures"

    # Nobody has scored: the scorer and the viewer learn what is missing, and nothing else.
    for client in (scorer, viewer):
        response = client.get(url)
        assert response.status_code == 409
        assert "Alpha" not in response.content.decode()

    # The scorer's own figures after their reveal (the final report needs two scorers).
    score_all(experiment, world.users["scorer"])
    own = scorer.get(url).json()
    assert own["source"] == "scorer"
    alpha = next(c for c in own["figures"]["configurations"] if c["label"] == "Alpha")
    assert [run["figures"]["correct"] for run in alpha["runs"]] == [4, 3]
    assert viewer.get(url).status_code == 409

    # A second scorer, then reconciliation: every response is unanimous, so it is complete.
    score_all(experiment, world.users["owner"])
    reconcile_services.reconciliation_start(experiment=experiment, user=world.users["editor"])
    final = viewer.get(url).json()
    assert final["source"] == "final"
    labels = {c["label"] for c in final["figures"]["configurations"]}
    assert labels == {"Alpha", "Beta"}
    rows = viewer.get(f"/experiments/{experiment.pk}/results/responses").json()
    assert len(rows["responses"]) == 3 * 8
    assert all(row["key"] is None for row in rows["responses"]), "a viewer sees no key"
    keyed = editor.get(f"/experiments/{experiment.pk}/results/responses").json()
    assert {row["key"] for row in keyed["responses"]} == {f"key {n}" for n in range(1, 9)}


def test_w_is_checked(world, api_for):
    built = build(world, SHEETS)
    score_all(built.experiment, world.users["scorer"])
    response = api_for("scorer").get(f"/experiments/{built.experiment.pk}/results/figures", w="x")
    assert response.status_code == 422 and response.json()["problems"][0]["field"] == "w"
    heavy = api_for("scorer").get(f"/experiments/{built.experiment.pk}/results/figures", w="2")
    assert heavy.status_code == 200
