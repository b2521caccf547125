"""Gemini API: the key in a header and never in the URL, thought parts skipped, blocks read."""

from __future__ import annotations

import pytest

from adapters import MissingAPIKeyError, RateLimitError, retry_delay


def test_success_joins_parts_and_skips_thoughts(call, recordings):
    completion = call("gemini", recordings("gemini")["success"])

    assert (
        completion.text == "1. ANSWER: Paris\nCONFIDENCE: HIGH\n2. ANSWER: 1989\nCONFIDENCE: HIGH"
    )
    assert "Recalling facts" not in completion.text
    assert completion.outcome == "complete"
    assert completion.finish_reason == "STOP"
    assert (completion.input_tokens, completion.output_tokens, completion.reasoning_tokens) == (
        84,
        19,
        400,
    )
    assert completion.reported_model == "gemini-2.5-flash"
    assert completion.request_id == "kAZtaLeSJ9KXz7IPtbHn4Qc"  # responseId: Google sends no header


def test_max_tokens_with_no_parts_is_truncated_with_thought_count(call, recordings):
    completion = call("gemini", recordings("gemini")["truncated_empty"])
    assert completion.outcome == "truncated"
    assert completion.text == ""
    assert completion.reasoning_tokens == 511
    assert completion.finish_reason == "MAX_TOKENS"


def test_max_tokens_with_partial_text_is_truncated(call, recordings):
    completion = call("gemini", recordings("gemini")["truncated_length"])
    assert completion.outcome == "truncated"
    assert completion.text.endswith("2. ANSWER: 19")


def test_safety_finish_is_refused(call, recordings):
    completion = call("gemini", recordings("gemini")["refusal"])
    assert completion.outcome == "refused"
    assert completion.refusal == "SAFETY"


def test_blocked_prompt_without_candidates_is_refused_with_the_block_reason(call, recordings):
    completion = call("gemini", recordings("gemini")["blocked_prompt"])
    assert completion.outcome == "refused"
    assert completion.finish_reason == "PROHIBITED_CONTENT"
    assert "PROHIBITED_CONTENT" in completion.refusal


def test_retry_info_delay_is_the_servers_delay(call, recordings):
    with pytest.raises(RateLimitError) as caught:
        call("gemini", recordings("gemini")["rate_limit"])
    assert caught.value.retry_after == 37.0
    assert retry_delay(caught.value, 0) == 37.0


def test_key_goes_in_the_header_and_never_in_the_url(
    hosted_client, call, replay, recordings, api_key
):
    call("gemini", recordings("gemini")["success"], base_url=None, client=hosted_client)

    received = replay.last
    assert received.headers["host"] == "generativelanguage.googleapis.com"
    assert received.path == "/v1beta/models/gemini-2.5-flash:generateContent"
    assert received.query == ""
    assert api_key not in received.target
    assert "key=" not in received.target
    assert received.headers["x-goog-api-key"] == api_key
    assert "authorization" not in received.headers


def test_request_body_carries_generation_config_and_no_tools(call, replay, recordings):
    call(
        "gemini",
        recordings("gemini")["success"],
        temperature=0.0,
        max_output_tokens=4096,
        seed=1234,
        thinking_budget=0,
    )
    body = replay.last.json()
    assert body["contents"] == [
        {"role": "user", "parts": [{"text": body["contents"][0]["parts"][0]["text"]}]}
    ]
    assert body["contents"][0]["parts"][0]["text"].startswith("Answer each item closed-book.")
    assert body["generationConfig"] == {
        "temperature": 0.0,
        "maxOutputTokens": 4096,
        "seed": 1234,
        "thinkingConfig": {"thinkingBudget": 0},
    }
    for absent in ("tools", "toolConfig", "tool_choice"):
        assert absent not in body


def test_models_prefix_is_not_doubled(call, replay, recordings):
    call("gemini", recordings("gemini")["success"], model="models/gemini-2.5-pro")
    assert replay.last.path == "/v1beta/models/gemini-2.5-pro:generateContent"


def test_missing_key_fails_before_any_request(call, replay):
    with pytest.raises(MissingAPIKeyError) as caught:
        call("gemini", api_key=None)
    assert replay.received == []
    assert "GEMINI_API_KEY" in str(caught.value)
