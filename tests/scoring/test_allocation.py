"""Sharing an experiment's items among a pool of scorers: k judgements per item, balanced,
from a stored seed; a scorer's queue holds only their items, the server refuses a judgement
outside them, agreement is computed on the overlap and says so, and a departed scorer's open
items are handed on while what they judged stays."""

from collections import Counter

import pytest
from django.core.exceptions import ValidationError
from django.db.models import Count
from django.urls import reverse

from probe.models import ExperimentItem, Notification, Response
from scoring.agreement.report import agreement_report
from scoring.allocation import selectors as allocation_selectors
from scoring.allocation.services import allocation_create, allocation_reassign, deal
from scoring.models import Allocation, Assignment, ItemAllocation, Judgement
from scoring.queue import overview as queue_overview
from scoring.queue import selectors as queue_selectors
from scoring.queue.services import assignment_progress, judgement_decide
from scoring.reconciliation.selectors import scorer_progress
from scoring.reconciliation.services import reconciliation_start
from tests import builders

pytestmark = pytest.mark.django_db

SCORERS = [f"scorer-{n}" for n in range(1, 7)]


@pytest.fixture
def shared():
    """300 items, one sheet, six scorers and a lead."""
    team, users = builders.team_with_members(
        "Pool", {"lead": "owner", **dict.fromkeys(SCORERS, "scorer")}, slug="pool"
    )
    config = builders.model_configs(team, ["only"])[0]
    collected = builders.collected_experiment(
        team=team,
        bank=None,
        prompt=builders.prompt_version(team),
        items=builders.snapshot_items(300),
        sheets=[builders.Sheet(config, [(f"key {n}", "HIGH") for n in range(1, 301)])],
    )
    return collected.experiment, users


def judge_all(assignment):
    """The scorer judges every response in their share, correct, through the service."""
    for item_id in allocation_selectors.allocated_item_ids(assignment):
        responses = list(Response.objects.filter(item_id=item_id))
        judgement_decide(assignment=assignment, responses=responses, verdict="correct")


def test_the_deal_is_balanced_and_distinct_for_any_pool():
    for n, pool, k in [(300, 6, 2), (31, 4, 3), (7, 5, 5), (10, 3, 1)]:
        shares = deal(list(range(n)), list(range(pool)), k, seed=99)
        per_item = Counter(i for items in shares.values() for i in items)
        assert set(per_item.values()) == {k}
        sizes = [len(items) for items in shares.values()]
        assert max(sizes) - min(sizes) <= 1
        assert all(abs(size - n * k / pool) < 1 for size in sizes)
        assert all(len(set(items)) == len(items) for items in shares.values())
    # The same seed deals the same shares; another seed, others.
    assert deal(list(range(50)), [1, 2, 3], 2, 7) == deal(list(range(50)), [1, 2, 3], 2, 7)
    assert deal(list(range(50)), [1, 2, 3], 2, 7) != deal(list(range(50)), [1, 2, 3], 2, 8)


def test_300_items_6_scorers_k2_every_item_judged_twice_every_scorer_100(shared):
    experiment, users = shared
    allocation = allocation_create(
        experiment=experiment, by=users["lead"], pool=[users[u] for u in SCORERS], per_item=2
    )
    assert Allocation.objects.get(experiment=experiment).seed == allocation.seed
    assignments = list(Assignment.objects.filter(experiment=experiment))
    assert len(assignments) == 6
    for assignment in assignments:
        assert len(allocation_selectors.allocated_item_ids(assignment)) == 100
        # The queue and the progress cover the share only.
        overview = queue_overview.item_overview(assignment)
        assert len(overview) == 100
        assert assignment_progress(assignment) == (0, 100)
        judge_all(assignment)
        assert assignment_progress(assignment) == (100, 100)
    per_item = dict(
        Judgement.objects.filter(assignment__experiment=experiment)
        .values("response__item_id")
        .annotate(n=Count("pk"))
        .values_list("response__item_id", "n")
    )
    assert len(per_item) == 300
    assert set(per_item.values()) == {2}
    per_scorer = Counter(
        Judgement.objects.filter(assignment__experiment=experiment).values_list(
            "assignment_id", flat=True
        )
    )
    assert sorted(per_scorer.values()) == [100] * 6

    # Agreement is computed on the overlapping items and says so.
    reconciliation_start(experiment=experiment, user=users["lead"])
    report = agreement_report(experiment)
    assert report.overlap == 300 and report.per_item == 2
    assert report.overall.percent == 1.0 and report.overall.pairable_units == 300
    assert report.pairs and all(pair.percent == 1.0 for pair in report.pairs)


