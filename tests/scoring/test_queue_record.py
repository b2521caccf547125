"""The scoring page's queue of decisions: each applied once whatever the retries, in order, and
refused with what stands instead when the page it was made on no longer holds."""

import json
import uuid

import pytest
from django.urls import reverse

from probe.models import Experiment
from scoring.models import Bucket, DecisionReceipt, Judgement, JudgementChange
from scoring.queue import selectors, services
from tests.scoring.factories import key_decision
from tests.scoring.test_decisions import decide, high_wrong_experiment, start, tokens_of

pytestmark = pytest.mark.django_db


def record(client, assignment, *decisions, raw=None):
    url = reverse("scoring:record", kwargs={"assignment_token": assignment.token})
    body = raw if raw is not None else json.dumps({"decisions": list(decisions)})
    return client.post(url, body, content_type="application/json")


def decision(assignment, position, tokens, **fields):
    queue = selectors.queue_item(assignment, position)
    return {
        "key": fields.pop("key", uuid.uuid4().hex),
        "op": "decide",
        "position": position,
        "tokens": tokens,
        "expect": "",
        "key_seen": selectors.key_version(
            assignment, queue.item.pk, queue.key.decision.pk if queue.key.decision else None
        ),
        "blind": True,
        **fields,
    }


def outcomes(response):
    assert response.status_code == 200, response.content
    return response.json()["outcomes"]


def test_a_decision_sent_twice_is_applied_once_and_answered_the_same(client, world):
    assignment = start(client, world, world.scored)
    tokens = tokens_of(assignment, 1, "429")
    sent = decision(assignment, 1, tokens, verdict="correct")
    (first,) = outcomes(record(client, assignment, sent))
    (again,) = outcomes(record(client, assignment, sent))
    assert first["status"] == "saved" and first["buckets"][0]["value"] == Bucket.CORRECT
    assert again == {**first, "replayed": True}
    assert JudgementChange.objects.filter(assignment=assignment).count() == 2  # the group of two
    assert DecisionReceipt.objects.filter(assignment=assignment).count() == 1


def test_a_batch_is_applied_in_the_order_it_was_made(client, world):
    assignment = start(client, world, world.scored)
    tokens = tokens_of(assignment, 1, "429")
    made = [
        decision(assignment, 1, tokens, verdict="correct"),
        decision(assignment, 1, tokens, bucket=Bucket.HEDGED_WRONG, expect="*"),
        {"key": uuid.uuid4().hex, "op": "undo"},
    ]
    saved, changed, undone = outcomes(record(client, assignment, *made))
    assert (saved["status"], changed["status"], undone["status"]) == ("saved", "saved", "undone")
    assert changed["state"] == Bucket.HEDGED_WRONG
    buckets = set(
        Judgement.objects.filter(assignment=assignment, response__item__position=1)
        .exclude(verdict=Judgement.Verdict.PRESET)
        .values_list("bucket", flat=True)
    )
    assert buckets == {Bucket.CORRECT}  # the undo took back the change, not the first decision


def test_decided_otherwise_in_another_tab_is_a_conflict_and_changes_nothing(client, world):
    assignment = start(client, world, world.scored)
    tokens = tokens_of(assignment, 1, "429")
    other_tab = decision(assignment, 1, tokens, bucket=Bucket.HEDGED_WRONG)
    this_tab = decision(assignment, 1, tokens, verdict="correct")  # made on the same page
    outcomes(record(client, assignment, other_tab))
    (refused,) = outcomes(record(client, assignment, this_tab))
    assert refused["status"] == "conflict" and refused["reason"] == "changed"
    assert "another tab" in refused["message"]
    assert refused["state"] == Bucket.HEDGED_WRONG  # what stands, for the page to show
    # The same decision again, as what the page shows now, goes through.
    (saved,) = outcomes(
        record(
            client, assignment, {**this_tab, "key": uuid.uuid4().hex, "expect": refused["state"]}
        )
    )
    assert saved["status"] == "saved" and saved["state"] == Bucket.CORRECT


def test_the_same_decision_from_another_tab_is_no_conflict(client, world):
    assignment = start(client, world, world.scored)
    tokens = tokens_of(assignment, 1, "429")
    outcomes(record(client, assignment, decision(assignment, 1, tokens, verdict="correct")))
    (same,) = outcomes(
        record(client, assignment, decision(assignment, 1, tokens, verdict="correct"))
    )
    assert same["status"] == "saved" and "Already decided so" in same["message"]


