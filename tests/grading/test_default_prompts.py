"""Every default grading prompt shows, in its calibration examples, the three lines its
instructions ask for: a model that copies an example states a confidence the strict parser reads,
so a routing cut can be met. A team's version is never edited: the default with the old examples
gets a next version, and only where the team left it untouched."""

import importlib
import re

import pytest
from django.apps import apps

from grading import services, texts
from grading.models import GradingPrompt
from grading.parser import parse_reply

FOUR = ("CORRECT", "INCORRECT")
MIGRATION = importlib.import_module("grading.migrations.0007_default_examples_show_confidence")


def _example_replies(request_text: str) -> list[str]:
    """The reply lines shown under each example of a request, as a model would copy them."""
    examples = re.split(r"^Example \d+$", request_text.split("Grade this answer")[0], flags=re.M)
    replies = []
    for block in examples[1:]:
        after_menu = block.split("[LABELS]\n", 1)[1].split("\n", 1)[1]
        replies.append(after_menu.strip())
    return replies


def _assert_examples_parse(text, examples):
    case = texts.Case("Q?", "429", "a status code", "429", "HIGH")
    replies = _example_replies(texts.build_request(text, examples, case, FOUR))
    assert len(replies) == len(examples) >= 2
    for reply, example in zip(replies, examples, strict=True):
        assert [line.split(":")[0] for line in reply.splitlines()] == [
            "LABEL",
            "CONFIDENCE",
            "REASON",
        ], reply
        parsed = parse_reply(reply, FOUR)
        assert parsed.label == example["label"] and parsed.problem == "", reply
        assert parsed.confidence is not None and 0 < parsed.confidence <= 1


@pytest.mark.parametrize("language", sorted(texts.DEFAULT_TEXT))
def test_every_default_example_parses_and_states_a_confidence(language):
    assert "CONFIDENCE:" in texts.DEFAULT_TEXT[language]
    _assert_examples_parse(texts.DEFAULT_TEXT[language], texts.DEFAULT_EXAMPLES[language])


def test_an_older_version_keeps_its_hash():
    """The field added to examples is hashed only where given: the first defaults, stored
    without it, hash as they did."""
    for language, first in MIGRATION.FIRST.items():
        with_empty = [{**e, "label_confidence": ""} for e in first]
        text = texts.DEFAULT_TEXT[language]
        assert texts.content_hash(text, with_empty) == texts.content_hash(text, first)
        assert texts.content_hash(text, first) != texts.content_hash(
            text, texts.DEFAULT_EXAMPLES[language]
        )


def test_a_calibration_confidence_that_is_not_a_number_is_refused(world):
    from django.core.exceptions import ValidationError

    with pytest.raises(ValidationError, match="number from 0 to 1"):
        services.grading_prompt_create(
            team=world.team,
            user=None,
            name="Mine",
            text="Grade it.",
            examples=[
                {
                    "question": "Q",
                    "key": "K",
                    "answer": "A",
                    "label": "CORRECT",
                    "label_confidence": "very",
                }
            ],  # fmt: skip
        )


@pytest.mark.django_db
def test_untouched_old_defaults_get_a_next_version_and_nothing_else_changes(world):
    from probe.services.prompts import normalise_text

    team = world.team
    GradingPrompt.objects.filter(team=team).delete()
    olds = {}
    for language, first in MIGRATION.FIRST.items():
        text = normalise_text(texts.DEFAULT_TEXT[language])
        olds[language] = GradingPrompt.objects.create(
            team=team,
            name=texts.DEFAULT_NAME[language],
            language=language,
            text=text,
            examples=first,
            content_hash=texts.content_hash(text, first),
        )
    edited = services.grading_prompt_new_version(
        prompt=olds["ja"], user=None, text=olds["ja"].text + "\n追記。", note="edited"
    )
    other = world.other_team
    services.grading_prompt_defaults_ensure(team=other)
    fresh = {p.pk: p.content_hash for p in GradingPrompt.objects.filter(team=other)}

    MIGRATION.next_default_versions(apps, None)
    MIGRATION.next_default_versions(apps, None)  # twice: nothing more

    en = GradingPrompt.objects.filter(team=team, name=texts.DEFAULT_NAME["en"])
    assert sorted(en.values_list("version", flat=True)) == [1, 2]
    second = en.get(version=2)
    assert second.parent_id == olds["en"].pk and second.note == MIGRATION.NOTE
    assert second.text == olds["en"].text
    assert second.content_hash == texts.content_hash(second.text, second.examples)
    # the same version a new team gets as its first
    assert second.content_hash == GradingPrompt.objects.get(team=other, language="en").content_hash
    _assert_examples_parse(second.text, second.examples)
    olds["en"].refresh_from_db()
    assert olds["en"].examples == MIGRATION.FIRST["en"]  # never edited
    # the team's own Japanese version, and the other team's new defaults, are left alone
    ja = GradingPrompt.objects.filter(team=team, name=texts.DEFAULT_NAME["ja"])
    assert sorted(ja.values_list("version", flat=True)) == [1, edited.version]
    assert {p.pk: p.content_hash for p in GradingPrompt.objects.filter(team=other)} == fresh
