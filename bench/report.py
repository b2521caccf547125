"""The report of one scorer over 100,000 judgements (1,000 items x 100 runs: 50 configurations x 2
repeats, 5 blocks), with every interval; `bench/report.py 125` for 250 runs. Target: under 1 s.

Times report_build (its queries, the figures, and the intervals and tests: 2,000 paired bootstrap
resamples over the items within the blocks, 1,225 pairs with McNemar and Holm), two
parts of it alone (reading the bucket rows, the one query that grows with the judgements; the
intervals and tests from those rows), and the whole report page (the view, the four SVG charts
and every table), and, for information, the figures CSV export. Beside each wall-clock time, the process's
CPU time: on a machine shared with other work the wall clock includes waiting for a core.

Run it on PostgreSQL (the figure that counts):
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench .venv/bin/python bench/report.py
Without DATABASE_URL it runs on SQLite. It makes and drops a database of its own.
"""

import os
import sys
import time

import numpy as np
from _setup import describe, django_setup, median, throwaway_database

TARGET_S = 1.0
N_ITEMS, N_CONFIGS, REPEATS, ROUNDS = 1000, 50, 2, 5
# `bench/report.py 125`: another number of configurations (x 2 repeats), such as 250 runs.
if len(sys.argv) > 1:
    N_CONFIGS = int(sys.argv[1])


def answer_for(item_index: int, run_index: int):
    if (item_index * 7 + run_index) % 11 == 0:
        return "UNKNOWN", ""
    return f"answer {item_index} r{run_index}", ("HIGH", "MEDIUM", "LOW")[
        (item_index + run_index) % 3
    ]


def bucket_for(item_index: int, run_index: int, abstained: bool, confidence: str) -> str:
    if abstained:
        return "abstained"
    if (item_index + 3 * run_index) % 5 < 3:
        return "correct"
    return "hedged_wrong" if confidence == "LOW" else "confident_wrong"


def timed(fn, rounds: int = ROUNDS) -> tuple[float, float, object, float]:
    """Median and max wall-clock seconds, the last result, and the median CPU seconds."""
    timings, cpu, result = [], [], None
    for _ in range(rounds):
        start, start_cpu = time.perf_counter(), time.process_time()
        result = fn()
        timings.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return median(timings), max(timings), result, median(cpu)


def numpy_yardstick() -> float:
    """A fixed numpy computation (a 2,000 x 1,000 by 1,000 x 50 float32 product, 20 times):
    median CPU seconds of 3, to read the page's time against the machine's speed in this run."""
    rng = np.random.default_rng(0)
    a = rng.random((2000, 1000), dtype=np.float32)
    b = rng.random((1000, 50), dtype=np.float32)

    def work():
        for _ in range(20):
            a @ b

    return timed(work, 3)[3]


def template_parts(report) -> dict[str, tuple[float, float]]:
    """The page's tables' rows and its three SVG charts rendered alone from their templates
    (templates/scoring/partials/_table_*.html, _chart_*.html): median wall and CPU seconds."""
    from django.template.loader import get_template

    from scoring.report import charts
    from scoring.report.definitions import definitions

    context = {"report": report, "definitions": definitions(), "blocks": report.blocks}
    tables = [
        get_template(f"scoring/partials/_table_{name}.html")
        for name in ("summary_rows", "calibration_rows", "risk_rows", "definition_rows")
    ]
    slices = get_template("scoring/partials/_table_slice_rows.html")
    chart_templates = [
        (get_template("scoring/partials/_chart_buckets.html"), charts.bucket_chart),
        (get_template("scoring/partials/_chart_calibration.html"), charts.calibration_chart),
        (get_template("scoring/partials/_chart_net.html"), charts.net_chart),
    ]
    made = [(template, chart(report)) for template, chart in chart_templates]

    def render_tables():
        for template in tables:
            template.render(context)
        slices.render(context)

    def render_charts():
        for template, chart in made:
            template.render({"report": report, "chart": chart})

    out = {}
    for name, fn in (
        ("the tables' rows (templates)", render_tables),
        ("the charts (templates)", render_charts),
    ):
        med, _max, _result, cpu = timed(fn)
        out[name] = (med, cpu)
    return out


