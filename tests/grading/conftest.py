"""Fixtures for grading: a collected experiment whose keys have every shape the rules know,
answered by two configurations, and grader configurations on the simulator or a replay server."""

import pytest

from tests import builders

KEYS = ["429", "Retry-After", "3.10", "2024-03-05", "Paris", "CVE-2021-44228"]
SHEETS = [
    [
        ("429", "HIGH"),
        ("retry-after", "HIGH"),
        ("3.1", "HIGH"),
        ("5 March 2024", "LOW"),
        ("The city of Paris", "MEDIUM"),
        ("UNKNOWN", ""),
    ],
    [
        ("428", "MEDIUM"),
        ("the Retry-After header", "HIGH"),
        ("3.10", "HIGH"),
        ("2024-03-06", "HIGH"),
        ("Lyon", "LOW"),
        ("CVE-2021-45046", "HIGH"),
    ],
]


@pytest.fixture(autouse=True)
def no_redis(settings):
    settings.REDIS_URL = None


@pytest.fixture
def graded_world(world):
    configs = builders.model_configs(world.team, ["Writer one", "Writer two"])
    items = [
        builders.SnapshotItem(question=f"Grading question {n}?", key_answer=key)
        for n, key in enumerate(KEYS, start=1)
    ]
    world.grading = world.collected_experiment(
        [builders.Sheet(c, s) for c, s in zip(configs, SHEETS, strict=True)],
        items=items,
        name="Graded",
    )
    return world


def grader_config(world, *, base_url, model_name="sim-grader", provider="simulator", label=None):
    from probe.models import ModelConfig

    return ModelConfig.objects.create(
        team=world.team,
        label=label or f"Grader {model_name}",
        provider=provider,
        model_name=model_name,
        base_url=base_url,
        concurrency_limit=3,
    )


@pytest.fixture
def simulator():
    """The real simulator over HTTP, answering at once, counting the requests it receives."""
    from tests.replay import CountingSimulator

    sim = CountingSimulator({"items": []})
    yield sim
    sim.stop()
