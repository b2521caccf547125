"""Real processes for the collection fault test and the benchmark: a Redis server on a port of
its own, Celery worker and beat processes, and an OpenAI-compatible server that can answer
slowly and inject 429s and 500s. Plain helpers (no fixtures), so bench/ can use them too."""

from __future__ import annotations

import hashlib
import json
import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from tests.replay import allow_loopback_port

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def database_url(connection) -> str:
    """The URL of the database `connection` uses, for a worker process's settings."""
    db = connection.settings_dict
    if db["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{db['NAME']}"
    auth = db["USER"] + (f":{db['PASSWORD']}" if db.get("PASSWORD") else "")
    return f"postgres://{auth}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


# Redis ------------------------------------------------------------------------------------------


@dataclass
class RedisServer:
    """A redis-server of our own, persisted like docker-compose's (append-only file)."""

    port: int
    directory: Path
    process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}"

    def start(self, timeout: float = 10) -> None:
        self.process = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--dir",
                str(self.directory),
                "--appendonly",
                "yes",
                "--appendfsync",
                "everysec",
                "--save",
                "",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + timeout
        while True:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as sock:
                    sock.sendall(b"PING\r\n")
                    if sock.recv(64).startswith(b"+PONG"):
                        return
            except OSError:
                pass
            if time.monotonic() > deadline or self.process.poll() is not None:
                raise RuntimeError(f"redis-server did not start on port {self.port}")
            time.sleep(0.05)

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()


# Celery processes -----------------------------------------------------------------------------


@dataclass
class CeleryProcess:
    """`celery -A config worker|beat` in a process group of its own, logging to a file."""

    args: list[str]
    env: dict
    log: Path
    process: subprocess.Popen | None = None
    starts: int = 0

    def start(self) -> None:
        self.starts += 1
        handle = open(self.log, "a", encoding="utf-8")  # noqa: SIM115 (the child owns it)
        handle.write(f"\n===== start {self.starts} =====\n")
        handle.flush()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "config", *self.args],
            cwd=ROOT,
            env=self.env,
            stdout=handle,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: a kill reaches the pool children
        )
        handle.close()

    def wait_ready(self, marker: str = " ready.", timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while marker not in self.text().rsplit(f"===== start {self.starts} =====", 1)[-1]:
            if self.process.poll() is not None:
                raise RuntimeError("celery exited:\n" + self.tail())
            if time.monotonic() > deadline:
                raise RuntimeError(f"celery not ready in {timeout} s:\n" + self.tail())
            time.sleep(0.1)

    def kill(self) -> None:
        """SIGKILL the whole group, as `docker kill` does to a container: no warm shutdown."""
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.kill()

    def text(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace") if self.log.exists() else ""

    def tail(self, n: int = 60) -> str:
        return "\n".join(self.text().splitlines()[-n:])


def celery_env(*, database: str, redis_url: str, provider_ports=(), **extra: str) -> dict:
    """The environment of a worker or beat process; `provider_ports`: the loopback ports of the
    local provider servers it may call (PROVIDER_LOOPBACK_PORTS), and no other."""
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DATABASE_URL": database,
        "CELERY_BROKER_URL": f"{redis_url}/0",
        "REDIS_URL": f"{redis_url}/1",
        "PROVIDER_LOOPBACK_PORTS": ",".join(str(port) for port in provider_ports),
        **extra,
    }


# An OpenAI-compatible server that answers slowly and sometimes fails -------------------------


@dataclass
class FaultServer:
    """POST /v1/chat/completions: after `latency` seconds, a one-item sheet, or (with
    probability `fault_rate`) a 429 or a 500. No unit fails more than `max_faults_in_a_row`
    times in a row at random; the stubborn units (`stubborn_every`) fail `stubborn_faults` times
    in a row first, whatever the draw. Counts the successful replies per prompt: a unit asked
    twice after it succeeded shows up there."""

    latency: float = 0.2
    fault_rate: float = 0.0
    max_faults_in_a_row: int = 3
    # One unit in `stubborn_every` (by its hash) first fails `stubborn_faults` times in a row.
    stubborn_every: int = 0
    stubborn_faults: int = 0
    seed: int = 1
    successes: Counter = field(default_factory=Counter)
    faults: int = 0
    requests: int = 0
    base_url: str = ""
    port: int = 0

    def start(self) -> FaultServer:
        server = self
        lock = threading.Lock()
        rng = random.Random(self.seed)
        in_a_row: Counter = Counter()

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True

            def do_POST(self):  # noqa: N802
                length = int(self.headers.get("content-length") or 0)
                payload = json.loads(self.rfile.read(length) or b"{}")
                prompt = payload["messages"][0]["content"]
                unit = hashlib.sha1(f"{payload.get('model')}|{prompt}".encode()).hexdigest()
                with lock:
                    server.requests += 1
                    stubborn = (
                        server.stubborn_every
                        and int(unit[:8], 16) % server.stubborn_every == 0
                        and not server.successes[unit]
                        and in_a_row[unit] < server.stubborn_faults
                    )
                    fault = stubborn or (
                        rng.random() < server.fault_rate
                        and in_a_row[unit] < server.max_faults_in_a_row
                    )
                    status = rng.choice((429, 500)) if fault else 200
                if server.latency:
                    time.sleep(server.latency)
                if fault:
                    body = json.dumps({"error": {"message": f"injected {status}", "type": "x"}})
                    headers = {"retry-after-ms": "200"} if status == 429 else {}
                else:
                    body = json.dumps(
                        {
                            "id": "chatcmpl-fault",
                            "model": payload.get("model"),
                            "choices": [
                                {
                                    "index": 0,
                                    "message": {
                                        "role": "assistant",
                                        "content": "ANSWER: 42\nCONFIDENCE: HIGH",
                                    },
                                    "finish_reason": "stop",
                                }
                            ],
                            "usage": {"prompt_tokens": 50, "completion_tokens": 8},
                        }
                    )
                    headers = {}
                data = body.encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                try:
                    self.wfile.write(data)
                    self.wfile.flush()
                except OSError:
                    return  # the client died (a killed worker): it never got the answer
                with lock:
                    if fault:
                        server.faults += 1
                        in_a_row[unit] += 1
                    else:
                        server.successes[unit] += 1
                        in_a_row[unit] = 0

            def log_message(self, *args):
                pass

        class Server(ThreadingHTTPServer):
            daemon_threads = True
            allow_reuse_address = True
            request_queue_size = 256

        self._server = Server(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        self.port = allow_loopback_port(self._server.server_address[1])
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
