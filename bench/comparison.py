"""The comparison of two experiments of 100 runs each (1,000 shared items in 5 blocks, 50
configurations x 2 repeats on both sides, each scored by one scorer): compare() over every
configuration and its blocks (300 gaps, each tested both ways against 10,000 swaps, Holm over
all), then the comparison page, beside one 100-run report measured in the same run: its
report_build with every interval (the yardstick of compare()) and the scorer's report page (the
yardstick of the comparison page). Target: the comparison within the time of one report, each
against its own kind.

Run it on PostgreSQL (the figure that counts):
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench .venv/bin/python bench/comparison.py
Without DATABASE_URL it runs on SQLite. It makes and drops a database of its own.
"""

import os
import time

import numpy as np
from _setup import describe, django_setup, median, throwaway_database

N_ITEMS, N_CONFIGS, REPEATS, ROUNDS = 1000, 50, 2, 3


def answer_for(item_index: int, run_index: int):
    if (item_index * 7 + run_index) % 11 == 0:
        return "UNKNOWN", ""
    return f"answer {item_index} r{run_index}", ("HIGH", "MEDIUM", "LOW")[
        (item_index + run_index) % 3
    ]


def bucket_for(shift: int):
    def bucket(u) -> str:
        if u.abstained:
            return "abstained"
        if (u.position + 3 * u.run_index + shift * (u.position % 7 == 0)) % 5 < 3:
            return "correct"
        return "hedged_wrong" if u.confidence == "LOW" else "confident_wrong"

    return bucket


def timed(fn, rounds: int = ROUNDS):
    wall, cpu, result = [], [], None
    for _ in range(rounds):
        start, start_cpu = time.perf_counter(), time.process_time()
        result = fn()
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return median(wall), median(cpu), result


def numpy_yardstick() -> float:
    """A fixed numpy computation (20 products of 2,000 x 1,000 by 1,000 x 50, float32): CPU s."""
    rng = np.random.default_rng(0)
    a = rng.random((2000, 1000), dtype=np.float32)
    b = rng.random((1000, 50), dtype=np.float32)

    def work():
        for _ in range(20):
            a @ b

    return timed(work)[1]


def main() -> None:
    django_setup()
    with throwaway_database("comparison") as connection:
        from django.test import Client
        from django.urls import reverse
        from django.utils import timezone

        from probe.models import Block, ExperimentItem, Item
        from scoring.comparison.compare import compare
        from scoring.models import Assignment
        from scoring.report.build import scorer_report
        from tests.builders import bulk_judgements, standalone_experiment, team_with_members

        start = time.perf_counter()
        sides = []
        for shift, scorer, team in ((0, "bench-scorer", "Bench"), (1, "bench-scorer-2", "Other")):
            experiment, user = standalone_experiment(
                n_items=N_ITEMS,
                n_configs=N_CONFIGS,
                repeats=REPEATS,
                answer_for=answer_for,
                scorer=scorer,
                team_name=team,
            )
            assignment = Assignment.objects.create(
                experiment=experiment, user=user, revealed_at=timezone.now()
            )
            bulk_judgements(assignment, bucket_for(shift))
            sides.append((experiment, assignment))
        (baseline, first), (candidate, _second) = sides
        # Both snapshots of the same bank items, with the same configurations: comparable.
        block = Block.objects.create(bank=baseline.bank, code="A", title="Bench")
        items = Item.objects.bulk_create(
            Item(block=block, question=f"Question {i + 1}?", order=i + 1) for i in range(N_ITEMS)
        )
        for experiment in (baseline, candidate):
            snapshot = list(experiment.items.order_by("position"))
            for item, bank_item in zip(snapshot, items, strict=True):
                item.source_item = bank_item
            ExperimentItem.objects.bulk_update(snapshot, ["source_item"])
        base_runs = list(baseline.runs.order_by("order", "pk"))
        cand_runs = list(candidate.runs.order_by("order", "pk"))
        for base_run, cand_run in zip(base_runs, cand_runs, strict=True):
            cand_run.model_config_id = base_run.model_config_id
        type(cand_runs[0]).objects.bulk_update(cand_runs, ["model_config_id"])
        # Made in a team of its own (configuration labels are unique in a team), then moved.
        candidate.team_id, candidate.prompt_version_id = (
            baseline.team_id,
            baseline.prompt_version_id,
        )
        candidate.save(update_fields=["team", "prompt_version"])
        _team, users = team_with_members("Bench", {"lead": "owner"})
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("ANALYZE")
        setup_s = time.perf_counter() - start

        assignment = Assignment.objects.select_related("experiment", "user").get(pk=first.pk)
        scorer_report(assignment)
        yard_wall, yard_cpu, _ = timed(lambda: scorer_report(assignment))
        numpy_cpu = numpy_yardstick()
        result = compare(baseline, candidate)
        assert len(result.rows) == N_CONFIGS and result.items == N_ITEMS, result.items
        cmp_wall, cmp_cpu, result = timed(lambda: compare(baseline, candidate))
        if os.environ.get("BENCH_PROFILE"):  # where compare()'s time goes
            import cProfile
            import pstats

            profile = cProfile.Profile()
            profile.runcall(compare, baseline, candidate)
            pstats.Stats(profile).sort_stats(
                os.environ.get("BENCH_PROFILE_SORT", "cumulative")
            ).print_stats(25)
        client = Client()
        client.force_login(users["lead"])
        url = reverse("scoring:compare", kwargs={"team_slug": baseline.team.slug})
        query = {"baseline": baseline.pk, "candidate": candidate.pk}
        page = client.get(url, query)
        assert page.status_code == 200, page.status_code
        page_wall, page_cpu, page = timed(lambda: client.get(url, query))
        # The other yardstick: one 100-run report as its reader gets it, the scorer's page.
        scorer = Client()
        scorer.force_login(assignment.user)
        report_url = reverse("scoring:report", kwargs={"assignment_token": assignment.token})
        assert scorer.get(report_url).status_code == 200
        report_wall, report_cpu, _ = timed(lambda: scorer.get(report_url))
        ratio = cmp_cpu / yard_cpu
        page_ratio = page_cpu / report_cpu
        print(
            f"comparison of two experiments of {N_ITEMS:,} items x {N_CONFIGS * REPEATS} runs on"
            f" {describe(connection)} (set-up {setup_s:.0f} s)"
        )
        print(
            f"  one 100-run report_build (yardstick): {yard_wall * 1000:7.1f} ms"
            f"  (CPU {yard_cpu * 1000:7.1f} ms)"
        )
        print(
            f"  compare(), {len(result.rows)} configurations and their blocks:"
            f" {cmp_wall * 1000:7.1f} ms  (CPU {cmp_cpu * 1000:7.1f} ms, {ratio:.2f}x the"
            f" yardstick; target 1x: {'met' if ratio <= 1 else 'NOT MET'})"
        )
        print(
            f"  one 100-run report page (yardstick):   {report_wall * 1000:7.1f} ms"
            f"  (CPU {report_cpu * 1000:7.1f} ms)"
        )
        print(
            f"  the comparison page: {page_wall * 1000:7.1f} ms  (CPU {page_cpu * 1000:7.1f} ms,"
            f" {len(page.content) // 1024} KiB, {page_ratio:.2f}x the report page;"
            f" target 1x: {'met' if page_ratio <= 1 else 'NOT MET'})"
        )
        print(
            f"  numpy yardstick CPU {numpy_cpu * 1000:.0f} ms (compare = {cmp_cpu / numpy_cpu:.1f}x"
            f" it); load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
        )


if __name__ == "__main__":
    main()
