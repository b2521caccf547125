"""Buckets carried from earlier experiments: identical answers under the same key and item
version carry their final bucket; a changed answer, confidence, key or question does not."""

from datetime import timedelta

import pytest

from probe.models import Experiment, Response, Run
from scoring.agreement import report as agreement_report
from scoring.comparison import followups
from scoring.models import Bucket, CarriedBucket, FinalBucket
from scoring.queue import carry, services
from scoring.reconciliation import services as reconcile_services
from tests import builders
from tests.api.test_follow_ups import _collected
from tests.scoring.factories import judge_everything, key_decision

pytestmark = pytest.mark.django_db


def _reconciled(world, experiment, bucket=Bucket.CORRECT):
    for kind in ("scorer", "owner"):
        assignment = services.assignment_start(experiment=experiment, user=world.users[kind])
        judge_everything(assignment, bucket)
    reconcile_services.reconciliation_start(experiment=experiment, user=world.users["editor"])


def _answer(experiment, answers: dict):
    """Collect the follow-up: answers[(repeat, position)] = (answer, confidence)."""
    builders.collect_runs(
        experiment,
        list(experiment.runs.filter(status=Run.Status.PENDING)),
        lambda run, item: answers[(run.repeat, item.position)],
        attempt_text="sheet",
        raw_body="{}",
    )


def _follow_up(world):
    origin = _collected(world)
    _reconciled(world, origin)
    return origin, followups.experiment_follow_up(origin=origin, user=world.users["editor"])


def test_identical_answers_carry_and_changed_ones_do_not(world):
    origin, again = _follow_up(world)
    _answer(
        again,
        {
            (1, 1): ("answer 1 of repeat 1", "HIGH"),  # identical: carried
            (1, 2): ("  ANSWER 2   of repeat 1 ", "HIGH"),  # same after normalising: carried
            (1, 3): ("answer 3 of repeat 1", "LOW"),  # another confidence
            (2, 1): ("answer 1 of repeat 2", "HIGH"),  # identical to the other repeat: carried
            (2, 2): ("a new answer", "HIGH"),
            (2, 3): ("UNKNOWN", ""),  # abstentions are preset, never carried
        },
    )
    assert carry.carry_sync(experiment=again) == 3
    assert carry.carry_sync(experiment=again) == 0, "idempotent"
    carried = {
        (c.response.run.repeat, c.response.item.position): c
        for c in CarriedBucket.objects.select_related("response__run", "response__item")
    }
    assert set(carried) == {(1, 1), (1, 2), (2, 1)}
    first = carried[(1, 1)]
    assert first.bucket == Bucket.CORRECT
    assert first.from_experiment == origin and first.from_experiment_name == origin.name
    assert first.key_answer == origin.items.get(position=1).key_answer
    counts = carry.carry_counts(again)
    assert (counts.carried, counts.to_judge, counts.through_queue) == (3, 3, False)
    world.team.recheck_carried = True
    world.team.save()
    again.team.refresh_from_db()
    assert carry.carry_counts(again).to_judge == 6


def test_an_amended_key_on_either_side_stops_the_carry(world):
    origin, again = _follow_up(world)
    _answer(
        again,
        {(r, p): (f"answer {p} of repeat {r}", "HIGH") for r in (1, 2) for p in (1, 2, 3)},
    )
    # Amended in the follow-up: the keys differ, nothing carries on item 1.
    key_decision(
        again, 1, world.users["editor"], outcome="amended", source="RFC 6585", new_answer="429"
    )
    carry.carry_sync(experiment=again)
    positions = sorted(CarriedBucket.objects.values_list("response__item__position", flat=True))
    assert positions == [2, 2, 3, 3]


def test_reopening_an_item_removes_its_carried_buckets(world):
    origin, again = _follow_up(world)
    _answer(
        again,
        {(r, p): (f"answer {p} of repeat {r}", "HIGH") for r in (1, 2) for p in (1, 2, 3)},
    )
    assert carry.carry_sync(experiment=again) == 6
    assert carry.carry_reopen(item=again.items.get(position=2)) == 2
    assert sorted(CarriedBucket.objects.values_list("response__item__position", flat=True)) == [
        1,
        1,
        3,
        3,
    ]


def test_a_bucket_never_carries_into_another_scheme(world):
    """Identical answers of an experiment in another scheme carry nothing: a four-bucket
    "confident wrong" is not a bucket of the AA scheme, whose report would refuse it."""
    origin, again = _follow_up(world)
    again.scheme = "aa"
    again.save(update_fields=["scheme"])
    _answer(
        again,
        {(r, p): (f"answer {p} of repeat {r}", "HIGH") for r in (1, 2) for p in (1, 2, 3)},
    )
    assert carry.carry_sync(experiment=again) == 0
    assert not CarriedBucket.objects.filter(response__run__experiment=again).exists()
    # The same answers in the origin's own scheme do carry (the test above is not vacuous).
    again.scheme = origin.scheme
    again.save(update_fields=["scheme"])
    assert carry.carry_sync(experiment=again) == 6


