"""The request and result of one completion, and the `Adapter` base class every provider module fills in.

An adapter makes exactly one HTTP request per `complete` call. It returns a `Completion` for any
answer the provider gave (complete, truncated or refused) and raises an `AdapterError` otherwise;
it never retries or sleeps, so retries cannot stack: the task layer alone retries.
"""

from __future__ import annotations

import abc
import dataclasses
import json
import logging
import time
from dataclasses import dataclass, field
from typing import Any, ClassVar
from urllib.parse import urlsplit

import httpx

from adapters.errors import (
    CONNECT_TIMEOUT,
    CONNECTION_CHECK_TIMEOUT,
    DEFAULT_TIMEOUT,
    AdapterError,
    BadResponseError,
    ConfigurationError,
    MissingAPIKeyError,
    TransportError,
    classify_http_error,
    describe_body,
    error_info_from_json,
    status_for_error,
    truncate_body,
)
from adapters.i18n import gettext_noop
from adapters.options import Option, Problem, validate
from adapters.wire import sent_request

logger = logging.getLogger("adapters")

OUTCOME_COMPLETE = "complete"
OUTCOME_TRUNCATED = "truncated"
OUTCOME_REFUSED = "refused"

CONNECTION_CHECK_PROMPT = "Reply with OK."

# Response headers that carry the provider's request id, in order of preference.
REQUEST_ID_HEADERS = ("x-request-id", "request-id", "x-goog-request-id", "cf-ray")


@dataclass(frozen=True)
class CompletionRequest:
    """One prompt for one model configuration. `None` settings are left to the provider's default."""

    model: str
    prompt: str
    base_url: str | None = None
    api_key: str | None = field(default=None, repr=False)
    temperature: float | None = None
    max_output_tokens: int | None = None
    reasoning_effort: str | None = None
    thinking_budget: int | None = None
    seed: int | None = None
    timeout: float = DEFAULT_TIMEOUT
    # The experiment's own key, (question, answer) pairs, for the local simulator only: it is
    # what lets a simulated model know a share of the bank it is asked about. Every other
    # adapter ignores it; the simulator adapter sends it only to a local server.
    simulation_key: tuple[tuple[str, str], ...] = field(default=(), repr=False)

    def __repr__(self) -> str:
        # The key must never reach a log line or a traceback, so it is masked, not printed.
        shown = []
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.name == "api_key":
                shown.append(f"api_key={'***' if value else None!r}")
            elif f.name == "simulation_key":
                shown.append(f"simulation_key=<{len(value)} entries>")
            elif f.name == "prompt":
                shown.append(f"prompt=<{len(value)} chars>")
            else:
                shown.append(f"{f.name}={value!r}")
        return f"CompletionRequest({', '.join(shown)})"


@dataclass(frozen=True)
class Completion:
    """What the provider answered. `raw_body` is the response text exactly as received."""

    text: str
    outcome: str  # "complete" | "truncated" | "refused"
    finish_reason: str | None
    input_tokens: int | None
    output_tokens: int | None
    reasoning_tokens: int | None
    request_id: str | None
    http_status: int
    latency_ms: int
    raw_body: str
    reported_model: str | None
    refusal: str | None
    # The request as sent, without the key (adapters.wire.sent_request).
    request_sent: dict[str, Any] | None = None


@dataclass
class ParsedAnswer:
    """The provider-specific part of a `Completion`, filled in by `Adapter.parse`."""

    text: str
    finish_reason: str | None
    truncated: bool = False
    refusal: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    reasoning_tokens: int | None = None
    reported_model: str | None = None
    request_id: str | None = None


