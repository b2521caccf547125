"""Simulated answers read like a model's on banks no fixture holds: banks generated here, in
English and in Japanese, with keys of every answer format. No answer is a key entry as written
(its own or another item's), a correct one still says every number and word of its key, a wrong
one does not, hedges and abstentions come in each profile's shares, and a seed fixes the sheet.
The sheets are read by the app's own answer-sheet parser, as collection reads them."""

from __future__ import annotations

import random
import re
from collections import Counter

import pytest

from adapters.simulator import (
    SIMULATION_FIELD,
    Knowledge,
    PromptItem,
    Simulator,
    answer_item,
    load_profiles,
    parse_prompt_items,
)
from probe.sheetparser import parse_sheet
from tests.keyreading import as_written, contains_as_written, reads_badly, says_the_key

PROFILES = load_profiles()
JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")

_SYLLABLES = "ka ri to mo ne sa lu vi do pe zo ha mi ra ku te no".split()
_KANA = "かきくけこさしすせそたちつてとなにぬねのまみむめも"
_KANJI = "山川田中東西本木水火金土日月星光電波線路"


def word(rng: random.Random) -> str:
    return "".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 4)))


def english_item(rng: random.Random, n: int) -> tuple[str, str]:
    kind = rng.choice(["year", "count", "decimal", "name", "term", "code", "phrase", "mechanism"])
    thing = word(rng).capitalize()
    if kind == "year":
        return f"In which year was the {thing} accord {n} signed?", str(rng.randint(1500, 2020))
    if kind == "count":
        return f"How many {word(rng)} stones does the {thing} circle {n} have?", str(
            rng.randint(2, 900)
        )
    if kind == "decimal":
        return f"What is the {thing} constant {n}, to two decimals?", f"{rng.uniform(0, 99):.2f}"
    if kind == "name":
        return f"Who founded the {thing} school {n}?", f"{word(rng).capitalize()} {thing}son"
    if kind == "term":
        return f"Which {word(rng)} header does the {thing} protocol {n} send first?", (
            f"{thing}-{rng.choice(['After', 'Index', 'Before', word(rng).capitalize()])}"
        )
    if kind == "code":
        return f"Which RFC defines the {thing} format {n}?", f"RFC {rng.randint(1000, 9999)}"
    if kind == "phrase":
        return f"What does {thing}({n}) return?", f"{rng.randint(0, 9)} (round half to {word(rng)})"
    return (
        f"Why does the {thing} engine {n} stall under load?",
        f"The {word(rng)} lock is held while the {rng.choice(['client', 'server'])} writes "
        f"its {word(rng)} log",
    )


def japanese_item(rng: random.Random, n: int) -> tuple[str, str]:
    kind = rng.choice(["year", "count", "term", "latin", "phrase"])
    thing = "".join(rng.choice(_KANJI) for _ in range(2)) + rng.choice(["方式", "協定", "装置"])
    if kind == "year":
        return f"{thing}{n}が定められたのは何年か。", str(rng.randint(1600, 2020))
    if kind == "count":
        return f"{thing}{n}の部品はいくつか。", f"{rng.randint(2, 99)}個"
    if kind == "term":
        answer = "".join(rng.choice(_KANA) for _ in range(3)) + rng.choice(["読み込み", "最大"])
        return f"{thing}{n}で最初に行う処理は何か。", answer
    if kind == "latin":
        return f"{thing}{n}を定義する規格はどれか。", f"RFC {rng.randint(1000, 9999)}"
    return f"{thing}{n}の既定値は何か。", f"{rng.randint(1, 9)}（{rng.choice(_KANJI)}単位）"


def generated_bank(language: str, size: int, seed: int) -> list[tuple[str, str]]:
    rng = random.Random(f"{language}-{seed}")
    make = japanese_item if language == "ja" else english_item
    bank, seen = [], set()
    while len(bank) < size:
        question, answer = make(rng, len(bank) + 1)
        if as_written(answer) not in seen:  # a bank whose keys differ, as a real one's do
            seen.add(as_written(answer))
            bank.append((question, answer))
    return bank


def prompt_of(bank) -> str:
    items = "\n".join(f"{n}. {question}" for n, (question, _a) in enumerate(bank, 1))
    return "Answer closed-book.\nN. ANSWER: <answer>\nCONFIDENCE: HIGH|MEDIUM|LOW\n\n" + items


def ask(bank, model: str, seed: int):
    payload = {
        "model": model,
        "messages": [{"role": "user", "content": prompt_of(bank)}],
        "seed": seed,
        SIMULATION_FIELD: {"key": [{"question": q, "answer": a} for q, a in bank]},
    }
    reply = Simulator({"items": []}).chat_completion(payload)
    assert reply.status == 200, reply.body
    return reply.body["choices"][0]["message"]["content"]