def test_only_final_buckets_carry(world):
    origin = _collected(world)
    # Scored by one scorer, never reconciled: nothing final to carry.
    assignment = services.assignment_start(experiment=origin, user=world.users["scorer"])
    judge_everything(assignment, Bucket.CORRECT)
    again = followups.experiment_follow_up(origin=origin, user=world.users["editor"])
    _answer(
        again,
        {(r, p): (f"answer {p} of repeat {r}", "HIGH") for r in (1, 2) for p in (1, 2, 3)},
    )
    assert carry.carry_sync(experiment=again) == 0


def test_the_newest_earlier_bucket_is_the_one_carried(world):
    """Two earlier experiments gave the same answer different final buckets: the bucket of the
    experiment created last is carried, and within it that of the response recorded last."""
    origin = _collected(world)
    _reconciled(world, origin)  # every answer of the origin final: correct
    same = {(r, p): (f"answer {p} of repeat {r}", "HIGH") for r in (1, 2) for p in (1, 2, 3)}
    # In the second experiment both repeats gave item 1 the answer of repeat 1.
    middle = followups.experiment_follow_up(origin=origin, user=world.users["editor"])
    _answer(middle, {**same, (2, 1): same[(1, 1)]})
    responses = Response.objects.filter(run__experiment=middle).order_by("pk")
    first_of_item_1 = min(r.pk for r in responses if r.item.position == 1)
    FinalBucket.objects.bulk_create(
        FinalBucket(
            response=r,
            bucket=Bucket.CORRECT if r.pk == first_of_item_1 else Bucket.CONFIDENT_WRONG,
            unanimous=True,
        )
        for r in responses
    )
    again = followups.experiment_follow_up(origin=origin, user=world.users["editor"])
    _answer(again, same)

    def carried_from():
        plan = carry.carry_plan(again)
        return {
            (r.run.repeat, r.item.position): (
                plan[r.pk].bucket,
                plan[r.pk].from_experiment,
                plan[r.pk].from_response == first_of_item_1,
            )
            for r in Response.objects.filter(pk__in=plan)
        }

    wrong = Bucket.CONFIDENT_WRONG
    assert carried_from() == {
        (1, 1): (wrong, middle.pk, False),  # the later of middle's two identical answers
        (2, 1): (Bucket.CORRECT, origin.pk, False),  # not given in middle: the origin's
        **{(r, p): (wrong, middle.pk, False) for r in (1, 2) for p in (2, 3)},
    }
    # The order is the experiments' creation, not their ids: made the newest, the origin wins.
    Experiment.objects.filter(pk=middle.pk).update(created=origin.created - timedelta(days=1))
    assert carried_from() == {
        (r, p): (Bucket.CORRECT, origin.pk, False) for r in (1, 2) for p in (1, 2, 3)
    }


def test_nothing_carries_before_collection_is_complete(world):
    origin, again = _follow_up(world)
    assert carry.carry_sync(experiment=again) == 0


# --- in the blind queue -----------------------------------------------------------------------


def _carried_follow_up(world, changed=((2, 2),)):
    """A follow-up where every answer repeats the earlier one except at `changed` (repeat, pos)."""
    origin, again = _follow_up(world)
    _answer(
        again,
        {
            (r, p): (
                "a changed answer" if (r, p) in changed else f"answer {p} of repeat {r}",
                "HIGH",
            )
            for r in (1, 2)
            for p in (1, 2, 3)
        },
    )
    return origin, again


def test_carried_answers_stay_out_of_the_queue_and_count_as_decided(client, world):
    from scoring.models import Judgement
    from scoring.queue.selectors import queue_item

    _origin, again = _carried_follow_up(world)
    assignment = services.assignment_start(experiment=again, user=world.users["scorer"])
    carried = Judgement.objects.filter(assignment=assignment, verdict=Judgement.Verdict.CARRIED)
    assert carried.count() == 5
    item = queue_item(assignment, 2)
    assert item.carried == 1 and [g.answer for g in item.groups] == ["a changed answer"]
    assert queue_item(assignment, 1).groups == [] and queue_item(assignment, 1).carried == 2
    assert (item.judged, item.total) == (5, 6)
    # The page says so in words, and only the changed answer is there to judge.
    client.force_login(world.users["scorer"])
    page = client.get(f"/score/{assignment.token}/2/").content.decode()
    assert "a changed answer" in page and "answer 2 of repeat 1" not in page
    assert "carries that bucket" in page
    fully_carried = client.get(f"/score/{assignment.token}/1/").content.decode()
    assert "they carry those buckets" in fully_carried
    assert "No sheet answered this item" not in fully_carried
    # Judging that one answer is all the scorer has to do before the reveal.
    judge_everything(assignment, Bucket.HEDGED_WRONG)
    services.assignment_reveal(assignment=assignment)


