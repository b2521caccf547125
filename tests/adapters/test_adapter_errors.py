"""retry_delay, server delays, error classification and API keys from the environment."""

from __future__ import annotations

import email.utils

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adapters import (
    MissingAPIKeyError,
    QuotaExceededError,
    RateLimitError,
    RequestRejected,
    ServerError,
    TransportError,
    api_key_from_env,
    retry_delay,
)
from adapters.errors import (
    MAX_RETRIES,
    RETRY_DELAY_CAP,
    classify_http_error,
    parse_duration,
    retry_after_from_headers,
)

NOW = 1_750_000_000.0


def test_fatal_error_is_never_retried():
    assert retry_delay(RequestRejected("bad request", status=400), 0) is None
    assert retry_delay(QuotaExceededError("no quota", status=429, retry_after=5.0), 0) is None


def test_server_delay_is_obeyed():
    assert retry_delay(RateLimitError("slow down", retry_after=7.0), 0) == 7.0
    assert retry_delay(RateLimitError("slow down", retry_after=7.0), 3) == 7.0


def test_server_delay_at_the_cap_is_obeyed_and_above_it_we_stop():
    assert retry_delay(RateLimitError("wait", retry_after=RETRY_DELAY_CAP), 0) == RETRY_DELAY_CAP
    assert retry_delay(RateLimitError("wait", retry_after=RETRY_DELAY_CAP + 1), 0) is None


def test_retries_stop_after_max_retries():
    error = ServerError("boom", status=500)
    assert retry_delay(error, MAX_RETRIES - 1) is not None
    assert retry_delay(error, MAX_RETRIES) is None


@pytest.mark.parametrize(("attempt", "ceiling"), [(0, 0.5), (1, 1.0), (2, 2.0), (3, 4.0), (4, 8.0)])
def test_backoff_doubles_from_half_a_second_and_jitters_down_by_at_most_a_quarter(attempt, ceiling):
    error = TransportError("refused")
    assert retry_delay(error, attempt, rng=lambda: 0.0) == ceiling
    assert retry_delay(error, attempt, rng=lambda: 1.0) == pytest.approx(ceiling * 0.75)


@given(
    attempt=st.integers(min_value=0, max_value=MAX_RETRIES - 1), r=st.floats(0, 1, exclude_max=True)
)
def test_backoff_stays_within_its_range(attempt, r):
    delay = retry_delay(ServerError("boom", status=503), attempt, rng=lambda: r)
    ceiling = min(0.5 * 2**attempt, 8.0)
    assert 0.75 * ceiling <= delay <= ceiling


def test_backoff_never_exceeds_eight_seconds(monkeypatch):
    monkeypatch.setattr("adapters.errors.MAX_RETRIES", 20)
    assert retry_delay(TransportError("refused"), 12, rng=lambda: 0.0) == 8.0


def test_zero_retry_after_falls_back_to_backoff():
    assert retry_delay(RateLimitError("now", retry_after=0.0), 1, rng=lambda: 0.0) == 1.0


# --- reading the server's delay -----------------------------------------------------------------


def test_retry_after_ms_wins_over_retry_after():
    assert retry_after_from_headers({"retry-after-ms": "1500", "retry-after": "9"}) == 1.5


def test_retry_after_seconds():
    assert retry_after_from_headers({"Retry-After": "20"}) == 20.0


def test_retry_after_http_date_is_seconds_from_now():
    date = email.utils.formatdate(NOW + 30, usegmt=True)
    assert retry_after_from_headers({"retry-after": date}, now=NOW) == pytest.approx(30.0)


def test_retry_after_http_date_in_the_past_means_now():
    date = email.utils.formatdate(NOW - 30, usegmt=True)
    assert retry_after_from_headers({"retry-after": date}, now=NOW) == 0.0


@pytest.mark.parametrize("value", ["soon", "", "-3", "nan"])
def test_unreadable_retry_after_is_ignored(value):
    assert retry_after_from_headers({"retry-after": value}) is None


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("37s", 37.0),
        ("1.5s", 1.5),
        ("250ms", 0.25),
        ("6m0s", 360.0),
        ("1h2m3s", 3723.0),
        ("12", 12.0),
    ],
)
def test_parse_duration(text, seconds):
    assert parse_duration(text) == pytest.approx(seconds)


@pytest.mark.parametrize("text", ["", "soon", "37 s", "s", None, "3x"])
def test_parse_duration_rejects_garbage(text):
    assert parse_duration(text) is None


# --- classification details ---------------------------------------------------------------------


def classify(status, body="", headers=None):
    return classify_http_error(provider="test", status=status, headers=headers or {}, body=body)


def test_x_should_retry_false_overrides_a_retryable_status():
    error = classify(503, headers={"x-should-retry": "false"})
    assert isinstance(error, ServerError)
    assert not error.retryable
    assert retry_delay(error, 0) is None


def test_x_should_retry_true_overrides_a_fatal_status():
    error = classify(400, headers={"X-Should-Retry": "true"})
    assert error.retryable
    assert retry_delay(error, 0) is not None


def test_credit_balance_exhausted_code_is_quota():
    body = '{"type": "error", "error": {"type": "credit_balance_exhausted", "message": "No credit left."}}'
    assert isinstance(classify(429, body), QuotaExceededError)


def test_unlisted_5xx_is_retried_like_the_sdks_do():
    assert classify(501).retryable and classify(599).retryable


def test_unlisted_4xx_is_fatal():
    error = classify(405, '{"error": {"message": "Method Not Allowed"}}')
    assert isinstance(error, RequestRejected)
    assert not error.retryable
    assert "Method Not Allowed" in str(error)


def test_plain_string_error_of_ollama_and_llama_cpp_is_shown():
    error = classify(404, '{"error": "model \\"llama9\\" not found, try pulling it first"}')
    assert 'model "llama9" not found' in str(error)


# --- API keys -----------------------------------------------------------------------------------


def test_api_key_from_env_returns_the_key_stripped():
    assert api_key_from_env("MY_PROVIDER_KEY", {"MY_PROVIDER_KEY": "  sk-abc \n"}) == "sk-abc"


def test_missing_env_var_names_the_variable():
    with pytest.raises(MissingAPIKeyError) as caught:
        api_key_from_env("MY_PROVIDER_KEY", {})
    assert "MY_PROVIDER_KEY" in str(caught.value)
    assert not caught.value.retryable


def test_empty_env_var_is_missing_and_other_variables_are_not_shown():
    env = {"MY_PROVIDER_KEY": "   ", "OTHER_KEY": "sk-other-secret"}
    with pytest.raises(MissingAPIKeyError) as caught:
        api_key_from_env("MY_PROVIDER_KEY", env)
    assert "sk-other-secret" not in str(caught.value)
    assert "MY_PROVIDER_KEY" in str(caught.value)


def test_no_variable_name_at_all_says_what_to_configure():
    with pytest.raises(MissingAPIKeyError) as caught:
        api_key_from_env("", {})
    assert "environment variable" in str(caught.value)
