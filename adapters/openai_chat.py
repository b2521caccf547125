"""OpenAI Chat Completions, and every server that speaks it: vLLM, Ollama /v1, llama.cpp, OpenRouter.

Wire format: docs/providers.md, "1. OpenAI Chat Completions". `tools`/`tool_choice` are never sent (vLLM answers 400 to a
`tool_choice` without `tools`).
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from adapters.base import Adapter, CompletionRequest, ParsedAnswer
from adapters.i18n import gettext_noop
from adapters.options import max_output_tokens, reasoning_effort, seed, temperature
from adapters.wire import as_int, is_reasoning_model, join_url

# Hosts that always want a key. Other base URLs (a local vLLM, Ollama, llama.cpp) may run without
# one, so there the Authorization header is simply left out when no key is configured.
KEYED_HOSTS = ("api.openai.com", "openrouter.ai")

# What an error body says when the prompt does not fit the model: sending it again cannot help,
# even when a compatible server (or a proxy) answers it with a 5xx.
CONTEXT_PHRASES = ("context length", "context size", "context window", "too many tokens")

# Some open models served through compatible servers put their reasoning inline as a leading
# <think>...</think> block; it is reasoning, not the answer (the raw body still keeps it).
_LEADING_THINK = re.compile(r"^\s*<think>.*?(</think>\s*|\Z)", re.DOTALL)


def is_openai_host(base_url: str) -> bool:
    host = (urlsplit(base_url).hostname or "").lower()
    return host == "api.openai.com" or host.endswith(".api.openai.com")  # also regional hosts


class OpenAIChatAdapter(Adapter):
    name = "openai_chat"
    label = gettext_noop("OpenAI Chat Completions (also vLLM, Ollama, llama.cpp, OpenRouter)")
    needs_api_key = True
    default_base_url = "https://api.openai.com/v1"
    api_key_env_hint = "OPENAI_API_KEY"
    api_key_note = gettext_noop("for api.openai.com and OpenRouter; optional for local servers")
    options = (
        temperature(2),
        max_output_tokens(
            wire="max_completion_tokens",
            help=gettext_noop(
                "Sent as max_completion_tokens to api.openai.com, as max_tokens to other servers."
            ),
        ),
        reasoning_effort(),
        seed(),
    )

    def should_retry(self, error) -> bool:
        text = f"{error.message} {error.body or ''}".lower()
        if any(phrase in text for phrase in CONTEXT_PHRASES):
            return False
        return super().should_retry(error)

    def requires_api_key(self, request: CompletionRequest) -> bool:
        host = (urlsplit(self.base_url(request)).hostname or "").lower()
        return self.needs_api_key and any(host == h or host.endswith("." + h) for h in KEYED_HOSTS)

    def endpoint(self, request: CompletionRequest) -> str:
        return join_url(self.base_url(request), "/chat/completions")

    def headers(self, request: CompletionRequest) -> dict[str, str]:
        if request.api_key:
            return {"authorization": f"Bearer {request.api_key.strip()}"}
        return {}

    def payload(self, request: CompletionRequest) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": request.model,
            "messages": [{"role": "user", "content": request.prompt}],
        }
        reasoning = bool(request.reasoning_effort) or is_reasoning_model(request.model)
        if request.temperature is not None and not reasoning:
            body["temperature"] = request.temperature
        if request.reasoning_effort:
            body["reasoning_effort"] = request.reasoning_effort
        if request.max_output_tokens is not None:
            # OpenAI's max_completion_tokens counts reasoning tokens too; compatible servers
            # only know the older max_tokens.
            key = (
                "max_completion_tokens" if is_openai_host(self.base_url(request)) else "max_tokens"
            )
            body[key] = request.max_output_tokens
        if request.seed is not None:
            body["seed"] = request.seed
        return body

    def parse(self, data: dict[str, Any]) -> ParsedAnswer:
        choices = data.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            raise self.bad_shape("choices[0]", data)
        choice = choices[0]
        message = choice.get("message")
        if not isinstance(message, dict):
            raise self.bad_shape("choices[0].message", data)
        text = _content_text(message.get("content"))
        text = _LEADING_THINK.sub("", text, count=1)
        finish_reason = choice.get("finish_reason")
        refusal = message.get("refusal") or None
        if refusal is None and finish_reason == "content_filter":
            refusal = "content_filter"
        usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
        details = usage.get("completion_tokens_details")
        reasoning_tokens = details.get("reasoning_tokens") if isinstance(details, dict) else None
        return ParsedAnswer(
            text=text,
            finish_reason=finish_reason,
            truncated=finish_reason == "length",
            refusal=refusal,
            input_tokens=as_int(usage.get("prompt_tokens")),
            output_tokens=as_int(usage.get("completion_tokens")),
            reasoning_tokens=as_int(reasoning_tokens),
            reported_model=data.get("model"),
            request_id=data.get("id"),
        )


def _content_text(content) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        # A few compatible servers send content parts; keep the text ones.
        return "".join(
            part.get("text", "")
            for part in content
            if isinstance(part, dict) and part.get("type") in ("text", "output_text")
        )
    return str(content)