class Adapter(abc.ABC):
    """One provider API. Subclasses set the class attributes and implement the hooks below."""

    name: ClassVar[str] = ""
    label: ClassVar[str] = ""
    needs_api_key: ClassVar[bool] = True
    default_base_url: ClassVar[str | None] = None
    # The environment variable a form suggests for this provider's key.
    api_key_env_hint: ClassVar[str | None] = None
    # When a key is needed, if not simply always (needs_api_key), in words for the form's help.
    api_key_note: ClassVar[str | None] = None
    # The settings this provider takes (adapters.options); any other one is refused.
    options: ClassVar[tuple[Option, ...]] = ()
    # Whether the answers are simulated, not a real model's (adapters.registry.is_simulated).
    simulated: ClassVar[bool] = False

    # --- hooks ------------------------------------------------------------------------------

    @abc.abstractmethod
    def endpoint(self, request: CompletionRequest) -> str:
        """Part of the one HTTP request this provider takes."""

    @abc.abstractmethod
    def headers(self, request: CompletionRequest) -> dict[str, str]:
        """Part of the one HTTP request this provider takes."""

    @abc.abstractmethod
    def payload(self, request: CompletionRequest) -> dict[str, Any]:
        """Part of the one HTTP request this provider takes."""

    @abc.abstractmethod
    def parse(self, data: dict[str, Any]) -> ParsedAnswer:
        """Read the answer out of a successful JSON body; raise `BadResponseError` on a wrong shape."""

    def requires_api_key(self, request: CompletionRequest) -> bool:
        return self.needs_api_key

    def validate_options(self, values) -> tuple[dict[str, Any], dict[str, list[Problem]]]:
        """(cleaned, problems): the settings checked against `options`, then `check_options`."""
        cleaned, problems = validate(self.options, values)
        self.check_options(cleaned, problems)
        return cleaned, problems

    def check_options(self, cleaned: dict[str, Any], problems: dict[str, list[Problem]]) -> None:
        """Rules across settings; a provider adds its own. Adds to `problems` in place."""
        if "thinking_budget" in problems or "reasoning_effort" in problems:
            return
        if cleaned.get("thinking_budget") is not None and cleaned.get("reasoning_effort"):
            problems["thinking_budget"] = [
                Problem(gettext_noop("Set a thinking budget or a reasoning effort, not both."))
            ]

    def request_record(self, url: str, headers: dict, payload: dict, request) -> dict[str, Any]:
        """The request as sent, for its attempt: never with the key (adapters.wire)."""
        return sent_request("POST", url, headers, payload, request.api_key)

    def should_retry(self, error: AdapterError) -> bool:
        """Whether another attempt may succeed: the retry table's word (adapters.errors),
        which a provider may refine for what its own error bodies say."""
        return error.retryable

    # --- the one request --------------------------------------------------------------------

    def base_url(self, request: CompletionRequest) -> str:
        base = (request.base_url or self.default_base_url or "").strip()
        if not base:
            raise ConfigurationError(f"{self.name}: no base URL configured")
        parts = urlsplit(base)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ConfigurationError(
                f"{self.name}: the base URL must start with http:// or https:// and name a host"
            )
        if parts.query or parts.username or parts.password:
            # A query string or user:password in a base URL is where keys leak into logs.
            raise ConfigurationError(
                f"{self.name}: the base URL must not carry a query string or credentials; "
                "API keys belong in an environment variable"
            )
        return base.rstrip("/")

    def complete(self, request: CompletionRequest, *, client: httpx.Client) -> Completion:
        """Send `request` once. Returns the answer or raises an `AdapterError` (never retries)."""
        sent = None
        try:
            url, headers, payload, timeout = self._prepare(request)
            sent = self.request_record(url, headers, payload, request)
            started = time.monotonic()
            try:
                response = client.post(url, headers=headers, json=payload, timeout=timeout)
            except httpx.TransportError as exc:
                raise self._transport_error(exc, request, url, started) from exc
            return dataclasses.replace(self._finish(request, response, started), request_sent=sent)
        except AdapterError as error:
            _scrub_secret(error, request.api_key)
            error.request_sent = sent
            raise

    async def acomplete(
        self, request: CompletionRequest, *, client: httpx.AsyncClient
    ) -> Completion:
        """`complete` over an async client: the same request, the same reading of the answer.

        Only the one `post` differs; building the request and classifying what comes back are
        the same methods, so the synchronous and the asynchronous paths cannot drift apart.
        """
        sent = None
        try:
            url, headers, payload, timeout = self._prepare(request)
            sent = self.request_record(url, headers, payload, request)
            started = time.monotonic()
            try:
                response = await client.post(url, headers=headers, json=payload, timeout=timeout)
            except httpx.TransportError as exc:
                raise self._transport_error(exc, request, url, started) from exc
            return dataclasses.replace(self._finish(request, response, started), request_sent=sent)
        except AdapterError as error:
            _scrub_secret(error, request.api_key)
            error.request_sent = sent
            raise

    def _prepare(self, request: CompletionRequest):
        """(url, headers, payload, timeout) of the one request; raises before anything is sent."""
        if self.requires_api_key(request) and not (request.api_key or "").strip():
            hint = f" (usually {self.api_key_env_hint})" if self.api_key_env_hint else ""
            raise MissingAPIKeyError(
                f"{self.name}: no API key was given; name the environment variable that holds it"
                f"{hint} in the model configuration",
                provider=self.name,
            )
        url = self.endpoint(request)
        headers = {"content-type": "application/json", "accept": "application/json"}
        headers.update(self.headers(request))
        payload = self.payload(request)
        timeout = httpx.Timeout(request.timeout, connect=min(CONNECT_TIMEOUT, request.timeout))
        return url, headers, payload, timeout

    def _transport_error(
        self, exc: httpx.TransportError, request: CompletionRequest, url: str, started: float
    ) -> TransportError:
        """No HTTP response came (refused, reset, timed out): a retryable TransportError."""
        latency_ms = _elapsed_ms(started)
        if isinstance(exc, httpx.TimeoutException):
            logger.warning(
                "provider=%s model=%s timeout after %s ms", self.name, request.model, latency_ms
            )
            error = TransportError(
                f"{self.name}: {_timeout_phrase(exc)} talking to {urlsplit(url).netloc} "
                f"after {latency_ms} ms",
                provider=self.name,
                latency_ms=latency_ms,
            )
            error.kind = "timeout"
            return error
        logger.warning(
            "provider=%s model=%s transport error %s",
            self.name,
            request.model,
            type(exc).__name__,
        )
        return TransportError(
            f"{self.name}: could not reach {urlsplit(url).netloc}: {exc or type(exc).__name__}",
            provider=self.name,
            latency_ms=latency_ms,
        )

    def _finish(
        self, request: CompletionRequest, response: httpx.Response, started: float
    ) -> Completion:
        """Classify the HTTP response: a `Completion`, or an `AdapterError` for the retry table."""
        latency_ms = _elapsed_ms(started)
        body = response.text
        request_id = _header_request_id(response.headers)
        if logger.isEnabledFor(logging.INFO):
            logger.info(
                "provider=%s model=%s status=%s request_id=%s latency_ms=%s",
                self.name,
                request.model,
                response.status_code,
                request_id,
                latency_ms,
            )

        if not 200 <= response.status_code < 300:
            error = classify_http_error(
                provider=self.name,
                status=response.status_code,
                headers=response.headers,
                body=body,
                request_id=request_id,
            )
            error.latency_ms = latency_ms
            raise error

        data = self._json_object(body, response.status_code, request_id, latency_ms)
        info = error_info_from_json(data)
        if info is not None:
            error = classify_http_error(
                provider=self.name,
                status=status_for_error(info),
                headers=response.headers,
                body=body,
                request_id=request_id,
                data=data,
                embedded=True,
            )
            error.latency_ms = latency_ms
            raise error

        try:
            answer = self.parse(data)
        except AdapterError as error:
            error.provider = error.provider or self.name
            error.status = response.status_code if error.status is None else error.status
            error.request_id = error.request_id or request_id
            error.latency_ms = latency_ms
            error.body = truncate_body(body) if error.body is None else error.body
            if error.request_id and error.request_id not in error.message:
                error.message += f"; request id {error.request_id}"
                error.args = (error.message,)
            raise
        text = answer.text or ""
        if answer.refusal is not None:
            outcome = OUTCOME_REFUSED
        elif answer.truncated or not text.strip():
            outcome = OUTCOME_TRUNCATED
        else:
            outcome = OUTCOME_COMPLETE
        return Completion(
            text=text,
            outcome=outcome,
            finish_reason=answer.finish_reason,
            input_tokens=answer.input_tokens,
            output_tokens=answer.output_tokens,
            reasoning_tokens=answer.reasoning_tokens,
            request_id=request_id or answer.request_id,
            http_status=response.status_code,
            latency_ms=latency_ms,
            raw_body=body,
            reported_model=answer.reported_model,
            refusal=answer.refusal,
        )

    def _json_object(self, body: str, status: int, request_id: str | None, latency_ms: int):
        try:
            data = json.loads(body)
        except ValueError:
            data = None
        if isinstance(data, list) and error_info_from_json(data) is not None:
            return data  # Gemini sometimes wraps its error object in a list
        if not isinstance(data, dict):
            what = describe_body(body) if data is None else f"JSON of type {type(data).__name__}"
            raise BadResponseError(
                f"{self.name}: HTTP {status} but the server sent {what} instead of a JSON object"
                + (f"; request id {request_id}" if request_id else ""),
                status=status,
                request_id=request_id,
                body=body,
                provider=self.name,
                latency_ms=latency_ms,
            )
        return data

    def bad_shape(self, expected: str, data: dict[str, Any]) -> BadResponseError:
        """The error for a JSON body that lacks what this API always sends."""
        keys = ", ".join(sorted(map(str, data))[:12]) or "none"
        return BadResponseError(
            f"{self.name}: the response JSON has no {expected} (top-level keys: {keys})",
            provider=self.name,
        )

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"


