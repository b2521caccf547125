"""Shared set-up for the database benchmarks: Django, and a throwaway database of their own.

The benchmark's database is created by Django's test machinery next to the configured one
(``bench_<name>_<database>`` on PostgreSQL, ``var/bench-<name>.sqlite3`` on SQLite) and dropped
afterwards, so a run never touches real data nor the database the test suite uses.

The data a benchmark measures is made by the test suite's builders (tests/builders.py: banks,
collected experiments, judgements in bulk), imported once Django is set up:
``django_setup()`` puts the project root on sys.path, then ``from tests import builders``.
"""

import os
import statistics
import sys
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def django_setup() -> None:
    """Django set up as the web server loads it (config.wsgi: the application, then the
    garbage collector's freeze of what loading it made)."""
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import config.wsgi  # noqa: F401


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


CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@contextmanager
def live_server(connection):
    """The app served over HTTP on a free port, on the throwaway database; yields its URL.
    Pages (the test client's too) render with the plain static storage: no collectstatic."""
    from django.conf import settings
    from django.test.testcases import LiveServerThread, _StaticFilesHandler

    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    # The server's request threads close their connections after each request, so the
    # throwaway database can be dropped at the end.
    connection.settings_dict["CONN_MAX_AGE"] = 0
    server = LiveServerThread("127.0.0.1", _StaticFilesHandler, port=0)
    server.daemon = True
    server.start()
    server.is_ready.wait()
    try:
        yield f"http://127.0.0.1:{server.port}"
    finally:
        server.terminate()
        if connection.vendor == "postgresql":
            # A request thread of the live server may still hold a session on the throwaway
            # database; end those (this benchmark's own) so that the database can be dropped.
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                    " WHERE datname = current_database() AND pid <> pg_backend_pid()"
                )
