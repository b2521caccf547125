"""The async path (`acomplete`, what the collector uses) reads every recording exactly as the
synchronous `complete` does: the same request goes out, the same Completion or error comes back."""

from __future__ import annotations

import asyncio
import dataclasses
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from adapters import AdapterError, CompletionRequest, get_adapter, new_async_client
from tests.adapters.conftest import MODELS, PROMPT, TEST_KEY

PROVIDERS = ["openai_chat", "openai_responses", "anthropic", "gemini"]


def run_async(coroutine):
    """asyncio.run in a thread of its own, as the collector does (a test session may already
    have an event loop running in the main thread, e.g. Playwright's)."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def _outcome(fn):
    try:
        completion = fn()
    except AdapterError as error:
        return ("error", type(error).__name__, error.retryable, error.retry_after, error.message)
    fields = dataclasses.asdict(completion)
    fields.pop("latency_ms")
    return ("completion", fields)


def _both(provider, recording, replay, client):
    adapter = get_adapter(provider)
    request = CompletionRequest(
        model=MODELS[provider], prompt=PROMPT, base_url=replay.base_url, api_key=TEST_KEY, timeout=5
    )
    replay.queue(recording)
    sync = _outcome(lambda: adapter.complete(request, client=client))
    sent_sync = replay.last

    async def run():
        async with new_async_client(connections=1) as http:
            return await adapter.acomplete(request, client=http)

    replay.queue(recording)
    asynchronous = _outcome(lambda: run_async(run()))
    sent_async = replay.last
    return sync, asynchronous, sent_sync, sent_async


@pytest.mark.parametrize("provider", PROVIDERS)
def test_every_recording_reads_the_same_through_acomplete(provider, recordings, replay, client):
    names = [name for name in recordings(provider) if not name.startswith("_")]
    assert len(names) >= 5
    for name in names:
        sync, asynchronous, sent_sync, sent_async = _both(
            provider, recordings(provider)[name], replay, client
        )
        assert asynchronous == sync, name
        assert (sent_async.path, sent_async.json()) == (sent_sync.path, sent_sync.json()), name
        assert sent_async.headers.get("authorization") == sent_sync.headers.get("authorization")


def test_a_closed_port_is_a_retryable_transport_error_on_both_paths(closed_port_url, client):
    adapter = get_adapter("openai_chat")
    request = CompletionRequest(model="m", prompt="p", base_url=closed_port_url, timeout=2)

    async def run():
        async with httpx.AsyncClient() as http:
            return await adapter.acomplete(request, client=http)

    with pytest.raises(AdapterError) as sync:
        adapter.complete(request, client=client)
    with pytest.raises(AdapterError) as asynchronous:
        run_async(run())
    assert asynchronous.value.kind == sync.value.kind == "transport"
    assert asynchronous.value.retryable and "could not reach" in asynchronous.value.message


def test_the_manual_adapter_refuses_the_async_path_too():
    with pytest.raises(AdapterError, match="no API to call"):
        run_async(
            get_adapter("manual").acomplete(CompletionRequest(model="m", prompt="p"), client=None)
        )
