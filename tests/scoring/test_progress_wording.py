"""The scorer's progress says what they judged themselves: an UNKNOWN or missing answer is
preset to the abstention bucket when they start (as are carried buckets and, when the
experiment is routed, a grader's), and counts as decided, never as judged by them. Before any
decision the item page, the overview and the reveal page say "0 / N judged by you" and how many
answers were set before they began; the agreement page says in a sentence what it leaves out."""

import re

import pytest
from django.urls import reverse
from django.utils import translation

from probe.services.preferences import user_language_set
from scoring.queue import selectors, services
from scoring.reconciliation.services import reconciliation_start
from scoring.templatetags.scoring_tags import own_progress
from tests.review.conftest import build_experiment
from tests.scoring.factories import judge, responses_in_order

pytestmark = pytest.mark.django_db


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


@pytest.fixture
def experiment(world):
    return build_experiment(
        world,
        sheets=[
            (world.config, 1, [("a", "HIGH"), ("b", "LOW"), ("UNKNOWN", ""), ("d", "MEDIUM")]),
            (world.config, 2, [("a", "HIGH"), ("x", "HIGH"), ("c", "LOW"), ("UNKNOWN", "")]),
        ],
        keys=["a", "b", "c", "d"],
        name="Progress",
    )


def test_before_any_decision_nothing_is_judged_by_the_scorer(world, client, experiment):
    assignment = services.assignment_start(experiment=experiment, user=world.users["scorer"])
    item = selectors.queue_item(assignment, 1)
    assert (item.judged, item.total, item.preset) == (2, 8, 2)
    assert own_progress(item) == (0, 6, 0)
    client.force_login(world.users["scorer"])
    page = _text(
        client.get(
            reverse("scoring:item", kwargs={"assignment_token": assignment.token, "position": 1})
        ).content.decode()
    )
    assert "0 / 6 judged by you" in page
    assert "(and 2 answers set before you began: UNKNOWN or missing, or decided already)" in page
    assert "2 / 8 judged" not in page
    overview = _text(
        client.get(
            reverse("scoring:overview", kwargs={"assignment_token": assignment.token})
        ).content.decode()
    )
    assert "0 / 6 judged by you" in overview and "2 answers set before you began" in overview
    reveal = _text(
        client.get(
            reverse("scoring:reveal", kwargs={"assignment_token": assignment.token})
        ).content.decode()
    )
    assert "You have judged 2 of 8 responses" in reveal
    assert "2 of them were set before you began" in reveal

    # One decision of the scorer's own: one judged by them.
    responses = responses_in_order(experiment)
    judge(assignment, {responses[0]: "correct"})
    item = selectors.queue_item(assignment, 1)
    assert own_progress(item) == (1, 6, 17)
    # A preset answer the scorer judges again is theirs.
    unknown = next(r for r in responses if r.abstained)
    judge(assignment, {unknown: "abstained"})
    item = selectors.queue_item(assignment, 1)
    assert (item.judged, item.preset, *own_progress(item)) == (3, 1, 2, 7, 29)


def test_the_japanese_page_says_it_too(world, client, experiment):
    assignment = services.assignment_start(experiment=experiment, user=world.users["scorer"])
    user_language_set(user=world.users["scorer"], language="ja")
    client.force_login(world.users["scorer"])
    try:
        page = _text(
            client.get(
                reverse(
                    "scoring:item", kwargs={"assignment_token": assignment.token, "position": 1}
                )
            ).content.decode()
        )
    finally:
        translation.activate("en")
    assert "0 / 6 件をあなたが判定済み" in page
    assert "始める前に設定済みの回答が 2 件" in page


def test_the_agreement_page_says_what_it_leaves_out(world, client, experiment):
    responses = responses_in_order(experiment)
    for role in ("scorer", "editor"):
        assignment = services.assignment_start(experiment=experiment, user=world.users[role])
        judge(
            assignment,
            {r: ("abstained" if r.abstained else "correct") for r in responses if not r.abstained},
        )
    reconciliation_start(experiment=experiment, user=world.users["owner"])
    client.force_login(world.users["owner"])
    page = _text(
        client.get(
            reverse("scoring:agreement", kwargs={"experiment_pk": experiment.pk})
        ).content.decode()
    )
    assert (
        "Left out of every figure here: the answers nobody judged here, that is UNKNOWN and "
        "missing answers (preset to the abstention bucket when a scorer starts), buckets carried "
        "from an earlier experiment and, in a routed experiment, the answers a grader decided "
        "alone (2 answers here)." in page
    )
