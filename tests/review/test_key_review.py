"""The key review: what goes into the queue, what an amendment re-queues, the bank, blinding."""

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from probe.models import ExperimentItem, KeyEntry, KeyEntryRevision, Response
from scoring.models import Bucket, Judgement, KeyDecision, KeyDispute
from scoring.queue import selectors, services
from scoring.reconciliation import selectors as reconcile
from scoring.reconciliation import services as reconcile_services
from scoring.review import selectors as review
from scoring.review import services as review_services
from tests.conftest import scored_experiment
from tests.probe import factories
from tests.scoring.factories import decide_group, judge_everything, key_decision
from tests.scoring.test_blinding import secrets_of

from .conftest import build_experiment

HX = {"HTTP_HX_REQUEST": "true"}


def entry_for(experiment, user, position, role="editor"):
    from probe.models import Membership

    membership = Membership.objects.get(team=experiment.team, user=user)
    entries = review.review_queue(experiment, user=user, membership=membership)
    return next((e for e in entries if e.item.position == position), None)


# --- Suspects -------------------------------------------------------------------------------


def test_a_high_confidence_answer_marked_wrong_is_a_suspect(world):
    scorer = services.assignment_start(experiment=world.scored, user=world.users["editor"])
    # Item 2: "Retry-Later" was given with HIGH confidence; item 1: "429" by config 2 with MEDIUM.
    decide_group(scorer, 2, "Retry-Later", verdict="wrong")
    decide_group(scorer, 1, "429", confidence="MEDIUM", verdict="wrong")
    owner = world.users["owner"]
    item2 = entry_for(world.scored, owner, 2)
    assert "high_wrong" in item2.reasons
    assert [a.answer for a in item2.answers if a.high_wrong] == ["Retry-Later"]
    item1 = entry_for(world.scored, owner, 1)
    assert "high_wrong" not in item1.reasons  # the MEDIUM one was marked wrong, not a HIGH one


def test_the_same_wrong_answer_from_two_configurations_is_a_suspect_not_from_two_repeats(world):
    one = factories.ModelConfigFactory(team=world.team, label="repeat-config")
    two = factories.ModelConfigFactory(team=world.team, label="other-config")
    experiment = build_experiment(
        world,
        sheets=[
            (one, 1, [("Lyon", "HIGH"), ("Bonn", "HIGH"), ("rome", "LOW")]),
            (one, 2, [("Lyon", "HIGH"), ("Munich", "LOW"), ("Rome", "LOW")]),
            (two, 1, [("Paris", "HIGH"), ("bonn.", "MEDIUM"), ("UNKNOWN", "LOW")]),
        ],
        keys=["Paris", "Berlin", "Rome"],
    )
    owner = world.users["owner"]
    # Item 1: "Lyon" twice, but from two repeats of one configuration: no suspect.
    assert entry_for(experiment, owner, 1) is None
    # Item 2: "Bonn" and "bonn." normalise alike, from two different configurations.
    item2 = entry_for(experiment, owner, 2)
    assert item2.reasons == ["shared_wrong"]
    bonn = next(a for a in item2.answers if a.answer.lower().startswith("bonn"))
    assert bonn.sheets == 2 and bonn.n_configs == 2
    # Item 3: "rome" matches the key "Rome" once normalised; UNKNOWN is no answer.
    assert entry_for(experiment, owner, 3) is None
    # Once amended to "Bonn", the key in force agrees with them: the suspect is gone.
    review_services.key_decision_create(
        item=item2.item,
        user=owner,
        outcome="amended",
        new_answer="Bonn",
        source="Basic Law, Art. 22",
    )
    item2 = entry_for(experiment, owner, 2)
    assert "shared_wrong" not in item2.reasons and not item2.is_open