def test_a_judgement_outside_the_share_is_refused_and_the_page_is_not_there(shared):
    experiment, users = shared
    allocation_create(
        experiment=experiment, by=users["lead"], pool=[users[u] for u in SCORERS], per_item=2
    )
    assignment = Assignment.objects.get(experiment=experiment, user=users["scorer-1"])
    share = allocation_selectors.allocated_item_ids(assignment)
    outside = ExperimentItem.objects.filter(experiment=experiment).exclude(pk__in=share).first()
    with pytest.raises(ValidationError, match="not in your share"):
        judgement_decide(
            assignment=assignment,
            responses=list(Response.objects.filter(item=outside)),
            verdict="correct",
        )
    assert not Judgement.objects.filter(assignment=assignment).exists()
    # The page's batched decisions are refused the same way, one outcome each, nothing saved.
    from scoring.queue.decisions import QueuedDecision, decisions_record

    tokens = [
        queue_selectors.answer_token(assignment, r.pk)
        for r in Response.objects.filter(item=outside)
    ]
    (outcome,) = decisions_record(
        assignment=assignment,
        decisions=[
            QueuedDecision(key="k1", position=outside.position, tokens=tokens, verdict="correct")
        ],
    )
    assert outcome["status"] == "invalid" and "not in your share" in outcome["message"]
    assert not Judgement.objects.filter(assignment=assignment).exists()
    # A batch replaying the tokens of the scorer whose item it is: not among this one's answers.
    holder = Assignment.objects.filter(allocated_items__item=outside).first()
    theirs = [
        queue_selectors.answer_token(holder, r.pk) for r in Response.objects.filter(item=outside)
    ]
    (outcome,) = decisions_record(
        assignment=assignment,
        decisions=[
            QueuedDecision(key="k2", position=outside.position, tokens=theirs, verdict="correct")
        ],
    )
    assert outcome["status"] == "invalid"
    assert outcome["message"] == (
        "That answer is not among your answers to judge: nothing was saved."
    )
    assert not Judgement.objects.filter(assignment=assignment).exists()
    assert queue_selectors.queue_item(assignment, outside.position) is None
    inside = ExperimentItem.objects.get(pk=min(share))
    assert queue_selectors.queue_item(assignment, inside.position) is not None
    assert queue_overview.first_open_position(assignment) in {
        i.position for i in ExperimentItem.objects.filter(pk__in=share)
    }


def test_reassigning_a_departed_scorer_keeps_what_they_judged(shared):
    experiment, users = shared
    allocation_create(
        experiment=experiment,
        by=users["lead"],
        pool=[users[u] for u in SCORERS],
        per_item=2,
        seed=2026,  # a fixed draw: the hand-on's spread below is then fixed too
    )
    departed = Assignment.objects.get(experiment=experiment, user=users["scorer-3"])
    share = sorted(allocation_selectors.allocated_item_ids(departed))
    judged_items = share[:40]
    for item_id in judged_items:
        judgement_decide(
            assignment=departed,
            responses=list(Response.objects.filter(item_id=item_id)),
            verdict="correct",
        )
    moved = allocation_reassign(assignment=departed, by=users["lead"])
    assert moved == 60
    assert allocation_selectors.allocated_item_ids(departed) == set(judged_items)
    assert Judgement.objects.filter(assignment=departed).count() == 40
    counts = allocation_selectors.item_counts(experiment)
    assert set(counts.values()) == {2}
    others = [
        len(allocation_selectors.allocated_item_ids(a))
        for a in Assignment.objects.filter(experiment=experiment).exclude(pk=departed.pk)
    ]
    # As even as the rule allows: an item never goes to a scorer who has it already, so the
    # scorers who shared many of the departed scorer's items take fewer of them.
    assert sum(others) == 600 - 40 and max(others) - min(others) <= 3
    # No item went to a scorer who had it already.
    assert ItemAllocation.objects.filter(released=None).count() == 600


def test_default_k_is_the_whole_pool_and_a_second_allocation_is_refused(shared):
    experiment, users = shared
    pool = [users[u] for u in SCORERS[:3]]
    allocation = allocation_create(experiment=experiment, by=users["lead"], pool=pool)
    assert allocation.per_item == 3
    assert set(allocation_selectors.item_counts(experiment).values()) == {3}
    with pytest.raises(ValidationError):
        allocation_create(experiment=experiment, by=users["lead"], pool=pool, per_item=2)


