"""What gave a simulated sheet away, each kept out: vague non-answers ("the default value",
既定値のまま), given names put onto a real surname, a chemical formula for an equation, a number
and its parenthesised alternative torn apart or contradicting each other, "an closed", "It's
knot", a reason negated against itself, versions of a protocol that do not exist, and correct
answers that are the key word for word inside a frame."""

from __future__ import annotations

import re

import pytest

from adapters.simulator import answer_item, load_profiles, parse_prompt_items, wrong_answers
from adapters.simulator.mistakes import is_vague
from tests.adapters.test_simulator_wrong import every_answer, knowledge_of
from tests.keyreading import as_written, reads_badly, says_the_key

PROFILES = load_profiles()

# Items of the kinds a tester found giving the simulation away, in English and in Japanese.
GIVEAWAYS_EN = [
    ("What is the speed of light in vacuum, in metres per second?", "299792458 m/s"),
    ("How many joules are in one kilowatt-hour?", "3,600,000 J (3.6 MJ)"),
    ("What is the SI unit of magnetic flux?", "weber"),
    ("Which formula gives the kinetic energy of a body of mass m moving at speed v?", "E = ½mv²"),
    ("Which TLS version removed static RSA key exchange?", "TLS 1.3"),
    ("In which year was the first version of Git released?", "2005"),
    ("Which POSIX system call creates a new process by duplicating the calling one?", "fork"),
    ("Who published the first widely recognised periodic table in 1869?", "Dmitri Mendeleev"),
    (
        "Explain why ice floats on liquid water.",
        "Ice is less dense than liquid water because hydrogen bonds hold its molecules in an "
        "open hexagonal lattice.",
    ),
    ("Which treaties ended the Thirty Years' War?", "Peace of Westphalia"),
    ("What is the ISO 3166-1 alpha-2 code for Japan?", "JP"),
    ("Which navigation instrument measures the angle of a star above the horizon?", "sextant"),
    ("What unit of speed equals one nautical mile per hour?", "knot"),
    ("How many chromosomes does a typical human somatic cell have?", "46"),
    ("What is the official length of a marathon?", "42.195 km"),
    ("Who founded the Quorvina school of weaving?", "Tallo Quorvinson"),
]
GIVEAWAYS_JA = [
    ("日本酒の醸造で米のでんぷんを糖に変えるカビは何か。", "麹菌"),
    ("味噌の熟成で色が濃くなる主な反応は何か。", "メイラード反応"),
    ("羊羹を固めるのに使う海藻由来の材料は何か。", "寒天"),
    ("最中の皮は主に何から作られるか。", "もち米"),
    ("沢庵漬けの主な材料となる野菜は何か。", "大根"),
    ("日本で最も長い川は何か。", "信濃川"),
    ("梅干しを漬けるときに赤く色を付けるために使う葉は何か。", "赤じそ"),
    ("江戸幕府を開いた人物は誰か。", "徳川家康"),
]
VAGUE = re.compile(
    r"default value|first one listed|usual setting|standard one|既定値|設定次第|標準のもの|最初に挙げた"
)


def _wrong(bank, question):
    knowledge = knowledge_of(bank)
    item = next(i for i in knowledge.items if i.question == question)
    return wrong_answers(item, knowledge)


@pytest.mark.parametrize("bank", [GIVEAWAYS_EN, GIVEAWAYS_JA], ids=["en", "ja"])
def test_no_answer_is_a_vague_non_answer_and_every_one_reads_well(bank):
    seen = 0
    for item, said in every_answer(bank, seeds=range(8)):
        assert not VAGUE.search(said.answer), (item.known.answer, said.answer)
        if said.abstained:
            continue
        seen += 1
        assert reads_badly(said.answer, item.known.answer) is None, said.answer
        assert said.correct == says_the_key(said.answer, item.known.answer), said.answer
    assert seen > 100
    for item in knowledge_of(bank).items:
        for candidate in wrong_answers(item, knowledge_of(bank)):
            assert not is_vague(candidate), (item.answer, candidate)


