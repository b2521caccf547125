"""The strict parser: one label of the menu, or a parse failure (never a bucket)."""

import pytest

from grading.parser import parse_reply
from grading.texts import DEFAULT_EXAMPLES, DEFAULT_TEXT, Case, build_request, content_hash

FOUR = ("CORRECT", "INCORRECT")
AA = ("CORRECT", "INCORRECT", "PARTIAL", "NOT_ATTEMPTED")


def test_a_readable_reply():
    parsed = parse_reply("LABEL: incorrect\nREASON: 3.1 is not 3.10.\n", FOUR)
    assert (parsed.label, parsed.reason) == ("INCORRECT", "3.1 is not 3.10.")
    assert parse_reply("\n  label:PARTIAL  \n", AA).label == "PARTIAL"


def test_a_stated_confidence_is_read_and_optional():
    parsed = parse_reply("LABEL: CORRECT\nCONFIDENCE: 0.85\nREASON: Same header.", FOUR)
    assert (parsed.label, parsed.confidence, parsed.reason) == ("CORRECT", 0.85, "Same header.")
    assert parse_reply("LABEL: INCORRECT\nconfidence: 70 %", FOUR).confidence == 0.7
    assert parse_reply("LABEL: INCORRECT\nCONFIDENCE: .5", FOUR).confidence == 0.5
    assert parse_reply("LABEL: INCORRECT", FOUR).confidence is None, "no line: none stated"
    assert "CONFIDENCE:" in DEFAULT_TEXT["en"] and "CONFIDENCE:" in DEFAULT_TEXT["ja"]


@pytest.mark.parametrize(
    "reply",
    [
        "",
        "The answer is correct.",
        "LABEL: PARTIAL\nREASON: x",  # off the four-bucket menu
        "LABEL: CORRECT\nLABEL: INCORRECT",
        "Sure! LABEL: CORRECT",
        "LABEL: CORRECT\nREASON: a\nREASON: b",
        "LABEL: CORRECT\nI am confident.",
        "**LABEL: CORRECT**",
        "LABEL: CORRECT\nCONFIDENCE: very",
        "LABEL: CORRECT\nCONFIDENCE: 1.5",
        "LABEL: CORRECT\nCONFIDENCE: 0.9\nCONFIDENCE: 0.8",
    ],
)
def test_an_unreadable_reply_is_a_parse_failure(reply):
    parsed = parse_reply(reply, FOUR)
    assert parsed.label is None and parsed.problem


def test_the_request_carries_the_case_and_never_the_configuration():
    case = Case("Which version added match?", "3.10", "a version", "3.1", "HIGH")
    text = build_request(DEFAULT_TEXT["en"], DEFAULT_EXAMPLES["en"], case, FOUR)
    assert text.rstrip().endswith("[LABELS]\nCORRECT | INCORRECT")
    tail = text[text.rfind("Grade this answer") :]
    assert (
        "[KEY]\n3.10\n" in tail
        and "[ANSWER]\n3.1\n" in tail
        and "[STATED CONFIDENCE]\nHIGH" in tail
    )
    assert "must match the key exactly" in text
    assert text.count("[ITEM]") == 1 + len(DEFAULT_EXAMPLES["en"])


def test_the_hash_covers_text_and_examples():
    base = content_hash(DEFAULT_TEXT["ja"], DEFAULT_EXAMPLES["ja"])
    assert base != content_hash(DEFAULT_TEXT["ja"], DEFAULT_EXAMPLES["ja"][:1])
    assert base != content_hash(DEFAULT_TEXT["ja"] + " ", DEFAULT_EXAMPLES["ja"])
    assert base == content_hash(DEFAULT_TEXT["ja"], [dict(e) for e in DEFAULT_EXAMPLES["ja"]])
