"""Fixtures for the adapter tests: a local HTTP server replaying recorded provider responses.

Nothing here touches Django or a database; every request goes over real HTTP to 127.0.0.1.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections import deque
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

FIXTURES = Path(__file__).parent / "fixtures"
TEST_KEY = "sk-test-SECRET-0123456789abcdef"


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
    """Answers each request with the next queued recording and remembers what it received."""

    def __init__(self) -> None:
        self.responses: deque[dict[str, Any]] = deque()
        self.received: list[Received] = []
        replay = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # else each reply waits ~40 ms for a delayed ACK

            def do_POST(self) -> None:  # noqa: N802
                replay._serve(self)

            def do_GET(self) -> None:  # noqa: N802
                replay._serve(self)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self.thread.start()

    def queue(self, recording: dict[str, Any]) -> None:
        self.responses.append(recording)

    def reset(self) -> None:
        self.responses.clear()
        self.received.clear()

    @property
    def last(self) -> Received:
        assert self.received, "the server received no request"
        return self.received[-1]

    def _serve(self, handler: BaseHTTPRequestHandler) -> None:
        length = int(handler.headers.get("content-length") or 0)
        body = handler.rfile.read(length) if length else b""
        self.received.append(
            Received(
                handler.command,
                handler.path,
                {k.lower(): v for k, v in handler.headers.items()},
                body,
            )
        )
        recording = (
            self.responses.popleft()
            if self.responses
            else {
                "status": 599,
                "headers": {},
                "body_text": "no recording queued for this request",
            }
        )
        if recording.get("delay"):
            time.sleep(recording["delay"])
        if "body" in recording:
            payload = json.dumps(recording["body"]).encode()
        else:
            payload = recording.get("body_text", "").encode()
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


class _ToReplayServer(httpx.HTTPTransport):
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


@pytest.fixture(scope="session")
def _replay_server():
    server = ReplayServer()
    yield server
    server.close()


@pytest.fixture
def replay(_replay_server: ReplayServer) -> ReplayServer:
    _replay_server.reset()
    yield _replay_server
    _replay_server.reset()


@pytest.fixture(scope="session")
def client():
    # One client for the session, as a worker process keeps one (building one costs an SSL context).
    with httpx.Client() as c:
        yield c


@pytest.fixture(scope="session")
def hosted_client(_replay_server: ReplayServer):
    """A client that reaches the replay server when asked for any provider's real host."""
    with httpx.Client(transport=_ToReplayServer(_replay_server.port)) as c:
        yield c


def _load(provider: str) -> dict[str, Any]:
    with open(FIXTURES / f"{provider}.json", encoding="utf-8") as handle:
        return json.load(handle)


@pytest.fixture(scope="session")
def recordings():
    """`recordings(provider)` -> that provider's recorded responses, by case name."""
    cache: dict[str, dict[str, Any]] = {}

    def get(provider: str) -> dict[str, Any]:
        if provider not in cache:
            cache[provider] = _load(provider)
        return cache[provider]

    return get


@pytest.fixture
def closed_port_url() -> str:
    """A base URL on which nothing listens: connecting is refused."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


@pytest.fixture(scope="session")
def sim_knowledge() -> dict[str, Any]:
    return _load("sim_knowledge")


# --- calling an adapter against the replay server -------------------------------------------

MODELS = {
    "openai_chat": "gpt-4.1",
    "openai_responses": "o4-mini",
    "anthropic": "claude-sonnet-4-5",
    "gemini": "gemini-2.5-flash",
}
PROMPT = (
    "Answer each item closed-book. Reply in exactly this format, two lines per item:\n"
    "N. ANSWER: <answer or UNKNOWN>\nCONFIDENCE: HIGH|MEDIUM|LOW\n\n"
    "Block A. Places\n1. What is the capital of France?\n"
    "Block B. History\n2. In which year did the Berlin Wall fall?\n"
)


@pytest.fixture
def api_key() -> str:
    return TEST_KEY


@pytest.fixture
def call(replay: ReplayServer, client: httpx.Client):
    """`call(provider, recording=None, **request_fields)`: one `complete` against the replay server."""
    from adapters import CompletionRequest, get_adapter

    def call(provider: str, recording: dict[str, Any] | None = None, **fields: Any):
        if recording is not None:
            replay.queue(recording)
        fields.setdefault("model", MODELS.get(provider, "test-model"))
        fields.setdefault("prompt", PROMPT)
        fields.setdefault("base_url", replay.base_url)
        fields.setdefault("api_key", TEST_KEY)
        fields.setdefault("timeout", 5.0)
        http = fields.pop("client", client)
        return get_adapter(provider).complete(CompletionRequest(**fields), client=http)

    return call
