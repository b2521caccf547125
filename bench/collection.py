"""Collection at the provider's pace: 1,000 per-item requests through a real worker.

A local OpenAI-compatible server answers after a set latency (200 ms, then 1 ms); a 1,000-item
bank is put, one request per item, to one configuration with a limit of 50 connections; a real
Celery worker process (prefork, as docker-compose runs it) collects it on PostgreSQL, with a
redis-server of the benchmark's own as broker and lease store. Printed: the wall time from Start
to "collected", the ideal (requests x latency / connections), ideal/wall, and the CPU seconds
per answer spent by the worker (all its processes) and the PostgreSQL backends serving it. At
1 ms nearly all the time is the project's own CPU.

Then the same two again with the lease store (REDIS_URL) behind a proxy that delays every chunk
by 2 ms each way, as a Redis on another machine would: each request takes and gives back a slot
of the provider's limit, two round trips, so leases taken with blocking calls inside the sending
loop would cap the run at about 1 / (2 x RTT) requests a second whatever the connections. The
yardstick there is the same collection with Redis direct, measured in the same run.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench .venv/bin/python bench/collection.py
    ... bench/collection.py --latency 0.2 --items 1000 --limit 50 --redis-delay 0.002

Targets on a 2-core machine: ideal/wall >= 0.5 at 200 ms, with Redis direct or delayed; CPU per
answer <= 5 ms; with the delay, wall time at most 1.5 x the direct one at 1 ms latency.
It makes and drops a database of its own, and needs `redis-server` on the PATH.
"""

import argparse
import asyncio
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

from _setup import ROOT, describe, django_setup, throwaway_database

sys.path.insert(0, str(ROOT))

from tests.collection.processes import (  # noqa: E402 (after the path is set)
    CeleryProcess,
    FaultServer,
    RedisServer,
    celery_env,
    database_url,
    free_port,
)

TARGET_RATIO = 0.5
TARGET_CPU_MS = 5.0
TARGET_DELAYED = 1.5  # wall time with the delayed lease store, as a multiple of the direct one
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU of one process, from /proc (None once it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def group_pids(pgid: int) -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) == pgid:
                pids.append(int(entry.name))
    return pids


class CpuMeter:
    """Samples the CPU of the worker's process group and of the database's backends (their pids
    from pg_stat_activity), keeping the last reading of each, so a backend that closes during the
    run still counts up to its last sample."""

    def __init__(self, connection, worker_pgid: int, redis_pid: int) -> None:
        self.connection, self.pgid, self.redis_pid = connection, worker_pgid, redis_pid
        self.last: dict[tuple[str, int], float] = {}
        self.start: dict[tuple[str, int], float] = {}
        self.stop_event = threading.Event()

    def backend_pids(self) -> list[int]:
        with self.connection.cursor() as cursor:
            cursor.execute(
                "SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
                "AND pid <> pg_backend_pid()"
            )
            return [row[0] for row in cursor.fetchall()]

    def sample(self) -> None:
        for kind, pids in (
            ("worker", group_pids(self.pgid)),
            ("database", self.backend_pids()),
            ("redis", [self.redis_pid]),
        ):
            for pid in pids:
                value = cpu_seconds(pid)
                if value is not None:
                    self.last[(kind, pid)] = value

    def begin(self) -> None:
        self.last = {}
        self.sample()
        self.start = dict(self.last)

    def used(self, kind: str) -> float:
        """CPU seconds since begin(); a process that appeared since counts from zero."""
        return sum(
            value - self.start.get((k, pid), 0.0)
            for (k, pid), value in self.last.items()
            if k == kind
        )