def test_flagged_entries_and_disputes_are_in_the_queue_and_resolved_by_a_decision(client, world):
    item = world.scored.items.get(position=3)
    ExperimentItem.objects.filter(pk=item.pk).update(
        key_flagged=True, key_flag_note="Check PEP 634"
    )
    scorer = services.assignment_start(experiment=world.scored, user=world.users["scorer"])
    services.dispute_raise(
        assignment=scorer, item=world.scored.items.get(position=2), note="RFC 9110 says so"
    )
    owner = world.users["owner"]
    assert "flagged" in entry_for(world.scored, owner, 3).reasons
    disputed = entry_for(world.scored, owner, 2)
    assert "disputed" in disputed.reasons and disputed.is_open

    client.force_login(world.users["editor"])
    url = reverse("scoring:key_review", kwargs={"experiment_pk": world.scored.pk})
    body = client.get(url).content.decode()
    assert "Check PEP 634" in body and "RFC 9110 says so" in body
    decide = reverse(
        "scoring:key_review_decide", kwargs={"experiment_pk": world.scored.pk, "position": 2}
    )
    # The source is required.
    body = client.post(decide, {"k2-outcome": "confirmed", "k2-source": " "}, **HX).content.decode()
    assert "Name the primary source" in body or "This field is required" in body
    assert not KeyDecision.objects.exists()
    body = client.post(
        decide,
        {"k2-outcome": "confirmed", "k2-source": "RFC 9110 §10.2.3", "k2-note": "key right"},
        **HX,
    ).content.decode()
    assert "Key confirmed" in body
    assert KeyDispute.objects.get().status == KeyDispute.Status.RESOLVED
    assert not entry_for(world.scored, owner, 2).is_open
    # The open list no longer holds it; "all" does.
    assert 'id="review-2"' not in client.get(url).content.decode()
    assert 'id="review-2"' in client.get(url + "?show=all").content.decode()


def test_key_review_is_for_editors_and_sealed_until_collected(client, world):
    client.force_login(world.users["scorer"])
    url = reverse("scoring:key_review", kwargs={"experiment_pk": world.scored.pk})
    assert client.get(url).status_code == 403
    client.force_login(world.users["editor"])
    sealed = reverse("scoring:key_review", kwargs={"experiment_pk": world.experiment.pk})
    body = client.get(sealed).content.decode()
    assert "sealed" in body and "429 Too Many Requests (keyed)" not in body


# --- Amending re-queues exactly the judgements that relied on the old key -----------------


@pytest.fixture
def two_scorers(world):
    a = services.assignment_start(experiment=world.scored, user=world.users["scorer"])
    b = services.assignment_start(experiment=world.scored, user=world.users["editor"])
    judge_everything(a, Bucket.CORRECT)
    judge_everything(b, Bucket.HEDGED_WRONG)
    # Another experiment, judged too: must stay untouched.
    other = scored_experiment(
        world,
        configs=[world.config],
        answers=[[("x", "HIGH"), ("y", "LOW"), ("z", "LOW")]],
        name="Untouched",
    )
    c = services.assignment_start(experiment=other, user=world.users["scorer"])
    judge_everything(c)
    return a, b, c


def test_amending_requeues_exactly_the_judgements_of_that_item(world, two_scorers):
    a, b, c = two_scorers
    item3 = world.scored.items.get(position=3)  # "UNKNOWN" (preset) and "3.9"
    expected = set(
        Judgement.objects.filter(response__item=item3)
        .exclude(verdict=Judgement.Verdict.PRESET)
        .values_list("pk", flat=True)
    )
    assert len(expected) == 2  # "3.9" by each scorer; the UNKNOWN presets do not count
    decision = review_services.key_decision_create(
        item=item3,
        user=world.users["owner"],
        outcome="amended",
        new_answer="3.10",
        source="https://docs.python.org/3/whatsnew/3.10.html",
        note="match arrived in 3.10",
    )
    flagged = set(Judgement.objects.filter(needs_recheck=True).values_list("pk", flat=True))
    assert flagged == expected
    assert decision.rechecked == 2
    assert decision.decided_by == world.users["owner"] and decision.created is not None
    assert decision.previous_answer == "key 3" and decision.new_answer == "3.10"
    assert (
        decision.source.startswith("https://docs.python.org")
        and decision.note == "match arrived in 3.10"
    )
    assert review.key_in_force(item3) == "3.10"
    assert ExperimentItem.objects.get(pk=item3.pk).key_answer == "key 3"  # the snapshot stays
    # Presets, other items and the other experiment are untouched.
    assert not Judgement.objects.filter(verdict="preset", needs_recheck=True).exists()
    assert not Judgement.objects.filter(assignment=c, needs_recheck=True).exists()
    # Each scorer's queue shows the re-check, and progress treats it as open.
    assert review.recheck_positions(a) == [3] and review.recheck_positions(b) == [3]
    queue = selectors.queue_item(a, 3)
    assert [g.answer for g in queue.groups if g.needs_recheck] == ["3.9"]
    progress = {p.assignment.pk: p for p in reconcile.scorer_progress(world.scored)}
    assert progress[a.pk].judged == progress[a.pk].total - 1 and not progress[a.pk].finished
    # Deciding again (a different bucket) clears the mark.
    decide_group(a, 3, "3.9", verdict="wrong")
    assert review.recheck_positions(a) == [] and review.recheck_positions(b) == [3]


