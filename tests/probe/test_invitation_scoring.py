"""One step from invitation to scoring: an invitation names the experiments the invitee will
score (or every current and future one of the team); accepting it makes them a scorer there and
lands them on the first one's scoring page."""

import re

import pytest
from django.urls import reverse

from probe.models import Experiment, Invitation, Membership, Run
from probe.services.experiments import experiment_finish
from scoring.models import Assignment

pytestmark = pytest.mark.django_db

PASSWORD = "a long enough passphrase 42"


def invite(client, world, **fields):
    client.force_login(world.member("owner"))
    response = client.post(
        reverse("probe:member_list", kwargs={"team_slug": world.team.slug}),
        {"invitee": "fresh@example.org", "role": "scorer", **fields},
    )
    assert response.status_code == 200, response.content[:500]
    link = re.search(r"/invitations/[^/\"<\s]+/", response.content.decode()).group(0)
    client.logout()
    return link


def accept_with_new_account(client, link):
    return client.post(
        link,
        {"signup": "1", "username": "fresh", "password1": PASSWORD, "password2": PASSWORD},
    )


def test_accepting_makes_a_scorer_of_the_named_experiment_and_opens_its_scoring(client, world):
    link = invite(client, world, experiments=[world.scored.pk])
    invitation = Invitation.objects.get(email="fresh@example.org")
    assert list(invitation.experiments.all()) == [world.scored]
    response = accept_with_new_account(client, link)
    assignment = Assignment.objects.get(experiment=world.scored, user__username="fresh")
    assert response.status_code == 302
    assert response["Location"].startswith(
        reverse("scoring:item", kwargs={"assignment_token": assignment.token, "position": 1})[:-2]
    )
    page = client.get(response["Location"])
    assert page.status_code == 200
    # Only the named experiment.
    assert Assignment.objects.filter(user__username="fresh").count() == 1


def test_every_current_and_future_experiment(client, world):
    link = invite(client, world, all_experiments="on")
    accept_with_new_account(client, link)
    membership = Membership.objects.get(user__username="fresh", team=world.team)
    assert membership.scores_all_experiments
    # world.experiment is not collected yet: only the collected one now.
    assert set(
        Assignment.objects.filter(user=membership.user).values_list("experiment", flat=True)
    ) == {world.scored.pk}
    # Its collection completes (an editor finishes it): the member becomes its scorer.
    Experiment.objects.filter(pk=world.experiment.pk).update(status=Experiment.Status.COLLECTING)
    Run.objects.filter(experiment=world.experiment).update(status=Run.Status.COLLECTED)
    world.experiment.refresh_from_db()
    experiment_finish(experiment=world.experiment, user=world.member("editor"))
    assert Assignment.objects.filter(user=membership.user, experiment=world.experiment).exists()


def test_a_viewer_cannot_be_invited_to_score(client, world):
    client.force_login(world.member("owner"))
    response = client.post(
        reverse("probe:member_list", kwargs={"team_slug": world.team.slug}),
        {"invitee": "look@example.org", "role": "viewer", "experiments": [world.scored.pk]},
    )
    assert response.status_code == 422
    assert b"needs the role scorer or above" in response.content
    assert not Invitation.objects.filter(email="look@example.org").exists()
