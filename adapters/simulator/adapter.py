"""The simulator's provider adapter: the OpenAI chat adapter aimed at the local simulator."""

from __future__ import annotations

import os
from typing import Any
from urllib.parse import urlsplit

from adapters.base import CompletionRequest
from adapters.i18n import gettext_noop
from adapters.openai_chat import OpenAIChatAdapter
from adapters.options import max_output_tokens, reasoning_effort, seed, temperature

DEFAULT_PORT = 8765
SIMULATOR_DEFAULT_BASE_URL = f"http://127.0.0.1:{DEFAULT_PORT}/v1"

# The request's extension field that carries the experiment's key to the simulator:
# {"simulation": {"key": [{"question": ..., "answer": ...}, ...]}}.
SIMULATION_FIELD = "simulation"
# Hosts besides the loopback ones that may receive the key (a simulator in another container).
KEY_HOSTS_ENV = "SIMULATOR_KEY_HOSTS"
_LOOPBACK_HOSTS = {"127.0.0.1", "::1", "localhost"}


def may_receive_key(base_url: str) -> bool:
    """Only a simulator on this machine (or on a host named in SIMULATOR_KEY_HOSTS) is sent the
    key: a configuration of provider "simulator" pointed at some other server must not leak it."""
    host = (urlsplit(base_url).hostname or "").lower()
    allowed = {h.strip().lower() for h in os.environ.get(KEY_HOSTS_ENV, "").split(",") if h.strip()}
    return host in _LOOPBACK_HOSTS or host.startswith("127.") or host in allowed


class SimulatorAdapter(OpenAIChatAdapter):
    """The OpenAI chat adapter pointed at the local simulator; no key, nothing leaves the machine.

    With the request it sends the experiment's own key (question and answer of each keyed item)
    in the extension field ``simulation``, so that each simulated model knows a share of the bank
    it is asked about; only to a local simulator (see ``may_receive_key``)."""

    name = "simulator"
    label = gettext_noop("Simulated models (local simulator, not a real model)")
    needs_api_key = False
    default_base_url = SIMULATOR_DEFAULT_BASE_URL
    api_key_env_hint = None
    api_key_note = None
    simulated = True
    options = (
        temperature(2),
        max_output_tokens(wire="max_tokens"),
        reasoning_effort(),
        seed(
            help=gettext_noop(
                "The simulated sheet is the same for a seed; empty: each repeat draws its own."
            )
        ),
    )

    def payload(self, request: CompletionRequest) -> dict[str, Any]:
        body = super().payload(request)
        if request.simulation_key and may_receive_key(self.base_url(request)):
            body[SIMULATION_FIELD] = {
                "key": [
                    {"question": question, "answer": answer}
                    for question, answer in request.simulation_key
                ]
            }
        return body

    def request_record(self, url: str, headers: dict, payload: dict, request) -> dict[str, Any]:
        """As sent, but the experiment's key only counted: it is sealed until collection ends,
        and a whole key in every attempt would fill the database."""
        record = super().request_record(url, headers, payload, request)
        extension = record["body"].get(SIMULATION_FIELD)
        if isinstance(extension, dict) and isinstance(extension.get("key"), list):
            shown = dict(record["body"])
            shown[SIMULATION_FIELD] = {"key": f"<{len(extension['key'])} entries, not kept>"}
            record = {**record, "body": shown}
        return record