def test_a_direct_bucket_relied_on_the_key_too(world):
    a = services.assignment_start(experiment=world.scored, user=world.users["scorer"])
    decide_group(a, 2, "Retry-After", bucket=Bucket.CORRECT)
    decision = key_decision(
        world.scored,
        2,
        world.users["owner"],
        outcome="amended",
        new_answer="Retry-After",
        source="RFC 9110",
    )
    assert decision.rechecked == 1
    assert Judgement.objects.get(needs_recheck=True).verdict == Judgement.Verdict.DIRECT


def test_confirming_the_same_bucket_clears_the_recheck(world, two_scorers):
    a, _b, _c = two_scorers
    key_decision(
        world.scored, 3, world.users["owner"], outcome="amended", new_answer="3.10", source="docs"
    )
    decide_group(a, 3, "3.9", bucket=Bucket.CORRECT)  # the same bucket as before
    assert review.recheck_positions(a) == []


def test_confirming_or_dropping_requeues_nothing(world, two_scorers):
    item = world.scored.items.get(position=1)
    for outcome in ("confirmed", "ambiguous"):
        decision = review_services.key_decision_create(
            item=item, user=world.users["owner"], outcome=outcome, source="RFC 6585"
        )
        assert decision.rechecked == 0
    assert not Judgement.objects.filter(needs_recheck=True).exists()
    assert review.key_in_force(item) == "key 1"


def test_decisions_are_checked_before_anything_changes(world, two_scorers):
    item = world.scored.items.get(position=1)
    owner = world.users["owner"]
    with pytest.raises(ValidationError) as error:
        review_services.key_decision_create(
            item=item, user=owner, outcome="amended", source="", new_answer=""
        )
    assert {"source", "new_answer"} <= set(error.value.error_dict)
    with pytest.raises(ValidationError):
        review_services.key_decision_create(
            item=item, user=owner, outcome="amended", source="x", new_answer="key 1"
        )
    with pytest.raises(ValidationError):  # nothing to carry back to: the snapshot has no bank item
        review_services.key_decision_create(
            item=item,
            user=owner,
            outcome="amended",
            source="x",
            new_answer="new",
            carry_to_bank=True,
        )
    sealed = world.experiment.items.get(position=1)
    with pytest.raises(ValidationError):
        review_services.key_decision_create(
            item=sealed, user=owner, outcome="confirmed", source="x"
        )
    assert (
        not KeyDecision.objects.exists()
        and not Judgement.objects.filter(needs_recheck=True).exists()
    )


# --- The bank ---------------------------------------------------------------------------------


