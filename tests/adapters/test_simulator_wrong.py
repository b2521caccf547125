"""A simulated model's wrong answers are made from the item's own key, and never are a key entry.

No simulated answer (right, wrong, hedged or guessed) equals its item's key entry or any other
item's, folded as the app folds answers: on banks hypothesis generates (keys crowded together
on purpose: neighbouring years, one identifier a part away from another) and on two small banks
written here, in English and in Japanese. A wrong answer is never the question's words alone,
and what it says beyond its own key comes from the simulator's built-in word lists, not from
another item's key."""

from __future__ import annotations

import re
import unicodedata

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adapters.simulator import (
    ABSTAIN_ANSWER,
    ABSTENTIONS,
    FAMILIES,
    SIMULATION_FIELD,
    Knowledge,
    PromptItem,
    Simulator,
    answer_item,
    contains_key,
    guess,
    load_profiles,
    parse_prompt_items,
    wrong_answers,
)
from adapters.simulator.vocabulary import (
    EN_NEGATIONS,
    JA_NEGATIONS,
    NEAR_WORDS,
    SENTENCE_SWAPS,
)
from probe.sheetparser import parse_sheet
from tests.adapters.wrong_banks import (
    EDGE_ENGLISH,
    EDGE_JAPANESE,
    ENGLISH,
    ENGLISH_VARIED,
    JAPANESE,
    JAPANESE_VARIED,
)
from tests.keyreading import (
    as_written,
    contains_as_written,
    parts_of,
    reads_badly,
    says_the_key,
)

PROFILES = load_profiles()
MODELS = tuple(PROFILES)
JAPANESE_TEXT = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")


def knowledge_of(bank) -> Knowledge:
    return Knowledge.from_dict({"items": [{"question": q, "answer": a} for q, a in bank]})


def every_answer(bank, seeds=(0, 1, 2)):
    """Each item's answer from every model and seed, as the simulator means it."""
    knowledge = knowledge_of(bank)
    prompt = "\n".join(f"{n}. {q}" for n, (q, _a) in enumerate(bank, 1))
    items = parse_prompt_items(prompt, knowledge)
    language = (
        "ja" if sum(bool(JAPANESE_TEXT.search(q)) for q, _a in bank) * 2 > len(bank) else "en"
    )
    for model in MODELS:
        for seed in seeds:
            for item in items:
                assert isinstance(item, PromptItem)
                yield item, answer_item(PROFILES[model], model, seed, item, knowledge, language)


# Keys crowded together: years a step apart, versions, identifiers sharing parts, family terms.
_year = st.integers(1640, 1660).map(str)
_count = st.integers(0, 30).map(str)
_decimal = st.tuples(st.integers(0, 5), st.integers(0, 99)).map(lambda p: f"{p[0]}.{p[1]:02d}")
_version = st.tuples(st.integers(1, 4), st.integers(0, 3), st.integers(0, 3)).map(
    lambda p: f"{p[0]}.{p[1]}.{p[2]}"
)
_date = st.tuples(st.integers(2000, 2002), st.integers(1, 3), st.integers(1, 3)).map(
    lambda p: f"{p[0]}-{p[1]:02d}-{p[2]:02d}"
)
_term = st.sampled_from([t for family in FAMILIES[:40] for t in family])
_part = st.sampled_from(["max", "min", "size", "length", "count", "name", "id", "key", "user"])
_identifier = st.tuples(_part, st.sampled_from(["_", "-", ""]), _part).map(
    lambda p: f"{p[0]}{p[1]}{p[2].capitalize() if not p[1] else p[2]}"
)
_sentence = st.tuples(
    st.sampled_from(["The lock", "The client", "A row", "The cache"]),
    st.sampled_from(["is", "is not", "was", "can be"]),
    st.sampled_from(["held", "read", "written", "released"]),
    st.sampled_from(["before the commit", "after the request", "while the server writes"]),
).map(" ".join)
_japanese = st.sampled_from(
    ["最大", "最小", "読み込み", "書き込み", "水素", "酸素", "金星", "火星", "紫式部"]
) | st.tuples(
    st.sampled_from(["キャッシュを", "ロックを", "接続を"]),
    st.sampled_from(["保持する", "解放する", "保持しない", "送信する"]),
).map("".join)
_free = st.text(
    alphabet=st.characters(categories=("L", "N"), max_codepoint=0x9FFF), min_size=1, max_size=12
)
KEY = (
    _year
    | _count
    | _decimal
    | _version
    | _date
    | _term
    | _identifier
    | _sentence
    | _japanese
    | _free
).filter(lambda key: as_written(key) and as_written(key) != as_written(ABSTAIN_ANSWER))


