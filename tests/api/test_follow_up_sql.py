"""The set-based copy of included runs and the set-based carry give what the row-by-row Python
did: the old code is kept here, verbatim but for its names, as the oracle.

Built: an origin of three items (item 2 a (!) entry), two runs answered per item (an attempt
per item, with its HTTP facts), judged by two scorers who disagree on one answer (no final
bucket there), reconciled, with item 1's key amended in review. Its follow-up includes run 1 as
it was and collects run 2 afresh (an identical answer, one the same after normalising, another
confidence, an abstention); in the follow-up the (!) item is confirmed and item 3 amended.
"""

import pytest

from probe.models import Attempt, Response, Run
from scoring.comparison import followups
from scoring.models import Bucket, CarriedBucket, FinalBucket
from scoring.queue import carry, services
from scoring.reconciliation import services as reconcile_services
from scoring.review.keys import keys_in_force
from tests import builders
from tests.scoring.factories import judge, judge_everything, key_decision

pytestmark = pytest.mark.django_db

# --- the old code ------------------------------------------------------------------------------


def old_copy_run(run, new, item_map):
    attempts = {}
    for attempt in Attempt.objects.filter(run=run).order_by("pk"):
        if attempt.item_id is not None and attempt.item_id not in item_map:
            continue
        old_pk = attempt.pk
        attempt.pk = None
        attempt.id = None
        attempt.run = new
        attempt.item = item_map.get(attempt.item_id) if attempt.item_id else None
        attempts[old_pk] = attempt
    Attempt.objects.bulk_create(attempts.values())
    responses = []
    for response in Response.objects.filter(run=run):
        target = item_map.get(response.item_id)
        if target is None:
            continue
        response.pk = None
        response.id = None
        response.run = new
        response.item = target
        response.attempt = attempts[response.attempt_id]
        responses.append(response)
    Response.objects.bulk_create(responses)


def old_item_map(origin, follow_up):
    by_question = {(i.source_item_id, i.question): i for i in follow_up.items.all()}
    return {
        old.pk: by_question[(old.source_item_id, old.question)]
        for old in origin.items.all()
        if (old.source_item_id, old.question) in by_question
    }


def old_carry_plan(experiment):
    from probe.models import Experiment, ExperimentItem

    def keys_of(item_ids):
        return {
            pk: None if key.dropped else key.answer
            for pk, key in keys_in_force(None, item_ids=item_ids).items()
        }

    mine = ExperimentItem.objects.filter(experiment=experiment, source_item__isnull=False)
    items = {i["pk"]: i for i in mine.values("pk", "source_item_id", "question")}
    keys = keys_of(mine.values("pk"))
    earlier = ExperimentItem.objects.filter(
        experiment__team_id=experiment.team_id,
        experiment__status=Experiment.Status.COLLECTED,
        experiment__created__lt=experiment.created,
        source_item_id__in=mine.values("source_item_id"),
    )
    earlier_items = {
        i["pk"]: i
        for i in earlier.values(
            "pk", "source_item_id", "question", "experiment_id", "experiment__name"
        )
    }
    earlier_keys = keys_of(earlier.values("pk"))
    known = {}
    finals = (
        FinalBucket.objects.filter(response__item__in=earlier.values("pk"))
        .order_by("response__item__experiment__created", "response_id")
        .values_list(
            "bucket", "response_id", "response__item_id", "response__answer", "response__confidence"
        )
    )
    for bucket, response_id, item_id, answer, confidence in finals:
        item = earlier_items[item_id]
        key = earlier_keys.get(item_id)
        if key is None or not carry.normalise(answer):
            continue
        version = (
            item["source_item_id"],
            item["question"],
            key,
            carry.normalise(answer),
            confidence,
        )
        known[version] = (bucket, response_id, item["experiment_id"], item["experiment__name"], key)
    plan = {}
    responses = Response.objects.filter(
        run__experiment=experiment, item__source_item__isnull=False, abstained=False
    ).values_list("pk", "item_id", "answer", "confidence")
    for response_id, item_id, answer, confidence in responses:
        key = keys.get(item_id)
        if key is None or not carry.normalise(answer):
            continue
        item = items[item_id]
        found = known.get(
            (item["source_item_id"], item["question"], key, carry.normalise(answer), confidence)
        )
        if found is not None:
            plan[response_id] = found
    return plan


# --- the experiments ---------------------------------------------------------------------------

ATTEMPT_FIELDS = ("number", "outcome", "http_status", "latency_ms", "request_id", "text")
ATTEMPT_FIELDS += ("raw_body", "input_tokens", "output_tokens", "request_sent", "finish_reason")
RESPONSE_FIELDS = ("answer", "confidence", "abstained", "hedged", "issues", "parser_version")