def test_an_amendment_carried_to_the_bank_writes_a_revision(client, world):
    item = world.scored.items.get(position=2)
    bank_item = world.items[1]  # "Retry-After (keyed)", flagged in the bank
    ExperimentItem.objects.filter(pk=item.pk).update(source_item=bank_item)
    client.force_login(world.users["editor"])
    url = reverse(
        "scoring:key_review_decide", kwargs={"experiment_pk": world.scored.pk, "position": 2}
    )
    body = client.post(
        url,
        {
            "k2-outcome": "amended",
            "k2-new_answer": "Retry-After",
            "k2-source": "RFC 9110 §10.2.3",
            "k2-note": "the header name, not the status",
            "k2-carry_to_bank": "on",
        },
        **HX,
    ).content.decode()
    assert (
        "The bank&#x27;s key entry was changed too" in body
        or "bank's key entry was changed" in body
    )
    decision = KeyDecision.objects.get()
    assert decision.carried_to_bank
    revision = KeyEntryRevision.objects.get(item=bank_item)
    assert revision.answer == "Retry-After (keyed)" and revision.new_answer == "Retry-After"
    assert revision.source == "RFC 9110 §10.2.3" and revision.changed_by == world.users["editor"]
    assert "the header name, not the status" in revision.reason
    entry = KeyEntry.objects.get(item=bank_item)
    assert entry.answer == "Retry-After" and "RFC 9110 §10.2.3" in entry.sources


def test_an_amendment_not_carried_leaves_the_bank_alone(world):
    item = world.scored.items.get(position=2)
    ExperimentItem.objects.filter(pk=item.pk).update(source_item=world.items[1])
    decision = review_services.key_decision_create(
        item=item,
        user=world.users["owner"],
        outcome="amended",
        new_answer="Retry-After",
        source="RFC 9110",
    )
    assert not decision.carried_to_bank and not KeyEntryRevision.objects.exists()
    assert KeyEntry.objects.get(item=world.items[1]).answer == "Retry-After (keyed)"


def test_the_bank_queue_holds_flagged_entries_and_settles_them(client, world):
    client.force_login(world.users["editor"])
    url = reverse("scoring:bank_key_review", kwargs={"bank_pk": world.bank.pk})
    body = client.get(url).content.decode()
    assert "Check RFC 9110 10.2.3" in body and "Which header says when to retry?" in body
    assert "Which status code means Too Many Requests?" not in body  # not flagged, no review open
    decide = reverse("scoring:bank_key_decide", kwargs={"item_pk": world.items[1].pk})
    prefix = f"b{world.items[1].pk}"
    client.post(
        decide, {f"{prefix}-outcome": "confirmed", f"{prefix}-source": "RFC 9110 §10.2.3"}, **HX
    )
    entry = KeyEntry.objects.get(item=world.items[1])
    assert (
        not entry.flagged
        and entry.answer == "Retry-After (keyed)"
        and "RFC 9110 §10.2.3" in entry.sources
    )
    revision = KeyEntryRevision.objects.get(item=world.items[1])
    assert revision.flagged and revision.source == "RFC 9110 §10.2.3"
    assert "Which header says when to retry?" not in client.get(url).content.decode()
    # Scorers and viewers never reach the bank's key review.
    client.force_login(world.users["scorer"])
    assert client.get(url).status_code == 403


def test_the_bank_queue_shows_open_experiment_reviews(client, world):
    item = world.scored.items.get(position=2)
    ExperimentItem.objects.filter(pk=item.pk).update(source_item=world.items[0])
    scorer = services.assignment_start(experiment=world.scored, user=world.users["scorer"])
    services.dispute_raise(
        assignment=scorer, item=item, note="the bank key is a status, not a header"
    )
    client.force_login(world.users["owner"])
    body = client.get(
        reverse("scoring:bank_key_review", kwargs={"bank_pk": world.bank.pk})
    ).content.decode()
    assert "the bank key is a status, not a header" in body
    assert (
        reverse("scoring:key_review", kwargs={"experiment_pk": world.scored.pk}) + "#review-2"
        in body
    )


# --- Ambiguous items are dropped from the final buckets ------------------------------------


