"""The one rule of who sees other scorers' judgements (scoring.visibility), state by state, and
the key review that a scorer still judging reaches after reconciliation has begun."""

from django.urls import reverse

from scoring.models import Bucket, Judgement
from scoring.queue import services
from scoring.reconciliation import selectors as reconcile
from scoring.reconciliation import services as reconcile_services
from scoring.visibility import sees_others_judgements, still_judging
from tests.scoring.factories import judge_everything, key_decision


def _finish(world, *kinds, bucket=Bucket.CORRECT):
    assignments = []
    for kind in kinds:
        assignment = services.assignment_start(experiment=world.scored, user=world.users[kind])
        judge_everything(assignment, bucket)
        assignments.append(assignment)
    return assignments


def test_the_rule_state_by_state(world):
    experiment, users = world.scored, world.users
    # Before anyone scores: leads and viewers may, a scorer who may still join may not.
    assert [sees_others_judgements(experiment, users[k]) for k in ("viewer", "scorer")] == [
        True,
        False,
    ]
    assert sees_others_judgements(experiment, users["editor"])
    assert not sees_others_judgements(experiment, users["outsider"])  # not in the team
    _finish(world, "scorer", "owner")
    # Finished, but reconciliation has not begun: scorers stay independent.
    assert not sees_others_judgements(experiment, users["scorer"])
    reconcile_services.reconciliation_start(experiment=experiment, user=users["owner"])
    assert sees_others_judgements(experiment, users["scorer"])
    assert sees_others_judgements(experiment, users["owner"])
    # The editor joins late: nothing, whatever the state of reconciliation.
    late = services.assignment_start(experiment=experiment, user=users["editor"])
    assert still_judging(experiment, users["editor"])
    assert not sees_others_judgements(experiment, users["editor"])
    assert not reconcile.decisions_visible(experiment, users["editor"])
    judge_everything(late, Bucket.CORRECT)
    assert sees_others_judgements(experiment, users["editor"])


def test_a_judgement_sent_back_for_a_re_check_hides_the_others_again(world):
    scorer, owner = _finish(world, "scorer", "owner")
    reconcile_services.reconciliation_start(experiment=world.scored, user=world.users["owner"])
    assert sees_others_judgements(world.scored, world.users["scorer"])
    key_decision(world.scored, 1, world.users["owner"], new_answer="a better key")
    assert Judgement.objects.filter(assignment=scorer, needs_recheck=True).exists()
    assert still_judging(world.scored, world.users["scorer"])
    assert not sees_others_judgements(world.scored, world.users["scorer"])


def test_a_late_editor_sees_only_their_own_judgements_in_the_key_review(client, world):
    """What was reported: an editor with nothing judged saw "HIGH, marked wrong" in the key
    review as soon as reconciliation had begun."""
    _finish(world, "scorer", "owner", bucket=Bucket.CONFIDENT_WRONG)
    reconcile_services.reconciliation_start(experiment=world.scored, user=world.users["owner"])
    services.assignment_start(experiment=world.scored, user=world.users["editor"])
    client.force_login(world.users["editor"])
    url = reverse("scoring:key_review", kwargs={"experiment_pk": world.scored.pk})
    late = client.get(url).content.decode()
    client.force_login(world.users["owner"])
    lead = client.get(url).content.decode()
    assert "HIGH, marked wrong" in lead
    assert "HIGH, marked wrong" not in late
    assert "until you have judged every response and reconciliation has begun" in late
