"""The reveal while re-checks wait: refused, and the start and reveal pages say why."""

import time

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from scoring.queue import services
from scoring.review.services import key_decision_create
from tests.scoring.test_decisions import start
from tests.scoring.test_scorer_time import decide_everything

pytestmark = pytest.mark.django_db


def test_the_reveal_waits_for_rechecks_and_says_so(client, world):
    assignment = start(client, world, world.scored)
    decide_everything(client, assignment, int(time.time() * 1000) - 3_600_000)
    judged, total = services.assignment_progress(assignment)
    assert judged == total  # every answer judged: the reveal would open
    key_decision_create(
        item=world.scored.items.get(position=2),
        user=world.users["editor"],
        outcome="amended",
        new_answer="An amended key",
        source="A primary source, p. 12",
    )
    back = assignment.judgements.filter(needs_recheck=True).count()
    assert back
    with pytest.raises(ValidationError) as refused:
        services.assignment_reveal(assignment=assignment)
    assert "back for a re-check" in str(refused.value)
    assignment.refresh_from_db()
    assert assignment.revealed_at is None
    start_page = client.get(reverse("scoring:start", kwargs={"experiment_pk": world.scored.pk}))
    assert "data-start-rechecks" in start_page.text
    assert f"{back} answer" in start_page.text
    reveal = reverse("scoring:reveal", kwargs={"assignment_token": assignment.token})
    page = client.get(reveal)
    assert "data-reveal-rechecks" in page.text and "Reveal the models" not in page.text
    posted = client.post(reveal, follow=True)
    assert "back for a re-check" in posted.text
    assignment.refresh_from_db()
    assert assignment.revealed_at is None