@st.composite
def banks(draw):
    keys = draw(st.lists(KEY, min_size=2, max_size=12, unique_by=as_written))
    japanese = draw(st.booleans())
    ask = "{n}番目の項目の答えは何か。" if japanese else "What is the answer to item {n}?"
    return [(ask.format(n=n), key) for n, key in enumerate(keys, 1)]


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(banks())
def test_no_simulated_answer_is_a_key_entry_on_generated_banks(bank):
    # The abstention "UNKNOWN" is kept out of the keys (the filter above): it is an abstention,
    # not an answer, and the brief keeps abstentions as they are.
    keys = {as_written(key) for _q, key in bank}
    knowledge = knowledge_of(bank)
    for item in knowledge.items:
        for candidate in wrong_answers(item, knowledge):
            assert as_written(candidate) not in keys, (item.answer, candidate)
    for item, said in every_answer(bank, seeds=(0, 1)):
        if said.abstained:
            continue
        assert as_written(said.answer) not in keys, (item.known.answer, said.answer)
        if not said.correct:
            assert not contains_as_written(said.answer, item.known.answer), said.answer


def _words(text: str) -> set[str]:
    words, runs = parts_of(text)
    return words | set(runs)


def _built_in_words() -> set[str]:
    """Every word of the simulator's vocabulary (a family term may be several words: a name)."""
    terms = {t for family in FAMILIES for t in family}
    terms |= set(NEAR_WORDS) | {n for nears in NEAR_WORDS.values() for n in nears}
    terms |= set(SENTENCE_SWAPS) | {n for nears in SENTENCE_SWAPS.values() for n in nears}
    terms |= {n for _p, n in JA_NEGATIONS} | set(EN_NEGATIONS.values())
    found = set()
    for term in terms:
        words, runs = parts_of(term)
        found |= words | set(runs)
    return found


def _one_part_changed(word: str, key_words: set[str], built_in: set[str]) -> bool:
    """``word`` is a key word with one part (getElementBy*Id* -> *Key*) said as another
    built-in word of the identifier parts the simulator knows."""
    parts = {p.casefold(): {n.casefold() for n in nears} for p, nears in NEAR_WORDS.items()}
    for key_word in key_words:
        for part, nears in parts.items():
            at = key_word.find(part)
            while at >= 0:
                if any(key_word[:at] + n + key_word[at + len(part) :] == word for n in nears):
                    return True
                at = key_word.find(part, at + 1)
    return False


def _japanese_from(run: str, own: list[str], built_in: set[str]) -> bool:
    """A run of Japanese of a wrong answer is one of the key's runs with one piece said as a
    built-in word (a term swapped, a predicate negated) or as another number, nothing else."""
    for key_run in own:
        start = 0
        while start < min(len(run), len(key_run)) and run[start] == key_run[start]:
            start += 1
        end = 0
        while end < min(len(run), len(key_run)) - start and run[-1 - end] == key_run[-1 - end]:
            end += 1
        for back in range(3):  # a swapped word may share its first or last kana with the key's
            for forth in range(3):
                s0, e0 = max(0, start - back), max(0, end - forth)
                middle = run[s0 : len(run) - e0]
                if middle in built_in or re.fullmatch(r"[\d０-９]*", middle):
                    return True
    return False


def test_written_banks_answers_are_no_key_entry_and_wrong_ones_come_from_their_own_key():
    built_in = _built_in_words()
    for bank in (ENGLISH, JAPANESE):
        keys = {as_written(key) for _q, key in bank}
        knowledge = knowledge_of(bank)
        for item in knowledge.items:
            candidates = wrong_answers(item, knowledge)
            assert candidates, item.answer
            own = _words(item.answer)
            for candidate in candidates:
                assert as_written(candidate) not in keys, (item.answer, candidate)
                for word in _words(candidate) - own:
                    # A word beyond the key's own: a built-in near term, a slipped number, a
                    # misremembered name, a Japanese negation - never a piece of another key.
                    assert (
                        word in built_in
                        or re.fullmatch(r"[\d.,\-]+", word)
                        or (word[-2:] in ("st", "nd", "rd", "th") and word[:-2].isdigit())
                        or _one_part_changed(word, own, built_in)
                        or (JAPANESE_TEXT.search(word) and _japanese_from(word, own, built_in))
                    ), (item.answer, candidate, word)
        for item, said in every_answer(bank):
            if not said.abstained:
                assert as_written(said.answer) not in keys, (item.known.answer, said.answer)


def _question_words_alone(answer: str, question: str) -> bool:
    words, runs = parts_of(answer)
    asked, asked_runs = parts_of(question)
    return words <= asked and all(any(run in a for a in asked_runs) for run in runs)