def test_a_decision_against_an_amended_key_is_refused(client, world):
    assignment = start(client, world, world.scored)
    tokens = tokens_of(assignment, 1, "429")
    made = decision(assignment, 1, tokens, verdict="correct")
    key_decision(world.scored, 1, world.users["editor"], new_answer="429 Too Many Requests")
    (refused,) = outcomes(record(client, assignment, made))
    assert refused["status"] == "conflict" and refused["reason"] == "key"
    assert not JudgementChange.objects.filter(assignment=assignment).exists()


def test_a_decision_made_blind_and_sent_after_the_reveal_is_refused(client, world):
    assignment = start(client, world, world.scored)
    tokens = tokens_of(assignment, 1, "429")
    made = decision(assignment, 1, tokens, bucket=Bucket.HEDGED_WRONG)
    for position in (1, 2, 3):
        for group in selectors.queue_item(assignment, position).groups:
            if not group.decided:
                responses = selectors.resolve_tokens(assignment, position, group.tokens.split(","))
                services.judgement_decide(
                    assignment=assignment, responses=responses, bucket="correct"
                )
    services.assignment_reveal(assignment=assignment)
    (refused,) = outcomes(record(client, assignment, made))
    assert refused["status"] == "conflict" and refused["reason"] == "reveal"
    assert not Judgement.objects.filter(assignment=assignment, unblinded=True).exists()
    # Decided on a page shown after the reveal, it is saved and marked so.
    (saved,) = outcomes(
        record(client, assignment, {**made, "key": uuid.uuid4().hex, "blind": False, "expect": "*"})
    )
    assert saved["status"] == "saved"
    assert Judgement.objects.filter(assignment=assignment, unblinded=True).count() == 2


def test_the_server_asks_for_the_confirmation_the_page_skipped(client, world):
    experiment = high_wrong_experiment(world)
    assignment = start(client, world, experiment)
    one = tokens_of(assignment, 1, "wrong one")
    (asked,) = outcomes(record(client, assignment, decision(assignment, 1, one, verdict="wrong")))
    assert asked["status"] == "confirm"
    assert not Judgement.objects.filter(assignment=assignment, response__item__position=1).exists()
    (saved,) = outcomes(
        record(client, assignment, decision(assignment, 1, one, verdict="wrong", confirmed=True))
    )
    assert saved["status"] == "saved" and saved["state"] == Bucket.CONFIDENT_WRONG


def test_the_confirmation_turned_off_for_the_session_stays_off(client, world):
    experiment = high_wrong_experiment(world, confirm_wrong=Experiment.ConfirmWrong.ALWAYS)
    assignment = start(client, world, experiment)
    one, two = tokens_of(assignment, 1, "wrong one"), tokens_of(assignment, 1, "wrong two")
    off = decision(assignment, 1, one, verdict="wrong", confirmed=True, confirm_off=True)
    outcomes(record(client, assignment, off))
    (saved,) = outcomes(record(client, assignment, decision(assignment, 1, two, verdict="wrong")))
    assert saved["status"] == "saved"
    # The htmx page asks no more either, for this scorer's session.
    three = tokens_of(assignment, 1, "wrong three")
    response = decide(client, assignment, 1, tokens=three, verdict="wrong")
    assert b"data-confirm-wrong" not in response.content
    assert b'data-confirm="off"' in response.content


def test_a_recheck_asks_no_confirmation_and_keeping_the_bucket_says_so(client, world):
    experiment = high_wrong_experiment(world, confirm_wrong=Experiment.ConfirmWrong.ALWAYS)
    assignment = start(client, world, experiment)
    one = tokens_of(assignment, 1, "wrong one")
    decide(client, assignment, 1, tokens=one, verdict="wrong", confirmed="1")
    key_decision(experiment, 1, world.users["editor"], new_answer="a better key")
    assert Judgement.objects.filter(assignment=assignment, needs_recheck=True).exists()
    response = decide(client, assignment, 1, tokens=one, verdict="wrong")
    assert b"data-confirm-wrong" not in response.content
    assert b"Decision kept against the amended key." in response.content
    assert b"Decision changed." not in response.content
    assert not Judgement.objects.filter(assignment=assignment, needs_recheck=True).exists()


