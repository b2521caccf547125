"""OpenAI Responses API (`POST /v1/responses`), always with `store: false` for private probes.

Wire format: docs/providers.md, "2. OpenAI Responses API". The answer is the `output_text` parts of the `message`
items of `output[]`; `reasoning` items are skipped (`output_text` at the top level is an SDK
convenience, not part of the wire JSON).
"""

from __future__ import annotations

from typing import Any

from adapters.base import CompletionRequest, ParsedAnswer
from adapters.errors import ServerError
from adapters.i18n import gettext_noop
from adapters.openai_chat import OpenAIChatAdapter
from adapters.options import SEED_NOT_SENT, max_output_tokens, reasoning_effort, seed, temperature
from adapters.wire import as_int, is_reasoning_model, join_url


class OpenAIResponsesAdapter(OpenAIChatAdapter):
    name = "openai_responses"
    label = gettext_noop("OpenAI Responses API")
    needs_api_key = True
    default_base_url = "https://api.openai.com/v1"
    api_key_env_hint = "OPENAI_API_KEY"
    api_key_note = None
    options = (
        temperature(2),
        max_output_tokens(wire="max_output_tokens"),
        reasoning_effort(wire="reasoning.effort"),
        seed(wire=None, help=SEED_NOT_SENT),
    )

    def endpoint(self, request: CompletionRequest) -> str:
        return join_url(self.base_url(request), "/responses")

    def payload(self, request: CompletionRequest) -> dict[str, Any]:
        # store defaults to true on OpenAI's side: a private item must not be kept there.
        body: dict[str, Any] = {"model": request.model, "input": request.prompt, "store": False}
        reasoning = bool(request.reasoning_effort) or is_reasoning_model(request.model)
        if request.temperature is not None and not reasoning:
            body["temperature"] = request.temperature
        if request.reasoning_effort:
            body["reasoning"] = {"effort": request.reasoning_effort}
        if request.max_output_tokens is not None:
            body["max_output_tokens"] = request.max_output_tokens
        # The Responses API has no seed parameter; request.seed is not sent.
        return body

    def parse(self, data: dict[str, Any]) -> ParsedAnswer:
        output = data.get("output")
        if not isinstance(output, list):
            raise self.bad_shape("output[] list", data)
        status = data.get("status")
        texts: list[str] = []
        refusals: list[str] = []
        for item in output:
            if not isinstance(item, dict) or item.get("type") != "message":
                continue  # reasoning, and anything else that is not the answer
            for part in item.get("content") or []:
                if not isinstance(part, dict):
                    continue
                if part.get("type") == "output_text":
                    texts.append(part.get("text") or "")
                elif part.get("type") == "refusal":
                    refusals.append(part.get("refusal") or "refusal")
        if status == "failed":
            raise ServerError(
                f"{self.name}: the response has status 'failed' without an error object",
                provider=self.name,
                body=None,
            )
        details = (
            data.get("incomplete_details")
            if isinstance(data.get("incomplete_details"), dict)
            else {}
        )
        reason = details.get("reason")
        refusal = "\n".join(refusals) or None
        if refusal is None and status == "incomplete" and reason == "content_filter":
            refusal = "content_filter"
        usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
        out_details = usage.get("output_tokens_details")
        reasoning_tokens = (
            out_details.get("reasoning_tokens") if isinstance(out_details, dict) else None
        )
        return ParsedAnswer(
            text="".join(texts),
            finish_reason=reason if status == "incomplete" and reason else status,
            truncated=status == "incomplete",
            refusal=refusal,
            input_tokens=as_int(usage.get("input_tokens")),
            output_tokens=as_int(usage.get("output_tokens")),
            reasoning_tokens=as_int(reasoning_tokens),
            reported_model=data.get("model"),
            request_id=data.get("id"),
        )
