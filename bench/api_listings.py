"""The API's listings at size: the results' responses of an experiment of 100,000 judged
responses (1,000 items x 50 configurations x 2 repeats) and the experiment list of a team of
1,000 experiments, against the same listings at a tenth of the size, with GET /healthz as the
yardstick measured in the same run.

Each request runs in a fresh Python process (Django loaded, the request made through the test
client with the full middleware and a real API token), which reports the time, the queries it
ran (CaptureQueriesContext) and its own peak resident memory (VmHWM, as bench/exports.py reads
it). Targets: the queries of a page are the same at both sizes and on the first and last page
(constant queries), and the peak memory of a page at 100,000 rows within 10 MB of the same page
at 10,000 (memory flat: a page is read alone, never the whole list).

Run it on PostgreSQL (the figure that counts):
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench .venv/bin/python bench/api_listings.py
Without DATABASE_URL it runs on SQLite. It makes and drops a database of its own.
"""

import json
import subprocess
import sys
import time
from pathlib import Path

from _setup import ROOT, describe, django_setup, median, throwaway_database

FLAT_MB = 10.0
# (items, configurations): 10,000 and 100,000 responses (2 repeats each); experiments a team.
RESPONSE_SIZES = ((500, 10), (1000, 50))
EXPERIMENT_SIZES = (100, 1000)


def peak_resident_kb() -> int:
    status = Path("/proc/self/status")
    if status.exists():
        for line in status.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def child(database: str, token: str, url: str, repeat: int) -> None:
    """In a fresh process: the request ``repeat`` times (the first warms up), then the median
    time, the queries of the last and the peak memory."""
    django_setup()
    from django.conf import settings
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    settings.DEBUG = False
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]
    connection.settings_dict["NAME"] = database
    client = Client()
    headers = {"Authorization": f"Bearer {token}"}
    times, size, queries = [], 0, 0
    for _ in range(repeat + 1):
        with CaptureQueriesContext(connection) as captured:
            start = time.perf_counter()
            response = client.get(url, headers=headers)
            body = response.content
            times.append(time.perf_counter() - start)
        assert response.status_code == 200, (url, response.status_code, body[:300])
        size, queries = len(body), len(captured)
    print(
        json.dumps(
            {
                "ms": 1000 * median(times[1:]),
                "bytes": size,
                "queries": queries,
                "peak_mb": peak_resident_kb() / 1024,
            }
        )
    )