def test_a_team_can_send_carried_answers_through_the_queue(world):
    from scoring.models import Judgement
    from scoring.queue.selectors import queue_item

    world.team.recheck_carried = True
    world.team.save()
    _origin, again = _carried_follow_up(world)
    assignment = services.assignment_start(experiment=again, user=world.users["scorer"])
    assert not Judgement.objects.filter(
        assignment=assignment, verdict=Judgement.Verdict.CARRIED
    ).exists()
    assert len(queue_item(assignment, 1).groups) == 2
    # The carried buckets are still recorded, for the record and the counts.
    assert CarriedBucket.objects.filter(response__run__experiment=again).count() == 5


def test_an_amended_key_reopens_the_carried_answers_of_its_item(world):
    from scoring.models import Judgement
    from scoring.queue.selectors import queue_item

    _origin, again = _carried_follow_up(world)
    assignment = services.assignment_start(experiment=again, user=world.users["scorer"])
    assert queue_item(assignment, 1).groups == []
    key_decision(
        again, 1, world.users["editor"], outcome="amended", source="RFC 6585", new_answer="429"
    )
    reopened = queue_item(assignment, 1)
    assert reopened.carried == 0 and len(reopened.groups) == 2
    assert (
        not CarriedBucket.objects.filter(response__item__position=1)
        .filter(response__run__experiment=again)
        .exists()
    )
    assert Judgement.objects.filter(assignment=assignment, verdict="carried").count() == 3


def test_carried_buckets_do_not_inflate_agreement(world):
    _origin, again = _carried_follow_up(world, changed=((1, 1), (2, 2)))
    for kind, bucket in (("scorer", Bucket.CORRECT), ("owner", Bucket.HEDGED_WRONG)):
        assignment = services.assignment_start(experiment=again, user=world.users[kind])
        judge_everything(assignment, bucket)
    report = agreement_report.agreement_report(again)
    assert report.overall.units == 2  # the two answers judged here, not the four carried
    assert report.overall.percent == 0


def test_nothing_carried_names_a_model_before_the_reveal(client, world):
    from tests.scoring.test_blinding import crawl, secrets_of

    _origin, again = _carried_follow_up(world)
    user = world.users["scorer"]
    client.force_login(user)
    assignment = services.assignment_start(experiment=again, user=user)
    starts = [
        f"/experiments/{again.pk}/",
        f"/experiments/{again.pk}/score/",
        f"/score/{assignment.token}/1/",
        f"/score/{assignment.token}/2/",
    ]
    pages = crawl(client, starts)
    forbidden = secrets_of(again)
    assert len(pages) >= 8
    for url, _headers, response in pages:
        body = response.content.decode("utf-8", "replace")
        for secret in forbidden:
            assert secret not in body, f"{secret!r} in {url}"


def test_the_counts_are_shown_before_scoring_starts(client, world):
    _origin, again = _carried_follow_up(world)
    client.force_login(world.users["scorer"])
    page = client.get(f"/experiments/{again.pk}/score/").content.decode()
    assert "5 answers carry their buckets from an earlier experiment" in page
    assert "you judge the other 1" in page
    assert not CarriedBucket.objects.exists(), "a page view writes nothing"


def test_the_reveal_says_what_was_carried_and_from_where(client, world):
    origin, again = _carried_follow_up(world)
    assignment = services.assignment_start(experiment=again, user=world.users["scorer"])
    judge_everything(assignment, Bucket.CORRECT)
    services.assignment_reveal(assignment=assignment)
    client.force_login(world.users["scorer"])
    page = client.get(f"/score/{assignment.token}/reveal/").content.decode()
    assert f"3 answers carried from {origin.name}" in page
    assert f"2 answers carried from {origin.name}" in page


def test_exports_name_where_a_bucket_was_carried_from(world):
    from scoring.report import exports
    from scoring.report.build import judgement_source

    origin, again = _carried_follow_up(world)
    assignment = services.assignment_start(experiment=again, user=world.users["scorer"])
    judge_everything(assignment, Bucket.HEDGED_WRONG)
    rows = list(exports.response_rows(judgement_source(assignment)))
    carried = [r for r in rows if r["carried_from"]]
    assert len(carried) == 5 and {r["carried_from"] for r in carried} == {origin.name}
    assert all(r["verdict"] == "carried" and r["bucket"] == "correct" for r in carried)
    (judged,) = [r for r in rows if not r["carried_from"]]
    assert judged["answer"] == "a changed answer" and judged["bucket"] == "hedged_wrong"
