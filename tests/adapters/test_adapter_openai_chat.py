"""OpenAI Chat Completions and compatible servers: what is sent, and what is read back."""

from __future__ import annotations

import pytest

from adapters import CompletionRequest, MissingAPIKeyError, get_adapter


def test_success_extracts_text_usage_finish_reason_and_request_id(call, recordings):
    completion = call("openai_chat", recordings("openai_chat")["success"])

    assert (
        completion.text == "1. ANSWER: Paris\nCONFIDENCE: HIGH\n2. ANSWER: 1989\nCONFIDENCE: MEDIUM"
    )
    assert completion.outcome == "complete"
    assert completion.finish_reason == "stop"
    assert (completion.input_tokens, completion.output_tokens, completion.reasoning_tokens) == (
        84,
        19,
        0,
    )
    assert completion.request_id == "req_8f3c1e2d9a7b4c5d6e7f"
    assert completion.reported_model == "gpt-4.1-2025-04-14"
    assert completion.http_status == 200
    assert completion.refusal is None
    assert '"system_fingerprint": "fp_b3f1157249"' in completion.raw_body
    assert completion.latency_ms >= 0


def test_reasoning_model_reports_its_reasoning_tokens(call, recordings):
    completion = call(
        "openai_chat", recordings("openai_chat")["success_reasoning_model"], model="o4-mini"
    )
    assert completion.reasoning_tokens == 448
    assert completion.output_tokens == 470
    assert completion.text == "1. ANSWER: Paris\nCONFIDENCE: HIGH"


def test_vllm_reasoning_content_is_not_part_of_the_answer(call, recordings):
    completion = call("openai_chat", recordings("openai_chat")["vllm_reasoning_content"])
    assert "wall fell" not in completion.text
    assert completion.text.strip() == "1. ANSWER: Paris\nCONFIDENCE: HIGH"
    # vLLM sends no x-request-id here: the completion id stands in for it.
    assert completion.request_id == "chatcmpl-3b1f9c7e2a5d4e8f9a0b1c2d3e4f5a6b"
    assert completion.reasoning_tokens is None


def test_inline_think_block_is_not_part_of_the_answer_but_stays_in_the_raw_body(call, recordings):
    completion = call("openai_chat", recordings("openai_chat")["ollama_inline_think"])
    assert completion.text == "1. ANSWER: Paris\nCONFIDENCE: HIGH"
    assert "<think>" in completion.raw_body


def test_finish_length_is_truncated_with_partial_text_and_reasoning_tokens(call, recordings):
    completion = call("openai_chat", recordings("openai_chat")["truncated_length"])
    assert completion.outcome == "truncated"
    assert completion.finish_reason == "length"
    assert completion.text.endswith("2. ANSWER: 19")
    assert completion.reasoning_tokens == 1010


def test_empty_content_after_reasoning_ate_the_budget_is_truncated(call, recordings):
    completion = call("openai_chat", recordings("openai_chat")["truncated_empty"])
    assert completion.outcome == "truncated"
    assert completion.text == ""
    assert completion.reasoning_tokens == 4096


def test_refusal_is_recorded_as_refused_with_its_text(call, recordings):
    completion = call("openai_chat", recordings("openai_chat")["refusal"])
    assert completion.outcome == "refused"
    assert completion.refusal == "I'm sorry, but I can't help with that."
    assert completion.text == ""


def test_content_filter_is_refused(call, recordings):
    completion = call("openai_chat", recordings("openai_chat")["content_filter"])
    assert completion.outcome == "refused"
    assert completion.finish_reason == "content_filter"


# --- the request as the server received it ------------------------------------------------------


def test_request_to_openai_uses_bearer_key_and_max_completion_tokens(
    hosted_client, call, replay, recordings, api_key
):
    call(
        "openai_chat",
        recordings("openai_chat")["success"],
        base_url=None,  # the default: https://api.openai.com/v1
        client=hosted_client,
        temperature=0.0,
        max_output_tokens=4096,
        seed=1234,
    )

    received = replay.last
    assert received.headers["host"] == "api.openai.com"
    assert received.path == "/v1/chat/completions"
    assert received.headers["authorization"] == f"Bearer {api_key}"
    body = received.json()
    assert body == {
        "model": "gpt-4.1",
        "messages": [{"role": "user", "content": body["messages"][0]["content"]}],
        "temperature": 0.0,
        "max_completion_tokens": 4096,
        "seed": 1234,
    }
    assert "Block A. Places" in body["messages"][0]["content"]


def test_compatible_server_gets_max_tokens_not_max_completion_tokens(call, replay, recordings):
    call("openai_chat", recordings("openai_chat")["success"], max_output_tokens=512)
    body = replay.last.json()
    assert body["max_tokens"] == 512
    assert "max_completion_tokens" not in body


