"""Collection recovers by itself, and says honestly what it is doing: worker kills and a broker
kill, with 30% of answers failing and some units failing many times in a row.

Real parts throughout: the test database (PostgreSQL in CI), a redis-server of the test's own on a
free port (broker and leases, persisted like docker-compose's), a prefork Celery worker and a
Celery beat process (as docker-compose runs them), and a local OpenAI-compatible server that
answers 30% of requests with 429 or 500, and one unit in twelve seven times in a row first (more
than the retry table's six attempts). During collection the worker is SIGKILLed twice (its whole
process group, like `docker kill`) and restarted, and the broker is SIGKILLed and restarted.
Nobody presses Retry: the sweep (beat) must bring every run to its end. Meanwhile the test reads
each run's state as the experiment page shows it (`experiment_progress`): while no worker is
alive, or the lease store is down, no run may say it is collecting.
"""

import shutil
import subprocess
import threading
import time

import pytest
from django.db import connection

from probe.models import Attempt, Experiment, Response, Run
from probe.selectors.experiments import experiment_progress
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

N_ITEMS = 40
LIMIT = 4  # shared by the six configurations (same provider, host and key variable)
# Timings shortened for the test; production defaults are in config/settings.py. The lease is
# renewed every second (a third of its term), so a run whose worker died says so within 2 s.
TIMINGS = {
    "PROBE_RUN_LEASE_SECONDS": "3",
    "PROBE_REQUEUE_AFTER_SECONDS": "10",
    "PROBE_SWEEP_SECONDS": "1",
    "PROBE_STALL_SECONDS": "20",
    "PROBE_UNIT_RETRY_SECONDS": "60",
    "PROBE_UNIT_BACKOFF_MAX_SECONDS": "2",
}
HONEST_WITHIN = 2.0 + 1.0  # two renewal periods, and a second for the page to be read
HELD = {"collecting", "waiting_slot", "retrying", "waiting_store"}
# After the last fault, the experiment must complete within this long.
RECOVERY_BOUND = 60.0  # 37-40 s measured on a loaded 2-core machine


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


class StateLog:
    """Reads every run's state as the page shows it, every 0.2 s, in a thread of its own."""

    def __init__(self, experiment):
        self.experiment = experiment
        self.samples: list[tuple[float, dict]] = []  # (monotonic, {run order: state})
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        try:
            while not self.stop.is_set():
                progress = experiment_progress(Experiment.objects.get(pk=self.experiment.pk))
                states = {
                    r.order: (r.health.state if r.health else r.status) for r in progress.runs
                }
                self.samples.append((time.monotonic(), states))
                time.sleep(0.2)
        finally:
            connection.close()

    def between(self, start: float, end: float) -> list[dict]:
        return [states for when, states in self.samples if start <= when <= end]

    def seen(self) -> set:
        return {state for _when, states in self.samples for state in states.values()}


def _unacked(redis: RedisServer) -> dict:
    """What the broker (database 0) holds unacknowledged, read with redis-cli."""

    def ask(*command) -> int:
        out = subprocess.run(
            ["redis-cli", "-p", str(redis.port), "-n", "0", *command],
            capture_output=True,
            text=True,
            check=True,
            timeout=10,
        )
        return int(out.stdout.strip() or 0)

    return {"unacked": ask("HLEN", "unacked"), "unacked_index": ask("ZCARD", "unacked_index")}


