"""Each scorer's time: per item from the display to the last decision, pauses left out, shown
after the reveal to the scorer and to the lead, never to another scorer."""

import json
import uuid

import pytest
from django.urls import reverse

from scoring.models import Judgement
from scoring.queue import selectors, services, timing
from tests.scoring.test_decisions import start

pytestmark = pytest.mark.django_db
T0 = 1_800_000_000_000  # ms since the epoch: a fixed morning


def send(client, assignment, position, tokens, decided_ms, shown_ms):
    url = reverse("scoring:record", kwargs={"assignment_token": assignment.token})
    body = {
        "key": uuid.uuid4().hex,
        "position": position,
        "tokens": tokens,
        "bucket": "correct",
        "decided_at": decided_ms,
        "shown_at": shown_ms,
    }
    response = client.post(url, json.dumps({"decisions": [body]}), content_type="application/json")
    assert response.json()["outcomes"][0]["status"] == "saved"


def decide_everything(client, assignment, now_ms):
    """Item 1 shown at T0, decided 4 s and 10 s in; item 2 shown at 12 s, decided at 15 s;
    a pause of 10 minutes; item 3 decided 20 s after it was shown again."""
    open_groups = {
        p: [g.tokens for g in selectors.queue_item(assignment, p).groups if not g.decided]
        for p in (1, 2, 3)
    }
    plan = {1: (0, [4, 10]), 2: (12, [15]), 3: (615, [635])}
    for position, (shown, decided) in plan.items():
        groups = open_groups[position]
        for k, tokens in enumerate(groups):
            # the last group of an item at the item's last time, any others at its first
            at = decided[-1] if k == len(groups) - 1 else decided[0] + k * 0.001
            send(client, assignment, position, tokens, now_ms + at * 1000, now_ms + shown * 1000)


def test_time_per_item_leaves_pauses_out_and_shows_after_the_reveal(client, world, monkeypatch):
    monkeypatch.setattr(timing, "IDLE_SECONDS", 120)
    assignment = start(client, world, world.scored)
    now_ms = int(__import__("time").time() * 1000) - 3_600_000
    decide_everything(client, assignment, now_ms)
    t = timing.scorer_time(assignment)
    assert t.per_item[1] == pytest.approx(10, abs=0.1)  # from the display to the last decision
    assert t.per_item[2] == pytest.approx(3, abs=0.1)
    assert t.per_item[3] == pytest.approx(20, abs=0.1)  # from the display after the pause
    assert t.idle == 0 and t.active == pytest.approx(33, abs=0.2)
    # The reveal shows it; no sheet code a scorer never saw.
    services.assignment_reveal(assignment=assignment)
    page = client.get(reverse("scoring:reveal", kwargs={"assignment_token": assignment.token}))
    assert "Your time" in page.text and "Decisions per minute" in page.text
    for run in world.scored.runs.all():
        assert selectors.sheet_token(assignment, run.pk) not in page.text


def test_a_long_pause_between_decisions_is_left_out(client, world):
    assignment = start(client, world, world.scored)
    now_ms = int(__import__("time").time() * 1000) - 3_600_000
    groups = [g.tokens for g in selectors.queue_item(assignment, 2).groups if not g.decided]
    send(client, assignment, 2, groups[0], now_ms + 5_000, now_ms)
    send(client, assignment, 2, groups[1], now_ms + 905_000, now_ms)  # 15 minutes away
    t = timing.scorer_time(assignment)
    assert t.idle == 1 and t.active == pytest.approx(5, abs=0.1)


def test_the_lead_sees_revealed_scorers_and_another_scorer_sees_none(client, world):
    assignment = start(client, world, world.scored)
    now_ms = int(__import__("time").time() * 1000) - 3_600_000
    decide_everything(client, assignment, now_ms)
    url = reverse("scoring:times", kwargs={"experiment_pk": world.scored.pk})
    assert client.get(url).status_code == 403  # a scorer: not a lead's page
    client.force_login(world.users["editor"])
    assert "acme-scorer" not in client.get(url).text  # not revealed yet
    services.assignment_reveal(assignment=assignment)
    page = client.get(url)
    assert "acme-scorer" in page.text
    # Written by the one CSV writer: a BOM, CRLF, numbers as numbers (10 seconds: "10").
    rows = client.get(url + "?format=csv").content.decode("utf-8-sig").splitlines()
    assert rows[0] == "scorer,item,seconds,decisions,decisions_per_minute"
    # Each item's row has its own decisions and rate, as the "all" row has them.
    n1 = timing.scorer_time(assignment).per_item_decisions[1]
    assert n1 >= 1
    rate = f"{60 * n1 / 10:g}"
    assert f"acme-scorer,1,10,{n1},{rate}" in rows, rows
    assert all(row.split(",")[3] and row.split(",")[4] for row in rows[1:]), rows
    assert Judgement.objects.filter(assignment=assignment).count() == 6
