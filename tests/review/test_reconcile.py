"""Several scorers: invitations, counts-only progress, isolation before reconciliation, and the
reconciliation itself (unanimous without a step, disagreements settled by a lead with a note)."""

import pytest
from django.core.exceptions import ValidationError
from django.urls import URLPattern, get_resolver, reverse

from scoring.models import Assignment, Bucket, FinalBucket, Judgement, Reconciliation
from scoring.queue import services
from scoring.reconciliation import finals
from scoring.reconciliation import selectors as reconcile
from scoring.reconciliation import services as reconcile_services
from tests.scoring.factories import judge, judge_everything, key_decision, responses_in_order
from tests.scoring.test_blinding import secrets_of

HX = {"HTTP_HX_REQUEST": "true"}
CW = Bucket.CONFIDENT_WRONG


def responses(world, position=None, answer=None):
    return responses_in_order(world.scored, position=position, answer=answer)


@pytest.fixture
def finished(world):
    """Two scorers (a scorer and an editor) who judged everything and disagree on "Retry-Later"
    and "3.9"; the owner leads."""
    a = services.assignment_start(experiment=world.scored, user=world.users["scorer"])
    b = services.assignment_start(experiment=world.scored, user=world.users["editor"])
    judge_everything(a, Bucket.CORRECT)
    judge_everything(b, Bucket.CORRECT)
    judge(
        b,
        {
            responses(world, 2, "Retry-Later")[0]: CW,
            responses(world, 3, "3.9")[0]: Bucket.HEDGED_WRONG,
        },
    )
    return a, b


# --- Invitations and progress ---------------------------------------------------------------


def test_the_owner_invites_members_who_may_score(client, world):
    client.force_login(world.users["owner"])
    url = reverse("scoring:scorers", kwargs={"experiment_pk": world.scored.pk})
    body = client.get(url).content.decode()
    for name in ("acme-scorer", "acme-editor", "acme-owner"):
        assert f'value="{world.users[name.split("-")[1]].pk}"' in body
    assert f'value="{world.users["viewer"].pk}"' not in body  # a viewer may not score
    client.post(url, {"user": [world.users["scorer"].pk, world.users["editor"].pk]})
    invited = Assignment.objects.filter(experiment=world.scored).order_by("user__username")
    assert [a.user.username for a in invited] == ["acme-editor", "acme-scorer"]
    assert {a.invited_by for a in invited} == {world.users["owner"]}
    # UNKNOWN answers arrive preset for each, as when a scorer starts alone.
    assert Judgement.objects.filter(assignment__in=invited, verdict="preset").count() == 2
    response = client.post(url, {"user": [world.users["viewer"].pk]}, follow=True)
    assert "may not score" in response.content.decode()
    # An editor sees the progress but may not invite.
    client.force_login(world.users["editor"])
    assert client.get(url).status_code == 200
    assert client.post(url, {"user": [world.users["owner"].pk]}).status_code == 403


def test_progress_is_counts_only(client, world, finished):
    a, b = finished
    client.force_login(world.users["owner"])
    body = client.get(
        reverse("scoring:scorers", kwargs={"experiment_pk": world.scored.pk})
    ).content.decode()
    assert "6 / 6" in body and "finished" in body
    for label in ("Correct", "Confidently wrong", "Hedged wrong", "bucket-"):
        assert label not in body
    # A judgement sent back for a re-check counts as open.
    key_decision(
        world.scored,
        1,
        world.users["owner"],
        outcome="amended",
        new_answer="429",
        source="RFC 6585",
    )
    progress = {p.assignment.pk: p for p in reconcile.scorer_progress(world.scored)}
    assert (progress[a.pk].judged, progress[a.pk].recheck, progress[a.pk].finished) == (4, 2, False)


# --- Nothing of another scorer before reconciliation ---------------------------------------


def _token_patterns():
    for pattern in get_resolver().url_patterns:
        if getattr(pattern, "namespace", None) == "scoring":
            for p in pattern.url_patterns:
                if isinstance(p, URLPattern) and "assignment_token" in p.pattern.converters:
                    yield f"scoring:{p.name}", p


def test_no_url_reaches_another_scorers_judgements(client, world, finished):
    a, b = finished
    client.force_login(world.users["scorer"])
    fill = {"position": 1, "what": "responses", "fmt": "csv"}
    checked = 0
    for name, pattern in _token_patterns():
        kwargs = {k: fill.get(k, b.token) for k in pattern.pattern.converters}
        url = reverse(name, kwargs=kwargs)
        declared = pattern.callback.team_view
        for method in ("GET", "POST"):
            if declared[method] is None:
                continue
            response = client.get(url) if method == "GET" else client.post(url, {"tokens": "x"})
            assert response.status_code == 404, f"{method} {url}: {response.status_code}"
            checked += 1
    assert checked >= 6
    # The experiment's pages: a scorer is not a lead (403, the same with or without judgements).
    for name in ("agreement", "reconcile", "key_review", "scorers"):
        url = reverse(f"scoring:{name}", kwargs={"experiment_pk": world.scored.pk})
        assert client.get(url).status_code == 403
    url = reverse(
        "scoring:reconcile_item", kwargs={"experiment_pk": world.scored.pk, "position": 2}
    )
    assert client.get(url).status_code == 403