def check_connection(
    adapter: Adapter,
    *,
    client: httpx.Client,
    model: str,
    base_url: str | None = None,
    api_key: str | None = None,
    timeout: float = CONNECTION_CHECK_TIMEOUT,
    **settings: Any,
) -> Completion:
    """Put a tiny prompt to `model`; any `Completion` (even truncated) means the connection works.

    `settings` are further `CompletionRequest` fields (temperature, reasoning_effort, ...), so
    the check exercises the configuration as it will be used. Raises `AdapterError` otherwise.
    """
    request = CompletionRequest(
        model=model,
        prompt=CONNECTION_CHECK_PROMPT,
        base_url=base_url,
        api_key=api_key,
        timeout=timeout,
        **settings,
    )
    return adapter.complete(request, client=client)


def new_client(**kwargs: Any) -> httpx.Client:
    """An httpx client with this package's defaults; share one per worker process."""
    kwargs.setdefault("timeout", httpx.Timeout(DEFAULT_TIMEOUT, connect=CONNECT_TIMEOUT))
    kwargs.setdefault("follow_redirects", False)
    return httpx.Client(**kwargs)


_ssl_context = None


def shared_ssl_context():
    """One TLS context per process: building one reads the CA bundle (tens of ms of CPU)."""
    global _ssl_context
    if _ssl_context is None:
        import ssl

        import certifi

        _ssl_context = ssl.create_default_context(cafile=certifi.where())
    return _ssl_context