def _origin(world):
    origin = world.experiment
    builders.add_responses(
        world.runs,
        list(origin.items.order_by("position")),
        lambda run, item: (f"answer {item.position} of repeat {run.repeat}", "HIGH"),
        per_item=True,
        attempt_fields=lambda n: {
            "http_status": 200,
            "latency_ms": 100 + n,
            "request_id": f"req-{n}",
            "input_tokens": 10 + n,
            "request_sent": {"url": "https://example.test/v1", "n": n},
        },
        issues=lambda run, item: ["no_confidence"] if item.position == 3 else [],
    )
    # A retried attempt before the good one: every attempt is copied, not only the last.
    first = origin.items.get(position=1)
    Attempt.objects.create(
        run=world.runs[0], item=first, number=2, outcome=Attempt.Outcome.RETRYABLE, http_status=503
    )
    for run in world.runs:
        run.status = Run.Status.COLLECTED
        run.save(update_fields=["status"])
    origin.status = origin.Status.COLLECTED
    origin.save(update_fields=["status"])
    key_decision(origin, 1, world.users["editor"], new_answer="429 Too Many Requests")
    scorer = services.assignment_start(experiment=origin, user=world.users["scorer"])
    owner = services.assignment_start(experiment=origin, user=world.users["owner"])
    disputed = Response.objects.get(run=world.runs[1], item__position=2)
    judge(owner, {disputed: Bucket.CONFIDENT_WRONG})
    judge_everything(scorer, Bucket.CORRECT)
    judge_everything(owner, Bucket.CORRECT)
    reconcile_services.reconciliation_start(experiment=origin, user=world.users["editor"])
    assert not FinalBucket.objects.filter(response=disputed).exists()
    assert FinalBucket.objects.filter(response__run__experiment=origin).count() == 5
    return origin


def _copied(run):
    attempts = [
        (a.item.position if a.item else None, *(getattr(a, f) for f in ATTEMPT_FIELDS))
        for a in run.attempts.select_related("item").order_by("item__position", "number", "pk")
    ]
    responses = sorted(
        (
            r.item.position,
            r.attempt.item.position if r.attempt.item else None,
            r.attempt.number,
            *(getattr(r, f) for f in RESPONSE_FIELDS),
        )
        for r in run.responses.select_related("item", "attempt__item")
    )
    return attempts, responses


@pytest.mark.parametrize("source", [followups.SNAPSHOT, followups.CURRENT])
def test_copies_and_carried_buckets_equal_the_old_paths(world, source):
    origin = _origin(world)
    kept = world.runs[0]
    again = followups.experiment_follow_up(
        origin=origin, user=world.users["editor"], source=source, include_runs=[kept]
    )
    copy = again.runs.get(included_from=kept)

    # The oracle: the old Python copy, into a run of a second follow-up.
    other = followups.experiment_follow_up(origin=origin, user=world.users["editor"], source=source)
    oracle_run = other.runs.get(repeat=kept.repeat)
    old_copy_run(kept, oracle_run, old_item_map(origin, other))
    assert _copied(copy) == _copied(oracle_run)
    assert len(_copied(copy)[0]) == 4 and len(_copied(copy)[1]) == 3
    assert all(a.copied_from.run_id == kept.pk for a in copy.attempts.all())
    assert all(r.attempt.run_id == copy.pk for r in copy.responses.all())
    assert all(r.item.experiment_id == again.pk for r in copy.responses.all())

    fresh = {
        1: ("  ANSWER 1 of repeat 1 ", "HIGH"),  # the same after normalising
        2: ("answer 2 of repeat 2", "LOW"),  # another confidence
        3: ("UNKNOWN", ""),  # abstained: preset, never carried
    }
    builders.collect_runs(
        again,
        list(again.runs.filter(status=Run.Status.PENDING)),
        lambda run, item: fresh[item.position],
    )
    key_decision(again, 2, world.users["editor"], outcome="confirmed")
    key_decision(again, 3, world.users["editor"], new_answer="3.10 (PEP 634)")

    expected = old_carry_plan(again)
    assert carry.carry_sync(experiment=again) == len(expected)
    carried = {
        c.response_id: (
            c.bucket,
            c.from_response_id,
            c.from_experiment_id,
            c.from_experiment_name,
            c.key_answer,
        )
        for c in CarriedBucket.objects.filter(response__run__experiment=again)
    }
    assert carried == expected
    plan = carry.carry_plan(again)
    assert {
        pk: (c.bucket, c.from_response, c.from_experiment, c.from_experiment_name, c.key_answer)
        for pk, c in plan.items()
    } == expected
    positions = sorted(
        Response.objects.filter(pk__in=carried).values_list("run__repeat", "item__position")
    )
    if source == followups.SNAPSHOT:
        # Item 1 under the amended key on both sides, the (!) item confirmed; item 3 amended.
        assert positions == [(1, 1), (1, 2), (2, 1)]
    else:
        # The bank's key of item 1 is not the key amended in the origin: only the (!) item.
        assert positions == [(1, 2)]
    assert carry.carry_sync(experiment=again) == 0, "idempotent"
