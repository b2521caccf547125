"""The registry by provider name, the manual provider, and the connection check."""

from __future__ import annotations

import subprocess
import sys

import httpx
import pytest

from adapters import (
    PROVIDERS,
    Adapter,
    AdapterError,
    check_connection,
    get_adapter,
    provider_choices,
)
from adapters.manual import ManualRunError

NAMES = ["openai_chat", "openai_responses", "anthropic", "gemini", "manual", "simulator"]


def test_registry_offers_every_provider_in_form_order():
    assert list(PROVIDERS) == NAMES
    assert [name for name, _ in provider_choices()] == NAMES


@pytest.mark.parametrize("name", NAMES)
def test_get_adapter_returns_an_adapter_named_as_registered(name):
    adapter = get_adapter(name)
    assert isinstance(adapter, Adapter)
    assert adapter.name == name
    assert adapter.label


def test_labels_tell_the_simulator_and_manual_apart_from_real_models():
    labels = dict(provider_choices())
    assert "Simulated" in labels["simulator"]
    assert "Manual" in labels["manual"]


def test_unknown_provider_is_a_key_error_listing_the_known_ones():
    with pytest.raises(KeyError) as caught:
        get_adapter("openai")
    assert "unknown provider 'openai'" in str(caught.value)
    assert "openai_chat" in str(caught.value)


def test_provider_modules_are_imported_only_when_asked_for():
    code = (
        "import sys, adapters; "
        "assert 'adapters.gemini' not in sys.modules; "
        "adapters.get_adapter('gemini'); "
        "assert 'adapters.gemini' in sys.modules; "
        "assert 'adapters.anthropic' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_adapters_import_no_django():
    code = (
        "import sys, adapters; "
        "[adapters.get_adapter(n) for n in adapters.PROVIDERS]; "
        "import adapters.simulator_server; "
        "assert not [m for m in sys.modules if m == 'django' or m.startswith('django.')], 'django imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_manual_provider_needs_no_key_and_refuses_to_call_anything(replay, client):
    adapter = get_adapter("manual")
    assert adapter.needs_api_key is False
    from adapters import CompletionRequest

    with pytest.raises(ManualRunError) as caught:
        adapter.complete(
            CompletionRequest(model="chat window", prompt="1. Q?", base_url=replay.base_url),
            client=client,
        )
    assert isinstance(caught.value, AdapterError)
    assert not caught.value.retryable
    assert "pasted by a person" in str(caught.value)
    assert replay.received == []


def test_check_connection_sends_a_tiny_prompt_and_returns_the_completion(
    replay, client, recordings, api_key
):
    replay.queue(recordings("anthropic")["success"])
    completion = check_connection(
        get_adapter("anthropic"),
        client=client,
        model="claude-sonnet-4-5",
        base_url=replay.base_url,
        api_key=api_key,
        temperature=0.0,
    )
    assert completion.outcome == "complete"
    body = replay.last.json()
    assert body["messages"] == [{"role": "user", "content": "Reply with OK."}]
    assert body["temperature"] == 0.0


def test_check_connection_raises_the_classified_error(replay, client, recordings, api_key):
    replay.queue(recordings("gemini")["status_400"])
    with pytest.raises(AdapterError) as caught:
        check_connection(
            get_adapter("gemini"),
            client=client,
            model="gemini-2.5-flash",
            base_url=replay.base_url,
            api_key=api_key,
        )
    assert "API key not valid" in str(caught.value)


def test_new_client_does_not_follow_redirects():
    from adapters import new_client

    with new_client() as c:
        assert isinstance(c, httpx.Client)
        assert c.follow_redirects is False
        assert c.timeout.connect == 10.0
