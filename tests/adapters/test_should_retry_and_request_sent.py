"""`should_retry`: the retry table, as each adapter refines it for its own error bodies; and
the request as sent, kept with every attempt, never with the key."""

from __future__ import annotations

import copy
import json

import pytest

from adapters import AdapterError, CompletionRequest, get_adapter
from adapters.wire import sent_request
from tests.adapters.conftest import TEST_KEY

KEY_HEADERS = ("authorization", "x-api-key", "x-goog-api-key")


def _error(call, provider, recording) -> AdapterError:
    with pytest.raises(AdapterError) as caught:
        call(provider, recording)
    return caught.value


def test_the_base_hook_is_the_retry_table(call, recordings):
    adapter = get_adapter("gemini")
    for case, expected in [("status_503", True), ("status_400", False), ("rate_limit", True)]:
        error = _error(call, "gemini", recordings("gemini")[case])
        assert error.retryable is expected
        assert adapter.should_retry(error) is expected


def test_anthropic_529_overloaded_is_retried_even_when_a_header_says_not(call, recordings):
    recording = copy.deepcopy(recordings("anthropic")["status_529"])
    recording["headers"]["x-should-retry"] = "false"
    error = _error(call, "anthropic", recording)
    assert error.retryable is False  # the table follows the header
    assert get_adapter("anthropic").should_retry(error) is True
    # Anything else keeps the table's word.
    other = _error(call, "anthropic", recordings("anthropic")["should_retry_false"])
    assert get_adapter("anthropic").should_retry(other) is False


def test_a_context_length_error_is_fatal_even_as_a_5xx(call, recordings):
    recording = copy.deepcopy(recordings("openai_chat")["status_500"])
    recording["body"]["error"]["message"] = (
        "This model's maximum context length is 8192 tokens. However, you requested 9100 tokens."
    )
    error = _error(call, "openai_chat", recording)
    assert error.retryable is True  # a 500, by the table
    assert get_adapter("openai_chat").should_retry(error) is False
    plain = _error(call, "openai_chat", recordings("openai_chat")["status_500"])
    assert get_adapter("openai_chat").should_retry(plain) is True


def _no_key(record: dict) -> None:
    assert TEST_KEY not in json.dumps(record)
    assert not {h.lower() for h in record["headers"]} & set(KEY_HEADERS)
    assert "key=" not in record["url"]


@pytest.mark.parametrize("provider", ["openai_chat", "openai_responses", "anthropic", "gemini"])
def test_a_completion_records_the_request_as_sent_without_the_key(
    provider, call, replay, recordings
):
    completion = call(provider, recordings(provider)["success"], temperature=0.5)
    sent = completion.request_sent
    _no_key(sent)
    received = replay.last
    assert sent["method"] == "POST"
    assert sent["url"] == f"{replay.base_url}{received.target}"
    assert sent["body"] == received.json()
    assert sent["headers"]["content-type"] == "application/json"
    # The key did go, in its header: only the record leaves it out.
    assert TEST_KEY in " ".join(received.headers.values())


def test_gemini_sends_its_key_in_a_header_never_in_the_url(call, replay, recordings):
    completion = call("gemini", recordings("gemini")["success"])
    assert replay.last.headers["x-goog-api-key"] == TEST_KEY
    assert replay.last.query == ""
    _no_key(completion.request_sent)


@pytest.mark.parametrize("provider", ["openai_chat", "anthropic", "gemini"])
def test_a_failed_attempt_records_the_request_too(provider, call, recordings):
    error = _error(call, provider, recordings(provider)["status_500"])
    assert error.request_sent is not None
    _no_key(error.request_sent)


def test_the_record_strips_a_key_wherever_it_would_be():
    record = sent_request(
        "POST",
        f"https://user:{TEST_KEY}@example.test/v1beta/models/m:generateContent?key={TEST_KEY}&alt=json",
        {"x-goog-api-key": TEST_KEY, "Authorization": f"Bearer {TEST_KEY}", "x-trace": TEST_KEY},
        {"contents": [{"parts": [{"text": f"echo {TEST_KEY}"}]}]},
        TEST_KEY,
    )
    _no_key(record)
    assert record["url"] == "https://example.test/v1beta/models/m:generateContent?alt=json"
    assert record["headers"] == {"x-trace": "***"}
    assert record["body"]["contents"][0]["parts"][0]["text"] == "echo ***"


def test_the_simulator_record_counts_the_experiments_key_rather_than_keep_it():
    adapter = get_adapter("simulator")
    request = CompletionRequest(
        model="sim-expert", prompt="1. Q?", simulation_key=(("Q?", "A"), ("R?", "B"))
    )
    url, headers, payload, _timeout = adapter._prepare(request)
    assert payload["simulation"]["key"][0] == {"question": "Q?", "answer": "A"}
    record = adapter.request_record(url, headers, payload, request)
    assert record["body"]["simulation"] == {"key": "<2 entries, not kept>"}
    assert payload["simulation"]["key"], "the request itself still carries the key"