def truth(bank, model: str, seed: int):
    """What the simulator meant each answer to be (right or not, hedged or not)."""
    knowledge = Knowledge.from_dict({"items": [{"question": q, "answer": a} for q, a in bank]})
    items = parse_prompt_items(prompt_of(bank), knowledge)
    language = "ja" if bank and JAPANESE.search(bank[0][0]) else "en"
    return [
        answer_item(PROFILES[model], model, seed, item, knowledge, language)
        for item in items
        if isinstance(item, PromptItem)
    ]


MODELS = ("sim-expert", "sim-overconfident", "sim-cautious", "sim-sloppy")


@pytest.mark.parametrize("language", ["en", "ja"])
@pytest.mark.parametrize("model", MODELS)
def test_no_answer_is_a_key_entry_and_each_reads_as_a_person_would_mark_it(language, model):
    bank = generated_bank(language, 60, seed=1)
    keys = {as_written(answer) for _q, answer in bank}
    for seed in (1, 2, 3):
        sheet = parse_sheet(ask(bank, model, seed), len(bank))
        meant = truth(bank, model, seed)
        assert len(sheet.answers) == len(bank) == len(meant)
        for parsed, intended, (question, key) in zip(sheet.answers, meant, bank, strict=True):
            if parsed.abstained:
                assert intended.abstained
                continue
            answer = parsed.answer
            assert as_written(answer) not in keys, (question, key, answer)
            assert reads_badly(intended.answer, key) is None, (
                reads_badly(intended.answer, key),
                key,
                intended.answer,
            )
            if not intended.correct:
                assert not contains_as_written(intended.answer, key), (key, intended.answer)
            assert "\n" not in answer
            if intended.correct:
                assert says_the_key(answer, key), (key, answer)
            else:
                assert not says_the_key(answer, key), (key, answer)
            # Said in the bank's language: no English framing around a Japanese key, and no
            # Japanese in an English sheet.
            latin = set(re.findall(r"[a-z]+", answer.casefold()))
            if language == "ja":
                assert latin <= set(re.findall(r"[a-z]+", f"{question} {key}".casefold())), answer
            else:
                assert not JAPANESE.search(answer), answer


