"""Error classes, retry constants and the one retry table for every adapter (docs/providers.md).

Adapters only classify: each failure becomes an `AdapterError` saying whether it is worth retrying
and how long the server asked us to wait. The task layer owns the loop and calls `retry_delay`.
"""

from __future__ import annotations

import email.utils
import json
import math
import os
import random
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass

# Timeouts (seconds). A reasoning model can think for minutes before its first byte, hence the
# long read timeout; a dead host should fail fast, hence the short connect timeout.
CONNECT_TIMEOUT = 10.0
DEFAULT_TIMEOUT = 600.0
CONNECTION_CHECK_TIMEOUT = 60.0

# Retries. The SDKs stop after 2; a batch collector can afford a few more (docs/providers.md).
MAX_RETRIES = 5
RETRY_DELAY_CAP = 120.0
BACKOFF_INITIAL = 0.5
BACKOFF_MAX = 8.0
BACKOFF_JITTER = 0.25

# An error keeps at most this much of the response body.
ERROR_BODY_LIMIT = 64 * 1024

# Error `type`/`code` values that mean the account is out of money or quota: retrying cannot help.
QUOTA_MARKERS = frozenset(
    {
        "insufficient_quota",
        "credit_balance_exhausted",
        "billing_error",
        "billing_hard_limit_reached",
        "payment_required",
    }
)
# Anthropic reports an empty prepaid balance as a 400 with this sentence and no dedicated code.
# (Not "exceeded your current quota": Gemini says that on per-minute limits that do reset.)
_QUOTA_PHRASES = ("credit balance is too low",)

# Error code/type/status strings (OpenAI, Anthropic, Gemini, OpenRouter) to the HTTP status they
# stand for, used when a 200 body carries an error object without a numeric code.
_STATUS_FOR_CODE = {
    # Gemini / google.rpc
    "invalid_argument": 400,
    "failed_precondition": 400,
    "out_of_range": 400,
    "unauthenticated": 401,
    "permission_denied": 403,
    "not_found": 404,
    "aborted": 409,
    "already_exists": 409,
    "resource_exhausted": 429,
    "cancelled": 499,
    "internal": 500,
    "unknown": 500,
    "data_loss": 500,
    "unimplemented": 501,
    "unavailable": 503,
    "deadline_exceeded": 504,
    # Anthropic error types
    "invalid_request_error": 400,
    "authentication_error": 401,
    "billing_error": 402,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "timeout_error": 504,
    "overloaded_error": 529,
    # OpenAI codes and types
    "invalid_api_key": 401,
    "model_not_found": 404,
    "rate_limit_exceeded": 429,
    "insufficient_quota": 429,
    "server_error": 500,
    "invalid_prompt": 400,
}


class AdapterError(Exception):
    """A failed attempt to get a completion, classified for the retry table.

    `retryable` says whether another attempt may succeed; `retry_after` is the delay the server
    asked for (seconds), if any. `body` is the raw response text (truncated to 64 KiB) and
    `request_id` the provider's id, both kept so a person can show them to the provider.
    """

    kind = "error"
    default_retryable = False
    request_sent: dict | None = None  # the request as sent, without the key (adapters.wire)

    def __init__(
        self,
        message: str,
        *,
        retryable: bool | None = None,
        retry_after: float | None = None,
        status: int | None = None,
        request_id: str | None = None,
        body: str | None = None,
        provider: str | None = None,
        code: str | None = None,
        latency_ms: int | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.retryable = self.default_retryable if retryable is None else retryable
        self.retry_after = retry_after
        self.status = status
        self.request_id = request_id
        self.body = truncate_body(body)
        self.provider = provider
        self.code = code
        self.latency_ms = latency_ms

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}({self.message!r}, status={self.status}, "
            f"retryable={self.retryable}, retry_after={self.retry_after}, "
            f"request_id={self.request_id!r})"
        )


class TransportError(AdapterError):
    """No HTTP response: connection refused, DNS failure, connect or read timeout."""

    kind = "transport"
    default_retryable = True


class RateLimitError(AdapterError):
    """429 (or Gemini RESOURCE_EXHAUSTED): wait the server's delay, then retry."""

    kind = "rate_limit"
    default_retryable = True


class QuotaExceededError(AdapterError):
    """The account is out of quota or credit (insufficient_quota, OpenRouter 402): stop the run."""

    kind = "quota"
    default_retryable = False


class ServerError(AdapterError):
    """5xx and 529 overloaded, llama.cpp's 503 "Loading model": the provider's trouble, retry."""

    kind = "server"
    default_retryable = True


class RequestTimeoutError(AdapterError):
    """408: the server gave up waiting for the request; the SDKs retry it."""

    kind = "request_timeout"
    default_retryable = True


class ConflictError(AdapterError):
    """409: a conflicting concurrent request or a lock; the SDKs retry it."""

    kind = "conflict"
    default_retryable = True


class RequestRejected(AdapterError):
    """400/401/403/404/413/422 and other 4xx: the request itself is wrong; retrying repeats it."""

    kind = "rejected"
    default_retryable = False


