"""Small state bugs of the scoring pages, each with the test that caught it."""

import re

import pytest
from django.urls import reverse

from scoring.queue import services

pytestmark = pytest.mark.django_db


def test_the_key_review_tabs_count_again_after_a_decision(client, world):
    client.force_login(world.users["editor"])
    page = reverse("scoring:key_review", kwargs={"experiment_pk": world.scored.pk})
    counts = re.compile(r'data-state="(\w+)">\w+ \((\d+)\)')
    before = dict(counts.findall(client.get(page + "?state=open").content.decode()))
    decide = reverse(
        "scoring:key_review_decide", kwargs={"experiment_pk": world.scored.pk, "position": 2}
    )
    body = client.post(
        decide,
        {"k2-outcome": "confirmed", "k2-source": "RFC 9110 §10.2.3"},
        HTTP_HX_REQUEST="true",
        HTTP_HX_CURRENT_URL="http://testserver" + page + "?state=open",
    ).content.decode()
    assert 'id="review-filters" hx-swap-oob="true"' in body
    swapped = dict(counts.findall(body[body.index('id="review-filters"') :]))
    reloaded = dict(counts.findall(client.get(page + "?state=open").content.decode()))
    assert swapped == reloaded != before  # what a reload would show, not what the page had
    assert swapped["decided"] == str(int(before["decided"]) + 1)
    assert 'href="?state=open" aria-current="page"' in body  # the filter the page was on


def test_the_reveal_names_no_sheet_code_and_gives_the_scorers_buckets(client, world):
    from tests.scoring.factories import judge_everything

    scorer = world.users["scorer"]
    client.force_login(scorer)
    assignment = services.assignment_start(experiment=world.scored, user=scorer)
    judge_everything(assignment)
    services.assignment_reveal(assignment=assignment)
    body = client.get(
        reverse("scoring:reveal", kwargs={"assignment_token": assignment.token})
    ).content.decode()
    assert "<code>" not in body and ">Sheet<" not in body
    assert "Confidently wrong" in body  # a column per bucket
    for run in world.scored.runs.all():
        assert run.label in body


def test_the_comparison_says_whose_buckets_each_side_counts(client, world):
    from tests.api.test_gate import GOOD, WORSE, _scored, _shared

    base = _scored(world, {("Model", 1): GOOD}, "Baseline")
    cand = _scored(world, {("Model", 1): WORSE}, "Candidate")
    _shared(world, base, cand)
    client.force_login(world.users["viewer"])
    body = client.get(
        f"/t/{world.team.slug}/compare/", {"baseline": base.pk, "candidate": cand.pk}
    ).content.decode()
    assert "Baseline: the buckets of its one scorer, who has judged everything" in body
    assert "Candidate: the buckets of its one scorer" in body
