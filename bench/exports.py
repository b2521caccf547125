"""Result exports at 10,000 and 200,000 judgements: the time to download every response (CSV,
JSON, JSON Lines) and the peak memory of the process that serves it. Target: peak under 150 MB
at 200,000 judgements.

Each download runs in a fresh Python process (Django loaded, the request made through the test
client with the full middleware, the streamed body read to the end and thrown away), and that
process's peak resident memory is the figure: what one web worker needs for it, Django included.
The line "idle" is the same process without the download. On Linux the peak is the process's
own high-water mark (VmHWM in /proc/self/status): ru_maxrss would report at least the RSS this
script had when it started the process (Linux carries the parent's high-water mark across the
fork and exec), which grows with the judgements it has just made.

Run it on PostgreSQL (the figure that counts):
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench .venv/bin/python bench/exports.py
Without DATABASE_URL it runs on SQLite. It makes and drops a database of its own.
"""

import json
import resource
import subprocess
import sys
import time
from pathlib import Path

from _setup import ROOT, describe, django_setup, throwaway_database

TARGET_MB = 150
# (items, configurations, repeats): 10,000 and 200,000 responses, each judged.
SIZES = ((500, 10, 2), (1000, 100, 2))  # `bench/exports.py 100 5`: items, configurations
FORMATS = ("csv", "json", "jsonl")


def answer_for(item_index: int, run_index: int):
    if (item_index * 7 + run_index) % 11 == 0:
        return "UNKNOWN", ""
    if (item_index + run_index) % 97 == 0:
        return f"=HYPERLINK(answer {item_index})", "HIGH"  # neutralised in CSV
    return f"answer {item_index} r{run_index} (日本語)", ("HIGH", "MEDIUM", "LOW")[
        (item_index + run_index) % 3
    ]


def bucket_for(unit) -> str:
    if unit.abstained:
        return "abstained"
    if unit.index % 5 < 3:
        return "correct"
    return "hedged_wrong" if unit.confidence == "LOW" else "confident_wrong"


def judge_everything(experiment, user):
    from django.utils import timezone

    from scoring.models import Assignment
    from tests.builders import bulk_judgements

    assignment = Assignment.objects.create(
        experiment=experiment, user=user, revealed_at=timezone.now()
    )
    bulk_judgements(assignment, bucket_for)
    return assignment


def child(database: str, user_pk: int, url: str) -> None:
    """In a fresh process: one download (or none for url "-"), then time and peak memory."""
    django_setup()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test import Client

    settings.DEBUG = False
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]
    connection.settings_dict["NAME"] = database
    client = Client()
    client.force_login(get_user_model().objects.get(pk=user_pk))
    size, elapsed = 0, 0.0
    if url != "-":
        start = time.perf_counter()
        response = client.get(url)
        assert response.status_code == 200, response.status_code
        for chunk in response.streaming_content:
            size += len(chunk)
        elapsed = time.perf_counter() - start
    peak_kb = peak_resident_kb()
    print(json.dumps({"seconds": elapsed, "bytes": size, "peak_mb": peak_kb / 1024}))


def peak_resident_kb() -> int:
    """This process's peak resident memory in KiB (its own, not its parent's: see above)."""
    status = Path("/proc/self/status")
    if status.exists():
        for line in status.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def measure(database: str, user_pk: int, url: str) -> dict:
    result = subprocess.run(
        [sys.executable, __file__, "--child", database, str(user_pk), url],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(result.stdout.strip().splitlines()[-1])


def main() -> None:
    django_setup()
    with throwaway_database("exports") as connection:
        from django.urls import reverse

        from tests.builders import standalone_experiment

        database = connection.settings_dict["NAME"]
        print(f"Result exports on {describe(connection)}; peak memory of a fresh process")
        idle = None
        sizes = ((int(sys.argv[1]), int(sys.argv[2]), 2),) if len(sys.argv) == 3 else SIZES
        for n, (n_items, n_configs, repeats) in enumerate(sizes):
            start = time.perf_counter()
            experiment, user = standalone_experiment(
                n_items=n_items,
                n_configs=n_configs,
                repeats=repeats,
                answer_for=answer_for,
                team_name=f"Bench{n}",
            )
            assignment = judge_everything(experiment, user)
            if connection.vendor == "postgresql":
                with connection.cursor() as cursor:
                    cursor.execute("ANALYZE")
            total = n_items * n_configs * repeats
            print(
                f"\n{total:,} judgements ({n_items:,} items x {n_configs * repeats} runs;"
                f" set-up {time.perf_counter() - start:.0f} s)"
            )
            if idle is None:
                idle = measure(database, user.pk, "-")
                print(f"  idle (Django, no download)                peak {idle['peak_mb']:6.1f} MB")
            for fmt in FORMATS:
                url = reverse(
                    "scoring:export",
                    kwargs={"assignment_token": assignment.token, "what": "responses", "fmt": fmt},
                )
                got = measure(database, user.pk, url)
                verdict = ""
                if total >= 200_000:
                    verdict = f"   target < {TARGET_MB} MB " + (
                        "met" if got["peak_mb"] < TARGET_MB else "NOT MET"
                    )
                print(
                    f"  responses.{fmt:<5} {got['bytes'] / 1e6:7.1f} MB in {got['seconds']:5.1f} s"
                    f"   peak {got['peak_mb']:6.1f} MB{verdict}"
                )


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--child":
        child(sys.argv[2], int(sys.argv[3]), sys.argv[4])
    else:
        main()