class DelayProxy:
    """A TCP proxy in front of a server, holding every chunk `delay` seconds before passing it
    on, in both directions (an asyncio loop in a thread of its own)."""

    def __init__(self, target_port: int, delay: float) -> None:
        self.target_port, self.delay = target_port, delay
        self.port = free_port()
        self.ready = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True, name="delay-proxy")

    def start(self) -> "DelayProxy":
        self.thread.start()
        self.ready.wait(10)
        return self

    def _run(self) -> None:
        asyncio.run(self._serve())

    async def _serve(self) -> None:
        server = await asyncio.start_server(self._client, "127.0.0.1", self.port)
        self.loop = asyncio.get_running_loop()
        self.ready.set()
        async with server:
            await server.serve_forever()

    async def _client(self, reader, writer) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        except OSError:
            writer.close()
            return
        await asyncio.gather(
            self._pipe(reader, up_writer), self._pipe(up_reader, writer), return_exceptions=True
        )

    async def _pipe(self, reader, writer) -> None:
        try:
            while chunk := await reader.read(65536):
                await asyncio.sleep(self.delay)
                writer.write(chunk)
                await writer.drain()
        finally:
            writer.close()


def make_experiment(*, n_items: int, limit: int, base_url: str, name: str):
    from probe.models import ModelConfig
    from tests import builders

    team, users = builders.team_with_members("Bench", {"bench-editor": "editor"})
    bank, _items = builders.bulk_bank(
        team,
        name=f"Bench bank {name}",
        n_items=n_items,
        codes="A",
        block_title="Bench",
        item=lambda _block, i: {"question": f"Bench question {i + 1}?"},
        key=lambda _k: None,
    )
    config = ModelConfig.objects.create(
        team=team,
        label=f"Bench {name}",
        provider="openai_chat",
        model_name=f"bench-{name}",
        base_url=base_url,
        concurrency_limit=limit,
    )
    experiment = builders.service_experiment(
        team=team,
        user=users["bench-editor"],
        bank=bank,
        prompt=builders.prompt_version(team),
        configs=[config],
        mode="item",
        seed=1,
        start=False,
    )
    return experiment, users["bench-editor"]


def collect(*, server, latency: float, n_items: int, limit: int, meter: CpuMeter, worker):
    from probe.models import Experiment, Response
    from probe.services import experiments

    server.latency = latency
    experiment, user = make_experiment(
        n_items=n_items, limit=limit, base_url=server.base_url, name=f"{latency:g}s-{time.time()}"
    )
    meter.begin()
    started = time.monotonic()
    experiments.experiment_start(experiment=experiment, user=user)  # sends the task
    next_sample = started
    while True:
        status = Experiment.objects.filter(pk=experiment.pk).values_list("status", flat=True)[0]
        now = time.monotonic()
        if status == Experiment.Status.COLLECTED:
            break
        if now >= next_sample:
            meter.sample()
            next_sample = now + 0.25
        if worker.process.poll() is not None:
            raise SystemExit("the worker died:\n" + worker.tail())
        if now - started > 600:
            raise SystemExit("not collected in 600 s:\n" + worker.tail())
        time.sleep(0.01)
    wall = time.monotonic() - started
    meter.sample()
    answers = Response.objects.filter(run__experiment=experiment).count()
    assert answers == n_items, answers
    return wall, answers


def report(*, latency, n_items, limit, wall, answers, meter, show_ratio=True, yardstick=None):
    ideal = n_items * latency / limit
    worker_cpu, db_cpu, redis_cpu = (
        meter.used("worker"),
        meter.used("database"),
        meter.used("redis"),
    )
    per_answer_ms = 1000 * (worker_cpu + db_cpu) / answers
    print(f"  wall time          {wall:8.2f} s")
    print(f"  ideal              {ideal:8.2f} s   (requests x latency / connections)")
    if show_ratio:
        mark = "met" if ideal / wall >= TARGET_RATIO else "NOT met"
        print(f"  ideal/wall         {ideal / wall:8.2f}     target >= {TARGET_RATIO} ({mark})")
    if yardstick is not None:
        ratio = wall / yardstick
        mark = "met" if ratio <= TARGET_DELAYED else "NOT met"
        print(
            f"  wall / direct      {ratio:8.2f}     target <= {TARGET_DELAYED} ({mark}; "
            f"direct Redis {yardstick:.2f} s, same run)"
        )
    mark = "met" if per_answer_ms <= TARGET_CPU_MS else "NOT met"
    print(
        f"  CPU per answer     {per_answer_ms:8.2f} ms  target <= {TARGET_CPU_MS:g} ms ({mark})"
        f"  [worker {worker_cpu:.2f} s + database {db_cpu:.2f} s; redis {redis_cpu:.2f} s apart]"
    )
    print(f"  answers per second {answers / wall:8.1f}")


