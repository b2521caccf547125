"""The key review queue: (!) entries and disputes first, then suspects by evidence; filters,
counts from the judgements; the bank's queue shows what its experiments decided; identical
disagreements are one decision at reconciliation."""

import re

from django.urls import reverse

from probe.models import ExperimentItem, Response
from scoring.models import Bucket, FinalBucket
from scoring.queue import services
from scoring.reconciliation import page as reconcile_page
from scoring.reconciliation import services as reconcile_services
from scoring.review import keys
from scoring.review import selectors as review
from tests.probe import factories
from tests.scoring.factories import key_decision

from .conftest import build_experiment

HX = {"HTTP_HX_REQUEST": "true"}


def queue_experiment(world):
    a, b, c = (factories.ModelConfigFactory(team=world.team, label=f"Q-{n}") for n in "abc")
    per_config = {
        a: ["k1", "k2 variant", "X", "Y", "k5", "Z"],
        b: ["k1", "k2 variant", "X", "Y", "k5", "UNKNOWN"],
        c: ["k1", "wrong", "k3", "Y", "k5", "UNKNOWN"],
    }
    sheets = [
        (config, repeat, [(answer, "HIGH") for answer in answers])
        for config, answers in per_config.items()
        for repeat in (1, 2)
    ]
    experiment = build_experiment(
        world, sheets=sheets, keys=["k1", "k2", "k3", "k4", "k5", "k6"], name="Queue"
    )
    ExperimentItem.objects.filter(experiment=experiment, position=1).update(key_flagged=True)
    scorer = services.assignment_start(experiment=experiment, user=world.users["scorer"])
    for response in Response.objects.filter(run__experiment=experiment, abstained=False):
        correct = response.answer in ("k1", "k2 variant", "k3", "k5")
        services.judgement_decide(
            assignment=scorer,
            responses=[response],
            bucket=Bucket.CORRECT if correct else Bucket.CONFIDENT_WRONG,
        )
    services.dispute_raise(
        assignment=scorer, item=experiment.items.get(position=5), note="k5 is out of date"
    )
    return experiment


def positions(body: str) -> list[int]:
    return [int(p) for p in re.findall(r'id="review-(\d+)" tabindex="0" data-review-entry', body)]


def test_the_queue_opens_on_flags_and_disputes_then_ranks_suspects(client, world):
    experiment = queue_experiment(world)
    client.force_login(world.users["owner"])
    url = reverse("scoring:key_review", kwargs={"experiment_pk": experiment.pk})
    body = client.get(url).content.decode()
    # (!) and dispute first; then 3 configurations on "Y", 2 on "X"; then a HIGH answer marked
    # wrong where nobody's answer was marked Correct. Item 2's wrong answer is no suspect: the
    # scorer marked the other answer Correct, and only one configuration gave it.
    assert positions(body) == [1, 5, 4, 3, 6]
    entries = {
        e.item.position: e
        for e in review.review_queue(experiment, user=world.users["owner"], membership=None)
    }
    assert entries[4].evidence == (3, 6, 1)
    assert entries[3].reasons == ["shared_wrong"]
    assert entries[6].reasons == ["high_wrong"]
    assert "6 of 6 sheets marked Correct" in body  # item 1; item 3: 2 of 6
    assert "2 of 6 sheets marked Correct" in body
    assert "0 of 6 sheets marked Correct" in body  # item 4
    # Filters: by reason, by state.
    disputed = client.get(url, {"reason": "disputed"}).content.decode()
    assert positions(disputed) == [5]
    assert positions(client.get(url, {"state": "decided"}).content.decode()) == []
    key_decision(
        experiment,
        4,
        world.users["owner"],
        outcome="amended",
        new_answer="Y",
        source="The primary source",
    )
    assert positions(client.get(url).content.decode()) == [1, 5, 3, 6]
    assert positions(client.get(url, {"state": "decided"}).content.decode()) == [4]
    assert positions(client.get(url, {"state": "all"}).content.decode())[-1] == 4
    assert positions(client.get(url, {"state": "bogus", "reason": "bogus"}).content.decode()) == [
        1,
        5,
        3,
        6,
    ]


def test_an_answer_marked_correct_is_not_a_suspect(world):
    experiment = queue_experiment(world)
    owner = world.users["owner"]
    # Mark "X" Correct on one sheet: item 3 is no longer a suspect.
    scorer = experiment.assignments.get()
    x = Response.objects.filter(run__experiment=experiment, answer="X").first()
    services.judgement_decide(assignment=scorer, responses=[x], bucket=Bucket.CORRECT)
    entries = {
        e.item.position: e for e in review.review_queue(experiment, user=owner, membership=None)
    }
    assert 3 not in entries


def test_the_bank_queue_shows_decisions_taken_in_its_experiments(client, world):
    experiment = queue_experiment(world)
    ExperimentItem.objects.filter(experiment=experiment, position=3).update(
        source_item=world.items[1]
    )
    key_decision(
        experiment,
        3,
        world.users["owner"],
        outcome="confirmed",
        source="RFC 9110 §10.2.3, read again",
    )
    client.force_login(world.users["editor"])
    body = client.get(
        reverse("scoring:bank_key_review", kwargs={"bank_pk": world.bank.pk})
    ).content.decode()
    assert "Decisions already taken in its experiments" in body
    assert "RFC 9110 §10.2.3, read again" in body and "Queue</a>, item 3" in body


def test_identical_disagreements_are_one_decision(client, world):
    a = services.assignment_start(experiment=world.scored, user=world.users["scorer"])
    b = services.assignment_start(experiment=world.scored, user=world.users["editor"])
    for assignment, bucket in ((a, Bucket.CORRECT), (b, Bucket.HEDGED_WRONG)):
        for r in Response.objects.filter(run__experiment=world.scored, abstained=False):
            chosen = bucket if r.answer == "429" else Bucket.CORRECT
            services.judgement_decide(assignment=assignment, responses=[r], bucket=chosen)
    reconcile_services.reconciliation_start(experiment=world.scored, user=world.users["owner"])
    client.force_login(world.users["owner"])
    url = reverse(
        "scoring:reconcile_item", kwargs={"experiment_pk": world.scored.pk, "position": 1}
    )
    data = reconcile_page.reconcile_item(world.scored, 1, user=world.users["owner"])
    assert len(data.rows) == 1 and data.rows[0].size == 2  # "429" twice, Correct vs Hedged
    body = client.get(url, **HX).content.decode()
    assert "×2" in body
    saved = client.post(
        url, {"token": data.rows[0].token, "set": Bucket.CORRECT, "note": "RFC"}, **HX
    )
    assert "Final bucket saved for 2 identical answers." in saved.content.decode()
    finals = FinalBucket.objects.filter(
        response__answer="429", response__run__experiment=world.scored
    )
    assert finals.count() == 2 and {f.bucket for f in finals} == {Bucket.CORRECT}
    assert keys.key_in_force(world.scored.items.get(position=1)).answer == "key 1"
