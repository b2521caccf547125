"""The local simulator: deterministic, profiles that differ the way real models do, OpenAI-compatible."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import httpx
import pytest

from adapters import (
    CompletionRequest,
    RateLimitError,
    RequestRejected,
    ServerError,
    check_connection,
    get_adapter,
    retry_delay,
)
from adapters.simulator import Knowledge, load_profiles, normalize, wrong_answers
from adapters.simulator_server import start_simulator_in_thread
from tests.keyreading import as_written, says_the_key

KNOWLEDGE_FILE = Path(__file__).parent / "fixtures" / "sim_knowledge.json"
TEST_PROFILES = {
    "profiles": {
        "test-always-429": {
            "base": "sim-expert",
            "error_rate": 1.0,
            "rate_limit_share": 1.0,
            "retry_after": 1,
        },
        "test-always-500": {"base": "sim-expert", "error_rate": 1.0, "rate_limit_share": 0.0},
        "test-knows-all": {"base": "sim-expert", "knowledge": 1.0, "consistency": 1.0},
    }
}
INSTRUCTION = (
    "Answer each item closed-book, without tools. If you do not know, answer UNKNOWN.\n"
    "Reply in exactly this format, two lines per item:\n"
    "N. ANSWER: <answer>\nCONFIDENCE: HIGH|MEDIUM|LOW\n"
)
STRICT_ANSWER = re.compile(r"^(\d+)\. ANSWER: (.+)$")
STRICT_CONFIDENCE = re.compile(r"^CONFIDENCE: (HIGH|MEDIUM|LOW)$")
# Tolerant reading of a sloppy sheet: bold, "1)", lower-case labels.
LOOSE_ANSWER = re.compile(r"^\s*\**(\d+)[.)]\**\s*\**answer:\**\s*\**(.*?)\**\s*$", re.IGNORECASE)
LOOSE_CONFIDENCE = re.compile(r"^\s*\**confidence:\**\s*(high|medium|low)\s*$", re.IGNORECASE)


@pytest.fixture(scope="module")
def knowledge() -> dict:
    return json.loads(KNOWLEDGE_FILE.read_text())


@pytest.fixture(scope="module")
def simulator(knowledge):
    server, base_url = start_simulator_in_thread(knowledge, TEST_PROFILES, latency_scale=0)
    yield base_url
    server.stop()


def sheet_prompt(knowledge: dict) -> str:
    """The whole sheet in one prompt, with block headings between the items, as the probe sends it."""
    lines = [INSTRUCTION]
    for index, item in enumerate(knowledge["items"]):
        if index % 10 == 0:
            lines.append(f"Block {'ABC'[index // 10]}. Topic {index // 10 + 1}")
        lines.append(f"{index + 1}. {item['question']}")
    return "\n".join(lines)


def post(client: httpx.Client, base_url: str, payload: dict) -> httpx.Response:
    return client.post(f"{base_url}/chat/completions", json=payload)


def ask(client, base_url, model, prompt, seed=None, **extra) -> httpx.Response:
    payload = {"model": model, "messages": [{"role": "user", "content": prompt}], **extra}
    if seed is not None:
        payload["seed"] = seed
    return post(client, base_url, payload)


def content(response: httpx.Response) -> str:
    assert response.status_code == 200, response.text
    return response.json()["choices"][0]["message"]["content"]


def read_sheet(text: str) -> dict[int, tuple[str, str | None]]:
    """item number -> (answer, confidence or None), read tolerantly."""
    answers: dict[int, tuple[str, str | None]] = {}
    current = None
    for line in text.splitlines():
        if match := LOOSE_ANSWER.match(line):
            current = int(match.group(1))
            answers[current] = (match.group(2).strip(), None)
        elif (match := LOOSE_CONFIDENCE.match(line)) and current is not None:
            answers[current] = (answers[current][0], match.group(1).upper())
    return answers


def score(knowledge, answers) -> Counter:
    """Counts of correct / wrong / abstained, and of (outcome, confidence)."""
    counts: Counter = Counter()
    for number, (answer, confidence) in answers.items():
        key = knowledge["items"][number - 1]["answer"]
        if answer == "UNKNOWN":
            outcome = "abstained"
        elif says_the_key(answer, key):
            outcome = "correct"
        else:
            outcome = "wrong"
        counts[outcome] += 1
        counts[(outcome, confidence)] += 1
    return counts


def run_profile(client, base_url, knowledge, model, seeds=(1, 2, 3)) -> Counter:
    total: Counter = Counter()
    for seed in seeds:
        answers = read_sheet(content(ask(client, base_url, model, sheet_prompt(knowledge), seed)))
        assert len(answers) == len(knowledge["items"])
        total += score(knowledge, answers)
    return total


# --- determinism ---------------------------------------------------------------------------------


def test_same_model_prompt_and_seed_give_the_same_body(client, simulator, knowledge):
    first = ask(client, simulator, "sim-sloppy", sheet_prompt(knowledge), seed=42)
    second = ask(client, simulator, "sim-sloppy", sheet_prompt(knowledge), seed=42)
    assert first.content == second.content
    assert first.headers["x-request-id"] != second.headers["x-request-id"]


def test_request_without_seed_uses_a_fixed_default(client, simulator, knowledge):
    first = ask(client, simulator, "sim-expert", sheet_prompt(knowledge))
    second = ask(client, simulator, "sim-expert", sheet_prompt(knowledge))
    assert first.content == second.content


def test_another_seed_is_another_repeat(client, simulator, knowledge):
    one = content(ask(client, simulator, "sim-expert", sheet_prompt(knowledge), seed=1))
    two = content(ask(client, simulator, "sim-expert", sheet_prompt(knowledge), seed=2))
    assert one != two


# --- the profiles differ the way the figures need --------------------------------------------


def test_expert_knows_clearly_more_than_overconfident(client, simulator, knowledge):
    expert = run_profile(client, simulator, knowledge, "sim-expert")
    overconfident = run_profile(client, simulator, knowledge, "sim-overconfident")
    assert expert["correct"] >= overconfident["correct"] + 12  # of 90 answers


def test_overconfident_says_high_to_nearly_everything_and_never_abstains(
    client, simulator, knowledge
):
    counts = run_profile(client, simulator, knowledge, "sim-overconfident")
    high = sum(n for key, n in counts.items() if isinstance(key, tuple) and key[1] == "HIGH")
    assert counts["abstained"] == 0
    assert high >= 0.85 * 90
    assert counts[("wrong", "HIGH")] >= 0.8 * counts["wrong"]  # confidently wrong


def test_cautious_abstains_when_unsure_and_is_never_confidently_wrong(client, simulator, knowledge):
    counts = run_profile(client, simulator, knowledge, "sim-cautious")
    overconfident = run_profile(client, simulator, knowledge, "sim-overconfident")
    assert counts["abstained"] >= 15
    assert counts[("wrong", "HIGH")] == 0
    assert counts["wrong"] < overconfident["wrong"] / 2


def test_expert_confidence_is_calibrated(client, simulator, knowledge):
    counts = run_profile(client, simulator, knowledge, "sim-expert")

    def accuracy(level):
        right, wrong = counts[("correct", level)], counts[("wrong", level)]
        return right / (right + wrong)

    assert accuracy("HIGH") > 0.9
    assert accuracy("HIGH") > accuracy("LOW") + 0.3


def test_models_sometimes_share_the_same_wrong_answer(client, simulator, knowledge):
    who_said: dict[tuple[int, str], set[str]] = {}
    for model in ("sim-expert", "sim-overconfident", "sim-cautious", "sim-sloppy"):
        for seed in (1, 2):
            answers = read_sheet(
                content(ask(client, simulator, model, sheet_prompt(knowledge), seed))
            )
            for number, (answer, _) in answers.items():
                key = knowledge["items"][number - 1]["answer"]
                if answer != "UNKNOWN" and not says_the_key(answer, key):
                    who_said.setdefault((number, normalize(answer)), set()).add(model)
    assert any(len(models) >= 2 for models in who_said.values())


def test_wrong_answers_are_plausible_and_never_a_key_entry(knowledge):
    bank = Knowledge.from_dict(knowledge)
    by_answer = {item.answer: item for item in bank.items}
    year = wrong_answers(by_answer["1989"], bank)
    assert year[0] in {"1988", "1990"}  # off by one, the likeliest slip
    assert all(re.fullmatch(r"\d+", answer) and abs(int(answer) - 1989) <= 10 for answer in year)
    city = wrong_answers(by_answer["Canberra"], bank)
    assert city[0] in {"Sydney", "Melbourne"}  # a related city, not another item's answer
    keys = {as_written(item.answer) for item in bank.items}
    for item in bank.items:
        for answer in wrong_answers(item, bank):
            assert as_written(answer) not in keys, (item.answer, answer)
            assert not says_the_key(answer, item.answer), (item.answer, answer)


# --- the answer format and its sloppy variants -------------------------------------------------


@pytest.mark.parametrize("model", ["sim-expert", "sim-overconfident", "sim-cautious"])
def test_tidy_profiles_answer_exactly_two_lines_per_item(client, simulator, knowledge, model):
    lines = content(ask(client, simulator, model, sheet_prompt(knowledge), seed=5)).split("\n")
    assert len(lines) == 2 * len(knowledge["items"])
    for number, (answer_line, confidence_line) in enumerate(
        zip(lines[::2], lines[1::2], strict=True), 1
    ):
        match = STRICT_ANSWER.match(answer_line)
        assert match and int(match.group(1)) == number, answer_line
        assert STRICT_CONFIDENCE.match(confidence_line), confidence_line


def test_abstention_is_written_as_unknown(client, simulator, knowledge):
    text = content(ask(client, simulator, "sim-cautious", sheet_prompt(knowledge), seed=1))
    assert re.search(r"^\d+\. ANSWER: UNKNOWN$", text, re.MULTILINE)


def test_sloppy_profile_slips_in_the_ways_models_do(client, simulator, knowledge):
    texts = [
        content(ask(client, simulator, "sim-sloppy", sheet_prompt(knowledge), s)) for s in (1, 2, 3)
    ]
    joined = "\n".join(texts)
    assert "**" in joined
    assert re.search(r"^\**\d+\)", joined, re.MULTILINE)
    assert re.search(r"\banswer:", joined)  # lower-case label
    assert any(not re.match(r"^\**\d", text) for text in texts)  # a chatty preamble
    answers = [read_sheet(text) for text in texts]
    assert any(confidence is None for sheet in answers for _, confidence in sheet.values())
    # Still an answer sheet underneath the mess.
    assert all(len(sheet) == len(knowledge["items"]) for sheet in answers)


# --- prompts -------------------------------------------------------------------------------------


def test_single_item_prompt_keeps_its_item_number(client, simulator, knowledge):
    question = knowledge["items"][16]["question"]
    text = content(ask(client, simulator, "sim-expert", f"{INSTRUCTION}\n17. {question}", seed=3))
    lines = text.split("\n")
    assert len(lines) == 2
    assert lines[0].startswith("17. ANSWER: ")
    assert STRICT_CONFIDENCE.match(lines[1])


def test_single_unnumbered_question_is_answered_as_item_one(client, simulator, knowledge):
    question = knowledge["items"][0]["question"]
    text = content(
        ask(client, simulator, "sim-expert", f"{INSTRUCTION}\nQuestion: {question}", seed=3)
    )
    assert text.startswith("1. ANSWER: ")
    assert len(text.split("\n")) == 2


def test_question_matching_ignores_case_and_whitespace(client, simulator, knowledge):
    item = knowledge["items"][1]
    messy = "  " + "   ".join(item["question"].upper().split()) + "  "
    # test-knows-all answers every item it recognises correctly; one it did not would be a guess.
    text = content(ask(client, simulator, "test-knows-all", f"{INSTRUCTION}\n1. {messy}", seed=1))
    assert says_the_key(read_sheet(text)[1][0], item["answer"])


def test_question_continued_on_a_second_line_is_matched(client, simulator, knowledge):
    item = knowledge["items"][8]
    first, rest = item["question"].split(" in ", 1)
    text = content(
        ask(client, simulator, "test-knows-all", f"{INSTRUCTION}\n1. {first}\n   in {rest}")
    )
    assert says_the_key(read_sheet(text)[1][0], item["answer"])


def test_numbered_rules_in_the_instruction_are_not_taken_for_items(client, simulator, knowledge):
    instruction = (
        "Rules:\n1. Answer closed-book.\n2. Say UNKNOWN when unsure.\n3. Use the format below.\n"
        "N. ANSWER: <answer>\nCONFIDENCE: HIGH|MEDIUM|LOW\n"
    )
    items = "\n".join(
        f"{n}. {item['question']}" for n, item in enumerate(knowledge["items"][:3], 1)
    )
    text = content(ask(client, simulator, "sim-expert", f"{instruction}\n{items}", seed=1))
    assert [int(m) for m in re.findall(r"^(\d+)\. ANSWER", text, re.MULTILINE)] == [1, 2, 3]


def test_question_not_in_the_knowledge_file_still_gets_a_well_formed_answer(client, simulator):
    prompt = (
        f"{INSTRUCTION}\n1. What colour is the simulator's hat?\n2. Who is the simulator's aunt?"
    )
    lines = content(ask(client, simulator, "sim-overconfident", prompt, seed=1)).split("\n")
    assert len(lines) == 4
    assert STRICT_ANSWER.match(lines[0]) and STRICT_ANSWER.match(lines[2])


# --- the OpenAI-compatible surface -----------------------------------------------------------


def test_body_is_a_realistic_chat_completion(client, simulator, knowledge):
    response = ask(client, simulator, "sim-expert", sheet_prompt(knowledge), seed=1)
    body = response.json()
    assert body["object"] == "chat.completion"
    assert body["id"].startswith("chatcmpl-")
    assert body["model"] == "sim-expert"
    assert body["choices"][0]["finish_reason"] == "stop"
    usage = body["usage"]
    assert usage["prompt_tokens"] > 100 and usage["completion_tokens"] > 100
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]
    assert response.headers["x-request-id"].startswith("req_sim_")


@pytest.mark.parametrize("limit_field", ["max_tokens", "max_completion_tokens"])
def test_token_limit_truncates_the_content_with_finish_length(
    client, simulator, knowledge, limit_field
):
    full = content(ask(client, simulator, "sim-expert", sheet_prompt(knowledge), seed=1))
    response = ask(
        client, simulator, "sim-expert", sheet_prompt(knowledge), seed=1, **{limit_field: 12}
    )
    body = response.json()
    assert body["choices"][0]["finish_reason"] == "length"
    assert body["usage"]["completion_tokens"] == 12
    cut = body["choices"][0]["message"]["content"]
    assert full.startswith(cut) and len(cut) < len(full)


def test_unknown_model_is_a_404_in_openai_error_format(client, simulator):
    response = ask(client, simulator, "gpt-4.1", "1. Anything?")
    assert response.status_code == 404
    error = response.json()["error"]
    assert error["code"] == "model_not_found"
    assert error["type"] == "invalid_request_error"
    assert "sim-expert" in error["message"]  # lists the simulated models


def test_tools_are_rejected_as_vllm_does(client, simulator):
    response = ask(client, simulator, "sim-expert", "1. Anything?", tool_choice="none")
    assert response.status_code == 400


def test_models_endpoint_lists_every_profile_as_owned_by_the_simulator(client, simulator):
    data = client.get(f"{simulator}/models").json()["data"]
    ids = [entry["id"] for entry in data]
    for name in (
        "sim-expert",
        "sim-overconfident",
        "sim-cautious",
        "sim-sloppy",
        "sim-flaky",
        "test-always-429",
    ):
        assert name in ids
    assert {entry["owned_by"] for entry in data} == {"simulator"}


def test_injected_429_carries_retry_after(client, simulator):
    response = ask(client, simulator, "test-always-429", "1. Anything?")
    assert response.status_code == 429
    assert response.headers["retry-after"] == "1"
    assert response.json()["error"]["code"] == "rate_limit_exceeded"


def test_flaky_profile_fails_about_a_third_of_requests_with_429s_and_500s(
    client, simulator, knowledge
):
    prompt = sheet_prompt(knowledge)
    statuses = Counter()
    bodies = set()
    for _ in range(60):
        response = ask(client, simulator, "sim-flaky", prompt, seed=1)
        statuses[response.status_code] += 1
        if response.status_code == 429:
            assert float(response.headers["retry-after"]) == 1.0
        if response.status_code == 200:
            bodies.add(response.content)
    assert 8 <= statuses[429] + statuses[500] <= 32
    assert statuses[429] >= 1 and statuses[500] >= 1
    assert len(bodies) == 1  # a retried request gets the answer it would have got


# --- adapters talking to it ----------------------------------------------------------------------


@pytest.mark.parametrize("provider", ["simulator", "openai_chat"])
def test_adapter_collects_a_sheet_from_the_simulator(client, simulator, knowledge, provider):
    request = CompletionRequest(
        model="sim-expert",
        prompt=sheet_prompt(knowledge),
        base_url=simulator,
        seed=7,
        temperature=0.0,
    )
    completion = get_adapter(provider).complete(request, client=client)
    assert completion.outcome == "complete"
    assert completion.reported_model == "sim-expert"
    assert completion.request_id.startswith("req_sim_")
    assert len(read_sheet(completion.text)) == 30
    assert completion.output_tokens > 0


def test_adapter_reports_truncation_from_the_simulator(client, simulator, knowledge):
    request = CompletionRequest(
        model="sim-cautious",
        prompt=sheet_prompt(knowledge),
        base_url=simulator,
        max_output_tokens=20,
    )
    completion = get_adapter("simulator").complete(request, client=client)
    assert completion.outcome == "truncated"
    assert completion.finish_reason == "length"


def test_adapter_classifies_injected_errors(client, simulator):
    adapter = get_adapter("simulator")
    with pytest.raises(RateLimitError) as caught:
        adapter.complete(
            CompletionRequest(model="test-always-429", prompt="1. Q?", base_url=simulator),
            client=client,
        )
    assert retry_delay(caught.value, 0) == 1.0
    with pytest.raises(ServerError):
        adapter.complete(
            CompletionRequest(model="test-always-500", prompt="1. Q?", base_url=simulator),
            client=client,
        )
    with pytest.raises(RequestRejected) as rejected:
        adapter.complete(
            CompletionRequest(model="no-such-model", prompt="1. Q?", base_url=simulator),
            client=client,
        )
    assert rejected.value.status == 404 and not rejected.value.retryable


def test_connection_check_against_the_simulator_needs_no_key(client, simulator):
    completion = check_connection(
        get_adapter("simulator"), client=client, model="sim-expert", base_url=simulator
    )
    assert completion.text == "OK."


# --- profiles files and the command line -----------------------------------------------------


def test_profiles_file_overrides_only_the_fields_it_gives_and_adds_profiles():
    profiles = load_profiles(
        {
            "profiles": {
                "sim-expert": {"knowledge": 0.1},
                "my-model": {"base": "sim-sloppy", "error_rate": 0.5},
            }
        }
    )
    builtin = load_profiles()
    assert profiles["sim-expert"].knowledge == 0.1
    assert (
        profiles["sim-expert"].confidence_when_right == builtin["sim-expert"].confidence_when_right
    )
    assert profiles["my-model"].format == builtin["sim-sloppy"].format
    assert profiles["my-model"].error_rate == 0.5
    assert builtin["sim-expert"].knowledge == 0.85  # the built-ins themselves are untouched


@pytest.mark.parametrize(
    ("profiles", "message"),
    [
        ({"x": {"knowlege": 0.5}}, "unknown field(s) knowlege"),
        ({"x": {"knowledge": 1.5}}, "knowledge must be a number between 0 and 1"),
        ({"x": {"base": "nope"}}, "base 'nope'"),
        ({"x": {"confidence_when_right": {"SURE": 1}}}, "use HIGH, MEDIUM, LOW"),
        ({"x": {"format": {"emoji": 0.5}}}, "unknown format field(s) emoji"),
    ],
)
def test_bad_profiles_are_refused_with_a_message_naming_the_problem(profiles, message):
    with pytest.raises(ValueError) as caught:
        load_profiles(profiles)
    assert message in str(caught.value)


def test_knowledge_file_must_hold_questions_and_answers():
    with pytest.raises(ValueError, match="has no answer"):
        Knowledge.from_dict({"items": [{"question": "Q?", "answer": ""}]})
    with pytest.raises(ValueError, match='"items"'):
        Knowledge.from_dict({"questions": []})


def test_command_line_server_starts_and_serves_models(tmp_path):
    profiles = tmp_path / "profiles.json"
    profiles.write_text(json.dumps({"profiles": {"sim-house": {"base": "sim-expert"}}}))
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "adapters.simulator_server",
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--knowledge",
            str(KNOWLEDGE_FILE),
            "--profiles",
            str(profiles),
            "--latency-scale",
            "0",
            "--quiet",
        ],
        stderr=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    try:
        banner = process.stderr.readline()
        base_url = re.search(r"base URL (\S+)", banner).group(1)
        models = httpx.get(f"{base_url}/models", timeout=5).json()
        assert "sim-house" in [entry["id"] for entry in models["data"]]
        assert "30 items" in banner
    finally:
        process.terminate()
        process.wait(timeout=5)


def test_command_line_refuses_a_missing_knowledge_file(tmp_path):
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "adapters.simulator_server",
            "--knowledge",
            str(tmp_path / "nope.json"),
        ],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
        timeout=20,
    )
    assert result.returncode == 2
    assert "cannot read the knowledge file" in result.stderr


def test_profiles_example_in_the_docs_loads():
    docs = (Path(__file__).resolve().parents[2] / "docs" / "providers.md").read_text()
    example = re.search(r"```json\n(.*?)```", docs, re.DOTALL).group(1)
    profiles = load_profiles(json.loads(example))
    assert profiles["house-model"].knowledge == 0.65
    assert profiles["sim-expert"].latency_ms == 50
    assert profiles["sim-expert"].knowledge == load_profiles()["sim-expert"].knowledge
