"""OpenAI Responses API: store=false, output[] walked for message text, reasoning items skipped."""

from __future__ import annotations


def test_success_joins_output_text_parts_and_skips_reasoning(call, recordings):
    completion = call("openai_responses", recordings("openai_responses")["success"])

    assert (
        completion.text == "1. ANSWER: Paris\nCONFIDENCE: HIGH\n2. ANSWER: 1989\nCONFIDENCE: HIGH"
    )
    assert "Recalling" not in completion.text  # the reasoning summary
    assert completion.outcome == "complete"
    assert completion.finish_reason == "completed"
    assert (completion.input_tokens, completion.output_tokens, completion.reasoning_tokens) == (
        84,
        320,
        296,
    )
    assert completion.request_id == "req_resp_success00000001"
    assert completion.reported_model == "o4-mini-2025-04-16"


def test_incomplete_with_only_reasoning_is_truncated_and_empty(call, recordings):
    completion = call("openai_responses", recordings("openai_responses")["truncated_empty"])
    assert completion.outcome == "truncated"
    assert completion.finish_reason == "max_output_tokens"
    assert completion.text == ""
    assert completion.reasoning_tokens == 512


def test_incomplete_with_partial_text_is_truncated_and_keeps_the_text(call, recordings):
    completion = call("openai_responses", recordings("openai_responses")["truncated_length"])
    assert completion.outcome == "truncated"
    assert completion.text.endswith("2. ANSWER: 19")


def test_refusal_part_is_recorded(call, recordings):
    completion = call("openai_responses", recordings("openai_responses")["refusal"])
    assert completion.outcome == "refused"
    assert completion.refusal == "I'm sorry, but I can't assist with that request."


def test_incomplete_for_content_filter_is_refused(call, recordings):
    completion = call("openai_responses", recordings("openai_responses")["content_filter"])
    assert completion.outcome == "refused"
    assert completion.finish_reason == "content_filter"


def test_request_is_stored_nowhere_and_carries_no_tools(
    hosted_client, call, replay, recordings, api_key
):
    call(
        "openai_responses",
        recordings("openai_responses")["success"],
        base_url=None,
        client=hosted_client,
        model="o4-mini",
        temperature=0.0,
        max_output_tokens=4096,
        reasoning_effort="low",
        seed=7,
    )

    received = replay.last
    assert received.headers["host"] == "api.openai.com"
    assert received.path == "/v1/responses"
    assert received.headers["authorization"] == f"Bearer {api_key}"
    assert api_key not in received.target
    body = received.json()
    assert body["store"] is False
    assert body["input"].startswith("Answer each item closed-book.")
    assert body["max_output_tokens"] == 4096
    assert body["reasoning"] == {"effort": "low"}
    assert "temperature" not in body  # o4-mini is a reasoning model
    assert "seed" not in body  # the Responses API has none
    assert "tools" not in body and "tool_choice" not in body


def test_non_reasoning_model_gets_its_temperature(call, replay, recordings):
    call(
        "openai_responses",
        recordings("openai_responses")["success"],
        model="gpt-4.1",
        temperature=0.3,
    )
    body = replay.last.json()
    assert body["temperature"] == 0.3
    assert body["store"] is False
    assert "reasoning" not in body