class BadResponseError(AdapterError):
    """A success status whose body is not the JSON we expect (HTML, empty, garbage, wrong shape)."""

    kind = "bad_response"
    default_retryable = False


class ConfigurationError(AdapterError):
    """The request cannot be sent as configured; raised before any HTTP request."""

    kind = "configuration"
    default_retryable = False


class MissingAPIKeyError(ConfigurationError):
    """No API key for a provider that needs one; raised before any HTTP request."""

    kind = "missing_api_key"


def truncate_body(body: str | None, limit: int = ERROR_BODY_LIMIT) -> str | None:
    """At most `limit` bytes of `body` (UTF-8), cut on a character boundary."""
    if body is None:
        return None
    encoded = body.encode("utf-8", errors="replace")
    if len(encoded) <= limit:
        return body
    return encoded[:limit].decode("utf-8", errors="ignore")


def api_key_from_env(var_name: str, environ: Mapping[str, str] = os.environ) -> str:
    """The API key held in environment variable `var_name`; the error names the variable only."""
    if not var_name or not var_name.strip():
        raise MissingAPIKeyError(
            "No API key environment variable is configured for this model configuration: "
            "enter the name of the variable that holds the key (for example OPENAI_API_KEY)."
        )
    var_name = var_name.strip()
    value = environ.get(var_name, "")
    if not value.strip():
        raise MissingAPIKeyError(
            f"The environment variable {var_name} is not set or is empty. Set it to the API key in "
            "the environment of the web server and of every worker, then restart them."
        )
    return value.strip()


# --- server delays -------------------------------------------------------------------------

_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)(ms|h|m|s)")


def parse_duration(text: str | None) -> float | None:
    """Seconds in a duration like "37s", "1.5s", "250ms", "6m0s" or "1h2m3s"; None if unreadable."""
    if not text or not isinstance(text, str):
        return None
    text = text.strip()
    if not text:
        return None
    try:
        return max(float(text), 0.0)
    except ValueError:
        pass
    pos = 0
    total = 0.0
    for match in _DURATION_PART.finditer(text):
        if match.start() != pos:
            return None
        value, unit = float(match.group(1)), match.group(2)
        total += value * {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001}[unit]
        pos = match.end()
    if pos != len(text) or pos == 0:
        return None
    return total


def retry_after_from_headers(headers: Mapping[str, str], now: float | None = None) -> float | None:
    """The server's delay in seconds: `retry-after-ms`, then `retry-after` (seconds or HTTP date)."""
    lowered = {k.lower(): v for k, v in headers.items()}
    raw_ms = lowered.get("retry-after-ms")
    if raw_ms:
        try:
            value = float(raw_ms)
        except ValueError:
            value = math.nan
        if math.isfinite(value) and value >= 0:
            return value / 1000.0
    raw = lowered.get("retry-after")
    if not raw:
        return None
    try:
        value = float(raw)
    except ValueError:
        pass
    else:
        return value if math.isfinite(value) and value >= 0 else None
    try:
        when = email.utils.parsedate_to_datetime(raw)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    now = time.time() if now is None else now
    return max(when.timestamp() - now, 0.0)


def retry_delay(error: AdapterError, attempt: int, rng=random.random) -> float | None:
    """Seconds to wait before retry number `attempt` (0 for the first retry), or None to stop.

    None when the error is fatal, when `MAX_RETRIES` retries were already made, or when the
    server asks for a longer wait than `RETRY_DELAY_CAP` (report that rather than sleep).
    Otherwise the server's delay when it gave one, else jittered exponential backoff.
    """
    if not error.retryable or attempt >= MAX_RETRIES:
        return None
    if error.retry_after is not None and error.retry_after > 0:
        if error.retry_after > RETRY_DELAY_CAP:
            return None
        return float(error.retry_after)
    return min(BACKOFF_INITIAL * 2**attempt, BACKOFF_MAX) * (1 - BACKOFF_JITTER * rng())


# --- reading error bodies -------------------------------------------------------------------


@dataclass
class ErrorInfo:
    """What an error body says, whatever the provider's shape."""

    message: str | None = None
    type: str | None = None
    code: str | None = None
    numeric_code: int | None = None
    retry_delay: float | None = None
    request_id: str | None = None


def error_info_from_json(data) -> ErrorInfo | None:
    """Read an error object in any provider's shape (docs/providers.md), or None if `data` has none.

    Shapes: OpenAI `{"error": {message, type, param, code}}`; old vLLM top-level
    `{"object": "error", message, type, code}`; Anthropic `{"type": "error", "error": {type,
    message}}`; Gemini `{"error": {code, message, status, details}}` (sometimes inside a list);
    OpenRouter `{"error": {code: 402, message}}`; llama.cpp/Ollama `{"error": "text"}`.
    """
    if isinstance(data, list) and len(data) == 1:
        data = data[0]
    if not isinstance(data, dict):
        return None
    err = data.get("error")
    info = ErrorInfo()
    if isinstance(err, dict) and err:
        info.message = _text(err.get("message"))
        info.type = _text(err.get("type")) or _text(err.get("status"))
        code = err.get("code")
        details = err.get("details")
    elif isinstance(err, str) and err:
        info.message = err
        code, details = None, None
    elif data.get("object") == "error" or data.get("type") == "error":
        info.message = _text(data.get("message"))
        info.type = _text(data.get("type")) if data.get("type") != "error" else None
        code, details = data.get("code"), None
    else:
        return None
    if isinstance(code, bool):
        code = None
    if isinstance(code, int):
        info.numeric_code = code
    elif isinstance(code, str) and code.strip().isdigit():
        info.numeric_code = int(code.strip())
    elif code is not None:
        info.code = _text(code)
    info.retry_delay = _gemini_retry_delay(details)
    info.request_id = _text(data.get("request_id"))
    return info


