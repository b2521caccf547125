"""The deterministic grader decides only what it can decide for certain."""

import pytest

from grading.labels import CORRECT, INCORRECT, NOT_ATTEMPTED
from grading.rules import decide


@pytest.mark.parametrize(
    ("key", "answer", "label", "rule"),
    [
        ("Retry-After", "retry-after", CORRECT, "same_text"),
        ("Retry-After", "  **Retry-After.** ", CORRECT, "same_text"),
        ("東京", "東京。", CORRECT, "same_text"),
        ("1,024 ms", "1024ms", CORRECT, "number"),
        ("1,024 ms", "1024 ms", CORRECT, "number"),
        ("１２３", "123", CORRECT, "same_text"),
        ("3.5 GB", "3.4 GB", INCORRECT, "number"),
        ("429", "428", INCORRECT, "number"),
        ("-5", "5", INCORRECT, "number"),
        ("3.10", "3.1", INCORRECT, "version"),
        ("3.10", "v3.10", CORRECT, "version"),
        ("3.10", "3.10.0", INCORRECT, "version"),
        ("2024-03-05", "5 March 2024", CORRECT, "date"),
        ("2024-03-05", "2024年3月5日", CORRECT, "date"),
        ("2024-03-05", "March 6, 2024", INCORRECT, "date"),
        ("CVE-2021-44228", "cve-2021-44228", CORRECT, "same_text"),
        ("CVE-2021-44228", "CVE-2021-45046", INCORRECT, "identifier"),
        ("RFC9110", "RFC9111", INCORRECT, "identifier"),
    ],
)
def test_decides_what_is_certain(key, answer, label, rule):
    decision = decide(key=key, answer=answer, abstained=False)
    assert decision is not None and (decision.label, decision.rule) == (label, rule)


@pytest.mark.parametrize(
    ("key", "answer"),
    [
        ("Retry-After", "the Retry-After header"),  # words around it: a reader decides
        ("429", "Probably 429"),  # a hedge
        ("1,024 ms", "1 s"),  # another unit
        ("2.0", "2"),  # a version against a bare number
        ("Paris", "Lyon"),  # two phrases: different words are not certainly wrong
        ("RFC9110", "RFC 9110 section 10"),
        ("", "anything"),  # no key
    ],
)
def test_leaves_what_is_not(key, answer):
    assert decide(key=key, answer=answer, abstained=False) is None


@pytest.mark.parametrize("answer", [None, "", "UNKNOWN"])
def test_an_abstention_is_not_attempted(answer):
    decision = decide(key="429", answer=answer, abstained=answer == "UNKNOWN")
    assert decision.label == NOT_ATTEMPTED
