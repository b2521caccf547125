"""Simulated models answer from the bank they are asked about: the experiment's own key travels
with the request (to a local simulator only), each profile knows a share of it with its habits,
and the answers are deterministic for a seed."""

import re

import httpx
import pytest

from adapters.base import CompletionRequest
from adapters.registry import get_adapter
from adapters.simulator import SIMULATION_FIELD, Simulator, may_receive_key
from adapters.simulator_server import start_simulator_in_thread
from tests.keyreading import as_written, says_the_key

# A bank no knowledge file has ever heard of.
KEY = tuple(
    (f"What is the secret code number {n} of the private bank?", f"code-{n * 7}")
    for n in range(1, 31)
)
PROMPT = "Answer closed-book.\n\n" + "\n".join(f"{n}. {q}" for n, (q, _a) in enumerate(KEY, 1))


def ask(simulator, model, *, seed=1, key=KEY, prompt=PROMPT):
    payload = {"model": model, "messages": [{"role": "user", "content": prompt}], "seed": seed}
    if key is not None:
        payload[SIMULATION_FIELD] = {"key": [{"question": q, "answer": a} for q, a in key]}
    return simulator.chat_completion(payload)


def answers(reply) -> list[tuple[str, str]]:
    lines = reply.body["choices"][0]["message"]["content"].splitlines()
    pairs = []
    for line in lines:
        if "ANSWER:" in line:
            pairs.append([line.split("ANSWER:", 1)[1].strip(), ""])
        elif line.startswith("CONFIDENCE:") and pairs:
            pairs[-1][1] = line.split(":", 1)[1].strip()
    return [tuple(p) for p in pairs]


def correct(pairs) -> int:
    """Answers a person marks correct: they say the key, in whatever words."""
    return sum(
        1 for (answer, _c), (_q, key) in zip(pairs, KEY, strict=True) if says_the_key(answer, key)
    )


@pytest.fixture
def simulator():
    return Simulator({"items": []})  # knows nothing of its own


def test_without_the_key_a_simulated_model_knows_none_of_a_new_bank(simulator):
    assert correct(answers(ask(simulator, "sim-expert", key=None))) == 0


def test_with_the_key_each_profile_knows_its_share_with_its_habits(simulator):
    expert = answers(ask(simulator, "sim-expert"))
    cautious = answers(ask(simulator, "sim-cautious"))
    overconfident = answers(ask(simulator, "sim-overconfident"))
    assert len(expert) == 30
    assert 20 <= correct(expert) <= 30  # knows ~85%
    assert correct(cautious) < correct(expert)
    assert sum(1 for a, _c in cautious if a == "UNKNOWN") >= 3  # abstains when unsure
    assert not any(a == "UNKNOWN" for a, _c in overconfident)  # never abstains
    wrong_high = [
        (a, c)
        for (a, c), (_q, key) in zip(overconfident, KEY, strict=True)
        if a != "UNKNOWN" and not says_the_key(a, key) and c == "HIGH"
    ]
    assert len(wrong_high) >= 3  # confident errors
    # A wrong answer is a plausible one, a code like the right one, but no item's key entry.
    keys = {as_written(key) for _q, key in KEY}
    assert all("code-" in a and as_written(a) not in keys for a, _c in wrong_high)


def test_the_same_seed_gives_the_same_sheet_and_another_seed_another(simulator):
    first = ask(simulator, "sim-expert", seed=3).body
    again = ask(simulator, "sim-expert", seed=3).body
    other = ask(simulator, "sim-sloppy", seed=4).body
    assert first == again
    assert first["choices"][0]["message"]["content"] != other["choices"][0]["message"]["content"]


def test_the_reply_is_labelled_simulated_and_never_echoes_the_key(simulator):
    reply = ask(simulator, "sim-expert")
    assert reply.body["system_fingerprint"] == "fp_simulated"
    body = reply.body_bytes().decode()
    assert SIMULATION_FIELD not in body
    # A key entry is in the reply only as the answer of its own item, answered correctly: the
    # reply never lists the key, nor answers one item with another's key.
    said = set(re.findall(r"code-\d+", body))
    unknown_to_it = {
        key
        for (answer, _c), (_q, key) in zip(answers(reply), KEY, strict=True)
        if not says_the_key(answer, key)
    }
    assert said.isdisjoint(unknown_to_it)
    assert len(said) >= 20


def test_a_malformed_key_is_a_400_naming_the_field(simulator):
    payload = {
        "model": "sim-expert",
        "messages": [{"role": "user", "content": PROMPT}],
        SIMULATION_FIELD: {"key": [{"question": "Q?"}]},
    }
    reply = simulator.chat_completion(payload)
    assert reply.status == 400
    assert reply.body["error"]["message"].startswith(
        "simulation.key: knowledge item 1 has no answer"
    )


@pytest.mark.parametrize(
    "url,allowed",
    [
        ("http://127.0.0.1:8765/v1", True),
        ("http://localhost:9/v1", True),
        ("http://[::1]:8765/v1", True),
        ("http://127.0.0.2/v1", True),
        ("https://api.openai.com/v1", False),
        ("http://simulator:8765/v1", False),
        ("http://10.0.0.5:8765/v1", False),
    ],
)
def test_only_a_local_simulator_is_sent_the_key(url, allowed, monkeypatch):
    monkeypatch.delenv("SIMULATOR_KEY_HOSTS", raising=False)
    assert may_receive_key(url) is allowed
    request = CompletionRequest(model="sim-expert", prompt=PROMPT, base_url=url, simulation_key=KEY)
    assert (SIMULATION_FIELD in get_adapter("simulator").payload(request)) is allowed


def test_a_host_named_in_the_environment_may_receive_the_key(monkeypatch):
    monkeypatch.setenv("SIMULATOR_KEY_HOSTS", "simulator, sim.internal")
    assert may_receive_key("http://simulator:8765/v1")
    assert may_receive_key("http://SIM.internal/v1")
    assert not may_receive_key("http://elsewhere/v1")


def test_no_other_adapter_sends_the_key():
    request = CompletionRequest(
        model="gpt-x", prompt=PROMPT, base_url="http://127.0.0.1:1/v1", simulation_key=KEY
    )
    assert SIMULATION_FIELD not in get_adapter("openai_chat").payload(request)
    assert "simulation_key=<30 entries>" in repr(request) and "code-7" not in repr(request)


def test_over_http_the_adapter_gets_answers_from_the_key():
    server, base_url = start_simulator_in_thread({"items": []}, latency_scale=0)
    try:
        request = CompletionRequest(
            model="sim-expert", prompt=PROMPT, base_url=base_url, seed=2, simulation_key=KEY
        )
        with httpx.Client() as client:
            completion = get_adapter("simulator").complete(request, client=client)
            plain = get_adapter("simulator").complete(
                CompletionRequest(model="sim-expert", prompt=PROMPT, base_url=base_url, seed=2),
                client=client,
            )
    finally:
        server.stop()
    said = [
        says_the_key(line.split("ANSWER:", 1)[1], key)
        for line, (_q, key) in zip(
            [line for line in completion.text.splitlines() if "ANSWER:" in line], KEY, strict=True
        )
    ]
    assert sum(said) >= 20
    assert "code-" not in plain.text
