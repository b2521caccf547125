"""Every row of the retry table (docs/providers.md), for every HTTP adapter, over real HTTP."""

from __future__ import annotations

import json

import httpx
import pytest

from adapters import (
    AdapterError,
    BadResponseError,
    ConflictError,
    QuotaExceededError,
    RateLimitError,
    RequestRejected,
    RequestTimeoutError,
    ServerError,
    TransportError,
    retry_delay,
)
from adapters.errors import ERROR_BODY_LIMIT, RETRY_DELAY_CAP

PROVIDERS = ["openai_chat", "openai_responses", "anthropic", "gemini"]

# case -> (error class, retryable, server delay in seconds, status)
ROWS = {
    "status_400": (RequestRejected, False, None, 400),
    "status_401": (RequestRejected, False, None, 401),
    "status_403": (RequestRejected, False, None, 403),
    "status_404": (RequestRejected, False, None, 404),
    "status_413": (RequestRejected, False, None, 413),
    "status_422": (RequestRejected, False, None, 422),
    "status_408": (RequestTimeoutError, True, None, 408),
    "status_409": (ConflictError, True, None, 409),
    "status_500": (ServerError, True, None, 500),
    "status_502": (ServerError, True, None, 502),
    "status_503": (ServerError, True, None, 503),
    "status_504": (ServerError, True, None, 504),
    "status_529": (ServerError, True, None, 529),
    "rate_limit": (RateLimitError, True, 7.0, 429),
    "rate_limit_ms": (RateLimitError, True, 1.5, 429),
    "rate_limit_no_delay": (RateLimitError, True, None, 429),
    "rate_limit_over_cap": (RateLimitError, True, 3600.0, 429),
    "quota": (QuotaExceededError, False, None, 429),
    "should_retry_true": (RequestRejected, True, None, 400),
    "should_retry_false": (ServerError, False, None, 500),
    "error_in_200": (ServerError, True, None, 502),
}
# Where a provider's wire format differs from the row's default expectation.
PROVIDER_ROWS = {
    ("gemini", "rate_limit"): (RateLimitError, True, 37.0, 429),  # RetryInfo.retryDelay "37s"
    ("gemini", "rate_limit_over_cap"): (RateLimitError, True, 43200.0, 429),
    ("anthropic", "quota"): (QuotaExceededError, False, None, 400),  # "credit balance is too low"
    ("openai_responses", "error_in_200"): (ServerError, True, None, 500),  # status "failed"
    ("anthropic", "error_in_200"): (ServerError, True, None, 529),  # overloaded_error
    ("gemini", "error_in_200"): (ServerError, True, None, 503),  # UNAVAILABLE, in a list
}
NOT_APPLICABLE = {
    ("gemini", "quota"): "Gemini reports quota as RESOURCE_EXHAUSTED: a retryable 429 with a delay",
    ("gemini", "rate_limit_ms"): "Gemini gives its delay in RetryInfo, not in retry-after-ms",
}
CASES = [
    (provider, case)
    for provider in PROVIDERS
    for case in ROWS
    if (provider, case) not in NOT_APPLICABLE
]


def body_text(recording) -> str:
    return json.dumps(recording["body"]) if "body" in recording else recording["body_text"]


def header_request_id(recording) -> str | None:
    headers = {k.lower(): v for k, v in recording["headers"].items()}
    return headers.get("x-request-id") or headers.get("request-id") or headers.get("cf-ray")


def test_every_provider_has_a_recording_for_every_applicable_row(recordings):
    for provider, case in CASES:
        assert case in recordings(provider), f"{provider}.json lacks the {case!r} row"


@pytest.mark.parametrize(("provider", "case"), CASES)
def test_retry_table_row(provider, case, call, recordings):
    recording = recordings(provider)[case]
    cls, retryable, delay, status = PROVIDER_ROWS.get((provider, case), ROWS[case])

    with pytest.raises(AdapterError) as caught:
        call(provider, recording)
    error = caught.value

    assert type(error) is cls
    assert error.retryable is retryable
    assert error.status == status
    assert error.retry_after == delay
    assert error.provider == provider
    # What the task layer will do with it.
    expected_wait = None
    if retryable:
        expected_wait = delay if delay is not None else 0.5
        if delay is not None and delay > RETRY_DELAY_CAP:
            expected_wait = None
    assert retry_delay(error, 0, rng=lambda: 0.0) == expected_wait


@pytest.mark.parametrize(
    ("provider", "case"),
    [(p, c) for p, c in CASES if ROWS[c][0] in (RequestRejected, QuotaExceededError)],
)
def test_fatal_error_keeps_body_and_request_id_and_shows_them(provider, case, call, recordings):
    recording = recordings(provider)[case]

    with pytest.raises(AdapterError) as caught:
        call(provider, recording)
    error = caught.value

    assert error.body == body_text(recording)
    request_id = header_request_id(recording)
    assert error.request_id == request_id
    if provider != "gemini":  # Google sends no request id header
        assert request_id and request_id in str(error)
    provider_message = recording.get("body", {})
    if isinstance(provider_message, dict) and isinstance(provider_message.get("error"), dict):
        assert provider_message["error"]["message"].strip() in str(error)


def test_quota_error_says_the_account_is_out_of_quota(call, recordings):
    with pytest.raises(QuotaExceededError) as caught:
        call("openai_chat", recordings("openai_chat")["quota"])
    assert "quota" in str(caught.value).lower()
    assert caught.value.code == "insufficient_quota"


