"""A lead's queue across the team's experiments, with counts that follow each decision."""

import re

import pytest
from django.urls import reverse

from probe.models import Membership
from scoring.queue import services
from scoring.review import selectors as review

pytestmark = pytest.mark.django_db


def counts(body: str, experiment) -> dict[str, str]:
    row = body[body.index(f">{experiment.name}</a>") :].split("</tr>", 1)[0]
    found = dict(re.findall(r'data-count="(\w+)">(\d+)<', row))
    if "not begun" in row:
        found["reconcile"] = "not begun"
    return found


def membership(world, role):
    return Membership.objects.get(team=world.team, user=world.users[role])


def test_the_lead_sees_what_waits_and_it_follows_a_dispute(client, world):
    client.force_login(world.users["editor"])
    url = reverse("scoring:lead_queue", kwargs={"team_slug": world.team.slug})
    before = counts(client.get(url).content.decode(), world.scored)
    assert before["reconcile"] == "not begun" and before["disputes"] == "0"
    # A scorer disputes a key: the lead's queue has it at its next reading.
    assignment = services.assignment_start(experiment=world.scored, user=world.users["scorer"])
    item = world.scored.items.get(position=1)
    services.dispute_raise(assignment=assignment, item=item, note="The RFC says otherwise")
    fragment = client.get(url, HTTP_HX_REQUEST="true").content.decode()
    assert 'hx-trigger="every 15s"' in fragment and "<html" not in fragment
    after = counts(fragment, world.scored)
    assert after["disputes"] == "1"
    # The keys to review are the key review's own open entries.
    entries = review.review_queue(
        world.scored, user=world.users["editor"], membership=membership(world, "editor")
    )
    assert after["keys"] == str(sum(1 for e in entries if e.is_open))
    # Another team's experiments are not in it.
    assert "Rival" not in fragment


def test_a_scorer_has_no_lead_queue(client, world):
    client.force_login(world.users["scorer"])
    url = reverse("scoring:lead_queue", kwargs={"team_slug": world.team.slug})
    assert client.get(url).status_code == 403
