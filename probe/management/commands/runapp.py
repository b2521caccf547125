"""python manage.py runapp: the web server, a real Celery worker process and the local simulator.

The embedded default for a laptop: Ctrl-C stops them all. Celery beat runs beside the worker
(its own process), for the collection and grading sweeps. Both are watched: one that exits is
reported and started again (at most MAX_RESTARTS times in RESTART_WINDOW seconds; then the app
stops rather than serve with nobody taking its tasks). The simulator serves the demo's
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
import threading
import time
from dataclasses import dataclass, field
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


def celery_command(*arguments: str) -> list[str]:
    """``celery -A config ...`` with this interpreter, logging at INFO."""
    return [sys.executable, "-m", "celery", "-A", "config", *arguments, "--loglevel", "INFO"]


def worker_command(concurrency: int) -> list[str]:
    return celery_command(
        "worker",
        "--pool",
        "threads",
        "--concurrency",
        str(concurrency),
        "--without-gossip",
        "--without-mingle",
        "--hostname",
        "embedded@%h",
    )


def beat_command(schedule: str) -> list[str]:
    return celery_command("beat", "--schedule", schedule)


# A process that dies is started again at once, at most this many times in RESTART_WINDOW
# seconds; past that the app stops rather than serve with nobody working on its queue.
MAX_RESTARTS = 5
RESTART_WINDOW = 600.0
WATCH_SECONDS = 1.0


@dataclass
class Minded:
    name: str
    command: list[str]
    process: subprocess.Popen | None = None
    restarts: list[float] = field(default_factory=list)

    def start(self) -> None:
        self.process = subprocess.Popen(
            self.command, env={**os.environ}, preexec_fn=die_with_parent
        )


class Keeper:
    """Starts the worker and beat, watches them from a thread of its own, and starts again one
    that died, saying so (its exit code, the restart's number); after MAX_RESTARTS within
    RESTART_WINDOW seconds it says it gives up and stops the app (SIGTERM to this process),
    so that the app never sits serving with nothing taking its tasks."""

    def __init__(self, minded: list[Minded], *, out, err, watch: float = WATCH_SECONDS):
        self.minded, self.out, self.err, self.watch = minded, out, err, watch
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._watch, name="runapp-keeper", daemon=True)

    def say(self, stream, text: str) -> None:
        stream.write(text)
        stream.flush()  # a log file is block-buffered: what happened shows when it happens

    def start(self) -> None:
        for m in self.minded:
            m.start()
            self.say(self.out, f"{m.name} started (pid {m.process.pid}).")
        self.thread.start()

    def _watch(self) -> None:
        while not self.stopping.wait(self.watch):
            for m in self.minded:
                code = m.process.poll()
                # Ctrl-C reaches the whole process group: a child that stopped on it is not
                # started again while the server stops too (it sets ``stopping`` at once).
                if code is None or self.stopping.wait(self.watch):
                    continue
                now = time.monotonic()
                m.restarts = [t for t in m.restarts if now - t < RESTART_WINDOW]
                if len(m.restarts) >= MAX_RESTARTS:
                    self.say(
                        self.err,
                        f"{m.name} (pid {m.process.pid}) exited with code {code}, the "
                        f"{MAX_RESTARTS + 1}th time in {RESTART_WINDOW:.0f} s: giving up and "
                        "stopping the app (tasks would stay queued with nobody to take them). "
                        "See its log above.",
                    )
                    self.stopping.set()
                    os.kill(os.getpid(), signal.SIGTERM)
                    return
                m.restarts.append(now)
                self.say(
                    self.err,
                    f"{m.name} (pid {m.process.pid}) exited with code {code}: starting it again "
                    f"(restart {len(m.restarts)} of at most {MAX_RESTARTS} in "
                    f"{RESTART_WINDOW:.0f} s). See its log above.",
                )
                m.start()
                self.say(self.out, f"{m.name} started again (pid {m.process.pid}).")

    def stop(self) -> None:
        self.stopping.set()
        if self.thread.is_alive() and self.thread is not threading.current_thread():
            self.thread.join(timeout=5)
        for m in self.minded:
            if m.process is not None:
                stop(m.process)


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
        schedule = str(Path(settings.DATA_DIR) / "celerybeat-schedule")
        keeper = Keeper(
            [
                Minded("Celery worker", worker_command(concurrency)),
                # Beat apart from the worker, so that either one dying is seen on its own: the
                # collection and grading sweeps that queue again any run or job nothing works on
                # (after a crash, or a task lost with the broker folder).
                Minded("Celery beat", beat_command(schedule)),
            ],
            out=self.stdout,
            err=self.stderr,
        )
        keeper.start()
        try:
            call_command("runserver", addrport, use_reloader=False)
        finally:
            keeper.stop()
            if simulator is not None:
                stop(simulator)
            if empty_knowledge is not None:
                empty_knowledge.unlink(missing_ok=True)