def test_openrouter_402_is_quota_exceeded_and_fatal(call, recordings):
    with pytest.raises(QuotaExceededError) as caught:
        call("openai_chat", recordings("openai_chat")["openrouter_402"])
    assert caught.value.status == 402
    assert retry_delay(caught.value, 0) is None
    assert "credits" in str(caught.value)


def test_llama_cpp_loading_model_503_is_retried(call, recordings):
    with pytest.raises(ServerError) as caught:
        call("openai_chat", recordings("openai_chat")["llama_cpp_loading"])
    assert caught.value.retryable
    assert "Loading model" in str(caught.value)


def test_old_vllm_top_level_error_shape_is_read(call, recordings):
    with pytest.raises(RequestRejected) as caught:
        call("openai_chat", recordings("openai_chat")["vllm_top_level_error"])
    assert "maximum context length is 8192 tokens" in str(caught.value)
    assert not caught.value.retryable


def test_openrouter_200_with_rate_limit_error_object_is_a_rate_limit(call, recordings):
    with pytest.raises(RateLimitError) as caught:
        call("openai_chat", recordings("openai_chat")["error_in_200_rate_limit"])
    assert caught.value.status == 429
    assert "HTTP 200" in str(caught.value)


def test_validation_error_without_error_object_shows_the_body(call, recordings):
    # FastAPI-based compatible servers answer 422 with {"detail": [...]}.
    with pytest.raises(RequestRejected) as caught:
        call("openai_chat", recordings("openai_chat")["status_422"])
    assert "Field required" in str(caught.value)


# --- bodies that are not the provider's JSON --------------------------------------------------

NOT_JSON = {
    "html_200": "HTML page titled 'Just a moment...'",
    "empty_200": "empty body",
    "garbage_200": "not JSON",
    "json_list_200": "JSON of type list",
}
EXPECTED_SHAPE = {
    "openai_chat": "choices[0]",
    "openai_responses": "output[]",
    "anthropic": "content[]",
    "gemini": "candidates[]",
}


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("case", sorted(NOT_JSON))
def test_200_that_is_not_json_is_fatal_and_says_what_came(provider, case, call, recordings):
    recording = recordings("common")[case]

    with pytest.raises(BadResponseError) as caught:
        call(provider, recording)

    assert NOT_JSON[case] in str(caught.value)
    assert not caught.value.retryable
    assert caught.value.status == 200
    assert caught.value.body == body_text(recording)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_200_json_of_the_wrong_shape_is_fatal_and_names_what_is_missing(provider, call, recordings):
    with pytest.raises(BadResponseError) as caught:
        call(provider, recordings("common")["wrong_shape_200"])

    assert EXPECTED_SHAPE[provider] in str(caught.value)
    assert "data, object" in str(caught.value)  # the keys it did get
    assert retry_delay(caught.value, 0) is None


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize(
    ("case", "what"),
    [("html_502", "502 Bad Gateway"), ("plain_text_500", "upstream connect error")],
)
def test_proxy_error_pages_are_server_errors_with_the_page_kept(
    provider, case, what, call, recordings
):
    recording = recordings("common")[case]

    with pytest.raises(ServerError) as caught:
        call(provider, recording)

    assert caught.value.retryable
    assert what in str(caught.value)
    assert caught.value.body == recording["body_text"]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_error_body_is_truncated_to_64_kib(provider, call):
    huge = "x" * (ERROR_BODY_LIMIT * 2)
    with pytest.raises(ServerError) as caught:
        call(
            provider, {"status": 500, "headers": {"content-type": "text/plain"}, "body_text": huge}
        )
    assert len(caught.value.body.encode()) == ERROR_BODY_LIMIT


# --- no response at all -------------------------------------------------------------------------


@pytest.mark.parametrize("provider", PROVIDERS)
def test_refused_connection_is_a_retryable_transport_error(provider, call, closed_port_url):
    with pytest.raises(TransportError) as caught:
        call(provider, base_url=closed_port_url)

    assert caught.value.retryable
    assert caught.value.status is None
    assert 0 < retry_delay(caught.value, 0) <= 0.5


@pytest.mark.parametrize("provider", PROVIDERS)
def test_read_timeout_is_a_retryable_transport_error(provider, call, recordings):
    slow = dict(recordings(provider)["success"], delay=1.0)

    with pytest.raises(TransportError) as caught:
        call(provider, slow, timeout=0.2)

    assert caught.value.retryable
    assert caught.value.kind == "timeout"
    assert "read timeout" in str(caught.value)


def test_transport_error_message_names_the_host_not_the_url(call, closed_port_url):
    with pytest.raises(TransportError) as caught:
        call("gemini", base_url=closed_port_url)
    assert "127.0.0.1" in str(caught.value)
    assert "generateContent" not in str(caught.value)


def test_adapter_makes_exactly_one_request_per_call_even_when_retryable(call, replay, recordings):
    with pytest.raises(RateLimitError):
        call("openai_chat", recordings("openai_chat")["rate_limit"])
    assert len(replay.received) == 1


def test_redirect_is_fatal_and_points_at_the_base_url(call):
    recording = {
        "status": 301,
        "headers": {"location": "https://example.test/v1/chat/completions"},
        "body_text": "",
    }
    with pytest.raises(RequestRejected) as caught:
        call("openai_chat", recording)
    assert "check the base URL" in str(caught.value)
    assert not caught.value.retryable


def test_httpx_client_is_left_usable_after_errors(call, recordings, client):
    with pytest.raises(ServerError):
        call("anthropic", recordings("anthropic")["status_500"])
    completion = call("anthropic", recordings("anthropic")["success"])
    assert completion.outcome == "complete"
    assert isinstance(client, httpx.Client) and not client.is_closed
