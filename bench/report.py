"""The report of one scorer over 100,000 judgements (1,000 items x 100 runs: 50 configurations x 2
repeats), then over 250,000 (1,000 items x 250 runs: 125 configurations x 2). Target: under 1 s.

Times report_build (the counting queries and the figures) and the whole report page (the view,
the three SVG charts and every table), and, for information, the figures CSV export.

Run it on PostgreSQL (the figure that counts):
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/helperr .venv/bin/python bench/report.py
Without DATABASE_URL it runs on SQLite. It makes and drops a database of its own.
"""

import time

from _setup import bulk_experiment, describe, django_setup, median, throwaway_database

TARGET_S = 1.0
N_ITEMS, REPEATS, ROUNDS = 1000, 2, 5
CONFIGS = (50, 125)  # 100 and 250 runs


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


def timed(fn, rounds: int = ROUNDS) -> tuple[float, float, object]:
    timings, result = [], None
    for _ in range(rounds):
        start = time.perf_counter()
        result = fn()
        timings.append(time.perf_counter() - start)
    return median(timings), max(timings), result


def main() -> None:
    django_setup()
    with throwaway_database("report") as connection:
        for n, n_configs in enumerate(CONFIGS):
            measure(connection, n_configs, team_name=f"Bench{n}")


def measure(connection, n_configs: int, team_name: str) -> None:
    from django.db import connection as conn
    from django.test import Client
    from django.test.utils import CaptureQueriesContext
    from django.urls import reverse
    from django.utils import timezone

    from probe.models import Response
    from scoring.models import Assignment, Judgement
    from scoring.report import scorer_report

    start = time.perf_counter()
    experiment, user = bulk_experiment(
        n_items=N_ITEMS,
        n_configs=n_configs,
        repeats=REPEATS,
        answer_for=answer_for,
        team_name=team_name,
    )
    assignment = Assignment.objects.create(
        experiment=experiment, user=user, revealed_at=timezone.now()
    )
    run_index = {
        pk: i for i, pk in enumerate(experiment.runs.order_by("order").values_list("pk", flat=True))
    }
    batch = []
    rows = Response.objects.filter(run__experiment=experiment).values_list(
        "pk", "run_id", "item__position", "abstained", "confidence"
    )
    for pk, run_id, position, abstained, confidence in rows.iterator(chunk_size=10000):
        bucket = bucket_for(position - 1, run_index[run_id], abstained, confidence)
        batch.append(
            Judgement(
                assignment=assignment,
                response_id=pk,
                bucket=bucket,
                verdict="preset" if abstained else ("correct" if bucket == "correct" else "wrong"),
                unblinded=(position + run_index[run_id]) % 997 == 0,
            )
        )
        if len(batch) >= 10000:
            Judgement.objects.bulk_create(batch)
            batch = []
    Judgement.objects.bulk_create(batch)
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
    n_judgements = Judgement.objects.filter(assignment=assignment).count()
    setup_s = time.perf_counter() - start

    assignment = Assignment.objects.select_related("experiment", "user").get(pk=assignment.pk)
    with CaptureQueriesContext(conn) as ctx:
        report = scorer_report(assignment)
    n_queries = len(ctx)  # now: the client's requests below reset the query log
    assert report.scored == n_judgements == N_ITEMS * n_configs * REPEATS
    build_med, build_max, _ = timed(lambda: scorer_report(assignment))

    client = Client()
    client.force_login(user)
    url = reverse("scoring:report", kwargs={"assignment_token": assignment.token})
    assert client.get(url).status_code == 200
    page_med, page_max, page = timed(lambda: client.get(url))
    assert page.status_code == 200
    export = reverse(
        "scoring:export",
        kwargs={"assignment_token": assignment.token, "what": "figures", "fmt": "csv"},
    )
    csv_med, _csv_max, _ = timed(lambda: client.get(export), rounds=3)

    print(
        f"report of {n_judgements:,} judgements ({N_ITEMS:,} items x {n_configs * REPEATS} runs)"
        f" on {describe(connection)} (set-up {setup_s:.1f} s)"
    )
    print(
        f"  report_build     median {build_med * 1000:7.1f} ms  max {build_max * 1000:7.1f} ms"
        f"  ({n_queries} queries)"
    )
    verdict = "OK" if page_med < TARGET_S else "OVER TARGET"
    print(
        f"  report page      median {page_med * 1000:7.1f} ms  max {page_max * 1000:7.1f} ms"
        f"  ({len(page.content) // 1024} KiB)   (target: under {TARGET_S:.0f} s) {verdict}"
    )
    print(f"  figures CSV      median {csv_med * 1000:7.1f} ms")
    # The next size makes its own scorer under bulk_experiment's fixed name.
    user.username = f"bench-scorer-{team_name}"
    user.save(update_fields=["username"])


if __name__ == "__main__":
    main()