def test_the_lead_shares_the_items_from_the_scorers_page(client, shared):
    experiment, users = shared
    client.force_login(users["lead"])
    page = client.get(f"/experiments/{experiment.pk}/scorers/")
    assert b"Share out the items" in page.content
    chosen = [users[u].pk for u in SCORERS[:4]]
    response = client.post(
        f"/experiments/{experiment.pk}/scorers/share/", {"pool": chosen, "per_item": "3"}
    )
    assert response.status_code == 302
    allocation = Allocation.objects.get(experiment=experiment)
    assert allocation.per_item == 3
    assert set(allocation_selectors.item_counts(experiment).values()) == {3}
    page = client.get(f"/experiments/{experiment.pk}/scorers/")
    assert f"seed {allocation.seed}".encode() in page.content
    # Once shared, a second share is refused with a message, and nothing changes.
    response = client.post(
        f"/experiments/{experiment.pk}/scorers/share/",
        {"pool": chosen, "per_item": "1"},
        follow=True,
    )
    assert b"already shared out" in response.content
    assert Allocation.objects.get(experiment=experiment).per_item == 3
    # A scorer may not choose.
    client.force_login(users["scorer-1"])
    assert client.post(f"/experiments/{experiment.pk}/scorers/share/", {}).status_code == 403


def test_reconciliation_waits_when_every_item_has_its_k_judgements(shared):
    experiment, users = shared
    allocation_create(
        experiment=experiment, by=users["lead"], pool=[users[u] for u in SCORERS], per_item=2
    )
    assignments = list(Assignment.objects.filter(experiment=experiment).order_by("pk"))
    for assignment in assignments[:-1]:
        judge_all(assignment)
    # Five of six have judged their share: some items still lack their second judgement.
    assert not Notification.objects.filter(kind="reconcile").exists()
    judge_all(assignments[-1])
    waits = Notification.objects.filter(kind="reconcile")
    assert [n.user for n in waits] == [users["lead"]]
    assert not any(a.revealed for a in Assignment.objects.filter(experiment=experiment))


def two_sheets_three_scorers():
    """Six items on two sheets, shared among three scorers, two per item."""
    team, users = builders.team_with_members(
        "Hand", {"lead": "owner", "a": "scorer", "b": "scorer", "c": "scorer"}, slug="hand"
    )
    configs = builders.model_configs(team, ["one", "two"])
    experiment = builders.collected_experiment(
        team=team,
        bank=None,
        prompt=builders.prompt_version(team),
        items=builders.snapshot_items(6),
        sheets=[builders.Sheet(c, [(f"key {n}", "HIGH") for n in range(1, 7)]) for c in configs],
    ).experiment
    pool = [users["a"], users["b"], users["c"]]
    allocation_create(experiment=experiment, by=users["lead"], pool=pool, per_item=2, seed=5)
    return experiment, users


def test_a_hand_on_of_a_partly_judged_item_leaves_every_response_with_exactly_k():
    """Two sheets: the departed scorer judged one response of an item; its new scorer judges
    only the other one, the server refuses the first, and the receivers are told."""
    experiment, users = two_sheets_three_scorers()
    departed = Assignment.objects.get(experiment=experiment, user=users["a"])
    item_id = min(allocation_selectors.allocated_item_ids(departed))
    first, second = Response.objects.filter(item_id=item_id).order_by("pk")
    judgement_decide(assignment=departed, responses=[first], verdict="correct")
    assert allocation_reassign(assignment=departed, by=users["lead"]) == 4
    receivers = set(
        Assignment.objects.filter(experiment=experiment, allocated_items__released=None)
    )
    holders = ItemAllocation.objects.filter(item_id=item_id, released=None)
    assert holders.count() == 2
    new = next(
        h.assignment for h in holders if h.assignment.pk != departed.pk and h.skipped == [first.pk]
    )
    position = ExperimentItem.objects.get(pk=item_id).position
    page = queue_selectors.queue_item(new, position)
    assert [m.response.pk for g in page.groups for m in g.members] == [second.pk]
    with pytest.raises(ValidationError, match="not in your share"):
        judgement_decide(assignment=new, responses=[first], verdict="wrong")
    for assignment in receivers - {departed}:
        judge_all_open(assignment)
        judged, total = assignment_progress(assignment)
        assert judged == total
    per_response = Counter(
        Judgement.objects.filter(response__run__experiment=experiment).values_list(
            "response_id", flat=True
        )
    )
    assert set(per_response.values()) == {2}
    assert len(per_response) == 12
    told = Notification.objects.filter(kind="to_score", key__startswith="handed_on:")
    assert {n.user for n in told} == {a.user for a in receivers - {departed}}


