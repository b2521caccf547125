"""The simulator's grading profiles: settable accuracy and habits, unreadable replies."""

from adapters.simulator import Simulator
from adapters.simulator.grading import grade_reply
from adapters.simulator.profiles import load_profiles
from grading.parser import parse_reply
from grading.texts import DEFAULT_EXAMPLES, DEFAULT_TEXT, Case, build_request

FOUR = ("CORRECT", "INCORRECT")


def _ask(sim, model, case, seed=0):
    prompt = build_request(DEFAULT_TEXT["en"], DEFAULT_EXAMPLES["en"], case, FOUR)
    reply = sim.chat_completion(
        {"model": model, "seed": seed, "messages": [{"role": "user", "content": prompt}]}
    )
    assert reply.status == 200 and reply.body["model"] == model
    return reply.body["choices"][0]["message"]["content"]


def _cases(n):
    right = [Case(f"Q{i}?", f"answer {i}", "", f"answer {i}", "HIGH") for i in range(n)]
    wrong = [Case(f"Q{i}?", f"answer {i}", "", f"other {i}", "HIGH") for i in range(n)]
    return right, wrong


def _labels(sim, model, cases):
    return [parse_reply(_ask(sim, model, c), FOUR).label for c in cases]


def test_an_accurate_grader_mostly_gives_the_true_label():
    sim = Simulator({"items": []})
    right, wrong = _cases(200)
    assert _labels(sim, "sim-grader", right).count("CORRECT") >= 180
    assert _labels(sim, "sim-grader", wrong).count("INCORRECT") >= 180
    assert "simulated" in _ask(sim, "sim-grader", right[0])


def test_habits_err_one_way_only():
    sim = Simulator({"items": []})
    right, wrong = _cases(200)
    lenient_right = _labels(sim, "sim-grader-lenient", right)
    lenient_wrong = _labels(sim, "sim-grader-lenient", wrong)
    assert lenient_right.count("CORRECT") == 200
    assert 20 <= lenient_wrong.count("CORRECT") <= 60
    strict_right = _labels(sim, "sim-grader-strict", right)
    assert _labels(sim, "sim-grader-strict", wrong).count("INCORRECT") == 200
    assert 20 <= strict_right.count("INCORRECT") <= 60


def test_a_sloppy_grader_replies_unreadably_and_is_deterministic():
    sim = Simulator({"items": []})
    right, _wrong = _cases(200)
    labels = _labels(sim, "sim-grader-sloppy", right)
    assert 20 <= labels.count(None) <= 60
    assert labels == _labels(sim, "sim-grader-sloppy", right)


def test_accuracy_and_habit_are_settable_in_a_profiles_file():
    profiles = load_profiles(
        {"house-grader": {"base": "sim-grader", "grading_accuracy": 0.0, "grading_habit": "strict"}}
    )
    sim = Simulator({"items": []}, profiles)
    right, wrong = _cases(20)
    assert _labels(sim, "house-grader", right) == ["INCORRECT"] * 20
    assert _labels(sim, "house-grader", wrong) == ["INCORRECT"] * 20
    try:
        load_profiles({"bad": {"grading_habit": "moody"}})
    except ValueError as error:
        assert "grading_habit" in str(error)
    else:
        raise AssertionError("an unknown habit is refused")


def test_the_simulated_grader_states_a_confidence_where_it_is_asked():
    case = Case(question="Q?", key="Paris", answer_format="", answer="Paris", confidence="HIGH")
    asked = build_request(DEFAULT_TEXT["en"], DEFAULT_EXAMPLES["en"], case, FOUR)
    parsed = parse_reply(grade_reply(load_profiles()["sim-grader"], "sim-grader", 1, asked), FOUR)
    assert parsed.label == "CORRECT" and 0.6 <= parsed.confidence <= 1.0
    unasked = build_request("Grade it.", [], case, FOUR)
    reply = grade_reply(load_profiles()["sim-grader"], "sim-grader", 1, unasked)
    assert "CONFIDENCE" not in reply and parse_reply(reply, FOUR).confidence is None