def test_before_reconciliation_the_lead_pages_are_closed(client, world, finished):
    a, b = finished
    client.force_login(world.users["owner"])
    for name in ("agreement", "reconcile"):
        body = client.get(
            reverse(f"scoring:{name}", kwargs={"experiment_pk": world.scored.pk})
        ).content.decode()
        assert "Begin reconciliation" in body
        assert "Confidently wrong" not in body and "bucket-" not in body
    item = reverse(
        "scoring:reconcile_item", kwargs={"experiment_pk": world.scored.pk, "position": 2}
    )
    assert client.get(item).status_code == 302
    response = client.post(item, {"token": "x", "set": Bucket.CORRECT})
    assert response.status_code == 302 and not FinalBucket.objects.exists()


def test_a_lead_who_is_still_scoring_sees_nothing(client, world, finished):
    a, b = finished
    third = services.assignment_start(experiment=world.scored, user=world.users["owner"])
    client.force_login(world.users["owner"])
    with pytest.raises(ValidationError, match="judge every response"):
        reconcile_services.reconciliation_start(experiment=world.scored, user=world.users["owner"])
    # Begun by the editor (a finished scorer): still closed to the owner until they finish.
    reconcile_services.reconciliation_start(experiment=world.scored, user=world.users["editor"])
    for name in ("agreement", "reconcile"):
        body = client.get(
            reverse(f"scoring:{name}", kwargs={"experiment_pk": world.scored.pk})
        ).content.decode()
        assert "stay hidden from you" in body and "bucket-" not in body
    item = reverse(
        "scoring:reconcile_item", kwargs={"experiment_pk": world.scored.pk, "position": 2}
    )
    assert client.get(item).status_code == 302
    judge_everything(third, Bucket.CORRECT)
    assert "bucket-" in client.get(item, follow=True).content.decode()


def test_reconciliation_needs_two_finished_scorers(world):
    a = services.assignment_start(experiment=world.scored, user=world.users["scorer"])
    judge_everything(a)
    with pytest.raises(ValidationError, match="two scorers"):
        reconcile_services.reconciliation_start(experiment=world.scored, user=world.users["owner"])
    b = services.assignment_start(experiment=world.scored, user=world.users["editor"])
    judge(b, {responses(world, 1)[0]: Bucket.CORRECT})
    with pytest.raises(ValidationError, match="two scorers"):
        reconcile_services.reconciliation_start(experiment=world.scored, user=world.users["owner"])
    assert not Reconciliation.objects.exists()


# --- Reconciliation ----------------------------------------------------------------------------


def test_unanimous_responses_are_final_without_a_step(client, world, finished):
    client.force_login(world.users["owner"])
    url = reverse("scoring:reconcile", kwargs={"experiment_pk": world.scored.pk})
    client.post(url)
    reconciliation = Reconciliation.objects.get()
    assert reconciliation.started_by == world.users["owner"] and reconciliation.name_scorers
    finals = FinalBucket.objects.all()
    assert finals.count() == 4 and all(f.unanimous and f.decided_by is None for f in finals)
    assert not finals.filter(response__answer__in=["Retry-Later", "3.9"]).exists()
    body = client.get(url).content.decode()
    assert "Unanimous" in body and f'href="/experiments/{world.scored.pk}/reconcile/2/"' in body
    summary = reconcile.reconcile_summary(world.scored)
    assert (summary.total, summary.unanimous, summary.disagreements, summary.open) == (6, 4, 2, 2)
    assert [i.position for i in summary.items] == [2, 3] and not summary.complete
    with pytest.raises(ValidationError, match="already begun"):
        reconcile_services.reconciliation_start(experiment=world.scored, user=world.users["owner"])