@pytest.mark.parametrize("language", ["en", "ja"])
def test_a_wrong_number_is_near_the_right_one(language):
    bank = generated_bank(language, 150, seed=2)
    checked = 0
    for model in ("sim-overconfident", "sim-sloppy"):
        for intended, (_q, key) in zip(truth(bank, model, 1), bank, strict=True):
            right = re.fullmatch(r"(\d+)(?:個)?", key)
            if intended.correct or intended.abstained or not right:
                continue
            value = int(right.group(1))
            taken = {as_written(k) for _q, k in bank}
            if {as_written(key.replace(right.group(1), str(value + d))) for d in (1, -1)} & taken:
                continue  # the numbers next to it are other items' keys, which it never says
            said = [int(n) for n in re.findall(r"\d+", intended.answer)]
            assert said, (key, intended.answer)
            assert any(0 < abs(n - value) <= max(10, value // 10) for n in said), (key, said)
            checked += 1
    assert checked >= 10


def test_a_wrong_term_is_related_to_the_key_not_another_items_key():
    bank = [
        ("Which response header says how long to wait before retrying?", "Retry-After"),
        ("Which CSS property creates a new stacking context?", "z-index"),
        ("Which planet has the moon Titan?", "Saturn"),
        ("What is the capital of Australia?", "Canberra"),
        ("Which transport protocol does DNS use by default?", "UDP"),
        ("What is the default TCP port of PostgreSQL?", "5432"),
    ]
    knowledge = Knowledge.from_dict({"items": [{"question": q, "answer": a} for q, a in bank]})
    from adapters.simulator import wrong_answers

    firsts = {item.answer: wrong_answers(item, knowledge)[0] for item in knowledge.items}
    # A real header, property, planet, city or protocol of the same kind; never a made-up one.
    assert firsts["Retry-After"] in {"Expires", "X-RateLimit-Reset"}
    assert firsts["z-index"] in {"isolation", "opacity", "position"}
    assert firsts["Saturn"] in {"Mercury", "Venus", "Mars", "Jupiter", "Uranus", "Neptune"}
    assert firsts["Canberra"] in {"Sydney", "Melbourne"}
    assert firsts["UDP"] in {"TCP", "SCTP"}
    assert firsts["5432"] in {"5431", "5433"}


@pytest.mark.parametrize("language", ["en", "ja"])
def test_a_seed_fixes_the_sheet_and_another_seed_is_another_repeat(language):
    bank = generated_bank(language, 40, seed=3)
    assert ask(bank, "sim-expert", 5) == ask(bank, "sim-expert", 5)
    assert ask(bank, "sim-expert", 5) != ask(bank, "sim-expert", 6)


@pytest.mark.parametrize("model", MODELS)
def test_knowledge_abstentions_and_hedges_come_in_the_profiles_shares(model):
    """Over 600 answers: the share known, the share of UNKNOWN among the items not known, and
    the share of hedged guesses among those rated below HIGH, each within 0.08 of the profile's,
    with the parser reading as hedged exactly the answers the simulator hedged."""
    profile = PROFILES[model]
    counts: Counter = Counter()
    for language in ("en", "ja"):
        bank = generated_bank(language, 100, seed=4)
        for seed in (1, 2, 3):
            sheet = parse_sheet(ask(bank, model, seed), len(bank))
            for parsed, intended in zip(sheet.answers, truth(bank, model, seed), strict=True):
                counts["all"] += 1
                if intended.correct:
                    counts["known"] += 1
                    assert not parsed.hedged, parsed.answer
                    continue
                counts["not known"] += 1
                if parsed.abstained:
                    counts["abstained"] += 1
                    continue
                assert parsed.hedged == intended.hedged, parsed.answer
                if intended.confidence != "HIGH":
                    counts["unsure guesses"] += 1
                    counts["hedged"] += intended.hedged
    assert abs(counts["known"] / counts["all"] - profile.knowledge) <= 0.08
    abstained = counts["abstained"] / counts["not known"]
    assert abs(abstained - profile.abstain_when_unsure) <= 0.08
    if counts["unsure guesses"] >= 20:
        hedged = counts["hedged"] / counts["unsure guesses"]
        assert abs(hedged - profile.hedge_when_unsure) <= 0.12
    else:
        assert profile.hedge_when_unsure == 0 or profile.confidence_when_wrong.get("HIGH", 0) > 0.9


def _expected_shares(profile) -> dict[str, float]:
    """The shares a profile states, of all answers: known items, UNKNOWN, and each confidence
    (right answers rated by ``confidence_when_right``, guesses by ``confidence_when_wrong``)."""
    k, a = profile.knowledge, profile.abstain_when_unsure
    right, wrong = profile.confidence_when_right, profile.confidence_when_wrong
    guesses = (1 - k) * (1 - a)
    shares = {"known": k, "UNKNOWN": (1 - k) * a}
    for level in ("HIGH", "MEDIUM", "LOW"):
        shares[level] = k * right.get(level, 0) / sum(right.values()) + guesses * wrong.get(
            level, 0
        ) / sum(wrong.values())
    return shares


def _within(measured: int, total: int, expected: float, name: str) -> None:
    error = (max(expected * (1 - expected), 0.0025) / total) ** 0.5
    assert abs(measured / total - expected) <= 3.5 * error, (name, measured / total, expected)


@pytest.mark.parametrize("model", MODELS)
def test_confidence_abstention_and_hedge_shares_match_the_profile(model):
    """Over 800 distinct items (400 English, 400 Japanese, one seed), as the parser reads the
    sheets: the shares of known items, UNKNOWN, HIGH, MEDIUM and LOW among all answers, and of
    hedged answers among the guesses rated below HIGH, each within 3.5 standard errors of what
    the profile states."""
    profile = PROFILES[model]
    counts: Counter = Counter()
    total = 0
    for language in ("en", "ja"):
        bank = generated_bank(language, 400, seed=7)
        sheet = parse_sheet(ask(bank, model, 1), len(bank))
        for parsed, intended in zip(sheet.answers, truth(bank, model, 1), strict=True):
            total += 1
            counts["known"] += intended.correct
            if parsed.abstained:
                counts["UNKNOWN"] += 1
                continue
            assert parsed.confidence in (intended.confidence, None)  # None: the line left out
            counts[intended.confidence] += 1
            if not intended.correct and intended.confidence != "HIGH":
                counts["unsure guesses"] += 1
                counts["hedged"] += parsed.hedged
            else:
                assert not parsed.hedged, parsed.answer
    for name, expected in _expected_shares(profile).items():
        _within(counts[name], total, expected, name)
    if profile.hedge_when_unsure and counts["unsure guesses"]:
        _within(counts["hedged"], counts["unsure guesses"], profile.hedge_when_unsure, "hedged")
    else:
        assert counts["hedged"] == 0


@pytest.mark.parametrize("language", ["en", "ja"])
def test_a_seed_fixes_every_answer_on_the_varied_banks(language):
    from tests.adapters.wrong_banks import ENGLISH_VARIED, JAPANESE_VARIED

    bank = ENGLISH_VARIED if language == "en" else JAPANESE_VARIED
    for model in MODELS:
        assert ask(bank, model, 11) == ask(bank, model, 11)  # a fresh simulator each time
    assert any(ask(bank, model, 11) != ask(bank, model, 12) for model in MODELS)


def test_a_chatty_model_chats_in_the_banks_language():
    """A sloppy model's preamble and closing remark are in Japanese around a Japanese sheet."""
    bank = generated_bank("ja", 10, seed=5)
    chatter = []
    for seed in range(8):
        for line in ask(bank, "sim-sloppy", seed).splitlines():
            if line.strip() and not re.search(r"answer|confidence", line, re.IGNORECASE):
                chatter.append(line)
    assert chatter  # sim-sloppy chats in most replies
    assert all(JAPANESE.search(line) and not re.search(r"[A-Za-z]{3,}", line) for line in chatter)
