"""The team's final report of a 1,000-item experiment of 100 runs (50 configurations x 2 repeats,
5 blocks) scored by 3 scorers, then by 10, beside one scorer's report of the same experiment
measured in the same run (the yardstick). Target: the final report page within 2x one scorer's
report page at 3 scorers, within 5x at 10 scorers.

Each scorer judges every response; about one response in ten is put in another bucket by one
scorer, so that the agreement statistics have disagreements to count, and an owner settles them
(final buckets in bulk, as the reconciliation page would leave them). The page is timed twice:
the first load after a judgement changed (the agreement statistics computed) and the loads after
it (the agreement read from the cache). CPU time beside every wall-clock time.

Run it on PostgreSQL (the figure that counts):
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench .venv/bin/python bench/final_report.py
`bench/final_report.py 3` runs one number of scorers. It makes and drops a database of its own.
"""

import os
import sys
import time

import numpy as np
from _setup import describe, django_setup, median, throwaway_database

N_ITEMS, N_CONFIGS, REPEATS, ROUNDS = 1000, 50, 2, 5
TARGETS = {3: 2.0, 10: 5.0}  # final page / one scorer's page
SIZES = [int(a) for a in sys.argv[1:]] or [3, 10]


def answer_for(item_index: int, run_index: int):
    if (item_index * 7 + run_index) % 11 == 0:
        return "UNKNOWN", ""
    return f"answer {item_index} r{run_index}", ("HIGH", "MEDIUM", "LOW")[
        (item_index + run_index) % 3
    ]


def bucket_for(scorer: int):
    def bucket(u) -> str:
        if u.abstained:
            return "abstained"
        correct = (u.position + 3 * u.run_index) % 5 < 3
        if (u.index * 31 + scorer * 17) % 97 < 10:  # this scorer disagrees here
            correct = not correct
        if correct:
            return "correct"
        return "hedged_wrong" if u.confidence == "LOW" else "confident_wrong"

    return bucket


def timed(fn, rounds: int = ROUNDS):
    """Median wall-clock and CPU seconds, and the last result."""
    wall, cpu, result = [], [], None
    for _ in range(rounds):
        start, start_cpu = time.perf_counter(), time.process_time()
        result = fn()
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return median(wall), median(cpu), result


def numpy_yardstick() -> float:
    """A fixed numpy computation (a 2,000 x 1,000 by 1,000 x 50 float32 product, 20 times):
    CPU seconds, median of 3, to read the figures against the machine's speed in this run."""
    rng = np.random.default_rng(0)
    a = rng.random((2000, 1000), dtype=np.float32)
    b = rng.random((1000, 50), dtype=np.float32)

    def work():
        for _ in range(20):
            a @ b

    return timed(work, 3)[1]


