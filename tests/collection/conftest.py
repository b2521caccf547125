"""Fixtures for collection tests: a simulator and a scripted replay server over real HTTP,
experiments built through the services, and fast retries."""

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from adapters.simulator_server import start_simulator_in_thread

# What the simulated models may know: the world's three items, answered correctly.
WORLD_KNOWLEDGE = {
    "items": [
        {"question": "Which status code means Too Many Requests?", "answer": "429"},
        {"question": "Which header says when to retry?", "answer": "Retry-After"},
        {"question": "Which version added match?", "answer": "3.10"},
    ]
}


def sheet_text(answers) -> str:
    """A well-formed sheet: answers = [(answer, confidence), ...] for items 1..N."""
    return "\n".join(f"{n}. ANSWER: {a}\nCONFIDENCE: {c}" for n, (a, c) in enumerate(answers, 1))


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
    status: int = 200
    body: str = ""
    headers: dict = field(default_factory=dict)


@dataclass
class ReplayServer:
    """Answers POSTs from a script of replies (the last one repeats) and keeps what it saw."""

    script: list
    base_url: str = ""
    requests: list = field(default_factory=list)  # (path, headers, json body)
    server: object = None

    @property
    def count(self) -> int:
        return len(self.requests)


def _start_replay(script: list) -> ReplayServer:
    replay = ReplayServer(script=list(script))
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self):  # noqa: N802
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length else b""
            with lock:
                index = len(replay.requests)
                replay.requests.append((self.path, dict(self.headers), json.loads(raw or b"{}")))
                reply = replay.script[min(index, len(replay.script) - 1)]
            if callable(reply):
                reply = reply(index)
            body = reply.body.encode("utf-8")
            self.send_response(reply.status)
            headers = {
                "content-type": "application/json",
                "x-request-id": f"req_replay_{index + 1}",
            }
            headers.update(reply.headers)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    ).start()
    replay.server = server
    replay.base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    return replay


@pytest.fixture
def replay_server():
    """start(script) -> ReplayServer; every server started is stopped after the test."""
    started = []

    def start(script: list) -> ReplayServer:
        replay = _start_replay(script)
        started.append(replay)
        return replay

    yield start
    for replay in started:
        replay.server.shutdown()
        replay.server.server_close()


@dataclass
class Simulator:
    base_url: str
    server: object
    calls: list  # model names, one per request received

    @property
    def count(self) -> int:
        return len(self.calls)


@pytest.fixture
def simulator():
    """The real simulator over HTTP, answering at once, counting the requests it receives."""
    server, base_url = start_simulator_in_thread(WORLD_KNOWLEDGE, latency_scale=0)
    calls: list = []
    answer: Callable = server.simulator.chat_completion

    def counting(payload):
        calls.append(payload.get("model") if isinstance(payload, dict) else None)
        return answer(payload)

    server.simulator.chat_completion = counting
    yield Simulator(base_url, server, calls)
    server.stop()


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
    from probe.services import experiments

    experiment = experiments.experiment_create(
        team=world.team,
        user=world.users["editor"],
        bank=world.bank,
        prompt_version=world.prompt,
        configs=configs,
        repeats=repeats,
        mode=mode,
        seed=seed,
    )
    if start:
        experiment = experiments.experiment_start(
            experiment=experiment, user=world.users["editor"], queue=False
        )
    return experiment


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
