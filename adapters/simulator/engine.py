"""The simulated models behind the server: the OpenAI-compatible endpoint, without HTTP."""

from __future__ import annotations

import json
import random
import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from adapters.simulator.adapter import SIMULATION_FIELD
from adapters.simulator.answers import answer_item, digest, render_sheet
from adapters.simulator.grading import grade_reply, is_grading_request
from adapters.simulator.knowledge import Knowledge, parse_prompt_items
from adapters.simulator.profiles import Profile, load_profiles
from adapters.simulator.wording import language_of

DEFAULT_SEED = 0
OWNER = "simulator"
SYSTEM_FINGERPRINT = "fp_simulated"


_TOKEN = re.compile(r"\w+|[^\w\s]")


def count_tokens(text: str) -> int:
    """A rough token count (words and punctuation marks); good enough for usage figures."""
    return len(_TOKEN.findall(text))


def truncate_to_tokens(text: str, limit: int) -> str:
    for index, match in enumerate(_TOKEN.finditer(text), start=1):
        if index == limit:
            return text[: match.end()]
    return text


@dataclass
class SimulatedReply:
    status: int
    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)
    delay_seconds: float = 0.0

    def body_bytes(self) -> bytes:
        return json.dumps(self.body, ensure_ascii=False).encode("utf-8")


def openai_error(
    status: int,
    message: str,
    *,
    type_: str,
    code: str | None = None,
    param=None,
    headers: dict[str, str] | None = None,
) -> SimulatedReply:
    body = {"error": {"message": message, "type": type_, "param": param, "code": code}}
    return SimulatedReply(status, body, dict(headers or {}))


