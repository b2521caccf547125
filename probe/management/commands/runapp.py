"""python manage.py runapp: the web server, a real Celery worker process and the local simulator.

The embedded default for a laptop: Ctrl-C stops all three. The worker runs Celery beat too
(``--beat``), for the collection sweep. The simulator serves the demo's
simulated models at settings.SIMULATOR_URL, knowing what load_demo wrote to
var/simulator-knowledge.json (nothing, if that file does not exist yet). Production runs
gunicorn and ``celery worker`` as separate services (docker-compose.yml).
"""

import ctypes
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from .load_demo import knowledge_path, simulator_url

SIMULATOR_START_TIMEOUT = 10.0
PR_SET_PDEATHSIG = 1  # linux/prctl.h


def die_with_parent() -> None:
    """In a child, before exec: ask Linux to send it SIGTERM when this process dies.

    A graceful stop already stops the children (the finally below); this covers the parent
    being killed outright (SIGKILL, the OOM killer), which would otherwise leave the worker and
    the simulator running with their ports bound. Elsewhere than Linux it does nothing.
    """
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def simulator_address() -> tuple[str, int]:
    parts = urlsplit(simulator_url())
    return parts.hostname or "127.0.0.1", parts.port or 8765


def start_simulator(knowledge: Path, host: str, port: int) -> tuple[subprocess.Popen, Path | None]:
    """The simulator as a subprocess; with an empty knowledge list if `knowledge` is missing.

    Returns the process and the temporary file to remove afterwards (None if there is none).
    """
    empty = None
    if not knowledge.exists():
        handle, name = tempfile.mkstemp(prefix="simulator-knowledge-", suffix=".json")
        with os.fdopen(handle, "w") as file:
            json.dump({"items": []}, file)
        empty = Path(name)
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "adapters.simulator_server",
            "--host",
            host,
            "--port",
            str(port),
            "--knowledge",
            str(empty or knowledge),
            "--quiet",
        ],
        cwd=settings.BASE_DIR,
        env={**os.environ},
        preexec_fn=die_with_parent,
    )
    return process, empty


def wait_for_port(host: str, port: int, process: subprocess.Popen, timeout: float) -> bool:
    """Whether the process accepts connections on host:port before it exits or time runs out."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            return False
        try:
            with socket.create_connection((host, port), timeout=0.5):
                return True
        except OSError:
            time.sleep(0.1)
    return False


def stop(process: subprocess.Popen, timeout: float = 10) -> None:
    if process.poll() is not None:
        return
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def port_free(host: str, port: int) -> bool:
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError:
            return False
    return True


class Command(BaseCommand):
    help = "Serve the app and run a Celery worker and the local simulator beside it."

    def add_arguments(self, parser):
        parser.add_argument("addrport", nargs="?", default="127.0.0.1:8000")
        # Runs collected at once: each worker thread collects one run, sending that run's
        # requests concurrently within its configuration's limit.
        parser.add_argument("--concurrency", type=int, default=4)
        parser.add_argument(
            "--no-simulator", action="store_true", help="do not start the local simulator"
        )

    def handle(self, *args, addrport: str, concurrency: int, no_simulator: bool, **options):
        # SIGTERM (a process manager, `kill`) and SIGHUP (the terminal closed) unwind like
        # Ctrl-C, so the children are stopped too instead of being left running.
        for signum in (signal.SIGTERM, signal.SIGHUP):
            signal.signal(signum, lambda signum, frame: sys.exit(128 + signum))
        # runserver leaves with os._exit() when its port is taken, which would orphan the
        # worker and the simulator: check the port before starting them.
        web_host, _, web_port = addrport.rpartition(":")
        if not port_free(web_host or "127.0.0.1", int(web_port)):
            raise CommandError(
                f"{addrport} is already in use: is the app already running? Stop it, or give "
                "another address, e.g. manage.py runapp 127.0.0.1:8001."
            )
        simulator, empty_knowledge = None, None
        if not no_simulator:
            host, port = simulator_address()
            knowledge = knowledge_path()
            simulator, empty_knowledge = start_simulator(knowledge, host, port)
            if wait_for_port(host, port, simulator, SIMULATOR_START_TIMEOUT):
                what = (
                    "with no items (run load_demo to write its knowledge file)"
                    if empty_knowledge
                    else f"knowing {knowledge}"
                )
                self.stdout.write(
                    f"Simulator started (pid {simulator.pid}) at {simulator_url()}, {what}."
                )
            else:
                self.stderr.write(
                    f"The simulator did not start at {host}:{port} (is the port in use?); "
                    "simulated configurations will fail to connect."
                )
        worker = subprocess.Popen(
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
                str(concurrency),
                "--loglevel",
                "INFO",
                "--without-gossip",
                "--without-mingle",
                "--hostname",
                "embedded@%h",
                # Beat inside the worker: the collection sweep that queues again any run
                # nothing works on (after a crash, or a task lost with the broker folder).
                "--beat",
                "--schedule",
                str(Path(settings.DATA_DIR) / "celerybeat-schedule"),
            ],
            env={**os.environ},
            preexec_fn=die_with_parent,
        )
        self.stdout.write(f"Celery worker started (pid {worker.pid}).")
        try:
            call_command("runserver", addrport, use_reloader=False)
        finally:
            stop(worker)
            if simulator is not None:
                stop(simulator)
            if empty_knowledge is not None:
                empty_knowledge.unlink(missing_ok=True)
