"""The app served as docker-compose serves it: gunicorn with 3 workers, on the test's database
and a Redis server of its own (its cache and its broker), for tests that need real processes."""

import os
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import httpx
from django.db import connection

from tests.collection.processes import ROOT, RedisServer, database_url, free_port


@contextmanager
def gunicorn(directory: Path, *, workers: int = 3, **environment: str):
    """Yields the base URL; `environment` is added to the processes' environment. The access
    log (`directory/access.log`) starts each line with the pid of the worker that answered;
    gunicorn's own log is `directory/gunicorn.log`."""
    redis = RedisServer(free_port(), directory)
    redis.start()
    port = free_port()
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DATABASE_URL": database_url(connection),
        "REDIS_URL": f"{redis.url}/0",
        "CELERY_BROKER_URL": f"{redis.url}/1",
        **environment,
    }
    command = [sys.executable, "-m", "gunicorn", "config.wsgi:application"]
    command += ["--bind", f"127.0.0.1:{port}", "--workers", str(workers), "--timeout", "60"]
    command += ["--access-logfile", str(directory / "access.log")]
    command += ["--access-logformat", "%(p)s %(s)s %(m)s %(U)s"]
    # Its log goes to a file: a pipe nobody reads fills up and stops every worker.
    log = open(directory / "gunicorn.log", "w")  # noqa: SIM115 (the child owns it)
    process = subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, text=True
    )
    log.close()
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{base}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if process.poll() is not None:
                raise AssertionError((directory / "gunicorn.log").read_text()[-2000:])
            assert time.monotonic() < deadline, "gunicorn did not answer within 60 s"
            time.sleep(0.2)
        yield base
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        redis.stop()
