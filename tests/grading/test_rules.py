"""The deterministic grader decides only what it can decide for certain."""

import pytest

from grading.labels import CORRECT, INCORRECT, NOT_ATTEMPTED
from grading.rules import RULES_VERSION, decide


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


LEFT = "left to people"

# (key, the item's answer format, answer, the rules' verdict): the rules read the key's own shape,
# never the format, which says what kind of answer the item asked for.
TABLE = [
    # Units are case-sensitive: kilobytes are not kilobits, milliseconds not megaseconds.
    ("8 kB", "a size", "8 kb", LEFT),
    ("8 kB", "a size", "8 KB", LEFT),
    ("8 kB", "a size", "8kB", CORRECT),
    ("8 kB", "a size", "8 kB", CORRECT),
    ("8 kB", "a size", "9 kB", INCORRECT),
    ("8kB", "a size", "8kb", LEFT),
    ("1024 ms", "a duration", "1024 MS", LEFT),
    ("1,024 ms", "a duration", "1024ms", CORRECT),
    ("10 Mb/s", "a rate", "10 MB/s", LEFT),
    ("20 mA", "a current", "20 MA", LEFT),
    ("20 mA", "a current", "20 mA.", CORRECT),
    ("HTTP/2 over 443 TCP", "a phrase", "http/2 over 443 tcp", LEFT),
    ("Retry-After", "a header name", "RETRY-AFTER", CORRECT),
    # One separator and three digits: a decimal point or a thousands separator.
    ("1024", "a number", "1.024", LEFT),
    ("1024", "a number", "1,024", LEFT),
    ("1024 ms", "a duration", "1,024 ms", LEFT),
    ("1.5 s", "a duration", "1.500 s", LEFT),
    ("0.125 s", "a duration", "0.125s", CORRECT),
    ("1024", "a number", "1,048,576", INCORRECT),
    ("1048576", "a number", "1,048,576", CORRECT),
    # A version that differs only by trailing .0 parts or leading zeros may be the same release.
    ("3.8", "a version", "3.8.0", LEFT),
    ("3.1", "a version", "3.1.0", LEFT),
    ("3.10", "a version", "3.10.0", LEFT),
    ("3.8.0", "a version", "3.8", LEFT),
    ("20.04", "a version", "20.4", LEFT),
    ("3.1", "a version", "3.10.0", INCORRECT),
    ("3.8", "a version", "3.9.0", INCORRECT),
    ("3.8", "a version", "v3.8", CORRECT),
    # A scheme and a number are one identifier, written with a space or without.
    ("RFC 9113", "an RFC", "RFC 7540", INCORRECT),
    ("RFC 9113", "an RFC", "RFC7540", INCORRECT),
    ("RFC 9113", "an RFC", "rfc 9113", CORRECT),
    ("RFC 9113", "an RFC", "RFC9113", CORRECT),
    ("RFC9113", "an RFC", "rfc 9113", CORRECT),
    ("RFC 791", "an RFC", "RFC 0791", LEFT),
    ("RFC 9113", "an RFC", "RFC 9113 section 5", LEFT),
    ("CVE-2021-44228", "a CVE", "CVE 2021-44228", CORRECT),
    ("CVE-2021-44228", "a CVE", "cve-2021-45046", INCORRECT),
    ("ISO 8601", "a standard", "ISO 8601", CORRECT),
    ("ISO 8601", "a standard", "iso8601", CORRECT),
    ("ISO 8601", "a standard", "ISO 9001", INCORRECT),
    ("ISO 8601", "a standard", "ISO 8601-1", LEFT),
    ("PEP 8", "a PEP", "pep 8", CORRECT),
    ("PEP 8", "a PEP", "PEP 20", INCORRECT),
    ("RFC 9113", "an RFC", "CVE-2021-44228", LEFT),
    ("iOS 17", "a system", "IOS 17", LEFT),
    ("May 2024", "a month", "May 5", LEFT),
    ("sha256", "an algorithm", "SHA256", CORRECT),
    ("sha256", "an algorithm", "sha512", INCORRECT),
    ("2FA", "an acronym", "2fa", LEFT),
]


@pytest.mark.parametrize(("key", "answer_format", "answer", "expected"), TABLE)
def test_the_table_of_certain_and_uncertain_cases(key, answer_format, answer, expected):
    decision = decide(key=key, answer=answer, abstained=False)
    verdict = decision.label if decision else LEFT
    assert verdict == expected, (key, answer_format, answer, decision)


def test_the_rules_version_changed_with_what_they_decide():
    assert RULES_VERSION == "rules-2"


@pytest.mark.parametrize("answer", [None, "", "UNKNOWN"])
def test_an_abstention_is_not_attempted(answer):
    decision = decide(key="429", answer=answer, abstained=answer == "UNKNOWN")
    assert decision.label == NOT_ATTEMPTED
