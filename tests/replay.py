"""A local HTTP server that replays provider responses, for every test that talks to a provider,
and the project's simulator counting what it is asked.

Nothing here touches a database; every request goes over real HTTP to 127.0.0.1. The application
calls loopback only on the ports its settings allow (PROVIDER_LOOPBACK_PORTS): each server here
adds its own port to the test settings' list (``allow_loopback_port``), never every port.
The ``replay`` fixture (tests/conftest.py) hands each test the one session-wide server, emptied.
A test either queues recordings, answered once each in order (``replay.queue``), or plays a
script (``replay.play``): the n-th request gets the n-th entry and the last one repeats. An
entry is a recording, or a function of the request's index (from 0) that returns one:

    {"status": 429, "headers": {...}, "body": {...} or "body_text": "...", "delay": 0.5}
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

import httpx

from adapters.simulator_server import start_simulator_in_thread

NOTHING_QUEUED = {"status": 599, "headers": {}, "body_text": "no recording queued for this request"}


@dataclass
class Received:
    """One request as the replay server received it."""

    method: str
    target: str  # the request target: path and query string
    headers: dict[str, str]  # names lower-cased
    body: bytes

    @property
    def path(self) -> str:
        return urlsplit(self.target).path

    @property
    def query(self) -> str:
        return urlsplit(self.target).query

    def json(self) -> Any:
        return json.loads(self.body)


class ReplayServer:
    """Answers each request from the queue or the script and remembers what it received."""

    def __init__(self) -> None:
        self.responses: deque[dict[str, Any]] = deque()
        self.script: list[dict | Callable] = []
        self.received: list[Received] = []
        self.lock = threading.Lock()
        replay = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # else each reply waits ~40 ms for a delayed ACK

            def do_POST(self) -> None:  # noqa: N802
                replay.serve(self)

            def do_GET(self) -> None:  # noqa: N802
                replay.serve(self)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        allow_loopback_port(self.port)
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self.thread.start()

    def queue(self, recording: dict[str, Any]) -> None:
        self.responses.append(recording)

    def play(self, script: list) -> ReplayServer:
        self.script = list(script)
        return self

    def reset(self) -> None:
        self.responses.clear()
        self.script = []
        self.received.clear()

    @property
    def count(self) -> int:
        return len(self.received)

    @property
    def last(self) -> Received:
        assert self.received, "the server received no request"
        return self.received[-1]

    def next_recording(self, received: Received) -> dict[str, Any]:
        with self.lock:
            index = len(self.received)
            self.received.append(received)
            if self.responses:
                return self.responses.popleft()
            if not self.script:
                return NOTHING_QUEUED
            recording = self.script[min(index, len(self.script) - 1)]
        while callable(recording):
            recording = recording(index)
        return recording

    def serve(self, handler: BaseHTTPRequestHandler) -> None:
        length = int(handler.headers.get("content-length") or 0)
        body = handler.rfile.read(length) if length else b""
        headers = {k.lower(): v for k, v in handler.headers.items()}
        recording = self.next_recording(Received(handler.command, handler.path, headers, body))
        if recording.get("delay"):
            time.sleep(recording["delay"])
        if "body" in recording:
            payload = json.dumps(recording["body"]).encode()
        else:
            payload = recording.get("body_text", "").encode("utf-8")
        try:
            handler.send_response(recording["status"])
            for name, value in recording.get("headers", {}).items():
                handler.send_header(name, value)
            handler.send_header("content-length", str(len(payload)))
            handler.end_headers()
            handler.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (read timeout tests)

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


class ToReplayServer(httpx.HTTPTransport):
    """Sends every request to the replay server, whatever host its URL names.

    Lets a test use the real default base URLs (https://api.openai.com/v1, ...) over real HTTP;
    the Host header still names the original host.
    """

    def __init__(self, port: int) -> None:
        super().__init__()
        self._port = port

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        request.url = request.url.copy_with(scheme="http", host="127.0.0.1", port=self._port)
        return super().handle_request(request)


class CountingSimulator:
    """The project's simulator over HTTP in a thread, answering at once, counting the chat
    completion requests it receives (calls: the model named by each)."""

    def __init__(self, knowledge: dict) -> None:
        self.server, self.base_url = start_simulator_in_thread(knowledge, latency_scale=0)
        allow_loopback_port(self.base_url)
        self.calls: list = []
        answer = self.server.simulator.chat_completion

        def counting(payload):
            self.calls.append(payload.get("model") if isinstance(payload, dict) else None)
            return answer(payload)

        self.server.simulator.chat_completion = counting

    @property
    def count(self) -> int:
        return len(self.calls)

    requests = count

    def stop(self) -> None:
        self.server.stop()


# The loopback ports the test settings allow: the configured default (the simulator's) and the
# port of every test server started in this process. tests/conftest.py makes this very list the
# PROVIDER_LOOPBACK_PORTS setting, so a port added here is allowed whatever a test overrides.
TEST_LOOPBACK_PORTS: list[int] = []


def allow_loopback_port(port_or_url: int | str) -> int:
    """Allow the application to call a test server on this loopback port (or a URL's port)."""
    port = port_or_url if isinstance(port_or_url, int) else urlsplit(port_or_url).port
    if port not in TEST_LOOPBACK_PORTS:
        TEST_LOOPBACK_PORTS.append(port)
    return port


def unused_port() -> int:
    """A port nothing listens on: bound, then released (connecting is refused)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]