def test_an_item_with_nothing_specific_to_say_wrong_is_abstained_on_unless_never_abstaining():
    bank = [
        ("What colour is the banner of the Quorvina guild?", "ochre with a teal border"),
        ("Which bird is carved on the Zelbrin gate?", "heron"),
        ("What does the Aldemar chant call the winter wind?", "the grey wanderer"),
    ]
    knowledge = knowledge_of(bank)
    assert all(wrong_answers(k, knowledge) == [] for k in knowledge.items)
    items = parse_prompt_items(
        "\n".join(f"{n}. {q}" for n, (q, _a) in enumerate(bank, 1)), knowledge
    )
    for model in ("sim-cautious", "sim-sloppy", "sim-expert"):
        answers = [
            answer_item(PROFILES[model], model, s, item, knowledge)
            for s in range(30)
            for item in items
        ]
        assert any(not a.correct for a in answers)
        assert all(a.abstained for a in answers if not a.correct), model
    # A model that never abstains still says something, never UNKNOWN, never "the usual".
    profile = PROFILES["sim-overconfident"]
    answers = [
        answer_item(profile, "sim-overconfident", s, item, knowledge)
        for s in range(30)
        for item in items
    ]
    assert not any(a.abstained for a in answers)


def test_a_wrong_person_is_another_real_person_whole_never_a_given_name_on_the_surname():
    wrong = _wrong(
        GIVEAWAYS_EN, "Who published the first widely recognised periodic table in 1869?"
    )
    assert wrong and "Lothar Meyer" in wrong
    assert not any("Mendeleev" in w for w in wrong)
    invented = _wrong(GIVEAWAYS_EN, "Who founded the Quorvina school of weaving?")
    assert invented and not any("Quorvinson" in w for w in invented)


def test_an_equation_is_swapped_for_a_variant_equation_never_a_chemical_formula():
    wrong = _wrong(
        GIVEAWAYS_EN,
        "Which formula gives the kinetic energy of a body of mass m moving at speed v?",
    )
    assert wrong[0] in {"E = mv²", "E = ½mv"}
    assert all("=" in w for w in wrong)


def test_a_number_with_a_parenthesised_alternative_stays_whole_and_slips_at_its_scale():
    key, question = "3,600,000 J (3.6 MJ)", "How many joules are in one kilowatt-hour?"
    assert set(_wrong(GIVEAWAYS_EN, question)) <= {"3,700,000 J", "3,500,000 J", "3,800,000 J"}
    for item, said in every_answer(GIVEAWAYS_EN, seeds=range(8)):
        if item.known.answer == key and said.correct:
            assert "3,600,000 J" in said.answer and "3.6 MJ" in said.answer, said.answer
            assert "J (3.6 MJ) (3,600,000)" not in said.answer


def test_articles_agree_and_a_reason_is_never_negated_against_itself():
    for item, said in every_answer(GIVEAWAYS_EN, seeds=range(8)):
        assert not re.search(r"\ban [b-df-hj-np-tv-z]", said.answer), said.answer
        assert not re.search(r"\ba [aeiou]", said.answer), said.answer
        assert not re.search(r"\b(?:It's|is|be) (?:knot|sextant|weber)\b", said.answer)
        if "because" in item.known.answer:
            assert "isn't" not in said.answer, said.answer
    ice = _wrong(GIVEAWAYS_EN, "Explain why ice floats on liquid water.")
    assert any("more dense" in w or "closed hexagonal" in w for w in ice)


def test_an_earlier_real_version_of_a_protocol_never_one_that_does_not_exist():
    wrong = _wrong(GIVEAWAYS_EN, "Which TLS version removed static RSA key exchange?")
    assert wrong and set(wrong) <= {"TLS 1.2", "TLS 1.1", "TLS 1.0"}


_FRAMES = re.compile(
    r"^(?:It's |The answer is |That would be |Probably |答えは|正解は)?(?P<x>.+?)"
    r"(?:, without a doubt| is the one|です|になります|が該当します)?[.。]?$"
)


@pytest.mark.parametrize("bank", [GIVEAWAYS_EN, GIVEAWAYS_JA], ids=["en", "ja"])
def test_most_correct_answers_are_said_in_the_models_own_words(bank):
    """With its frame taken off, at most half the correct answers are the key as written."""
    verbatim = total = 0
    for item, said in every_answer(bank, seeds=range(4)):
        if said.correct:
            total += 1
            bare = _FRAMES.match(said.answer)["x"]
            verbatim += as_written(bare) == as_written(item.known.answer)
    assert total > 50
    assert verbatim / total <= 0.5, verbatim / total


def test_the_question_makes_the_sentence_and_the_unit_may_be_written_out():
    said = {s.answer for _item, s in every_answer(GIVEAWAYS_EN, seeds=range(4)) if s.correct}
    assert "The SI unit of magnetic flux is the weber." in said
    assert "A typical human somatic cell has 46 chromosomes." in said
    assert "The first version of Git was released in 2005." in said
    assert any("metres per second" in s for s in said)