class Simulator:
    """The simulated models behind the server: answers chat completion payloads.

    Thread-safe: the only shared state is the injected-error random sequence, under a lock.
    """

    def __init__(
        self,
        knowledge: Knowledge | Mapping[str, Any],
        profiles: Mapping[str, Any] | None = None,
        *,
        seed: int = DEFAULT_SEED,
        latency_scale: float = 1.0,
    ) -> None:
        self.knowledge = (
            knowledge if isinstance(knowledge, Knowledge) else Knowledge.from_dict(knowledge)
        )
        self.profiles = load_profiles(profiles)
        self.latency_scale = latency_scale
        self._faults = random.Random(digest("faults", seed))
        self._lock = threading.Lock()

    def list_models(self) -> SimulatedReply:
        data = [
            {
                "id": name,
                "object": "model",
                "created": 0,
                "owned_by": OWNER,
                "description": f"Simulated model: {profile.description}".strip(),
            }
            for name, profile in self.profiles.items()
        ]
        return SimulatedReply(200, {"object": "list", "data": data})

    def chat_completion(self, payload: Any) -> SimulatedReply:
        if not isinstance(payload, dict):
            return openai_error(
                400, "The request body must be a JSON object.", type_="invalid_request_error"
            )
        model = payload.get("model")
        if not isinstance(model, str) or not model:
            return openai_error(
                400,
                "You must provide a model parameter.",
                type_="invalid_request_error",
                param="model",
            )
        profile = self.profiles.get(model)
        if profile is None:
            return openai_error(
                404,
                f"The model `{model}` does not exist or you do not have access to it. "
                f"Simulated models: {', '.join(self.profiles)}.",
                type_="invalid_request_error",
                param="model",
                code="model_not_found",
            )
        if "tools" in payload or "tool_choice" in payload:
            # As vLLM does: a tool_choice without tools is a 400. The probe never uses tools.
            return openai_error(
                400,
                "The simulator does not support tools or tool_choice.",
                type_="invalid_request_error",
                param="tool_choice",
            )
        if payload.get("stream"):
            return openai_error(
                400,
                "The simulator does not stream; send stream: false.",
                type_="invalid_request_error",
                param="stream",
            )
        messages = payload.get("messages")
        if not isinstance(messages, list) or not messages:
            return openai_error(
                400,
                "messages must be a non-empty array.",
                type_="invalid_request_error",
                param="messages",
            )
        limit = payload.get("max_completion_tokens", payload.get("max_tokens"))
        if limit is not None and (
            not isinstance(limit, int) or isinstance(limit, bool) or limit < 1
        ):
            return openai_error(
                400,
                "max_tokens must be a positive integer.",
                type_="invalid_request_error",
                param="max_tokens",
            )
        seed = payload.get("seed")
        seed = seed if isinstance(seed, int) and not isinstance(seed, bool) else DEFAULT_SEED

        injected = self._injected_error(profile)
        if injected is not None:
            return injected

        knowledge = self._knowledge_for(payload)
        if isinstance(knowledge, SimulatedReply):
            return knowledge
        prompt = "\n\n".join(
            _message_text(m) for m in messages if isinstance(m, dict) and m.get("role") == "user"
        )
        items = [] if is_grading_request(prompt) else parse_prompt_items(prompt, knowledge)
        if not items and is_grading_request(prompt):
            content = grade_reply(profile, model, seed, prompt)
        elif items:
            language = language_of(item.text for item in items)
            answers = [
                answer_item(profile, model, seed, item, knowledge, language) for item in items
            ]
            content = render_sheet(answers, profile, model, seed, prompt, language)
        else:
            content = "OK."  # no items: a connection check ("Reply with OK.")
        finish_reason = "stop"
        completion_tokens = count_tokens(content)
        if limit is not None and completion_tokens > limit:
            content, completion_tokens, finish_reason = (
                truncate_to_tokens(content, limit),
                limit,
                "length",
            )
        prompt_tokens = sum(
            count_tokens(_message_text(m)) + 4 for m in messages if isinstance(m, dict)
        )
        reply_digest = digest("response", model, seed, prompt, limit)
        body = {
            "id": f"chatcmpl-sim{reply_digest:016x}",
            "object": "chat.completion",
            "created": 1_735_689_600 + reply_digest % 31_536_000,
            "model": model,
            "system_fingerprint": SYSTEM_FINGERPRINT,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content, "refusal": None},
                    "logprobs": None,
                    "finish_reason": finish_reason,
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
                "completion_tokens_details": {"reasoning_tokens": 0},
            },
        }
        jitter = random.Random(reply_digest).random() * profile.latency_jitter_ms
        delay = (profile.latency_ms + jitter) / 1000.0 * self.latency_scale
        return SimulatedReply(200, body, {"openai-processing-ms": str(int(delay * 1000))}, delay)

    def _knowledge_for(self, payload: dict) -> Knowledge | SimulatedReply:
        """The key sent with the request (the experiment's own bank), else the knowledge file."""
        extension = payload.get(SIMULATION_FIELD)
        if extension is None:
            return self.knowledge
        key = extension.get("key") if isinstance(extension, dict) else None
        try:
            return Knowledge.from_dict({"items": key})
        except ValueError as error:
            return openai_error(
                400,
                f"{SIMULATION_FIELD}.key: {error}",
                type_="invalid_request_error",
                param=SIMULATION_FIELD,
            )

    def _injected_error(self, profile: Profile) -> SimulatedReply | None:
        if profile.error_rate <= 0:
            return None
        with self._lock:
            hit, kind = self._faults.random(), self._faults.random()
        if hit >= profile.error_rate:
            return None
        if kind < profile.rate_limit_share:
            retry_after = profile.retry_after
            shown = f"{retry_after:g}"
            return openai_error(
                429,
                f"Rate limit reached for {profile.name} (simulated). Please try again in {shown}s.",
                type_="requests",
                code="rate_limit_exceeded",
                headers={
                    "retry-after": shown,
                    "x-ratelimit-remaining-requests": "0",
                    "x-ratelimit-reset-requests": f"{shown}s",
                },
            )
        return openai_error(
            500,
            "The server had an error while processing your request (simulated). Sorry about that!",
            type_="server_error",
        )


def _message_text(message: Mapping[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            part.get("text", "")
            for part in content
            if isinstance(part, dict) and isinstance(part.get("text"), str)
        )
    return ""