def main() -> None:
    django_setup()
    with throwaway_database("report") as connection:
        from django.db import connection as conn
        from django.test import Client
        from django.test.utils import CaptureQueriesContext
        from django.urls import reverse
        from django.utils import timezone

        from scoring.models import Assignment, Judgement
        from scoring.report.build import judgement_source, scorer_report, without_dropped
        from scoring.report.intervals import report_intervals
        from scoring.report.rows import bucket_rows
        from tests.builders import bulk_judgements, standalone_experiment

        start = time.perf_counter()
        experiment, user = standalone_experiment(
            n_items=N_ITEMS, n_configs=N_CONFIGS, repeats=REPEATS, answer_for=answer_for
        )
        assignment = Assignment.objects.create(
            experiment=experiment, user=user, revealed_at=timezone.now()
        )
        bulk_judgements(
            assignment,
            lambda u: bucket_for(u.position - 1, u.run_index, u.abstained, u.confidence),
            unblinded=lambda u: (u.position + u.run_index) % 997 == 0,
        )
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("ANALYZE")
        n_judgements = Judgement.objects.filter(assignment=assignment).count()
        setup_s = time.perf_counter() - start

        assignment = Assignment.objects.select_related("experiment", "user").get(pk=assignment.pk)
        with CaptureQueriesContext(conn) as ctx:
            report = scorer_report(assignment)
        n_queries = len(ctx)  # now: the client's requests below reset the query log
        assert report.scored == n_judgements == N_ITEMS * N_CONFIGS * REPEATS
        build_med, build_max, _, build_cpu = timed(lambda: scorer_report(assignment))
        source = without_dropped(judgement_source(assignment))
        rows_med, rows_max, rows, rows_cpu = timed(lambda: bucket_rows(source))
        ci_med, ci_max, _, ci_cpu = timed(lambda: report_intervals(source, report, rows))

        client = Client()
        client.force_login(user)
        url = reverse("scoring:report", kwargs={"assignment_token": assignment.token})
        assert client.get(url).status_code == 200
        page_med, page_max, page, page_cpu = timed(lambda: client.get(url))
        assert page.status_code == 200
        export = reverse(
            "scoring:export",
            kwargs={"assignment_token": assignment.token, "what": "figures", "fmt": "csv"},
        )
        csv_med, _csv_max, _, _csv_cpu = timed(lambda: client.get(export), rounds=3)
        parts = template_parts(report)
        health_med = timed(lambda: client.get("/healthz"), rounds=20)[0]
        numpy_cpu = numpy_yardstick()

        print(
            f"report of {n_judgements:,} judgements ({N_ITEMS:,} items x {N_CONFIGS * REPEATS} runs)"
            f" on {describe(connection)} (set-up {setup_s:.1f} s)"
        )
        print(
            f"  report_build     median {build_med * 1000:7.1f} ms  max {build_max * 1000:7.1f} ms"
            f"  (CPU {build_cpu * 1000:6.1f} ms)  ({n_queries} queries)"
        )
        print(
            f"    of which the bucket rows (one query) median {rows_med * 1000:5.1f} ms"
            f"  max {rows_max * 1000:7.1f} ms  (CPU {rows_cpu * 1000:6.1f} ms)"
        )
        print(
            f"    of which intervals and tests     median {ci_med * 1000:5.1f} ms"
            f"  max {ci_max * 1000:7.1f} ms  (CPU {ci_cpu * 1000:6.1f} ms)"
        )
        verdict = "OK" if page_med < TARGET_S else "OVER TARGET"
        print(
            f"  report page      median {page_med * 1000:7.1f} ms  max {page_max * 1000:7.1f} ms"
            f"  (CPU {page_cpu * 1000:6.1f} ms)  ({len(page.content) // 1024} KiB)"
            f"   (target: under {TARGET_S:.0f} s) {verdict}"
        )
        print(
            f"  yardsticks: GET /healthz median {health_med * 1000:.1f} ms; numpy product CPU"
            f" {numpy_cpu * 1000:.0f} ms; report page CPU = {page_cpu / numpy_cpu:.2f}x it"
        )
        for name, (med, cpu) in parts.items():
            print(
                f"    of which {name:<28} median {med * 1000:6.1f} ms  (CPU {cpu * 1000:6.1f} ms)"
            )
        print(f"  load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
        print(f"  figures CSV      median {csv_med * 1000:7.1f} ms")


if __name__ == "__main__":
    main()
