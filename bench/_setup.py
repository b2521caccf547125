"""Shared set-up for the database benchmarks: Django, and a throwaway database of their own.

The benchmark's database is created by Django's test machinery next to the configured one
(``bench_<name>_<database>`` on PostgreSQL, ``var/bench-<name>.sqlite3`` on SQLite) and dropped
afterwards, so a run never touches real data nor the database the test suite uses.
"""

import os
import statistics
import sys
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def django_setup() -> None:
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()


@contextmanager
def throwaway_database(name: str):
    from django.conf import settings
    from django.db import connection

    # Not setup_test_environment(): it instruments every template render (for assertTemplateUsed)
    # and would make the pages look slower than they are. The test client only needs its host.
    settings.DEBUG = False
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]
    test = connection.settings_dict.setdefault("TEST", {})
    if connection.vendor == "sqlite":
        test["NAME"] = str(ROOT / "var" / f"bench-{name}.sqlite3")
    else:
        test["NAME"] = f"bench_{name}_{connection.settings_dict['NAME']}"
    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True, keepdb=False)
    try:
        yield connection
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)


def describe(connection) -> str:
    if connection.vendor == "sqlite":
        return "SQLite"
    with connection.cursor() as cursor:
        cursor.execute("SHOW server_version")
        return f"PostgreSQL {cursor.fetchone()[0]}"


def percentile(values: list[float], p: float) -> float:
    """The p-th percentile (nearest rank) of a list of timings."""
    ordered = sorted(values)
    rank = max(1, round(p / 100 * len(ordered)))
    return ordered[min(rank, len(ordered)) - 1]


def median(values: list[float]) -> float:
    return statistics.median(values)


def bulk_experiment(*, n_items: int, n_configs: int, repeats: int, answer_for, team_name="Bench"):
    """A collected experiment made with bulk_create: n_configs x repeats runs, a response each.

    answer_for(item_index, run_index) -> (answer, confidence); "UNKNOWN" abstains.
    Returns (experiment, scorer user).
    """
    from django.contrib.auth import get_user_model

    from probe import prompts
    from probe.models import (
        Attempt,
        Bank,
        Experiment,
        ExperimentItem,
        Membership,
        ModelConfig,
        PromptVersion,
        Response,
        Run,
        Team,
    )

    team = Team.objects.create(name=team_name, slug=team_name.lower())
    user = get_user_model().objects.create_user("bench-scorer", password="bench-password-1")
    Membership.objects.create(team=team, user=user, role="scorer")
    bank = Bank.objects.create(team=team, name="Bench bank")
    text = "Answer closed-book."
    prompt = PromptVersion.objects.create(
        team=team, name="Bench", text=text, content_hash=prompts.content_hash(text)
    )
    experiment = Experiment.objects.create(
        team=team,
        name="Bench experiment",
        bank=bank,
        bank_name=bank.name,
        prompt_version=prompt,
        repeats=repeats,
        seed=1,
        status=Experiment.Status.COLLECTED,
    )
    blocks = "ABCDE"
    ExperimentItem.objects.bulk_create(
        [
            ExperimentItem(
                experiment=experiment,
                position=i + 1,
                block_code=blocks[i * 5 // n_items],
                block_title=f"Block {blocks[i * 5 // n_items]}",
                question=f"Question {i + 1}?",
                key_answer=f"key {i + 1}",
                key_flagged=i % 17 == 0,
            )
            for i in range(n_items)
        ]
    )
    items = list(ExperimentItem.objects.filter(experiment=experiment).order_by("position"))
    configs = ModelConfig.objects.bulk_create(
        [
            ModelConfig(
                team=team,
                label=f"config {c:02d}",
                provider="simulator" if c % 3 == 0 else "openai",
                model_name=f"model-{c:02d}",
            )
            for c in range(n_configs)
        ]
    )
    runs = Run.objects.bulk_create(
        [
            Run(
                experiment=experiment,
                model_config=config,
                repeat=r + 1,
                order=c * repeats + r,
                status=Run.Status.COLLECTED,
                config_snapshot=config.settings_snapshot(),
            )
            for c, config in enumerate(configs)
            for r in range(repeats)
        ]
    )
    attempts = Attempt.objects.bulk_create(
        [Attempt(run=run, outcome="complete", text="(bench)", raw_body="{}") for run in runs]
    )
    batch = []
    for run_index, (run, attempt) in enumerate(zip(runs, attempts, strict=True)):
        for item_index, item in enumerate(items):
            answer, confidence = answer_for(item_index, run_index)
            batch.append(
                Response(
                    run=run,
                    item=item,
                    attempt=attempt,
                    answer=answer,
                    confidence=confidence,
                    abstained=answer == "UNKNOWN",
                    issues=["markdown"] if (item_index + run_index) % 23 == 0 else [],
                )
            )
            if len(batch) >= 5000:
                Response.objects.bulk_create(batch)
                batch = []
    Response.objects.bulk_create(batch)
    return experiment, user