def test_no_wrong_answer_or_guess_is_the_questions_words_alone():
    for bank in (ENGLISH, JAPANESE):
        knowledge = knowledge_of(bank)
        for item in knowledge.items:
            for candidate in wrong_answers(item, knowledge):
                assert not _question_words_alone(candidate, item.question), candidate
        for item, said in every_answer(bank):
            if not said.abstained and not said.correct:
                assert not _question_words_alone(said.answer, item.known.question), said.answer
    # Items outside the key sent: the model guesses from the question alone, and says more
    # than the question did, in the bank's language.
    unseen_en = ["Which mechanism keeps the connection pool warm?", "What does the flag do?"]
    unseen_ja = ["この方式の特徴は何か。", "既定の動作はどれか。"]
    knowledge = knowledge_of(ENGLISH)
    for question in unseen_en:
        said = guess(question, knowledge, "en")
        assert not _question_words_alone(said, question), said
        assert not JAPANESE_TEXT.search(said)
    for question in unseen_ja:
        said = guess(question, knowledge_of(JAPANESE), "ja")
        assert not _question_words_alone(said, question), said
        assert JAPANESE_TEXT.search(said), said


def test_japanese_items_get_japanese_answers_through_the_server():
    payload = {
        "model": "sim-overconfident",
        "messages": [
            {
                "role": "user",
                "content": "\n".join(f"{n}. {q}" for n, (q, _a) in enumerate(JAPANESE, 1)),
            }
        ],
        "seed": 3,
        SIMULATION_FIELD: {"key": [{"question": q, "answer": a} for q, a in JAPANESE]},
    }
    first = Simulator({"items": []}).chat_completion(payload).body["choices"][0]["message"]
    again = Simulator({"items": []}).chat_completion(payload).body["choices"][0]["message"]
    assert first["content"] == again["content"]  # deterministic for a seed
    sheet = parse_sheet(first["content"], len(JAPANESE))
    keys = {as_written(key) for _q, key in JAPANESE}
    for parsed, (question, key) in zip(sheet.answers, JAPANESE, strict=True):
        if parsed.abstained:
            continue
        assert as_written(parsed.answer) not in keys
        latin = set(re.findall(r"[a-z]+", parsed.answer.casefold()))
        assert latin <= set(re.findall(r"[a-z]+", f"{question} {key}".casefold())), parsed.answer
        assert JAPANESE_TEXT.search(parsed.answer) or re.fullmatch(r"[\w\-. ]+", key), parsed.answer


# How the answers read, on banks of varied keys ------------------------------------------------

BANKS = {
    "en": ENGLISH + ENGLISH_VARIED,
    "ja": JAPANESE + JAPANESE_VARIED,
    "en-edge": EDGE_ENGLISH,
    "ja-edge": EDGE_JAPANESE,
}


@pytest.mark.parametrize("bank_name", ["en", "ja", "en-edge", "ja-edge"])
def test_no_answer_is_a_key_entry_no_wrong_one_contains_its_key_and_every_one_reads_well(
    bank_name,
):
    bank, language = BANKS[bank_name], bank_name[:2]
    assert len({q for q, _a in bank}) == len(bank)  # one item per question, as the app's banks
    keys = {as_written(key) for _q, key in bank}
    knowledge = knowledge_of(bank)
    seen = 0
    for item in knowledge.items:
        for candidate in wrong_answers(item, knowledge, language):
            assert not contains_as_written(candidate, item.answer), (item.answer, candidate)
    for item, said in every_answer(bank, seeds=range(6 if len(bank) > 20 else 24)):
        if said.abstained:
            continue
        seen += 1
        key = item.known.answer
        assert as_written(said.answer) not in keys, (key, said.answer)
        assert reads_badly(said.answer, key) is None, (
            reads_badly(said.answer, key),
            key,
            said.answer,
        )
        if not as_written(key):
            continue  # a key of punctuation alone: said as it is, nothing to grade
        if said.correct:
            assert says_the_key(said.answer, key), (key, said.answer)
        else:
            assert not says_the_key(said.answer, key), (key, said.answer)
            assert not contains_as_written(said.answer, key), (key, said.answer)
    assert seen > 500


def test_the_containment_rule_refuses_the_key_with_a_negation_and_allows_a_longer_word():
    assert contains_key("Xではない", "X") and contains_key("「紫式部」ではない", "紫式部")
    assert contains_key("not George Eliot", "george eliot")
    assert contains_key("二酸化水素", "水素")  # Japanese: wherever it stands
    assert contains_key("It's 42.", "42") and not contains_key("It's 420.", "42")
    assert not contains_key("H2O2", "H2O") and not contains_key("That would be b.", "a")
    assert contains_key("The answer is ３．１１.", "3.11")  # width and punctuation folded


