"""The blind queue: buckets, groups, shuffles, undo, disputes, reveal, and its query count."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from probe.models import Response
from scoring.models import Assignment, Bucket, Judgement, JudgementChange, KeyDispute
from scoring.queue import selectors, services
from tests.conftest import scored_experiment

HX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def scorer(client, world):
    client.force_login(world.users["scorer"])
    return client


def start(client, experiment) -> Assignment:
    response = client.post(reverse("scoring:start", kwargs={"experiment_pk": experiment.pk}))
    assert response.status_code == 302
    return Assignment.objects.get(experiment=experiment, user=response.wsgi_request.user)


def group_tokens(client, assignment, position, answer):
    queue = selectors.queue_item(assignment, position)
    return next(g.tokens for g in queue.groups if g.answer == answer)


def decide(client, assignment, position, **data):
    url = reverse(
        "scoring:decide", kwargs={"assignment_token": assignment.token, "position": position}
    )
    return client.post(url, data, **HX)


def bucket_of(assignment, position, answer):
    return sorted(
        Judgement.objects.filter(
            assignment=assignment, response__item__position=position, response__answer=answer
        ).values_list("bucket", flat=True)
    )


def test_scoring_is_closed_until_collection_completes(scorer, world):
    response = scorer.post(
        reverse("scoring:start", kwargs={"experiment_pk": world.experiment.pk}), follow=True
    )
    assert "Scoring opens when every run is collected" in response.content.decode()
    assert not Assignment.objects.filter(experiment=world.experiment).exists()


def test_unknown_arrives_set_to_abstained(scorer, world):
    assignment = start(scorer, world.scored)
    assert bucket_of(assignment, 3, "UNKNOWN") == [Bucket.ABSTAINED]
    assert (
        Judgement.objects.get(assignment=assignment, response__answer="UNKNOWN").verdict == "preset"
    )


def test_correct_and_wrong_follow_the_confidence(scorer, world):
    assignment = start(scorer, world.scored)
    decide(
        scorer, assignment, 1, tokens=group_tokens(scorer, assignment, 1, "429"), verdict="correct"
    )
    assert bucket_of(assignment, 1, "429") == [
        Bucket.CORRECT,
        Bucket.CORRECT,
    ]  # one decision, two sheets
    decide(
        scorer, assignment, 3, tokens=group_tokens(scorer, assignment, 3, "3.9"), verdict="wrong"
    )
    assert bucket_of(assignment, 3, "3.9") == [Bucket.HEDGED_WRONG]


def test_marking_a_high_confidence_answer_wrong_asks_first(scorer, world):
    assignment = start(scorer, world.scored)
    tokens = group_tokens(scorer, assignment, 2, "Retry-Later")
    body = decide(scorer, assignment, 2, tokens=tokens, verdict="wrong").content.decode()
    assert "more often a correct model than a wrong key" in body
    assert bucket_of(assignment, 2, "Retry-Later") == []
    decide(scorer, assignment, 2, tokens=tokens, verdict="wrong", confirmed="1")
    assert bucket_of(assignment, 2, "Retry-Later") == [Bucket.CONFIDENT_WRONG]


def test_dispute_the_key_is_recorded_and_a_blank_note_loses_nothing(scorer, world):
    assignment = start(scorer, world.scored)
    tokens = group_tokens(scorer, assignment, 2, "Retry-Later")
    url = reverse("scoring:dispute", kwargs={"assignment_token": assignment.token, "position": 2})
    body = scorer.post(url, {"tokens": tokens, "note": "  "}, **HX).content.decode()
    assert "Say what you doubt" in body and not KeyDispute.objects.exists()
    scorer.post(url, {"tokens": tokens, "note": "RFC 9110 10.2.3 says Retry-After"}, **HX)
    dispute = KeyDispute.objects.get()
    assert dispute.item.position == 2 and dispute.response.answer == "Retry-Later"


def test_direct_bucket_and_a_missing_confidence_needs_one(scorer, world):
    assignment = start(scorer, world.scored)
    Response.objects.filter(item__experiment=world.scored, answer="3.9").update(confidence="")
    tokens = group_tokens(scorer, assignment, 3, "3.9")
    body = decide(scorer, assignment, 3, tokens=tokens, verdict="wrong").content.decode()
    assert "choose it (keys 1 to 4)" in body and bucket_of(assignment, 3, "3.9") == []
    decide(scorer, assignment, 3, tokens=tokens, bucket=Bucket.CONFIDENT_WRONG)
    assert bucket_of(assignment, 3, "3.9") == [Bucket.CONFIDENT_WRONG]
    body = decide(scorer, assignment, 3, tokens=tokens, bucket="partial").content.decode()
    assert "does not belong to this experiment" in body
    assert bucket_of(assignment, 3, "3.9") == [Bucket.CONFIDENT_WRONG]


def test_undo_reverts_the_whole_group(scorer, world):
    assignment = start(scorer, world.scored)
    decide(
        scorer, assignment, 1, tokens=group_tokens(scorer, assignment, 1, "429"), verdict="correct"
    )
    decide(
        scorer,
        assignment,
        1,
        tokens=group_tokens(scorer, assignment, 1, "429"),
        bucket=Bucket.HEDGED_WRONG,
    )
    undo = reverse("scoring:undo", kwargs={"assignment_token": assignment.token})
    scorer.post(undo, {"position": 1}, **HX)
    assert bucket_of(assignment, 1, "429") == [Bucket.CORRECT, Bucket.CORRECT]
    scorer.post(undo, {"position": 1}, **HX)
    assert bucket_of(assignment, 1, "429") == []
    body = scorer.post(undo, {"position": 1}, **HX).content.decode()
    assert "Nothing to undo" in body


def test_shuffle_differs_between_items_and_scorers_and_is_stable(client, world):
    from tests.probe import factories

    configs = [factories.ModelConfigFactory(team=world.team, label=f"cfg {i}") for i in range(8)]
    experiment = scored_experiment(
        world,
        configs=configs,
        answers=[[(f"a{r}-{i}", "HIGH") for i in range(4)] for r in range(8)],
        name="Shuffled",
    )
    a = services.assignment_start(experiment=experiment, user=world.users["scorer"])
    b = services.assignment_start(experiment=experiment, user=world.users["editor"])

    def order(assignment, position):
        return [
            g.members[0].response.run_id for g in selectors.queue_item(assignment, position).groups
        ]

    assert order(a, 1) == order(a, 1)  # stable on reload
    assert len({tuple(order(a, p)) for p in range(1, 5)}) > 1  # differs between items
    assert any(order(a, p) != order(b, p) for p in range(1, 5))  # differs between scorers
    tokens_a = {m.token for g in selectors.queue_item(a, 1).groups for m in g.members}
    tokens_b = {m.token for g in selectors.queue_item(b, 1).groups for m in g.members}
    assert not tokens_a & tokens_b  # no identifier is the same for two scorers


def test_queries_do_not_grow_with_the_number_of_sheets(client, world):
    from tests.probe import factories

    def queries_for(n_sheets):
        configs = [factories.ModelConfigFactory(team=world.team) for _ in range(n_sheets)]
        experiment = scored_experiment(
            world,
            configs=configs,
            answers=[[(f"answer {r}", "HIGH"), (f"other {r}", "LOW")] for r in range(n_sheets)],
            name=f"{n_sheets} sheets",
        )
        assignment = services.assignment_start(experiment=experiment, user=world.users["scorer"])
        client.force_login(world.users["scorer"])
        url = reverse("scoring:item", kwargs={"assignment_token": assignment.token, "position": 1})
        client.get(url, **HX)  # warm up (session, last position)
        with CaptureQueriesContext(connection) as get_ctx:
            assert client.get(url, **HX).status_code == 200
        tokens = selectors.queue_item(assignment, 1).groups[0].tokens
        with CaptureQueriesContext(connection) as post_ctx:
            decide(client, assignment, 1, tokens=tokens, verdict="correct")
        return len(get_ctx), len(post_ctx)

    assert queries_for(2) == queries_for(10)


def test_reveal_only_after_every_response_and_later_changes_are_unblinded(scorer, world):
    assignment = start(scorer, world.scored)
    reveal = reverse("scoring:reveal", kwargs={"assignment_token": assignment.token})
    scorer.post(reveal)
    assignment.refresh_from_db()
    assert assignment.revealed_at is None
    assert "Acme-second-config-label" not in scorer.get(reveal).content.decode()
    for position in (1, 2, 3):
        for group in selectors.queue_item(assignment, position).groups:
            if not group.decided:
                decide(scorer, assignment, position, tokens=group.tokens, verdict="correct")
    scorer.post(reveal)
    assignment.refresh_from_db()
    assert assignment.revealed_at is not None
    assert "Acme-second-config-label" in scorer.get(reveal).content.decode()
    decide(
        scorer,
        assignment,
        1,
        tokens=group_tokens(scorer, assignment, 1, "429"),
        bucket=Bucket.HEDGED_WRONG,
    )
    assert Judgement.objects.filter(assignment=assignment, unblinded=True).count() == 2
    assert JudgementChange.objects.filter(assignment=assignment, after_reveal=True).count() == 2


def test_another_scorers_queue_is_404(client, world):
    mine = services.assignment_start(experiment=world.scored, user=world.users["scorer"])
    client.force_login(world.users["editor"])
    url = reverse("scoring:item", kwargs={"assignment_token": mine.token, "position": 1})
    assert client.get(url).status_code == 404


def test_fragment_and_full_page(scorer, world):
    assignment = start(scorer, world.scored)
    url = reverse("scoring:item", kwargs={"assignment_token": assignment.token, "position": 2})
    page = scorer.get(url).content.decode()
    fragment_response = scorer.get(url, **HX)
    fragment = fragment_response.content.decode()
    assert "<html" in page and 'id="help-overlay"' in page
    assert "<html" not in fragment and 'id="scoring-item"' in fragment
    assert fragment_response["HX-Push-Url"] == url


def test_hidden_confidence_is_not_shown_but_still_sets_the_bucket(scorer, world):
    world.scored.hide_confidence = True
    world.scored.save(update_fields=["hide_confidence"])
    assignment = start(scorer, world.scored)
    url = reverse("scoring:item", kwargs={"assignment_token": assignment.token, "position": 3})
    body = scorer.get(url).content.decode()
    assert 'class="conf conf-' not in body and "3.9" in body
    decide(
        scorer, assignment, 3, tokens=group_tokens(scorer, assignment, 3, "3.9"), verdict="wrong"
    )
    assert bucket_of(assignment, 3, "3.9") == [Bucket.HEDGED_WRONG]  # LOW, though not shown


def test_the_second_scheme_scores_incorrect_partial_and_not_attempted(scorer, world):
    world.scored.scheme = "aa"
    world.scored.save(update_fields=["scheme"])
    assignment = start(scorer, world.scored)
    assert bucket_of(assignment, 3, "UNKNOWN") == [Bucket.NOT_ATTEMPTED]
    decide(
        scorer, assignment, 3, tokens=group_tokens(scorer, assignment, 3, "3.9"), verdict="wrong"
    )
    assert bucket_of(assignment, 3, "3.9") == [Bucket.INCORRECT]
    decide(
        scorer,
        assignment,
        2,
        tokens=group_tokens(scorer, assignment, 2, "Retry-Later"),
        bucket="partial",
    )
    assert bucket_of(assignment, 2, "Retry-Later") == [Bucket.PARTIAL]
    page = scorer.get(
        reverse("scoring:item", kwargs={"assignment_token": assignment.token, "position": 2})
    ).content.decode()
    assert "Not attempted" in page and "Confidently wrong" not in page


def test_a_group_shows_every_way_its_answer_is_written(scorer, world):
    from tests.probe import factories

    configs = [factories.ModelConfigFactory(team=world.team) for _ in range(4)]
    experiment = scored_experiment(
        world,
        configs,
        [
            [("Retry-After", "HIGH")],
            [("retry-after.", "LOW")],
            [("ＲＥＴＲＹ-ＡＦＴＥＲ", "HIGH")],
            [("  Retry-After  ", "MEDIUM")],
        ],
        name="Variants",
    )
    assignment = start(scorer, experiment)
    (group,) = selectors.queue_item(assignment, 1).groups
    assert group.size == 4
    assert sorted(group.variants + [group.answer]) == sorted(
        ["Retry-After", "retry-after.", "ＲＥＴＲＹ-ＡＦＴＥＲ"]
    )
    url = reverse("scoring:item", kwargs={"assignment_token": assignment.token, "position": 1})
    body = scorer.get(url).content.decode()
    assert "also written:" in body
    for variant in group.variants:
        assert f'<span class="variant">{variant}</span>' in body
