"""Anthropic Messages API: text blocks joined, thinking skipped, max_tokens always sent."""

from __future__ import annotations

import pytest

from adapters import ConfigurationError, MissingAPIKeyError


def test_success_joins_text_blocks_and_skips_thinking(call, recordings):
    completion = call("anthropic", recordings("anthropic")["success"])

    assert (
        completion.text == "1. ANSWER: Paris\nCONFIDENCE: HIGH\n2. ANSWER: 1989\nCONFIDENCE: HIGH"
    )
    assert "wall fell" not in completion.text  # the thinking block
    assert completion.outcome == "complete"
    assert completion.finish_reason == "end_turn"
    assert (completion.input_tokens, completion.output_tokens) == (84, 210)
    assert completion.request_id == "req_011CQ1aBcDeFgHiJkLmNoPqR"
    assert completion.reported_model == "claude-sonnet-4-5-20250929"


def test_max_tokens_stop_is_truncated(call, recordings):
    completion = call("anthropic", recordings("anthropic")["truncated_length"])
    assert completion.outcome == "truncated"
    assert completion.finish_reason == "max_tokens"
    assert completion.text.endswith("2. ANSWER: 19")


def test_thinking_that_ate_the_budget_is_truncated_and_empty(call, recordings):
    completion = call("anthropic", recordings("anthropic")["truncated_empty"])
    assert completion.outcome == "truncated"
    assert completion.text == ""
    assert completion.output_tokens == 2048


def test_refusal_stop_reason_is_refused(call, recordings):
    completion = call("anthropic", recordings("anthropic")["refusal"])
    assert completion.outcome == "refused"
    assert completion.finish_reason == "refusal"


def test_request_headers_and_body(hosted_client, call, replay, recordings, api_key):
    call(
        "anthropic",
        recordings("anthropic")["success"],
        base_url=None,
        client=hosted_client,
        temperature=0.0,
        seed=99,
    )

    received = replay.last
    assert received.headers["host"] == "api.anthropic.com"
    assert received.path == "/v1/messages"
    assert received.headers["x-api-key"] == api_key
    assert received.headers["anthropic-version"] == "2023-06-01"
    assert "authorization" not in received.headers
    assert api_key not in received.target
    body = received.json()
    assert body["max_tokens"] == 4096  # required by the API, so a default is always sent
    assert body["temperature"] == 0.0
    assert body["messages"][0]["role"] == "user"
    for absent in ("tools", "tool_choice", "seed", "thinking"):
        assert absent not in body


def test_thinking_budget_turns_thinking_on_and_temperature_off(call, replay, recordings):
    call(
        "anthropic",
        recordings("anthropic")["success"],
        thinking_budget=2048,
        max_output_tokens=8000,
        temperature=0.0,
    )
    body = replay.last.json()
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assert body["max_tokens"] == 8000
    assert "temperature" not in body


def test_reasoning_effort_asks_for_adaptive_thinking(call, replay, recordings):
    call(
        "anthropic", recordings("anthropic")["success"], reasoning_effort="medium", temperature=0.0
    )
    body = replay.last.json()
    assert body["thinking"] == {"type": "adaptive"}
    assert body["output_config"] == {"effort": "medium"}
    assert "temperature" not in body


@pytest.mark.parametrize(("budget", "limit"), [(512, 4096), (4096, 4096), (5000, 4096)])
def test_invalid_thinking_budget_fails_before_any_request(call, replay, budget, limit):
    with pytest.raises(ConfigurationError) as caught:
        call("anthropic", thinking_budget=budget, max_output_tokens=limit)
    assert replay.received == []
    assert "1024" in str(caught.value)


def test_missing_key_fails_before_any_request(call, replay):
    with pytest.raises(MissingAPIKeyError) as caught:
        call("anthropic", api_key="")
    assert replay.received == []
    assert "ANTHROPIC_API_KEY" in str(caught.value)