def main() -> None:
    django_setup()
    with throwaway_database("final_report") as connection:
        from django.core.cache import cache
        from django.test import Client
        from django.urls import reverse
        from django.utils import timezone

        from probe.models import Response
        from scoring.models import Assignment, FinalBucket, Judgement, Reconciliation
        from scoring.reconciliation import finals
        from tests.builders import bulk_judgements, standalone_experiment, team_with_members

        cache.clear()
        most = max(SIZES)
        start = time.perf_counter()
        experiment, first = standalone_experiment(
            n_items=N_ITEMS, n_configs=N_CONFIGS, repeats=REPEATS, answer_for=answer_for
        )
        _team, users = team_with_members(
            "Bench", {f"bench-scorer-{s}": "scorer" for s in range(1, most)} | {"lead": "owner"}
        )
        scorers = [first, *(users[f"bench-scorer-{s}"] for s in range(1, most))]
        assignments = []
        for s, user in enumerate(scorers):
            assignment = Assignment.objects.create(
                experiment=experiment, user=user, revealed_at=timezone.now()
            )
            bulk_judgements(assignment, bucket_for(s))
            assignments.append(assignment)
        setup_s = time.perf_counter() - start
        responses = list(
            Response.objects.filter(run__experiment=experiment).values_list("pk", flat=True)
        )
        client = Client()
        client.force_login(users["lead"])
        scorer_client = Client()
        scorer_client.force_login(first)
        report_url = reverse("scoring:report", kwargs={"assignment_token": assignments[0].token})
        final_url = reverse("scoring:final_report", kwargs={"experiment_pk": experiment.pk})
        healthz = reverse("healthz")

        print(
            f"final report of {N_ITEMS:,} items x {N_CONFIGS * REPEATS} runs on"
            f" {describe(connection)} (set-up {setup_s:.0f} s)"
        )
        for size in sorted(SIZES, reverse=True):
            # Only the first `size` scorers take part: the others' judgements go.
            Judgement.objects.filter(assignment__in=assignments[size:]).delete()
            Assignment.objects.filter(pk__in=[a.pk for a in assignments[size:]]).delete()
            assignments = assignments[:size]
            Reconciliation.objects.get_or_create(experiment=experiment)
            FinalBucket.objects.filter(response__run__experiment=experiment).delete()
            finals.final_buckets_sync(experiment=experiment)
            settled = set(
                FinalBucket.objects.filter(response__run__experiment=experiment).values_list(
                    "response_id", flat=True
                )
            )
            FinalBucket.objects.bulk_create(
                FinalBucket(response_id=pk, bucket="correct", decided_by=users["lead"])
                for pk in responses
                if pk not in settled
            )
            if connection.vendor == "postgresql":
                with connection.cursor() as cursor:
                    cursor.execute("ANALYZE")
            assert scorer_client.get(report_url).status_code == 200
            health_wall, _h, _ = timed(lambda: client.get(healthz), 20)
            yard_wall, yard_cpu, _ = timed(lambda: scorer_client.get(report_url))
            numpy_cpu = numpy_yardstick()

            def cold():
                cache.clear()  # as after a judgement changed
                return client.get(final_url)

            cold_wall, cold_cpu, page = timed(cold, 3)
            assert page.status_code == 200, page.status_code
            assert b"agreement" in page.content.lower()
            warm_wall, warm_cpu, page = timed(lambda: client.get(final_url))
            if os.environ.get("BENCH_PROFILE"):  # where a cached page's time goes
                import cProfile
                import pstats

                from django.db import connection as conn
                from django.test.utils import CaptureQueriesContext

                profile = cProfile.Profile()
                with CaptureQueriesContext(conn) as ctx:
                    profile.runcall(client.get, final_url)
                pstats.Stats(profile).sort_stats("cumulative").print_stats(40)
                for q in sorted(ctx.captured_queries, key=lambda q: -float(q["time"]))[:8]:
                    print(f"    query {float(q['time']) * 1000:7.1f} ms  {q['sql'][:300]}")
            ratio = warm_cpu / yard_cpu
            target = TARGETS.get(size)
            verdict = "" if target is None else ("met" if ratio <= target else "NOT MET")
            print(f"  {size} scorers ({len(page.content) // 1024} KiB)")
            print(
                f"    one scorer's report page (yardstick): {yard_wall * 1000:7.1f} ms"
                f"  (CPU {yard_cpu * 1000:7.1f} ms)"
            )
            print(
                f"    final report, agreement computed:     {cold_wall * 1000:7.1f} ms"
                f"  (CPU {cold_cpu * 1000:7.1f} ms, {cold_cpu / yard_cpu:.2f}x the yardstick)"
            )
            print(
                f"    final report, agreement cached:       {warm_wall * 1000:7.1f} ms"
                f"  (CPU {warm_cpu * 1000:7.1f} ms, {ratio:.2f}x the yardstick;"
                f" target {target}x: {verdict}; wall {warm_wall / yard_wall:.2f}x)"
            )
            print(
                f"    GET /healthz {health_wall * 1000:.1f} ms; numpy yardstick CPU"
                f" {numpy_cpu * 1000:.0f} ms; final report CPU = {warm_cpu / numpy_cpu:.1f}x it;"
                f" load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
            )


if __name__ == "__main__":
    main()
