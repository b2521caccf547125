"""Fixtures for collection tests: a simulator over real HTTP, replies for the suite's replay
server (tests/replay.py: the ``replay`` fixture plays a script of them), experiments built
through the services, and fast retries."""

import json
from dataclasses import dataclass, field

import pytest

from tests.replay import CountingSimulator

# What the simulated models may know: the world's three items, answered correctly.
WORLD_KNOWLEDGE = {
    "items": [
        {"question": "Which status code means Too Many Requests?", "answer": "429"},
        {"question": "Which header says when to retry?", "answer": "Retry-After"},
        {"question": "Which version added match?", "answer": "3.10"},
    ]
}


def chat_body(text: str, *, finish_reason: str = "stop", model: str = "replayed-model") -> str:
    return json.dumps(
        {
            "id": "chatcmpl-replay",
            "object": "chat.completion",
            "model": model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": text},
                    "finish_reason": finish_reason,
                }
            ],
            "usage": {"prompt_tokens": 120, "completion_tokens": 30, "total_tokens": 150},
        }
    )


@dataclass
class Reply:
    """One reply of an OpenAI-compatible server, as a step of replay.play's script: JSON, with a
    request id of its own (req_replay_1 for the first request, ...)."""

    status: int = 200
    body: str = ""
    headers: dict = field(default_factory=dict)

    def __call__(self, index: int) -> dict:
        headers = {"content-type": "application/json", "x-request-id": f"req_replay_{index + 1}"}
        return {"status": self.status, "body_text": self.body, "headers": headers | self.headers}


@pytest.fixture
def simulator():
    """The real simulator over HTTP, answering at once, counting the requests it receives."""
    sim = CountingSimulator(WORLD_KNOWLEDGE)
    yield sim
    sim.stop()


@pytest.fixture(autouse=True)
def no_redis(settings):
    """The in-process limiter unless a test asks for Redis."""
    settings.REDIS_URL = None


def make_config(
    world,
    *,
    label,
    provider="simulator",
    model_name="sim-expert",
    base_url="",
    api_key_env="",
    concurrency_limit=4,
):
    from probe.models import ModelConfig

    return ModelConfig.objects.create(
        team=world.team,
        label=label,
        provider=provider,
        model_name=model_name,
        base_url=base_url,
        api_key_env=api_key_env,
        concurrency_limit=concurrency_limit,
    )


def make_experiment(world, configs, *, repeats=1, mode="sheet", seed=7, start=True):
    """An experiment on the world's bank, created (and started) by its editor."""
    from tests import builders

    return builders.service_experiment(
        team=world.team,
        user=world.users["editor"],
        bank=world.bank,
        prompt=world.prompt,
        configs=configs,
        repeats=repeats,
        mode=mode,
        seed=seed,
        start=start,
    )


def collect_all(experiment) -> list[float]:
    """Drive every unit of every active run to its end in this thread; returns the sleeps asked."""
    from probe.models import Run
    from probe.services import collection

    sleeps: list[float] = []
    for run in experiment.runs.filter(status__in=[Run.Status.QUEUED, Run.Status.RUNNING]).order_by(
        "order"
    ):
        for item_pk in collection.run_units(run):
            collection.collect_unit_sync(run_pk=run.pk, item_pk=item_pk, sleep=sleeps.append)
    return sleeps