def measure(database: str, token: str, url: str, repeat: int = 5) -> dict:
    result = subprocess.run(
        [sys.executable, __file__, "--child", database, token, url, str(repeat)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(result.stdout.strip().splitlines()[-1])


def answer_for(item_index: int, run_index: int):
    if (item_index * 7 + run_index) % 11 == 0:
        return "UNKNOWN", ""
    return f"answer {item_index} r{run_index}", ("HIGH", "MEDIUM", "LOW")[
        (item_index + run_index) % 3
    ]


def bucket_for(unit) -> str:
    if unit.abstained:
        return "abstained"
    return "correct" if unit.index % 5 < 3 else "confident_wrong"


def responses_case(n: int, n_items: int, n_configs: int):
    """A judged, revealed experiment of n_items x n_configs x 2 responses and a scorer's token."""
    from django.utils import timezone

    from api.models import ApiToken
    from scoring.models import Assignment
    from tests.builders import bulk_judgements, standalone_experiment

    experiment, user = standalone_experiment(
        n_items=n_items,
        n_configs=n_configs,
        repeats=2,
        answer_for=answer_for,
        team_name=f"Responses{n}",
    )
    assignment = Assignment.objects.create(
        experiment=experiment, user=user, revealed_at=timezone.now()
    )
    bulk_judgements(assignment, bucket_for)
    _row, token = ApiToken.issue(user=user, team=experiment.team, access="read", name="bench")
    return experiment, token


def experiments_case(n: int):
    """A team of n experiments (each with a 5-item snapshot) and a viewer's token."""
    from api.models import ApiToken
    from probe.models import Experiment, ExperimentItem
    from tests.builders import team_with_members

    team, users = team_with_members(f"Experiments{n}", {f"viewer{n}": "viewer"})
    user = users[f"viewer{n}"]
    from probe.models import PromptVersion

    prompt = PromptVersion.objects.create(
        team=team, name="Bench", version=1, language="en", text="t", content_hash="h"
    )
    made = Experiment.objects.bulk_create(
        Experiment(team=team, name=f"E{i}", bank_name="b", prompt_version=prompt, seed=i)
        for i in range(n)
    )
    ExperimentItem.objects.bulk_create(
        ExperimentItem(
            experiment=e,
            position=p,
            block_code="A",
            block_title="A",
            question=f"q{p}",
            key_answer="k",
        )
        for e in made
        for p in range(1, 6)
    )
    _row, token = ApiToken.issue(user=user, team=team, access="read", name="bench")
    return team, token


def line(label: str, got: dict, yardstick: float) -> None:
    """One request's figures, its time also as a multiple of the yardstick's."""
    print(
        f"  {label:<34} {got['ms']:8.1f} ms ({got['ms'] / yardstick:6.1f}x healthz)"
        f"  {got['queries']:3d} queries  peak {got['peak_mb']:6.1f} MB  {got['bytes'] / 1e3:8.1f} KB"
    )


def main() -> None:
    django_setup()
    with throwaway_database("api_listings") as connection:
        from api.pagination import PAGE_SIZE
        from api.views.results import RESPONSES_PAGE_SIZE

        database = connection.settings_dict["NAME"]
        print(f"API listings on {describe(connection)}; each request in a fresh process")
        cases = []
        for n_items, n_configs in RESPONSE_SIZES:
            start = time.perf_counter()
            experiment, token = responses_case(n_items * n_configs * 2, n_items, n_configs)
            cases.append(("responses", n_items * n_configs * 2, experiment.pk, token))
            print(
                f"  set-up {n_items * n_configs * 2:,} responses: {time.perf_counter() - start:.0f} s"
            )
        for n in EXPERIMENT_SIZES:
            team, token = experiments_case(n)
            cases.append(("experiments", n, team.slug, token))
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("ANALYZE")

        healthz = measure(database, cases[0][3], "/healthz", repeat=20)
        yardstick = healthz["ms"]
        print(
            f"\n  yardstick GET /healthz              {yardstick:8.2f} ms  peak {healthz['peak_mb']:6.1f} MB"
        )

        results: dict[tuple[str, int], dict] = {}
        for kind, n, target, token in cases:
            if kind == "responses":
                last = -(-n // RESPONSES_PAGE_SIZE)
                base = f"/api/experiments/{target}/results/responses"
            else:
                last = -(-n // PAGE_SIZE)
                base = f"/api/teams/{target}/experiments"
            print(f"\n{kind}: {n:,} rows, {last} pages")
            for page in sorted({1, last}):
                got = measure(database, token, f"{base}?page={page}")
                results[(kind, n, page == 1)] = got
                line(f"page {page}", got, yardstick)
            results.setdefault((kind, n, False), results[(kind, n, True)])

        print("\nTargets")
        for kind, sizes in (
            ("responses", [c[1] for c in cases if c[0] == "responses"]),
            ("experiments", list(EXPERIMENT_SIZES)),
        ):
            small, big = sizes
            queries = {
                results[(kind, n, first)]["queries"] for n in sizes for first in (True, False)
            }
            growth = results[(kind, big, True)]["peak_mb"] - results[(kind, small, True)]["peak_mb"]
            print(
                f"  {kind:<12} queries {sorted(queries)}: "
                + ("constant (met)" if len(queries) == 1 else "NOT constant")
                + f"; peak memory {big:,} vs {small:,} rows: {growth:+.1f} MB "
                + (f"(flat within {FLAT_MB:g} MB: met)" if growth <= FLAT_MB else "NOT flat")
            )


if __name__ == "__main__":
    if len(sys.argv) == 6 and sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]))
    else:
        main()
