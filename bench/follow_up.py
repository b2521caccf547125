"""A follow-up of a 1,000-item experiment (5 configurations, 5,000 responses, all with final
buckets): "Run again" with every earlier run included as it is, then the carry of the 5,000
identical answers' buckets. Target: under 2 s in all. Then the same at 10,000 items (50,000
responses): the target there is linear, at most 10x the 1,000-item figure measured in the same
run (the yardstick), beside GET /healthz and the number of queries of each size; and the CPU
time it took (this process and its PostgreSQL backend, from /proc), whose ratio the load of a
shared machine moves far less than the wall clock's.
`bench/follow_up.py 1000` runs one size; BENCH_PROFILE=1 prints where the time goes.

Run it on PostgreSQL (the figure that counts):
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench .venv/bin/python bench/follow_up.py
Without DATABASE_URL it runs on SQLite. It makes and drops a database of its own.
"""

import os
import sys
import time

from _setup import describe, django_setup, median, throwaway_database

TARGET_S = 2.0
N_CONFIGS, ROUNDS = 5, 3
SIZES = [int(a) for a in sys.argv[1:]] or [1000, 10000]


def answer_for(item_index: int, run_index: int):
    return f"answer {item_index} r{run_index}", ("HIGH", "MEDIUM", "LOW")[
        (item_index + run_index) % 3
    ]


def cpu_seconds(connection) -> float:
    """CPU time of this process and of the PostgreSQL backend serving it (on this host)."""
    own = time.process_time()
    if connection.vendor != "postgresql":
        return own
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        pid = cursor.fetchone()[0]
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except FileNotFoundError:  # a server on another host
        return own
    return own + (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    django_setup()
    with throwaway_database("follow_up") as connection:
        from django.test import Client
        from django.urls import reverse

        yardstick = None
        for size in SIZES:
            health = Client()
            for _ in range(5):
                health.get(reverse("healthz"))
            start = time.perf_counter()
            for _ in range(20):
                health.get(reverse("healthz"))
            healthz = (time.perf_counter() - start) / 20
            figure, cpu = one_size(connection, size)
            if yardstick is None:
                yardstick = (size, figure, cpu)
                verdict = "met" if figure < TARGET_S else "NOT MET"
                print(f"  target: under {TARGET_S:.0f} s: {verdict}")
            else:
                ratio = figure / yardstick[1]
                linear = size / yardstick[0]
                verdict = "met" if ratio <= linear else "NOT MET"
                print(
                    f"  {ratio:.1f}x the {yardstick[0]:,}-item figure for {linear:.0f}x the items"
                    f" (target: at most {linear:.0f}x, linear): {verdict}"
                )
                print(f"  CPU: {cpu / yardstick[2]:.1f}x the {yardstick[0]:,}-item figure")
            print(
                f"  GET /healthz {healthz * 1000:.1f} ms (the follow-up = {figure / healthz:,.0f}x"
                f" it); load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
            )


def one_size(connection, N_ITEMS: int) -> tuple[float, float]:  # noqa: N803  (the size, as above)
    from django.db import connection as conn
    from django.test.utils import CaptureQueriesContext

    from probe.models import Block, ExperimentItem, Item, Response
    from probe.services.experiments import experiment_start
    from scoring.comparison import followups
    from scoring.models import FinalBucket
    from scoring.queue import carry
    from tests.builders import standalone_experiment

    experiment, user = standalone_experiment(
        n_items=N_ITEMS,
        n_configs=N_CONFIGS,
        repeats=1,
        answer_for=answer_for,
        team_name=f"Bench {N_ITEMS}",
    )
    # The snapshot's bank items (a follow-up and the carry match item versions by them).
    block = Block.objects.create(bank=experiment.bank, code="Z", title="Bench")
    items = Item.objects.bulk_create(
        Item(block=block, question=f"Question {i + 1}?", order=i + 1) for i in range(N_ITEMS)
    )
    snapshot = list(ExperimentItem.objects.filter(experiment=experiment).order_by("position"))
    for item, bank_item in zip(snapshot, items, strict=True):
        item.source_item = bank_item
    ExperimentItem.objects.bulk_update(snapshot, ["source_item"])
    FinalBucket.objects.bulk_create(
        FinalBucket(response_id=pk, bucket="correct", unanimous=True)
        for pk in Response.objects.filter(run__experiment=experiment).values_list("pk", flat=True)
    )
    runs = list(experiment.runs.all())
    total, create, carried, cpu = [], [], [], []

    def follow_up():
        again = followups.experiment_follow_up(origin=experiment, user=user, include_runs=runs)
        # Every run is included: starting it finds nothing to collect and completes it.
        return experiment_start(experiment=again, user=user, queue=False)

    for _ in range(ROUNDS):
        cpu_start = cpu_seconds(conn)
        start = time.perf_counter()
        with CaptureQueriesContext(conn) as made_queries:
            again = follow_up()
        middle = time.perf_counter()
        with CaptureQueriesContext(conn) as carry_queries:
            made = carry.carry_sync(experiment=again)
        end = time.perf_counter()
        cpu.append(cpu_seconds(conn) - cpu_start)
        assert made == N_ITEMS * N_CONFIGS, made
        create.append(middle - start)
        carried.append(end - middle)
        total.append(end - start)
    if os.environ.get("BENCH_PROFILE"):
        import cProfile
        import pstats

        profile = cProfile.Profile()
        again = profile.runcall(follow_up)
        profile.runcall(carry.carry_sync, experiment=again)
        pstats.Stats(profile).sort_stats("cumulative").print_stats(30)
    n = N_ITEMS * N_CONFIGS
    print(f"{describe(connection)}: follow-up of {N_ITEMS:,} items x {N_CONFIGS} runs included")
    print(
        f"  create and start the follow-up ({n:,} copied): median {median(create):.2f} s"
        f" ({len(made_queries)} queries)"
    )
    print(
        f"  carry {n:,} buckets:                  median {median(carried):.2f} s"
        f" ({len(carry_queries)} queries)"
    )
    print(f"  total: median {median(total):.2f} s, worst {max(total):.2f} s")
    print(f"  CPU (this process and its database backend): median {median(cpu):.2f} s")
    return median(total), median(cpu)


if __name__ == "__main__":
    main()
