"""The review and reconciliation pages take a fixed number of queries, whatever the sheets."""

from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from scoring.models import Bucket
from scoring.queue import services
from scoring.reconciliation import services as reconcile_services
from tests.probe import factories
from tests.scoring.factories import judge_everything

from .conftest import build_experiment


def _experiment(world, n_sheets):
    configs = [factories.ModelConfigFactory(team=world.team) for _ in range(n_sheets)]
    sheets = [
        (config, 1, [(f"wrong {i % 3}", "HIGH"), ("k2", "LOW"), (f"other {i}", "MEDIUM")])
        for i, config in enumerate(configs)
    ]
    experiment = build_experiment(
        world, sheets=sheets, keys=["k1", "k2", "k3"], name=f"{n_sheets} sheets"
    )
    a = services.assignment_start(experiment=experiment, user=world.users["scorer"])
    b = services.assignment_start(experiment=experiment, user=world.users["editor"])
    judge_everything(a, Bucket.CONFIDENT_WRONG)
    judge_everything(b, Bucket.CORRECT)
    reconcile_services.reconciliation_start(experiment=experiment, user=world.users["owner"])
    return experiment


def _count(client, url):
    client.get(url)  # warm up
    with CaptureQueriesContext(connection) as ctx:
        assert client.get(url).status_code == 200
    return len(ctx.captured_queries)


def test_queries_do_not_grow_with_the_sheets(client, world):
    client.force_login(world.users["owner"])
    counts = {}
    for n in (2, 8):
        experiment = _experiment(world, n)
        counts[n] = [
            _count(client, reverse(name, kwargs={"experiment_pk": experiment.pk, **extra}))
            for name, extra in (
                ("scoring:key_review", {}),
                ("scoring:reconcile_item", {"position": 1}),
                ("scoring:agreement", {}),
                ("scoring:scorers", {}),
                ("scoring:reconcile", {}),
            )
        ]
    assert counts[2] == counts[8], counts
