"""Notifications: in the inbox (a count in the top bar) and by mail where the server sends mail
and the user keeps the choice on; in the reader's language, with a link, and never anything a
scorer must not see before their reveal (no sheet code, no model or configuration name, no
answer text)."""

import pytest
from django.core import mail
from django.urls import reverse

from probe.models import Experiment, Notification, Run, UserPreference
from probe.services.experiments import experiment_finish
from scoring.models import Judgement, Response
from scoring.queue.services import assignment_reveal, judgement_decide
from scoring.reconciliation.services import scorers_invite
from scoring.review.services import key_decision_create

pytestmark = pytest.mark.django_db

SECRETS = ["Acme-secret-config-label", "Acme-second-config-label", "sim-", "Retry-Later", "429"]


def assert_blind(content: bytes):
    text = content.decode()
    for secret in SECRETS:
        assert secret not in text, secret


def test_items_to_score_show_in_the_top_bar_and_the_inbox_and_say_nothing_of_the_sheets(
    client, world
):
    scorer = world.member("scorer")
    scorers_invite(experiment=world.scored, users=[scorer], invited_by=world.member("owner"))
    client.force_login(scorer)
    home = client.get(reverse("probe:team_home", kwargs={"team_slug": world.team.slug}))
    assert b'id="unread-count">1<' in home.content
    inbox = client.get(reverse("inbox"))
    assert b"You have items to score in Scored." in inbox.content
    start = reverse("scoring:start", kwargs={"experiment_pk": world.scored.pk})
    assert f'href="{start}"'.encode() in inbox.content
    assert_blind(inbox.content)
    # Opening the inbox writes nothing (the count stays); "Mark all as read" reads them.
    home = client.get(reverse("probe:team_home", kwargs={"team_slug": world.team.slug}))
    assert b"unread-count" in home.content
    assert client.post(reverse("inbox"), {"action": "read"}).status_code == 302
    home = client.get(reverse("probe:team_home", kwargs={"team_slug": world.team.slug}))
    assert b"unread-count" not in home.content
    # Inviting again tells nothing new.
    assert Notification.objects.filter(user=scorer).count() == 1


def test_in_the_readers_language_and_by_mail_when_chosen(
    client, world, settings, django_capture_on_commit_callbacks
):
    settings.EMAIL_ENABLED = True
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    settings.SITE_URL = "https://probe.example.org"
    scorer, editor = world.member("scorer"), world.member("editor")
    scorer.email, editor.email = "scorer@example.org", "editor@example.org"
    scorer.save()
    editor.save()
    UserPreference.objects.create(user=scorer, language="ja")
    UserPreference.objects.create(user=editor, notify_by_email=False)
    with django_capture_on_commit_callbacks(execute=True):
        scorers_invite(
            experiment=world.scored, users=[scorer, editor], invited_by=world.member("owner")
        )
    # The editor chose the inbox only; the scorer's mail is in Japanese, with the link.
    assert [m.to for m in mail.outbox] == [["scorer@example.org"]]
    body = mail.outbox[0].body
    assert "Scored" in body and "採点" in body
    start = reverse("scoring:start", kwargs={"experiment_pk": world.scored.pk})
    assert "https://probe.example.org" + start in body
    for secret in SECRETS:
        assert secret not in body and secret not in mail.outbox[0].subject
    client.force_login(scorer)
    page = client.get(reverse("inbox"))
    assert "Scored に採点する設問があります。".encode() in page.content
    # The scorer turns mail off from the inbox.
    client.post(reverse("inbox"), {})
    assert not UserPreference.objects.get(user=scorer).notify_by_email


def test_collected_recheck_and_reconciliation_notify_the_right_people(client, world):
    owner, editor, scorer = world.member("owner"), world.member("editor"), world.member("scorer")
    Experiment.objects.filter(pk=world.experiment.pk).update(status=Experiment.Status.COLLECTING)
    Run.objects.filter(experiment=world.experiment).update(status=Run.Status.COLLECTED)
    world.experiment.refresh_from_db()
    experiment_finish(experiment=world.experiment, user=editor)
    collected = Notification.objects.filter(kind="collected")
    assert {n.user for n in collected} == {owner, editor, scorer}
    assert world.member("viewer") not in {n.user for n in collected}

    # Two scorers judge everything of the scored experiment and reveal: the leads hear that
    # reconciliation waits.
    scorers_invite(experiment=world.scored, users=[scorer, editor], invited_by=owner)
    for assignment in world.scored.assignments.all():
        for item in world.scored.items.all():
            responses = list(Response.objects.filter(item=item))
            judgement_decide(assignment=assignment, responses=responses, verdict="correct")
        assignment_reveal(assignment=assignment)
    waits = Notification.objects.filter(kind="reconcile")
    assert {n.user for n in waits} == {owner, editor}

    # The key of an item is amended: its scorers are told to re-check.
    item = world.scored.items.order_by("position").first()
    key_decision_create(
        item=item, user=owner, outcome="amended", source="RFC 9110", new_answer="new key"
    )
    assert Judgement.objects.filter(needs_recheck=True).exists()
    rechecks = Notification.objects.filter(kind="recheck")
    assert {n.user for n in rechecks} == {scorer, editor}
    client.force_login(scorer)
    inbox = client.get(reverse("inbox"))
    assert b"was amended: your judgement waits for your re-check" in inbox.content
    assert b"new key" not in inbox.content
    assert_blind(inbox.content)


def test_reconciliation_waits_once_two_scorers_have_judged_everything_before_any_reveal(world):
    owner, editor, scorer = world.member("owner"), world.member("editor"), world.member("scorer")
    scorers_invite(experiment=world.scored, users=[scorer, editor], invited_by=owner)
    first, second = world.scored.assignments.order_by("pk")
    items = list(world.scored.items.order_by("position"))
    for item in items:
        judgement_decide(
            assignment=first, responses=list(Response.objects.filter(item=item)), verdict="correct"
        )
    # One scorer done: nothing to reconcile yet.
    assert not Notification.objects.filter(kind="reconcile").exists()
    for item in items:
        judgement_decide(
            assignment=second, responses=list(Response.objects.filter(item=item)), verdict="wrong"
        )
    # Both done, neither revealed: the leads hear of it now, once.
    waits = Notification.objects.filter(kind="reconcile")
    assert {n.user for n in waits} == {owner, editor}
    assert not first.revealed and not second.revealed
    for assignment in (first, second):
        assignment_reveal(assignment=assignment)
    assert Notification.objects.filter(kind="reconcile").count() == 2