def run_worker(*, env, log, args, connection, server, redis, lease_store: str) -> dict:
    """Start a worker with this environment, warm it up, measure both latencies; its walls."""
    worker = CeleryProcess(
        [
            "worker",
            "--pool",
            "prefork",
            "--concurrency",
            str(args.concurrency),
            "--loglevel",
            "INFO",
            "--without-gossip",
            "--without-mingle",
        ],
        env,
        log,
    )
    worker.start()
    walls = {}
    try:
        worker.wait_ready()
        meter = CpuMeter(connection, worker.process.pid, redis.process.pid)
        # Warm-up: the pool's processes open their connections and import lazily.
        collect(
            server=server, latency=0.001, n_items=50, limit=args.limit, meter=meter, worker=worker
        )
        for latency in (args.latency, 0.001):
            wall, answers = collect(
                server=server,
                latency=latency,
                n_items=args.items,
                limit=args.limit,
                meter=meter,
                worker=worker,
            )
            walls[latency] = wall
            print(
                f"\nlatency {latency * 1000:g} ms, {args.items} requests, limit {args.limit} "
                f"connections, lease store: {lease_store}"
            )
            report(
                latency=latency,
                n_items=args.items,
                limit=args.limit,
                wall=wall,
                answers=answers,
                meter=meter,
                show_ratio=latency >= 0.01,
                yardstick=args.yardsticks.get(latency),
            )
    finally:
        worker.stop()
    return walls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--latency", type=float, default=0.2, help="seconds (default 0.2)")
    parser.add_argument("--items", type=int, default=1000)
    parser.add_argument("--limit", type=int, default=50)
    parser.add_argument("--concurrency", type=int, default=4, help="worker processes")
    parser.add_argument(
        "--redis-delay", type=float, default=0.002, help="seconds per chunk (default 0.002)"
    )
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="bench-collection-"))
    redis = RedisServer(port=free_port(), directory=work)
    redis.start()
    os.environ["CELERY_BROKER_URL"] = f"{redis.url}/0"  # before Django reads its settings
    os.environ["REDIS_URL"] = f"{redis.url}/1"
    django_setup()
    server = FaultServer(latency=args.latency).start()
    proxy = DelayProxy(redis.port, args.redis_delay).start()
    with throwaway_database("collection") as connection:
        print(f"{describe(connection)}; worker: prefork, concurrency {args.concurrency}")
        # Logging as in production (INFO: a line per provider request).
        common = {"database": database_url(connection), "redis_url": redis.url}
        ports = [server.port]
        try:
            args.yardsticks = {}
            direct = run_worker(
                env=celery_env(**common, provider_ports=ports),
                log=work / "worker.log",
                args=args,
                connection=connection,
                server=server,
                redis=redis,
                lease_store="Redis direct",
            )
            args.yardsticks = direct
            delayed_url = f"redis://127.0.0.1:{proxy.port}/1"
            run_worker(
                env=celery_env(**common, provider_ports=ports, REDIS_URL=delayed_url),
                log=work / "worker-delayed.log",
                args=args,
                connection=connection,
                server=server,
                redis=redis,
                lease_store=f"Redis behind a {args.redis_delay * 1000:g} ms delay each way",
            )
        finally:
            connection.close()
    server.stop()
    redis.stop()
    print(f"\nload: {os.popen('uptime').read().strip()}")


if __name__ == "__main__":
    main()