@pytest.mark.parametrize(
    "raw, message",
    [
        ("not json", "no decisions it could read"),
        (json.dumps({"decisions": []}), "no decisions it could read"),
        (json.dumps({"decisions": [{"op": "decide", "position": 1}]}), "without a valid key"),
        (json.dumps({"decisions": [{"key": "k" * 12, "position": "one"}]}), "names no item"),
    ],
)
def test_a_batch_it_cannot_read_is_refused_whole_with_a_message(client, world, raw, message):
    assignment = start(client, world, world.scored)
    response = record(client, assignment, raw=raw)
    assert response.status_code == 400 and message in response.json()["message"]
    assert not JudgementChange.objects.filter(assignment=assignment).exists()


def test_an_answer_gone_from_the_item_is_said_and_nothing_saved(client, world):
    assignment = start(client, world, world.scored)
    (gone,) = outcomes(
        record(client, assignment, decision(assignment, 1, "gone", verdict="correct"))
    )
    assert gone["status"] == "gone" and "not on this item" in gone["message"]


def test_what_the_queue_answers_names_no_sheet(client, world):
    assignment = start(client, world, world.scored)
    tokens = tokens_of(assignment, 1, "429")
    (saved,) = outcomes(
        record(client, assignment, decision(assignment, 1, tokens, verdict="correct"))
    )
    assert set(saved) == {
        "status",
        "message",
        "state",
        "buckets",
        "recheck",
        "judged",
        "total",
        "position",
        "tokens",
    }
    text = json.dumps(saved)
    for run in world.scored.runs.all():
        assert run.config_snapshot["label"] not in text
        assert f'"{run.pk}"' not in text


def test_a_recheck_kept_by_another_key_giving_the_same_bucket_is_not_a_change(client, world):
    experiment = high_wrong_experiment(world, confirm_wrong=Experiment.ConfirmWrong.NEVER)
    assignment = start(client, world, experiment)
    one = tokens_of(assignment, 1, "wrong one")
    # The bucket set directly (2), then re-checked with W, which derives the same bucket.
    decide(client, assignment, 1, tokens=one, bucket=Bucket.CONFIDENT_WRONG)
    key_decision(experiment, 1, world.users["editor"], new_answer="a better key")
    response = decide(client, assignment, 1, tokens=one, verdict="wrong")
    assert b"Decision kept against the amended key." in response.content
    assert b"Decision changed." not in response.content
    judgement = Judgement.objects.get(assignment=assignment, response__answer="wrong one")
    assert (judgement.bucket, judgement.needs_recheck) == (Bucket.CONFIDENT_WRONG, False)


def test_the_rest_of_an_item_at_once_still_asks_before_a_high_answer_is_marked_wrong(client, world):
    """Shift + W on the page sends one decision per undecided group: the server asks for the
    HIGH one that was not confirmed, and saves the others."""
    experiment = high_wrong_experiment(world, confirm_wrong=Experiment.ConfirmWrong.ALWAYS)
    assignment = start(client, world, experiment)
    queue = selectors.queue_item(assignment, 2)  # x, y, z: all LOW
    rest = [decision(assignment, 2, g.tokens, verdict="wrong") for g in queue.groups]
    assert {o["status"] for o in outcomes(record(client, assignment, *rest))} == {"saved"}
    queue = selectors.queue_item(assignment, 1)  # three HIGH answers
    rest = [decision(assignment, 1, g.tokens, verdict="wrong") for g in queue.groups]
    rest[0]["confirmed"] = True
    statuses = [o["status"] for o in outcomes(record(client, assignment, *rest))]
    assert statuses == ["saved", "confirm", "confirm"]
    assert Judgement.objects.filter(assignment=assignment, response__item__position=1).count() == 1
    # Turned off with the first: the rest go through.
    rest = [decision(assignment, 1, g.tokens, verdict="wrong", expect="*") for g in queue.groups]
    rest[0].update(confirmed=True, confirm_off=True)
    statuses = [o["status"] for o in outcomes(record(client, assignment, *rest))]
    assert statuses == ["saved", "saved", "saved"]


def test_the_page_says_which_item_it_shows_by_a_post(client, world):
    assignment = start(client, world, world.scored)
    url = reverse("scoring:item", kwargs={"assignment_token": assignment.token, "position": 3})
    assert client.get(url).status_code == 200
    assignment.refresh_from_db()
    assert assignment.last_position == 1
    assert client.post(url).status_code == 204
    assignment.refresh_from_db()
    assert assignment.last_position == 3