def test_an_ambiguous_item_is_dropped_from_final_bucket_rows(world, two_scorers):
    a, b, _c = two_scorers
    # B comes round to A's buckets: every response gets a unanimous final bucket.
    for response in Response.objects.filter(run__experiment=world.scored):
        if not response.abstained:
            services.judgement_decide(assignment=b, responses=[response], bucket=Bucket.CORRECT)
    reconcile_services.reconciliation_start(experiment=world.scored, user=world.users["owner"])
    assert reconcile.final_bucket_rows(world.scored).count() == 6
    item1 = world.scored.items.get(position=1)
    review_services.key_decision_create(
        item=item1, user=world.users["owner"], outcome="ambiguous", source="two readings"
    )
    rows = reconcile.final_bucket_rows(world.scored)
    assert rows.count() == 4 and not rows.filter(response__item=item1).exists()
    assert list(review.dropped_items(world.scored)) == [item1]
    assert not reconcile.scorer_bucket_rows(a).filter(response__item=item1).exists()
    assert reconcile.scorer_bucket_rows(a).count() == 4
    # A later decision brings it back.
    review_services.key_decision_create(
        item=item1, user=world.users["owner"], outcome="confirmed", source="settled"
    )
    assert reconcile.final_bucket_rows(world.scored).count() == 6


# --- Blinding on the review pages ----------------------------------------------------------


def test_review_pages_name_no_model_for_an_unrevealed_scorer(client, world):
    editor = world.users["editor"]
    services.assignment_start(experiment=world.scored, user=editor)  # scoring, not revealed
    client.force_login(editor)
    forbidden = secrets_of(world.scored)
    assert "Acme-second-config-label" in forbidden
    urls = [
        reverse("scoring:key_review", kwargs={"experiment_pk": world.scored.pk}) + "?show=all",
        reverse("scoring:bank_key_review", kwargs={"bank_pk": world.bank.pk}),
        reverse("scoring:scorers", kwargs={"experiment_pk": world.scored.pk}),
        reverse("scoring:reconcile", kwargs={"experiment_pk": world.scored.pk}),
        reverse("scoring:agreement", kwargs={"experiment_pk": world.scored.pk}),
    ]
    ExperimentItem.objects.filter(experiment=world.scored).update(source_item=world.items[0])
    body = client.get(urls[0]).content.decode()
    assert "429" in body  # the shared answer is shown, anonymously
    for url in urls:
        response = client.get(url)
        text = response.content.decode() + " ".join(f"{k}: {v}" for k, v in response.items())
        for secret in forbidden:
            assert secret not in text, f"{secret!r} on {url}"
    # The owner, not scoring, sees which configurations gave the answer.
    client.force_login(world.users["owner"])
    assert "Acme-second-config-label" in client.get(urls[0]).content.decode()


def test_an_editor_who_scores_sees_only_their_own_suspects_before_reconciliation(world):
    scorer = services.assignment_start(experiment=world.scored, user=world.users["scorer"])
    services.assignment_start(experiment=world.scored, user=world.users["editor"])
    decide_group(scorer, 2, "Retry-Later", verdict="wrong")
    services.dispute_raise(assignment=scorer, item=world.scored.items.get(position=2), note="doubt")
    own = entry_for(world.scored, world.users["editor"], 2)
    assert own is None or ("high_wrong" not in own.reasons and not own.disputes)
    assert "high_wrong" in entry_for(world.scored, world.users["owner"], 2).reasons


def test_bank_level_amendment_and_ambiguity(world):
    editor = world.users["editor"]
    entry = review_services.bank_key_decide(
        item=world.items[1],
        user=editor,
        outcome="amended",
        new_answer="Retry-After",
        source="RFC 9110 §10.2.3",
        note="drop the suffix",
    )
    assert (
        entry.answer == "Retry-After" and not entry.flagged and "RFC 9110 §10.2.3" in entry.sources
    )
    revision = KeyEntryRevision.objects.get(item=world.items[1])
    assert revision.answer == "Retry-After (keyed)" and revision.changed_by == editor
    assert "drop the suffix" in revision.reason
    review_services.bank_key_decide(
        item=world.items[0], user=editor, outcome="ambiguous", source="RFC 6585", note="two codes"
    )
    world.items[0].refresh_from_db()
    entry = KeyEntry.objects.get(item=world.items[0])
    assert world.items[0].retired and entry.flagged and "two codes" in entry.flag_note
    with pytest.raises(ValidationError):
        review_services.bank_key_decide(
            item=world.items[2], user=editor, outcome="confirmed", source="x"
        )  # no key entry