def judge_all_open(assignment):
    """The scorer judges every response their queue holds, through the service."""
    skipped = allocation_selectors.skipped_responses(assignment)
    for item_id in allocation_selectors.allocated_item_ids(assignment):
        responses = list(Response.objects.filter(item_id=item_id).exclude(pk__in=skipped))
        judgement_decide(assignment=assignment, responses=responses, verdict="correct")


def test_a_scorers_pages_count_their_share_not_the_bank(client, shared):
    experiment, users = shared
    allocation_create(
        experiment=experiment, by=users["lead"], pool=[users[u] for u in SCORERS], per_item=2
    )
    # A scorer whose share does not hold item 1.
    item_1 = ExperimentItem.objects.get(experiment=experiment, position=1)
    assignment = Assignment.objects.filter(experiment=experiment).exclude(
        allocated_items__item=item_1
    )[0]
    scorer = assignment.user
    positions = sorted(
        ExperimentItem.objects.filter(
            pk__in=allocation_selectors.allocated_item_ids(assignment)
        ).values_list("position", flat=True)
    )
    assert len(positions) == 100 and positions[0] != 1
    client.force_login(scorer)
    start = client.get(reverse("scoring:start", kwargs={"experiment_pk": experiment.pk}))
    assert b"100 items of yours" in start.content and b"300 items" not in start.content
    token = assignment.token
    page = client.get(reverse("scoring:item", args=[token, positions[11]]))
    assert b"Item 12 of 100 of yours" in page.content
    # Previous and next go to the scorer's own neighbours.
    assert reverse("scoring:item", args=[token, positions[10]]).encode() in page.content
    assert reverse("scoring:item", args=[token, positions[12]]).encode() in page.content
    # The overview's way back goes to their first item when they have not scored yet.
    assert Assignment.objects.get(pk=assignment.pk).last_position == 1
    overview = client.get(reverse("scoring:overview", args=[token]))
    first = reverse("scoring:item", args=[token, positions[0]])
    assert f'href="{first}" data-back'.encode() in overview.content
    assert b"Back to item 1<" in overview.content
    assert client.get(first).status_code == 200
    # "Go to item 12" goes to the scorer's twelfth item.
    jump = client.get(reverse("scoring:overview", args=[token]), {"go": "12"})
    assert jump.url == reverse("scoring:item", args=[token, positions[11]])


def test_a_departed_scorer_is_never_more_than_done_nor_counted_as_finished(client):
    experiment, users = two_sheets_three_scorers()
    departed = Assignment.objects.get(experiment=experiment, user=users["a"])
    items = sorted(allocation_selectors.allocated_item_ids(departed))
    # One item judged whole, one half: three responses judged.
    judgement_decide(
        assignment=departed,
        responses=list(Response.objects.filter(item_id=items[0])),
        verdict="correct",
    )
    half = Response.objects.filter(item_id=items[1]).order_by("pk").first()
    judgement_decide(assignment=departed, responses=[half], verdict="correct")
    allocation_reassign(assignment=departed, by=users["lead"])
    progress = {p.assignment.pk: p for p in scorer_progress(experiment)}
    left = progress[departed.pk]
    assert (left.judged, left.total) == (3, 3)
    assert left.departed and not left.finished
    assert assignment_progress(departed) == (3, 3)
    for assignment in Assignment.objects.filter(experiment=experiment).exclude(pk=departed.pk):
        judge_all_open(assignment)
    progress = scorer_progress(experiment)
    assert sum(p.finished for p in progress) == 2
    client.force_login(users["lead"])
    page = client.get(reverse("scoring:scorers", kwargs={"experiment_pk": experiment.pk}))
    text = page.content.decode()
    assert "3 / 3" in text and "left: items handed on" in text
    closed = client.get(reverse("scoring:reconcile", kwargs={"experiment_pk": experiment.pk}))
    assert b"2 scorers have finished." in closed.content
    reconciliation_start(experiment=experiment, user=users["lead"])
    page = client.get(reverse("scoring:agreement", kwargs={"experiment_pk": experiment.pk}))
    assert b"the scorers who have judged their share of the items" in page.content
    assert b"who have judged every response" not in page.content
