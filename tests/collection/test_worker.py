"""One end-to-end collection by a real Celery worker process on the configured broker.

The worker runs `python -m celery -A config worker --pool prefork` (as docker-compose does) against the same broker as
this process (the filesystem broker locally, Redis in CI) and the test database, on a queue of
its own so that no other worker takes these tasks, nor this worker anyone else's.
"""

import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from django.db import connection

from adapters.simulator_server import start_simulator_in_thread
from probe.models import Attempt, Experiment, Response, Run
from probe.services import experiments
from tests.collection.conftest import WORLD_KNOWLEDGE, make_config
from tests.replay import TEST_LOOPBACK_PORTS, allow_loopback_port

ROOT = Path(__file__).resolve().parents[2]


def _database_url() -> str:
    """The URL of the test database this process is using, for the worker's settings."""
    db = connection.settings_dict
    if db["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{db['NAME']}"
    auth = db["USER"] + (f":{db['PASSWORD']}" if db.get("PASSWORD") else "")
    return f"postgres://{auth}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


def _start_worker(queue: str) -> tuple[subprocess.Popen, list[str]]:
    env = {
        **os.environ,
        "DATABASE_URL": _database_url(),
        "DJANGO_SETTINGS_MODULE": "config.settings",
        # The worker may call the test servers this process started, and only those ports.
        "PROVIDER_LOOPBACK_PORTS": ",".join(str(port) for port in TEST_LOOPBACK_PORTS),
    }
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "config",
            "worker",
            "--pool",
            "prefork",
            "--concurrency",
            "2",
            "--loglevel",
            "INFO",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
            "-Q",
            queue,
            "--hostname",
            f"{queue}@%h",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines: list[str] = []
    os.set_blocking(process.stdout.fileno(), False)
    deadline = time.monotonic() + 60
    while not any(" ready." in line for line in lines):
        assert process.poll() is None, "worker exited:\n" + "".join(lines)
        assert time.monotonic() < deadline, "worker not ready in 60 s:\n" + "".join(lines)
        _drain(process, lines)
        time.sleep(0.1)
    return process, lines


def _drain(process: subprocess.Popen, lines: list[str]) -> None:
    while True:
        try:
            chunk = process.stdout.readline()
        except (OSError, ValueError):
            return
        if not chunk:
            return
        lines.append(chunk)


def _stop(process: subprocess.Popen, lines: list[str]) -> None:
    process.terminate()
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    _drain(process, lines)


@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_collects_three_simulated_configs_twice(world, settings):
    """Per item, so that six runs of three items compete for two slots of the shared limit
    (waits for a slot) and the flaky model's 429s and 500s are retried inside the run's task."""
    queue = f"collect-test-{uuid.uuid4().hex[:10]}"
    settings.PROBE_COLLECTION_QUEUE = queue
    server, base_url = start_simulator_in_thread(WORLD_KNOWLEDGE, latency_scale=0.1)
    allow_loopback_port(base_url)
    calls: list = []
    answer = server.simulator.chat_completion
    server.simulator.chat_completion = lambda payload: calls.append(1) or answer(payload)
    # The three share provider, host and (no) key, hence one limit of 2 for 4 worker threads.
    configs = [
        make_config(world, label=label, model_name=model, base_url=base_url, concurrency_limit=2)
        for label, model in [
            ("Expert", "sim-expert"),
            ("Sloppy", "sim-sloppy"),
            ("Flaky", "sim-flaky"),
        ]
    ]
    experiment = experiments.experiment_create(
        team=world.team,
        user=world.users["editor"],
        bank=world.bank,
        prompt_version=world.prompt,
        configs=configs,
        repeats=2,
        mode="item",
    )
    process, lines = _start_worker(queue)
    try:
        experiments.experiment_start(experiment=experiment, user=world.users["editor"])
        deadline = time.monotonic() + 50
        while Experiment.objects.get(pk=experiment.pk).status != Experiment.Status.COLLECTED:
            _drain(process, lines)
            assert process.poll() is None, "worker died:\n" + "".join(lines)
            statuses = list(experiment.runs.values_list("status", "error_message"))
            assert time.monotonic() < deadline, f"not collected in 50 s: {statuses}\n" + "".join(
                lines[-40:]
            )
            time.sleep(0.2)
    finally:
        _stop(process, lines)
        server.stop()

    runs = list(experiment.runs.all())
    assert len(runs) == 6 and all(r.status == Run.Status.COLLECTED for r in runs)
    assert all(r.attempts.filter(outcome="complete").count() == 3 for r in runs), "one per item"
    assert Response.objects.filter(run__experiment=experiment).count() == 18
    assert Response.objects.filter(run__experiment=experiment, answer__isnull=True).count() == 0
    assert all(r.compliance is not None for r in runs)
    attempts = Attempt.objects.filter(run__experiment=experiment)
    assert len(calls) == attempts.count(), "every request the simulator saw is an attempt"
    assert attempts.filter(outcome=Attempt.Outcome.COMPLETE).count() == 18, (
        "no second successful call"
    )
    assert any("collect_run" in line and "succeeded" in line for line in lines), "".join(
        lines[-40:]
    )
    assert any("; retry 1 in" in line for line in lines), "the flaky model's errors were retried"
    assert not any("retry: Retry in" in line for line in lines), (
        "waits and retries happen in the task, without sending the message again"
    )
