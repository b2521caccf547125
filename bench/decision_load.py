"""Many scorers at once: 1, 5 and 20 scripted scorers against gunicorn with 3 workers.

Each scripted scorer does what the scoring page does: fetches an item's fragment, then sends a
decision for each undecided answer group to scoring:record (the page's queue: one request at a
time, each with its own key), pausing THINK_MS between decisions as a fast human would, and
moves on to the next item. The figure is decisions per second in all, over DURATION_S at each
level, with the p95 of a decision's round trip and the CPU the three workers used (100 % is one
core). Target: 20 scorers decide at least 5 times as fast in all as one scorer alone.

Run it on PostgreSQL (the figure that counts):
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench .venv/bin/python bench/decision_load.py
Arguments: the levels to run (default 1 5 20). It makes and drops a database of its own.
"""

import asyncio
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter

from _setup import ROOT, describe, django_setup, median, percentile, throwaway_database

LEVELS = (1, 5, 20)
DURATION_S = float(os.environ.get("BENCH_DURATION", "20"))
THINK_MS = 250
WORKERS = 3
THREADS = int(os.environ.get("BENCH_THREADS", "1"))  # per worker; 1: gunicorn's sync workers
N_ITEMS, N_SHEETS = 400, 8
ITEMS_PER_LEVEL = 130
TARGET_RATIO = 5.0
LOG = os.environ.get("BENCH_ACCESS_LOG", "")  # gunicorn's access log with each request's time
GROUP = re.compile(r'<li class="answer( decided)?[^"]*" tabindex="0" data-tokens="([^"]+)"')
KEY_VERSION = re.compile(r'data-key-version="([^"]*)"')


