"""`python3 dev.py run &` then `kill <pid>`: everything it started stops and frees its ports; and
a worker or beat that dies is reported and started again, so tasks never sit with nobody to take
them.

The README's first command is what a new user runs; the PID their shell prints is dev.py's, not
the server's, so the signal has to travel from dev.py to the server, and from the server to the
worker and the simulator. Run as a user would, on the embedded default (SQLite, the filesystem
broker) in a data folder of the test's own.
"""

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT = (
    600  # migrate and load the demo on SQLite, then start the processes (a loaded machine)
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


def _descendants(pid: int) -> set[int]:
    found, todo = set(), [pid]
    while todo:
        parent = todo.pop()
        for task in Path(f"/proc/{parent}/task").glob("*"):
            try:
                children = (task / "children").read_text().split()
            except (FileNotFoundError, ProcessLookupError):
                continue  # the thread or process ended between the listing and the read
            for child in map(int, children):
                if child not in found:
                    found.add(child)
                    todo.append(child)
    return found


def _alive(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False
    return "State:\tZ" not in status  # a zombie has stopped; only its parent's wait is missing


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux's /proc")
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_a_signal_to_dev_py_run_stops_the_server_the_worker_and_the_simulator(tmp_path, signum):
    web_port, simulator_port = _free_port(), _free_port()
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("DATABASE_URL", "CELERY_BROKER_URL", "CELERY_BROKER_DIR", "REDIS_URL")
    }
    env.update(DATA_DIR=str(tmp_path), SIMULATOR_URL=f"http://127.0.0.1:{simulator_port}/v1")
    log = (tmp_path / "run.log").open("w")
    process = subprocess.Popen(
        [sys.executable, "dev.py", "run", f"127.0.0.1:{web_port}"],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline and process.poll() is None:
            try:
                if httpx.get(f"http://127.0.0.1:{web_port}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            time.sleep(0.5)
        else:
            pytest.fail(f"the app did not start:\n{(tmp_path / 'run.log').read_text()[-3000:]}")
        # Wait for the worker's and the simulator's processes to be there as well.
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not _listening(simulator_port):
            time.sleep(0.2)
        started = _descendants(process.pid)
        assert _listening(simulator_port), "the simulator never listened"
        commands = " ".join(Path(f"/proc/{p}/cmdline").read_text() for p in started)
        assert "runapp" in commands and "celery" in commands, commands.replace("\0", " ")

        process.send_signal(signum)  # what `kill <pid>` (or a closed terminal) does
        process.wait(timeout=60)  # dev.py leaves once the server has stopped
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and any(_alive(p) for p in started):
            time.sleep(0.2)
        left = [p for p in started if _alive(p)]
        assert not left, f"still running after {signum.name}: {left}"
        assert not _listening(web_port), f"port {web_port} is still bound"
        assert not _listening(simulator_port), f"port {simulator_port} is still bound"
    finally:
        for pid in [process.pid, *_descendants(process.pid)]:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        process.wait()
        log.close()


def _celery(pid: int, role: str) -> list[int]:
    """The processes below ``pid`` running ``celery ... <role>`` (worker or beat)."""
    found = []
    for p in _descendants(pid):
        try:
            argv = Path(f"/proc/{p}/cmdline").read_text().split("\0")
        except FileNotFoundError:
            continue
        if "celery" in argv and role in argv and _alive(p):
            found.append(p)
    return found


def _wait_for(predicate, timeout: float, what: str, log: Path):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = predicate()
        if found:
            return found
        time.sleep(0.3)
    pytest.fail(f"{what} within {timeout} s:\n{log.read_text()[-3000:]}")


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux's /proc")
def test_a_dead_worker_or_beat_is_reported_and_started_again(tmp_path):
    """The worker (and then beat) killed outright, as a crash would stop it: dev.py run says so
    and starts it again, so a queued task is still taken (a grading job did not sit queued)."""
    web_port, simulator_port = _free_port(), _free_port()
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("DATABASE_URL", "CELERY_BROKER_URL", "CELERY_BROKER_DIR", "REDIS_URL")
    }
    env.update(
        DATA_DIR=str(tmp_path),
        SIMULATOR_URL=f"http://127.0.0.1:{simulator_port}/v1",
        PROBE_SWEEP_SECONDS="2",  # beat sends a sweep every 2 s: the worker's work to watch
    )
    log_path = tmp_path / "run.log"
    log = log_path.open("w")
    process = subprocess.Popen(
        [sys.executable, "dev.py", "run", f"127.0.0.1:{web_port}"],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
    )
    try:

        def serving():
            try:
                return httpx.get(f"http://127.0.0.1:{web_port}/healthz", timeout=2).is_success
            except httpx.HTTPError:
                return False

        _wait_for(serving, START_TIMEOUT, "the app did not start", log_path)
        for role in ("worker", "beat"):
            (first,) = _wait_for(
                lambda role=role: _celery(process.pid, role),
                60,
                f"no celery {role} started",
                log_path,
            )
            os.kill(first, signal.SIGKILL)
            (again,) = _wait_for(
                lambda role=role, first=first: [
                    p for p in _celery(process.pid, role) if p != first
                ],
                30,
                f"the {role} was not started again",
                log_path,
            )
            assert again != first and process.poll() is None, "the app keeps running"
            text = log_path.read_text()
            name = {"worker": "Celery worker", "beat": "Celery beat"}[role]
            assert f"{name} (pid {first}) exited with code -9: starting it again" in text, text
            assert f"{name} started again (pid {again})." in text, text
        # The restarted beat sends its sweeps and the restarted worker does them.
        restarted = len(log_path.read_text())
        _wait_for(
            lambda: (
                "Task grading.tasks.sweep_grading" in log_path.read_text()[restarted:]
                and "succeeded" in log_path.read_text()[restarted:]
            ),
            60,
            "no sweep done after the restarts",
            log_path,
        )
        assert httpx.get(f"http://127.0.0.1:{web_port}/healthz", timeout=5).status_code == 200
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=60)
        assert not _celery(process.pid, "worker") and not _celery(process.pid, "beat")
    finally:
        for pid in [process.pid, *_descendants(process.pid)]:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        process.wait()
        log.close()


def test_a_test_run_has_a_broker_folder_of_its_own():
    """Tests never write into the checkout's var/broker, the queue a `dev.py run` from the same
    checkout reads; the folder is passed on to the worker processes tests start."""
    from django.conf import settings

    folder = Path(settings.CELERY_BROKER_DIR).resolve()
    assert folder != (ROOT / "var" / "broker").resolve()
    assert ROOT.resolve() not in folder.parents, folder
    assert os.environ["CELERY_BROKER_DIR"] == settings.CELERY_BROKER_DIR
