"""Anthropic Messages API (`POST /v1/messages`), with optional extended thinking.

Wire format: docs/providers.md, "3. Anthropic Messages API". The answer is the `text` blocks of `content[]` joined;
`thinking` and `redacted_thinking` blocks are skipped (never take `content[0]` blindly).
"""

from __future__ import annotations

from typing import Any

from adapters.base import Adapter, CompletionRequest, ParsedAnswer
from adapters.errors import ConfigurationError
from adapters.i18n import gettext_noop
from adapters.options import INT, SEED_NOT_SENT, Option, Problem, max_output_tokens
from adapters.options import reasoning_effort as effort_option
from adapters.options import seed as seed_option
from adapters.options import temperature as temperature_option
from adapters.wire import as_int, join_url

ANTHROPIC_VERSION = "2023-06-01"
# max_tokens is required by the API; used when the configuration leaves the limit open.
DEFAULT_MAX_TOKENS = 4096
MIN_THINKING_BUDGET = 1024

TRUNCATED_STOP_REASONS = ("max_tokens", "model_context_window_exceeded")


class AnthropicAdapter(Adapter):
    name = "anthropic"
    label = gettext_noop("Anthropic Messages API")
    needs_api_key = True
    default_base_url = "https://api.anthropic.com"
    api_key_env_hint = "ANTHROPIC_API_KEY"
    options = (
        temperature_option(1),
        max_output_tokens(
            wire="max_tokens",
            default=DEFAULT_MAX_TOKENS,
            help=gettext_noop("Empty: 4096 (the API needs a limit)."),
        ),
        effort_option(wire="output_config.effort"),
        Option(
            "thinking_budget",
            INT,
            gettext_noop(
                "At least 1024 tokens and below the output token limit; instead of a reasoning "
                "effort."
            ),
            minimum=MIN_THINKING_BUDGET,
            wire="thinking.budget_tokens",
        ),
        seed_option(wire=None, help=SEED_NOT_SENT),
    )
    # Overloaded (529) is the provider's trouble, worth waiting out whatever a header says.
    RETRY_CODES = frozenset({"overloaded_error"})

    def check_options(self, cleaned, problems) -> None:
        super().check_options(cleaned, problems)
        budget = cleaned.get("thinking_budget")
        if budget is None or "thinking_budget" in problems or "max_output_tokens" in problems:
            return
        ceiling = cleaned.get("max_output_tokens") or DEFAULT_MAX_TOKENS
        if budget >= ceiling:
            problems["thinking_budget"] = [
                Problem(
                    gettext_noop(
                        "The thinking budget must be below the output token limit (%(limit)s)."
                    ),
                    {"limit": ceiling},
                )
            ]

    def should_retry(self, error) -> bool:
        if error.status == 529 or (error.code or "").lower() in self.RETRY_CODES:
            return True
        return super().should_retry(error)

    def endpoint(self, request: CompletionRequest) -> str:
        return join_url(self.base_url(request), "/messages")

    def headers(self, request: CompletionRequest) -> dict[str, str]:
        return {
            "x-api-key": (request.api_key or "").strip(),
            "anthropic-version": ANTHROPIC_VERSION,
        }

    def payload(self, request: CompletionRequest) -> dict[str, Any]:
        max_tokens = request.max_output_tokens or DEFAULT_MAX_TOKENS
        body: dict[str, Any] = {
            "model": request.model,
            "max_tokens": max_tokens,
            "messages": [{"role": "user", "content": request.prompt}],
        }
        thinking = False
        if request.thinking_budget:
            budget = request.thinking_budget
            if budget < MIN_THINKING_BUDGET or budget >= max_tokens:
                raise ConfigurationError(
                    f"{self.name}: a thinking budget must be at least {MIN_THINKING_BUDGET} tokens "
                    f"and less than the token limit ({max_tokens}); got {budget}",
                    provider=self.name,
                )
            body["thinking"] = {"type": "enabled", "budget_tokens": budget}
            thinking = True
        elif request.reasoning_effort:
            # Newer models: adaptive thinking, its depth set by an effort level.
            body["thinking"] = {"type": "adaptive"}
            body["output_config"] = {"effort": request.reasoning_effort}
            thinking = True
        if request.temperature is not None and not thinking:
            # The API rejects a temperature alongside extended thinking.
            body["temperature"] = request.temperature
        # The Messages API has no seed parameter; request.seed is not sent.
        return body

    def parse(self, data: dict[str, Any]) -> ParsedAnswer:
        content = data.get("content")
        if not isinstance(content, list):
            raise self.bad_shape("content[] list", data)
        text = "".join(
            block.get("text") or ""
            for block in content
            if isinstance(block, dict) and block.get("type") == "text"
        )
        stop_reason = data.get("stop_reason")
        usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
        return ParsedAnswer(
            text=text,
            finish_reason=stop_reason,
            truncated=stop_reason in TRUNCATED_STOP_REASONS,
            refusal="refusal" if stop_reason == "refusal" else None,
            input_tokens=as_int(usage.get("input_tokens")),
            output_tokens=as_int(usage.get("output_tokens")),
            # Anthropic counts thinking inside output_tokens and reports no separate figure.
            reasoning_tokens=None,
            reported_model=data.get("model"),
            request_id=data.get("id"),
        )
