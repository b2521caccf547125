"""Google Gemini API (`models/{model}:generateContent`), the key in the `x-goog-api-key` header.

Wire format: docs/providers.md, "4. Google Gemini API". The key is never put in the URL (`?key=` ends up in proxy
and server logs). The answer joins `candidates[0].content.parts[].text`, skipping `thought` parts;
without candidates, `promptFeedback.blockReason` says why the prompt was blocked.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from adapters.base import Adapter, CompletionRequest, ParsedAnswer
from adapters.i18n import gettext_noop
from adapters.options import INT, Option, max_output_tokens, reasoning_effort, seed, temperature
from adapters.wire import as_int, join_url

TRUNCATED_FINISH_REASONS = ("MAX_TOKENS",)
REFUSED_FINISH_REASONS = (
    "SAFETY",
    "RECITATION",
    "BLOCKLIST",
    "PROHIBITED_CONTENT",
    "SPII",
    "IMAGE_SAFETY",
    "LANGUAGE",
)


class GeminiAdapter(Adapter):
    name = "gemini"
    label = gettext_noop("Google Gemini API")
    needs_api_key = True
    default_base_url = "https://generativelanguage.googleapis.com"
    api_key_env_hint = "GEMINI_API_KEY"
    options = (
        temperature(2, wire="generationConfig.temperature"),
        max_output_tokens(wire="generationConfig.maxOutputTokens"),
        reasoning_effort(wire="generationConfig.thinkingConfig.thinkingLevel"),
        Option(
            "thinking_budget",
            INT,
            gettext_noop(
                "0 turns thinking off where the model allows it; instead of a reasoning effort."
            ),
            minimum=0,
            wire="generationConfig.thinkingConfig.thinkingBudget",
        ),
        seed(wire="generationConfig.seed"),
    )

    def endpoint(self, request: CompletionRequest) -> str:
        model = request.model.strip()
        if not model.startswith(("models/", "tunedModels/")):
            model = f"models/{model}"
        collection, _, name = model.partition("/")
        path = f"/{collection}/{quote(name, safe='')}:generateContent"
        return join_url(self.base_url(request), path, version="v1beta")

    def headers(self, request: CompletionRequest) -> dict[str, str]:
        return {"x-goog-api-key": (request.api_key or "").strip()}

    def payload(self, request: CompletionRequest) -> dict[str, Any]:
        config: dict[str, Any] = {}
        if request.temperature is not None:
            config["temperature"] = request.temperature
        if request.max_output_tokens is not None:
            config["maxOutputTokens"] = request.max_output_tokens
        if request.seed is not None:
            config["seed"] = request.seed
        if request.thinking_budget is not None:
            # 0 turns thinking off where the model allows it, -1 lets the model decide.
            config["thinkingConfig"] = {"thinkingBudget": request.thinking_budget}
        elif request.reasoning_effort:
            config["thinkingConfig"] = {"thinkingLevel": request.reasoning_effort}
        body: dict[str, Any] = {"contents": [{"role": "user", "parts": [{"text": request.prompt}]}]}
        if config:
            body["generationConfig"] = config
        return body

    def parse(self, data: dict[str, Any]) -> ParsedAnswer:
        usage = data.get("usageMetadata") if isinstance(data.get("usageMetadata"), dict) else {}
        common = {
            "input_tokens": as_int(usage.get("promptTokenCount")),
            "output_tokens": as_int(usage.get("candidatesTokenCount")),
            "reasoning_tokens": as_int(usage.get("thoughtsTokenCount")),
            "reported_model": data.get("modelVersion"),
            "request_id": data.get("responseId"),
        }
        candidates = data.get("candidates")
        if not candidates:
            feedback = data.get("promptFeedback")
            block_reason = feedback.get("blockReason") if isinstance(feedback, dict) else None
            if not block_reason:
                raise self.bad_shape("candidates[] nor promptFeedback.blockReason", data)
            return ParsedAnswer(
                text="",
                finish_reason=block_reason,
                refusal=f"blockReason: {block_reason}",
                **common,
            )
        if not isinstance(candidates, list) or not isinstance(candidates[0], dict):
            raise self.bad_shape("candidates[0] object", data)
        candidate = candidates[0]
        content = candidate.get("content") if isinstance(candidate.get("content"), dict) else {}
        parts = content.get("parts") if isinstance(content.get("parts"), list) else []
        text = "".join(
            part.get("text") or ""
            for part in parts
            if isinstance(part, dict) and not part.get("thought")
        )
        finish_reason = candidate.get("finishReason")
        return ParsedAnswer(
            text=text,
            finish_reason=finish_reason,
            truncated=finish_reason in TRUNCATED_FINISH_REASONS,
            refusal=finish_reason if finish_reason in REFUSED_FINISH_REASONS else None,
            **common,
        )
