"""Fixtures for the adapter tests: recorded provider responses, replayed over real HTTP by the
suite's replay server (tests/replay.py; the ``replay`` fixture), and clients to send them with.

Nothing here touches Django or a database; every request goes over real HTTP to 127.0.0.1.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.replay import ReplayServer, ToReplayServer

FIXTURES = Path(__file__).parent / "fixtures"
TEST_KEY = "sk-test-SECRET-0123456789abcdef"


@pytest.fixture(scope="session")
def client():
    # One client for the session, as a worker process keeps one (building one costs an SSL context).
    with httpx.Client() as c:
        yield c


@pytest.fixture(scope="session")
def hosted_client(replay_session: ReplayServer):
    """A client that reaches the replay server when asked for any provider's real host."""
    with httpx.Client(transport=ToReplayServer(replay_session.port)) as c:
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
def closed_port_url(closed_port: int) -> str:
    """A base URL on which nothing listens: connecting is refused."""
    return f"http://127.0.0.1:{closed_port}/v1"


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