def answer_for(item_index: int, run_index: int):
    if (item_index + run_index) % 19 == 0:
        return "UNKNOWN", ""
    # three distinct answers per item: about three decisions an item at 8 sheets
    return f"answer {item_index} v{run_index % 3}", ("MEDIUM", "LOW")[run_index % 2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_seconds(pids: list[int]) -> float:
    total = 0.0
    tick = os.sysconf("SC_CLK_TCK")
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / tick
        except FileNotFoundError:
            pass
    return total


def worker_pids(master: int) -> list[int]:
    out = subprocess.run(["pgrep", "-P", str(master)], capture_output=True, text=True).stdout
    return [int(p) for p in out.split()]


class Stats:
    def __init__(self):
        self.saved = self.errors = 0
        self.latency: list[float] = []  # a decision: from the keypress to the server's reply
        self.requests: list[float] = []  # one request of the queue (one or more decisions)


async def scorer(client, base: str, token: str, start: int, stop_at: float, stats: Stats):
    """A scorer at the page: decides every THINK_MS without waiting for the server, while the
    page's queue sends whatever has queued up, one request at a time."""
    import httpx

    queue: list = []
    deciding = True
    record = f"{base}/score/{token}/record/"

    async def sender():
        while deciding or queue:
            if not queue:
                await asyncio.sleep(0.005)
                continue
            batch = queue[:50]
            del queue[: len(batch)]
            headers = {"X-CSRFToken": client.cookies["csrftoken"]}
            t0 = time.perf_counter()
            try:
                reply = await client.post(
                    record, json={"decisions": [d for d, _t in batch]}, headers=headers
                )
                outcomes = reply.json()["outcomes"]
            except (httpx.HTTPError, ValueError, KeyError):
                stats.errors += len(batch)
                continue
            t1 = time.perf_counter()
            stats.requests.append((t1 - t0) * 1000)
            for (_d, queued_at), outcome in zip(batch, outcomes, strict=True):
                stats.latency.append((t1 - queued_at) * 1000)
                if outcome["status"] == "saved":
                    stats.saved += 1
                else:
                    stats.errors += 1

    sending = asyncio.create_task(sender())
    position = start
    while time.perf_counter() < stop_at:
        page = await client.get(
            f"{base}/score/{token}/{position}/?prefetch=1", headers={"HX-Request": "true"}
        )
        page.raise_for_status()
        version = KEY_VERSION.search(page.text).group(1)
        for decided_class, tokens in GROUP.findall(page.text):
            if decided_class:
                continue
            await asyncio.sleep(THINK_MS / 1000)
            if time.perf_counter() >= stop_at:
                break
            decision = {
                "key": uuid.uuid4().hex,
                "op": "decide",
                "position": position,
                "tokens": tokens,
                "bucket": "correct",
                "expect": "",
                "key_seen": version,
                "blind": True,
                "decided_at": int(time.time() * 1000),
            }
            queue.append((decision, time.perf_counter()))
        position += 1
    deciding = False
    await sending


class Sampler(threading.Thread):
    """What the database's sessions of this benchmark wait on, sampled every 50 ms, and the CPU
    their backends use: a lock held across requests shows as "Lock" waits."""

    def __init__(self, dsn: str | None):
        super().__init__(daemon=True)
        self.dsn, self.waits, self.samples = dsn, Counter(), 0
        self.first: dict[int, float] = {}
        self.last: dict[int, float] = {}
        self.done = threading.Event()

    def run(self) -> None:
        if not self.dsn:
            return
        import psycopg

        with psycopg.connect(self.dsn, autocommit=True) as conn:
            while not self.done.wait(0.05):
                rows = conn.execute(
                    "SELECT pid, state, coalesce(wait_event_type, 'CPU') FROM pg_stat_activity"
                    " WHERE datname = current_database() AND pid <> pg_backend_pid()"
                ).fetchall()
                self.samples += 1
                for pid, state, wait in rows:
                    used = cpu_seconds([pid])
                    self.first.setdefault(pid, used)
                    self.last[pid] = used
                    if state == "active":
                        self.waits[wait] += 1

    @property
    def cpu(self) -> float:
        """CPU seconds the backends used while sampled (a backend that ended keeps its last)."""
        return sum(self.last[pid] - self.first[pid] for pid in self.first)


async def level(base: str, sessions, n: int, pids, start: int, dsn) -> dict:
    import httpx

    clients = []
    for session, _token in sessions[:n]:
        client = httpx.AsyncClient(cookies={"sessionid": session}, timeout=60)
        (await client.get(f"{base}/healthz")).raise_for_status()
        clients.append(client)
    for client, (_session, token) in zip(clients, sessions, strict=False):
        # The csrftoken cookie comes with the first page that has a form.
        (await client.get(f"{base}/score/{token}/1/?prefetch=1")).raise_for_status()
    stats = Stats()
    sampler = Sampler(dsn)
    sampler.start()
    await asyncio.sleep(0.2)
    own0 = time.process_time()
    cpu0, t0 = cpu_seconds(pids), time.perf_counter()
    stop_at = t0 + DURATION_S
    await asyncio.gather(
        *[
            scorer(c, base, token, start, stop_at, stats)
            for c, (_s, token) in zip(clients, sessions, strict=False)
        ]
    )
    wall = time.perf_counter() - t0  # until the last queued decision was answered
    cpu = cpu_seconds(pids) - cpu0
    own = time.process_time() - own0
    sampler.done.set()
    sampler.join()
    backends = sampler.cpu
    for client in clients:
        await client.aclose()
    ok = stats.latency
    return {
        "n": n,
        "rate": stats.saved / wall,
        "p50": median(ok) if ok else float("nan"),
        "p95": percentile(ok, 95) if ok else float("nan"),
        "request_p95": percentile(stats.requests, 95) if stats.requests else float("nan"),
        "per_request": len(ok) / max(len(stats.requests), 1),
        "errors": stats.errors,
        "cpu": 100 * cpu / wall,
        "db_cpu": 100 * backends / wall,
        "own_cpu": 100 * own / wall,
        "waits": dict(sampler.waits.most_common()),
        "samples": sampler.samples,
    }


def prepare(n_scorers: int):
    from django.test import Client

    from probe.models import Membership, Role
    from scoring.queue import services
    from tests.builders import standalone_experiment
    from tests.probe.factories import UserFactory

    experiment, first = standalone_experiment(
        n_items=N_ITEMS, n_configs=N_SHEETS, repeats=1, answer_for=answer_for
    )
    users = [first]
    for k in range(1, n_scorers):
        user = UserFactory(username=f"bench-scorer-{k}")
        Membership.objects.create(team=experiment.team, user=user, role=Role.SCORER)
        users.append(user)
    sessions = []
    for user in users:
        assignment = services.assignment_start(experiment=experiment, user=user)
        client = Client()
        client.force_login(user)
        sessions.append((client.cookies["sessionid"].value, assignment.token))
    return sessions


def dsn_of(settings) -> str | None:
    if "postgresql" not in settings["ENGINE"]:
        return None
    return (
        f"postgres://{settings['USER']}@{settings['HOST'] or '127.0.0.1'}:"
        f"{settings['PORT'] or 5432}/{settings['NAME']}"
    )


def main() -> None:
    django_setup()
    levels = [int(a) for a in sys.argv[1:]] or list(LEVELS)
    with throwaway_database("load") as connection:
        from django.db import connections

        sessions = prepare(max(levels))
        database = connection.settings_dict["NAME"]
        where = describe(connection)
        connections.close_all()
        port = free_port()
        env = dict(os.environ)
        dsn = dsn_of(connection.settings_dict)
        env["DATABASE_URL"] = dsn or f"sqlite:///{database}"
        server = subprocess.Popen(
            [
                str(ROOT / ".venv" / "bin" / "gunicorn"),
                "config.wsgi:application",
                "--bind",
                f"127.0.0.1:{port}",
                "--workers",
                str(WORKERS),
                *(["--worker-class", "gthread", "--threads", str(THREADS)] if THREADS > 1 else []),
                "--timeout",
                "60",
                *(["--access-logfile", LOG, "--access-logformat", "%(U)s %(D)s"] if LOG else []),
            ],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            base = f"http://127.0.0.1:{port}"
            results = asyncio.run(run_levels(base, sessions, levels, server.pid, dsn))
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(timeout=30)
        print(
            f"{N_ITEMS} items x {N_SHEETS} sheets on {where}; gunicorn, {WORKERS} sync workers;"
            f" {DURATION_S:.0f} s a level; {THINK_MS} ms between a scorer's decisions"
        )
        for r in results:
            print(
                f"  {r['n']:>2} scorers: {r['rate']:6.1f} decisions/s  decision saved p50"
                f" {r['p50']:6.1f} ms p95 {r['p95']:6.1f} ms  errors {r['errors']}"
                f"  workers' CPU {r['cpu']:5.1f} % (of {WORKERS * 100} %)"
            )
            print(
                f"      requests p95 {r['request_p95']:6.1f} ms,"
                f" {r['per_request']:.1f} decisions a request"
            )
            waits = ", ".join(f"{k} {v / max(r['samples'], 1):.2f}" for k, v in r["waits"].items())
            print(
                f"      PostgreSQL backends' CPU {r['db_cpu']:5.1f} %, this script's {r['own_cpu']:5.1f} %;"
                f" active sessions by wait, on average: {waits or 'none'}"
            )
        print(f"  the machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
        by_n = {r["n"]: r for r in results}
        if 1 in by_n and 20 in by_n:
            ratio = by_n[20]["rate"] / by_n[1]["rate"]
            verdict = "OK" if ratio >= TARGET_RATIO else "UNDER TARGET"
            print(
                f"  20 scorers / 1 scorer: {ratio:.1f}x (target >= {TARGET_RATIO:.0f}x): {verdict}"
            )


async def run_levels(base: str, sessions, levels, master: int, dsn) -> list[dict]:
    import httpx

    async with httpx.AsyncClient() as probe:
        for _ in range(100):
            try:
                (await probe.get(f"{base}/healthz")).raise_for_status()
                break
            except httpx.HTTPError:
                await asyncio.sleep(0.2)
    pids = worker_pids(master)
    results = []
    for index, n in enumerate(levels):
        # Each level starts on items no scorer decided at an earlier level.
        results.append(await level(base, sessions, n, pids, 1 + index * ITEMS_PER_LEVEL, dsn))
    return results


if __name__ == "__main__":
    main()