def test_the_lead_settles_a_disagreement_with_a_note(client, world, finished):
    a, b = finished
    reconcile_services.reconciliation_start(experiment=world.scored, user=world.users["owner"])
    client.force_login(world.users["owner"])
    url = reverse(
        "scoring:reconcile_item", kwargs={"experiment_pk": world.scored.pk, "position": 2}
    )
    body = client.get(url).content.decode()
    # Each scorer's bucket, named (the team's default), and the answer without its model.
    assert "acme-scorer" in body and "acme-editor" in body and "Retry-Later" in body
    assert "Confidently wrong" in body
    for secret in secrets_of(world.scored):
        assert secret not in body
    target = responses(world, 2, "Retry-Later")[0]
    token = reconcile.response_token(world.users["owner"], target.pk)
    assert token in body and f'value="{target.pk}"' not in body
    body = client.post(
        url, {"token": token, "set": CW, "note": "Retry-Later is no header"}, **HX
    ).content.decode()
    assert "Final bucket saved" in body
    final = FinalBucket.objects.get(response=target)
    assert (final.bucket, final.unanimous, final.decided_by, final.note) == (
        CW,
        False,
        world.users["owner"],
        "Retry-Later is no header",
    )
    # Ctrl+Enter saves the note alone: the hidden bucket keeps the chosen one.
    client.post(url, {"token": token, "bucket": CW, "note": "RFC 9110 10.2.3"}, **HX)
    assert FinalBucket.objects.get(response=target).note == "RFC 9110 10.2.3"
    # Without a bucket: an error, nothing saved.
    other = responses(world, 3, "3.9")[0]
    item3 = reverse(
        "scoring:reconcile_item", kwargs={"experiment_pk": world.scored.pk, "position": 3}
    )
    body = client.post(
        item3,
        {"token": reconcile.response_token(world.users["owner"], other.pk), "note": "hm"},
        **HX,
    ).content.decode()
    assert "Choose a bucket" in body and not FinalBucket.objects.filter(response=other).exists()
    # A token of another user names nothing.
    body = client.post(
        item3, {"token": reconcile.response_token(world.users["editor"], other.pk), "set": CW}, **HX
    ).content.decode()
    assert "not on this item" in body and not FinalBucket.objects.filter(response=other).exists()
    assert reconcile.final_bucket_rows(world.scored).count() == 5


def test_scorer_names_are_hidden_when_the_team_says_so(client, world, finished):
    world.team.show_scorer_names = False
    world.team.save()
    reconcile_services.reconciliation_start(experiment=world.scored, user=world.users["owner"])
    assert not Reconciliation.objects.get().name_scorers
    client.force_login(world.users["owner"])
    for url in (
        reverse("scoring:reconcile_item", kwargs={"experiment_pk": world.scored.pk, "position": 2}),
        reverse("scoring:agreement", kwargs={"experiment_pk": world.scored.pk}),
    ):
        body = client.get(url).content.decode()
        assert "Scorer A" in body and "Scorer B" in body
        assert "acme-scorer" not in body and "acme-editor" not in body


def test_final_buckets_follow_a_scorers_later_change(client, world, finished):
    a, b = finished
    reconcile_services.reconciliation_start(experiment=world.scored, user=world.users["owner"])
    agreed = responses(world, 1, "429")
    assert FinalBucket.objects.filter(response__in=agreed, unanimous=True).count() == 2
    # A changes their mind on "429": no longer unanimous, back among the disagreements.
    judge(a, {agreed[0]: Bucket.HEDGED_WRONG})
    finals.final_buckets_sync(experiment=world.scored)
    assert not FinalBucket.objects.filter(response=agreed[0]).exists()
    # B comes round on "3.9": now unanimous, final without a step (the decision syncs).
    judge(b, {responses(world, 3, "3.9")[0]: Bucket.CORRECT})
    assert FinalBucket.objects.get(response__answer="3.9").unanimous
    # Opening the overview writes nothing, even with a row out of line (removed by hand here).
    FinalBucket.objects.filter(response__answer="3.9").delete()
    client.force_login(world.users["owner"])
    before = sorted(FinalBucket.objects.values_list("pk", "bucket", "unanimous"))
    page = client.get(reverse("scoring:reconcile", kwargs={"experiment_pk": world.scored.pk}))
    assert page.status_code == 200
    assert sorted(FinalBucket.objects.values_list("pk", "bucket", "unanimous")) == before
    finals.final_buckets_sync(experiment=world.scored)
    assert FinalBucket.objects.get(response__answer="3.9").unanimous
    # An amendment sends judgements back: their unanimous rows wait for the re-check.
    key_decision(
        world.scored,
        1,
        world.users["owner"],
        outcome="amended",
        new_answer="429",
        source="RFC 6585",
    )
    assert not FinalBucket.objects.filter(response__item__position=1).exists()
    summary = reconcile.reconcile_summary(world.scored)
    assert summary.awaiting == 2
    # A lead's decision is never overwritten by the sync.
    target = responses(world, 2, "Retry-Later")[0]
    finals.final_bucket_set(
        experiment=world.scored, response=target, user=world.users["owner"], bucket=CW, note="n"
    )
    judge(b, {target: Bucket.CORRECT})
    finals.final_buckets_sync(experiment=world.scored)
    final = FinalBucket.objects.get(response=target)
    assert final.bucket == CW and not final.unanimous


def test_scorer_bucket_rows_and_final_bucket_rows_have_the_report_shape(world, finished):
    a, b = finished
    assert reconcile.final_bucket_rows(world.scored).count() == 0  # nothing before reconciliation
    reconcile_services.reconciliation_start(experiment=world.scored, user=world.users["owner"])
    for rows in (reconcile.final_bucket_rows(world.scored), reconcile.scorer_bucket_rows(a)):
        row = rows.first()
        assert row.response.run.experiment_id == world.scored.pk and row.bucket
    assert reconcile.scorer_bucket_rows(a).count() == 6