@pytest.mark.parametrize("language", ["en", "ja"])
def test_a_japanese_bank_abstains_in_japanese_and_the_parser_reads_it(language):
    bank = BANKS[language]
    abstentions = [said.answer for _item, said in every_answer(bank) if said.abstained]
    assert len(abstentions) >= 20
    for answer in abstentions:
        if language == "ja":
            assert answer in ABSTENTIONS["ja"] and answer != "UNKNOWN"
        else:
            assert answer == "UNKNOWN"
    payload = {
        "model": "sim-cautious",
        "messages": [
            {"role": "user", "content": "\n".join(f"{n}. {q}" for n, (q, _a) in enumerate(bank, 1))}
        ],
        "seed": 4,
        SIMULATION_FIELD: {"key": [{"question": q, "answer": a} for q, a in bank]},
    }
    content = Simulator({"items": []}).chat_completion(payload).body["choices"][0]["message"]
    sheet = parse_sheet(content["content"], len(bank))
    written = [line for line in content["content"].splitlines() if "ANSWER:" in line]
    said = [line.split("ANSWER:", 1)[1].strip() for line in written]
    for parsed, text in zip(sheet.answers, said, strict=True):
        assert parsed.abstained == (text in ABSTENTIONS["ja" if language == "ja" else "en"])
    assert "UNKNOWN" not in content["content"] if language == "ja" else True


_FULLWIDTH = re.compile(r"[０-９]")


def _numbers(text: str) -> list[str]:
    return re.findall(r"\d+(?:[.,]\d+)*", unicodedata.normalize("NFKC", text))


@pytest.mark.parametrize("language", ["en", "ja"])
def test_a_near_number_keeps_the_keys_form(language):
    """Integers stay integers, decimals keep their places, versions their parts, full-width
    digits stay full-width, a unit stays, nothing is 0 unless the key is, years stay years."""
    bank = BANKS[language]
    knowledge = knowledge_of(bank)
    checked = 0
    for item in knowledge.items:
        key = item.answer
        if re.search(r"[A-Za-z]\d|\d[A-Za-z]", key) or not _numbers(key):
            continue  # a formula or a name with a digit (H2O, SHA-256): swapped as a term
        right = _numbers(key)
        for candidate in wrong_answers(item, knowledge, language):
            said = _numbers(candidate)
            if not said:
                continue  # a term, not a number
            checked += 1
            assert len(said) <= len(right), (key, candidate)
            for number in said:
                assert number.strip("0.,") or "0" in right, (key, candidate)
            shape = re.compile(r"\d+(?:,\d{3})*")  # 1,100 and 900 are both integers
            shapes = {shape.sub("9", n) for n in right}
            assert {shape.sub("9", n) for n in said} <= shapes, (key, candidate)
            assert bool(_FULLWIDTH.search(candidate)) == bool(_FULLWIDTH.search(key)), candidate
            unit = re.sub(r"[\d.,\s０-９．]", "", key)
            if unit and not unit[:1].isupper():  # a unit (km, %, 億, メートル), not a name
                assert unit in re.sub(r"[\d.,\s０-９．]", "", candidate), (key, candidate)
            for year in (int(n) for n in said if re.fullmatch(r"1\d{3}|20\d{2}", n)):
                assert 1000 <= year <= 2100
    assert checked >= 20


def test_formulas_names_and_terms_are_swapped_for_real_ones_of_their_kind():
    knowledge = knowledge_of(BANKS["en"] + BANKS["ja"])
    by_key = {(item.answer, item.question[:1].isascii()): item for item in knowledge.items}
    water = wrong_answers(by_key["H2O", True], knowledge)
    assert set(water) <= {"H2S", "NH3", "CH4"}  # never H3O, H1O
    assert set(wrong_answers(by_key["Isaac Newton", True], knowledge)) <= {
        "Gottfried Leibniz",
        "Robert Hooke",
    }
    assert set(wrong_answers(by_key["水素", False], knowledge)) <= {
        "酸素",
        "窒素",
        "炭素",
        "ヘリウム",
    }
    assert wrong_answers(by_key["RFC 9110", True], knowledge)[0] in {"RFC 9109", "RFC 9111"}
    assert wrong_answers(by_key["3.10", True], knowledge)[0] in {"3.9", "3.11", "3.12"}
    assert set(wrong_answers(by_key["約1億2千万人", False], knowledge)) <= {
        "約1億3千万人",
        "約1億1千万人",
        "約1億4千万人",
        "約1億5千万人",
    }
