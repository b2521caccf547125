"""Collection recovers by itself: worker kills and a broker restart, with 30% of answers failing.

Real parts throughout: the test database (PostgreSQL in CI), a redis-server of the test's own on a
free port (broker and leases, persisted like docker-compose's), a prefork Celery worker and a
Celery beat process (as docker-compose runs them), and a local OpenAI-compatible server that
answers 30% of requests with 429 or 500. During collection the worker is SIGKILLed twice (its
whole process group, like `docker kill`) and restarted, and the broker is SIGKILLed once and
restarted. Nobody presses Retry: the sweep (beat) must bring every run to its end.
"""

import shutil
import time

import pytest
from django.db import connection

from probe.models import Attempt, Experiment, Response, Run
from probe.services import experiments
from tests.collection.conftest import make_config
from tests.collection.processes import (
    CeleryProcess,
    FaultServer,
    RedisServer,
    celery_env,
    database_url,
    free_port,
)

N_ITEMS = 60
LIMIT = 4  # shared by the six configurations (same provider, host and key variable)
# Timings shortened for the test; production defaults are in config/settings.py.
TIMINGS = {
    "PROBE_RUN_LEASE_SECONDS": "3",
    "PROBE_REQUEUE_AFTER_SECONDS": "3",
    "PROBE_SWEEP_SECONDS": "1",
    "PROBE_STALL_SECONDS": "20",
}
# After the last fault, the experiment must complete within this long.
RECOVERY_BOUND = 45.0


def _bank(world):
    from tests.probe import factories

    bank = factories.BankFactory(team=world.team, name="Fault bank")
    block = factories.BlockFactory(bank=bank, code="F", title="Faults", order=1)
    for n in range(1, N_ITEMS + 1):
        factories.ItemFactory(block=block, question=f"Fault question {n}?", order=n)
    return bank


def _answered(experiment) -> int:
    return Response.objects.filter(run__experiment=experiment).count()


def _wait_for(predicate, timeout: float, what: str, processes) -> float:
    started = time.monotonic()
    while not predicate():
        for process in processes:
            if process.process.poll() is not None:
                raise AssertionError(f"{what}: a process exited:\n{process.tail()}")
        if time.monotonic() - started > timeout:
            logs = "\n\n".join(p.tail(40) for p in processes)
            raise AssertionError(f"{what}: not within {timeout} s\n{logs}")
        time.sleep(0.1)
    return time.monotonic()


@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
def test_collection_survives_worker_kills_and_a_broker_restart(world, tmp_path):
    if shutil.which("redis-server") is None:
        pytest.skip("redis-server is not installed (the Redis package provides it)")
    server = FaultServer(latency=0.15, fault_rate=0.3).start()
    redis = RedisServer(port=free_port(), directory=tmp_path)
    redis.start()
    env = celery_env(database=database_url(connection), redis_url=redis.url, **TIMINGS)
    worker = CeleryProcess(
        [
            "worker",
            "--pool",
            "prefork",
            "--concurrency",
            "2",
            "--loglevel",
            "INFO",
            "--without-gossip",
            "--without-mingle",
            "--hostname",
            "faults@%h",
        ],
        env,
        tmp_path / "worker.log",
    )
    beat = CeleryProcess(
        ["beat", "--loglevel", "INFO", "--schedule", str(tmp_path / "beat-schedule")],
        env,
        tmp_path / "beat.log",
    )
    configs = [
        make_config(
            world, label=label, provider="openai_chat", model_name=model,
            base_url=server.base_url, concurrency_limit=LIMIT,
        )
        for label, model in [(f"Config {n}", f"m-{n}") for n in range(1, 7)]
    ]  # fmt: skip
    experiment = experiments.experiment_create(
        team=world.team,
        user=world.users["editor"],
        bank=_bank(world),
        prompt_version=world.prompt,
        configs=configs,
        # One repeat each: the server tells units apart by model and prompt, and two repeats of
        # one configuration send the very same request.
        repeats=1,
        mode="item",
    )
    total = 6 * N_ITEMS
    try:
        worker.start()
        beat.start()
        worker.wait_ready()
        # No task is sent here: the sweep finds the queued runs that nothing works on.
        experiments.experiment_start(experiment=experiment, user=None, queue=False)
        processes = [worker, beat]

        for share in (0.2, 0.4):
            _wait_for(lambda s=share: _answered(experiment) >= s * total, 60, "progress", processes)
            worker.kill()
            worker.start()
            worker.wait_ready()

        _wait_for(lambda: _answered(experiment) >= 0.6 * total, 60, "progress", processes)
        redis.kill()
        time.sleep(2.0)
        redis.start()
        last_fault = time.monotonic()

        done = _wait_for(
            lambda: Experiment.objects.get(pk=experiment.pk).status == Experiment.Status.COLLECTED,
            RECOVERY_BOUND,
            "complete after the last fault",
            processes,
        )
        recovery = done - last_fault
    finally:
        worker.stop()
        beat.stop()
        redis.stop()
        server.stop()

    runs = list(experiment.runs.all())
    assert all(run.status == Run.Status.COLLECTED for run in runs), [r.status for r in runs]
    responses = Response.objects.filter(run__experiment=experiment)
    assert responses.count() == total, "every (run, item) answered"
    pairs = set(responses.values_list("run_id", "item_id"))
    assert len(pairs) == total, "exactly once"
    successes = Attempt.objects.filter(run__experiment=experiment, outcome__in=Attempt.SUCCESS)
    per_unit = {}
    for run_id, item_id in successes.values_list("run_id", "item_id"):
        per_unit[(run_id, item_id)] = per_unit.get((run_id, item_id), 0) + 1
    assert set(per_unit) == pairs and max(per_unit.values()) == 1, (
        "no unit with a stored reply was asked again"
    )
    # Only requests in flight at a worker kill (at most LIMIT at once, plus those answered in
    # the last tenth of a second before it, not yet written) can have been answered twice.
    repeated = sum(n - 1 for n in server.successes.values() if n > 1)
    assert repeated <= 2 * 2 * LIMIT, f"{repeated} replies sent twice"
    assert server.faults >= 0.2 * server.requests, "the faults were really injected"
    assert recovery < RECOVERY_BOUND
    assert worker.starts == 3
    log = worker.text()
    assert "lease store unreachable" in log, (
        "the broker's Redis (also the lease store) was waited out"
    )
    assert "Internal error" not in log and "failed:" not in log, "no run failed on the way"
    print(
        f"\n{total} units, {server.requests} requests, {server.faults} faults, "
        f"{repeated} in-flight replies sent twice, complete {recovery:.1f} s after the last fault"
    )