@pytest.mark.parametrize("model", ["o4-mini", "o3", "gpt-5", "openai/gpt-5-mini"])
def test_reasoning_models_get_reasoning_effort_and_no_temperature(call, replay, recordings, model):
    call(
        "openai_chat",
        recordings("openai_chat")["success"],
        model=model,
        temperature=0.0,
        reasoning_effort="low",
    )
    body = replay.last.json()
    assert "temperature" not in body
    assert body["reasoning_effort"] == "low"


def test_reasoning_model_without_effort_still_gets_no_temperature(call, replay, recordings):
    call("openai_chat", recordings("openai_chat")["success"], model="o3", temperature=0.0)
    body = replay.last.json()
    assert "temperature" not in body
    assert "reasoning_effort" not in body


def test_unset_settings_are_left_out(call, replay, recordings):
    call("openai_chat", recordings("openai_chat")["success"])
    assert set(replay.last.json()) == {"model", "messages"}


def test_tools_and_tool_choice_are_never_sent(call, replay, recordings):
    call(
        "openai_chat",
        recordings("openai_chat")["success"],
        temperature=0.2,
        max_output_tokens=10,
        reasoning_effort="high",
        seed=1,
    )
    body = replay.last.json()
    assert "tools" not in body and "tool_choice" not in body


@pytest.mark.parametrize("suffix", ["", "/", "/v1", "/v1/", "/v1/chat/completions"])
def test_base_url_with_or_without_v1_reaches_chat_completions(call, replay, recordings, suffix):
    call("openai_chat", recordings("openai_chat")["success"], base_url=replay.base_url + suffix)
    assert replay.last.path == "/v1/chat/completions"


def test_openrouter_base_url_keeps_its_path_prefix(
    hosted_client, call, replay, recordings, api_key
):
    call(
        "openai_chat",
        recordings("openai_chat")["success"],
        base_url="https://openrouter.ai/api/v1",
        client=hosted_client,
        model="anthropic/claude-sonnet-4.5",
        max_output_tokens=100,
    )
    assert replay.last.headers["host"] == "openrouter.ai"
    assert replay.last.path == "/api/v1/chat/completions"
    assert replay.last.headers["authorization"] == f"Bearer {api_key}"
    assert replay.last.json()["max_tokens"] == 100


def test_key_is_never_in_the_url(call, replay, recordings, api_key):
    call("openai_chat", recordings("openai_chat")["success"])
    assert api_key not in replay.last.target
    assert replay.last.query == ""


@pytest.mark.parametrize("base_url", [None, "https://openrouter.ai/api/v1"])
def test_missing_key_for_a_hosted_api_fails_before_any_request(
    hosted_client, call, replay, base_url
):
    with pytest.raises(MissingAPIKeyError) as caught:
        call("openai_chat", base_url=base_url, api_key=None, client=hosted_client)
    assert replay.received == []
    assert "OPENAI_API_KEY" in str(caught.value)
    assert not caught.value.retryable


def test_local_compatible_server_works_without_a_key(call, replay, recordings):
    completion = call("openai_chat", recordings("openai_chat")["success"], api_key=None)
    assert completion.outcome == "complete"
    assert "authorization" not in replay.last.headers


def test_base_url_carrying_credentials_is_refused_before_any_request(call, replay):
    from adapters import ConfigurationError

    with pytest.raises(ConfigurationError):
        call("openai_chat", base_url=replay.base_url + "/v1?api_key=abc")
    assert replay.received == []


def test_key_echoed_by_the_server_is_scrubbed_from_the_error(call, api_key):
    from adapters import RequestRejected

    echo = {
        "status": 401,
        "headers": {"x-request-id": "req_echo"},
        "body": {
            "error": {
                "message": f"Incorrect API key provided: {api_key}",
                "type": "invalid_request_error",
                "code": "invalid_api_key",
            }
        },
    }
    with pytest.raises(RequestRejected) as caught:
        call("openai_chat", echo)
    assert api_key not in str(caught.value)
    assert api_key not in caught.value.body
    assert api_key not in repr(caught.value)


def test_request_repr_hides_the_key(api_key):
    request = CompletionRequest(model="gpt-4.1", prompt="secret item text", api_key=api_key)
    assert api_key not in repr(request)
    assert "api_key='***'" in repr(request)
    assert "secret item text" not in repr(request)


def test_adapter_class_attributes():
    adapter = get_adapter("openai_chat")
    assert adapter.needs_api_key is True
    assert adapter.default_base_url == "https://api.openai.com/v1"