def _text(value) -> str | None:
    if value is None:
        return None
    return value if isinstance(value, str) else str(value)


def _gemini_retry_delay(details) -> float | None:
    if not isinstance(details, list):
        return None
    for detail in details:
        if isinstance(detail, dict) and str(detail.get("@type", "")).endswith("RetryInfo"):
            return parse_duration(detail.get("retryDelay"))
    return None


def status_for_error(info: ErrorInfo) -> int:
    """The HTTP status an error object inside a 200 body stands for (its numeric code first)."""
    if info.numeric_code and 100 <= info.numeric_code <= 599:
        return info.numeric_code
    for value in (info.code, info.type):
        if value and value.lower() in _STATUS_FOR_CODE:
            return _STATUS_FOR_CODE[value.lower()]
    for value in (info.code, info.type):
        if value and "rate_limit" in value.lower():
            return 429
    # The provider failed after accepting the request: most likely transient.
    return 500


def describe_body(body: str, limit: int = 160) -> str:
    """A short human description of a body that is not the expected JSON."""
    stripped = body.strip()
    if not stripped:
        return "an empty body"
    snippet = " ".join(stripped[:limit].split())
    if stripped[0] in "{[":
        try:
            json.loads(stripped)
        except ValueError:
            pass
        else:
            return f"JSON without an error message: {snippet!r}"
    if stripped.startswith("<"):
        title = re.search(r"<title[^>]*>(.*?)</title>", stripped, re.IGNORECASE | re.DOTALL)
        if title:
            return f"an HTML page titled {' '.join(title.group(1).split())[:limit]!r}"
        return f"an HTML page starting {snippet!r}"
    return f"a body that is not JSON, starting {snippet!r}"


def classify_http_error(
    *,
    provider: str,
    status: int,
    headers: Mapping[str, str],
    body: str,
    request_id: str | None = None,
    data=None,
    now: float | None = None,
    embedded: bool = False,
) -> AdapterError:
    """Turn an error response into the right `AdapterError`, following the retry table.

    `data` is the parsed JSON body if already parsed; `embedded` marks an error object found in a
    200 body, `status` then being the status its code stands for.
    """
    if data is None:
        try:
            data = json.loads(body) if body.strip() else None
        except ValueError:
            data = None
    info = error_info_from_json(data) or ErrorInfo()
    request_id = request_id or info.request_id
    retry_after = retry_after_from_headers(headers, now)
    if retry_after is None:
        retry_after = info.retry_delay
    markers = {m.lower() for m in (info.code, info.type) if m}
    message_lower = (info.message or "").lower()

    if status == 402 or markers & QUOTA_MARKERS or any(p in message_lower for p in _QUOTA_PHRASES):
        cls = QuotaExceededError
    elif status == 429:
        cls = RateLimitError
    elif status == 408:
        cls = RequestTimeoutError
    elif status == 409:
        cls = ConflictError
    elif status >= 500:
        cls = ServerError
    else:
        cls = RequestRejected

    message = _error_message(provider, status, info, body, request_id, embedded, cls, headers)
    error = cls(
        message,
        retry_after=retry_after,
        status=status,
        request_id=request_id,
        body=body,
        provider=provider,
        code=info.code or info.type,
    )
    should_retry = {k.lower(): v for k, v in headers.items()}.get("x-should-retry", "").strip()
    if should_retry.lower() == "true":
        error.retryable = True
    elif should_retry.lower() == "false":
        error.retryable = False
    return error


def _error_message(provider, status, info, body, request_id, embedded, cls, headers) -> str:
    where = f"HTTP 200 carrying an error object (code {status})" if embedded else f"HTTP {status}"
    parts = [f"{provider}: {where}"]
    label = info.code or info.type
    if label:
        parts[0] += f" {label}"
    if info.message:
        parts.append(info.message.strip())
    elif body.strip() and info == ErrorInfo():
        parts.append(f"the server sent {describe_body(body)}")
    elif not body.strip():
        parts.append("the server sent an empty body")
    if cls is QuotaExceededError:
        parts.append("the account is out of quota or credit; top it up before collecting again")
    elif 300 <= status < 400:
        location = {k.lower(): v for k, v in headers.items()}.get("location")
        parts.append(
            f"redirected to {location!r}: check the base URL" if location else "redirected"
        )
    if request_id:
        parts.append(f"request id {request_id}")
    return ": ".join(parts[:2]) + "".join(f"; {p}" for p in parts[2:])