def new_async_client(*, connections: int = 100, **kwargs: Any) -> httpx.AsyncClient:
    """An async httpx client with the same defaults, holding up to `connections` at once."""
    kwargs.setdefault("verify", shared_ssl_context())
    kwargs.setdefault("timeout", httpx.Timeout(DEFAULT_TIMEOUT, connect=CONNECT_TIMEOUT))
    kwargs.setdefault("follow_redirects", False)
    kwargs.setdefault(
        "limits",
        httpx.Limits(max_connections=connections, max_keepalive_connections=connections),
    )
    return httpx.AsyncClient(**kwargs)


def _header_request_id(headers: httpx.Headers) -> str | None:
    for name in REQUEST_ID_HEADERS:
        value = headers.get(name)
        if value:
            return value
    return None


def _elapsed_ms(started: float) -> int:
    return int(round((time.monotonic() - started) * 1000))


def _timeout_phrase(exc: httpx.TimeoutException) -> str:
    if isinstance(exc, httpx.ConnectTimeout):
        return "connect timeout"
    if isinstance(exc, httpx.ReadTimeout):
        return "read timeout (no answer in time)"
    if isinstance(exc, httpx.PoolTimeout):
        return "timeout waiting for a free connection"
    return "timeout"


def _scrub_secret(error: AdapterError, secret: str | None) -> None:
    """Remove the API key from an error, should a server echo it back."""
    if not secret or len(secret) < 4:
        return
    error.message = error.message.replace(secret, "***")
    error.args = (error.message,)
    if error.body:
        error.body = error.body.replace(secret, "***")
