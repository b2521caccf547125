"""What docker-compose runs, run directly: gunicorn serving the app, a Celery worker connecting.

(Docker has no engine on the CI machine; these start the same commands as processes.)
"""

import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _stop(process: subprocess.Popen) -> str:
    process.terminate()
    try:
        out, _ = process.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        out, _ = process.communicate()
    return out or ""


def test_gunicorn_serves_health_and_login(tmp_path):
    port = _free_port()
    # As the Dockerfile does: collectstatic first (hashed, gzipped files and their manifest).
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "STATIC_ROOT": str(tmp_path)}
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput", "--verbosity", "0"],
        cwd=ROOT,
        env=env,
        check=True,
    )
    assert (tmp_path / "staticfiles.json").exists()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gunicorn",
            "config.wsgi:application",
            "--bind",
            f"127.0.0.1:{port}",
            "--workers",
            "1",
            "--timeout",
            "30",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                health = httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2)
                break
            except httpx.TransportError:
                assert process.poll() is None, "gunicorn exited early"
                assert time.monotonic() < deadline, "gunicorn did not answer within 30 s"
                time.sleep(0.3)
        assert health.status_code == 200 and health.text == "ok"
        login = httpx.get(f"http://127.0.0.1:{port}/accounts/login/", timeout=5)
        assert login.status_code == 200 and "Log in" in login.text
        assert login.headers["content-encoding"] == "gzip"  # pages are compressed
        # The stylesheet under its hashed name, precompressed, cached for good.
        css = re.search(r'href="(/static/css/app\.[0-9a-f]{12}\.css)"', login.text)
        assert css, "the page links the hashed stylesheet"
        sheet = httpx.get(f"http://127.0.0.1:{port}{css[1]}", timeout=5)
        assert sheet.status_code == 200 and ".item" in sheet.text
        assert sheet.headers["content-encoding"] == "gzip"
        assert "immutable" in sheet.headers["cache-control"]
        assert (
            httpx.get(f"http://127.0.0.1:{port}/static/vendor/htmx.min.js", timeout=5).status_code
            == 200
        )
        private = httpx.get(f"http://127.0.0.1:{port}/banks/1/", timeout=5)
        assert private.status_code == 302 and "/accounts/login/" in private.headers["location"]
    finally:
        _stop(process)


def test_the_wsgi_module_loads_the_app_then_freezes_what_loading_made():
    """What gunicorn and runserver load: the application, and the objects it made at start-up
    moved out of the garbage collector's generations (a large report no longer rescans them)."""
    probe = (
        "import gc; import config.wsgi as w; "
        "print(callable(w.application), gc.get_freeze_count() > 10_000)"
    )
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings"}
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "True"]


def test_celery_worker_connects_and_reports_ready():
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "config",
            "worker",
            "--pool",
            "threads",
            "--concurrency",
            "1",
            "--loglevel",
            "INFO",
            "--without-gossip",
            "--without-mingle",
            "--hostname",
            f"test-{os.getpid()}@%h",
        ],
        cwd=ROOT,
        env={**os.environ},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines: list[str] = []
    try:
        deadline = time.monotonic() + 60
        os.set_blocking(process.stdout.fileno(), False)
        while not any(" ready." in line for line in lines):
            assert process.poll() is None, "worker exited:\n" + "".join(lines)
            assert time.monotonic() < deadline, "worker not ready in 60 s:\n" + "".join(lines)
            chunk = process.stdout.readline()
            if chunk:
                lines.append(chunk)
            else:
                time.sleep(0.2)
        broker = os.environ.get("CELERY_BROKER_URL", "filesystem://").split("://")[0]
        assert any(
            f"transport:   {broker}://" in line or f"{broker}://" in line for line in lines
        ), "".join(lines)
    finally:
        _stop(process)