@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
def test_collection_survives_worker_kills_and_a_broker_kill_and_says_so(world, tmp_path):
    if shutil.which("redis-server") is None or shutil.which("redis-cli") is None:
        pytest.skip("redis-server and redis-cli are not installed (the Redis package has them)")
    server = FaultServer(latency=0.15, fault_rate=0.3, stubborn_every=12, stubborn_faults=7)
    server.start()
    redis = RedisServer(port=free_port(), directory=tmp_path)
    redis.start()
    env = celery_env(
        database=database_url(connection),
        redis_url=redis.url,
        provider_ports=[server.port],
        **TIMINGS,
    )
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
    states = StateLog(experiment)
    no_worker: list[tuple[float, float]] = []  # (killed, restarted) per worker kill
    try:
        worker.start()
        beat.start()
        worker.wait_ready()
        states.thread.start()
        # No task is sent from here (this process's Celery app knows only the configured
        # broker, not the test's own): the sweep finds the queued runs that nothing works on.
        experiments.experiment_start(experiment=experiment, user=world.users["editor"], queue=False)
        processes = [worker, beat]

        for share in (0.2, 0.4):
            _wait_for(lambda s=share: _answered(experiment) >= s * total, 60, "progress", processes)
            worker.kill()
            killed = time.monotonic()
            time.sleep(HONEST_WITHIN + 1.0)  # long enough to see what the page says meanwhile
            worker.start()
            no_worker.append((killed, time.monotonic()))
            worker.wait_ready()

        _wait_for(lambda: _answered(experiment) >= 0.6 * total, 60, "progress", processes)
        redis.kill()
        broker_killed = time.monotonic()
        time.sleep(HONEST_WITHIN + 1.0)
        broker_back = time.monotonic()
        redis.start()
        last_fault = time.monotonic()

        done = _wait_for(
            lambda: Experiment.objects.get(pk=experiment.pk).status == Experiment.Status.COLLECTED,
            RECOVERY_BOUND,
            "complete after the last fault",
            processes,
        )
        recovery = done - last_fault
        unacked = _unacked(redis)
    finally:
        states.stop.set()
        if states.thread.is_alive():
            states.thread.join()
        worker.stop()
        beat.stop()
        redis.stop()
        server.stop()

    # Nothing lost, nothing twice, nothing failed, nobody acting.
    runs = list(experiment.runs.all())
    assert all(run.status == Run.Status.COLLECTED for run in runs), [r.status for r in runs]
    assert all(not run.error_message for run in runs), "no unit failed either"
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
    assert not Attempt.objects.filter(
        run__experiment=experiment, outcome=Attempt.Outcome.FATAL
    ).exists()
    # Only requests in flight at a worker kill (at most LIMIT at once, plus those answered in
    # the last tenth of a second before it, not yet written) can have been answered twice.
    repeated = sum(n - 1 for n in server.successes.values() if n > 1)
    assert repeated <= 2 * 2 * LIMIT, f"{repeated} replies sent twice"
    assert server.faults >= 0.2 * server.requests, "the faults were really injected"
    stubborn = Attempt.objects.filter(
        run__experiment=experiment, outcome=Attempt.Outcome.RETRYABLE
    ).values_list("run_id", "item_id")
    streaks = {}
    for key in stubborn:
        streaks[key] = streaks.get(key, 0) + 1
    assert max(streaks.values()) >= 7, "some unit failed more than six times, and still came in"
    assert recovery < RECOVERY_BOUND
    assert worker.starts == 3

    # The states the page showed: never "collecting" with no worker alive, nor with the lease
    # store down; never stalled; "waiting for a worker" seen after each kill.
    for killed, restarted in no_worker:
        during = states.between(killed + HONEST_WITHIN, restarted)
        assert during, "the page was read while no worker was alive"
        held = [s for sample in during for s in sample.values() if s in HELD]
        assert not held, f"a run looked worked on with no worker alive: {held}"
        assert any("waiting" in sample.values() for sample in during)
    during = states.between(broker_killed + HONEST_WITHIN, broker_back)
    assert during, "the page was read while the broker was down"
    assert not [s for sample in during for s in sample.values() if s == "collecting"]
    assert "stalled" not in states.seen()
    assert "failed" not in states.seen()

    # Nothing stays unacknowledged in the broker once the runs are done.
    assert unacked == {"unacked": 0, "unacked_index": 0}, unacked
    log = worker.text()
    assert "lease store unreachable" in log, (
        "the broker's Redis (also the lease store) was waited out"
    )
    assert "Internal error" not in log and "failed:" not in log, "no run failed on the way"
    print(
        f"\n{total} units, {server.requests} requests, {server.faults} faults, "
        f"{repeated} in-flight replies sent twice, complete {recovery:.1f} s after the last "
        f"fault; states seen: {sorted(states.seen())}; broker: {unacked}"
    )
