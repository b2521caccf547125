"""The "Run again" page: the difference listed first, a follow-up made in one submit."""

import pytest

from probe.models import Experiment, Run
from scoring.queue import services
from tests.api.test_follow_ups import _collected
from tests.conftest import login

pytestmark = pytest.mark.django_db


def test_run_again_lists_the_difference_and_creates_the_follow_up(client, world):
    origin = _collected(world)
    world.items[2].retired = True
    world.items[2].save()
    login(client, world.users["editor"])
    page = client.get(f"/experiments/{origin.pk}/again/")
    assert page.status_code == 200
    body = page.content.decode()
    assert "Which version added match?" in body and "no longer in the bank" in body
    # The earlier configurations are ticked, and the collected runs offered for inclusion.
    form = page.context["form"]
    assert form["configs"].initial == [world.config.pk]
    assert set(form.fields["include_runs"].queryset) == set(world.runs)
    response = client.post(
        f"/experiments/{origin.pk}/again/",
        {
            "name": "Second look",
            "items": "current",
            "prompt_version": world.prompt.pk,
            "configs": [world.config.pk],
            "include_runs": [],
            "repeats": 2,
        },
    )
    follow_up = Experiment.objects.get(name="Second look")
    assert response.status_code == 302
    assert response["Location"] == f"/experiments/{follow_up.pk}/"
    assert follow_up.items.count() == 2 and follow_up.follows == origin
    detail = client.get(response["Location"]).content.decode()
    assert origin.name in detail  # "Follows" links back


def test_a_refused_follow_up_says_why_beside_the_field(client, world):
    origin = _collected(world)
    from tests.probe import factories

    tuned = factories.PromptVersionFactory(team=world.team, name="Tuned")
    login(client, world.users["editor"])
    before = Experiment.objects.count()
    page = client.post(
        f"/experiments/{origin.pk}/again/",
        {
            "items": "snapshot",
            "prompt_version": tuned.pk,
            "configs": [world.config.pk],
            "include_runs": [world.runs[0].pk],
            "repeats": 2,
        },
    )
    assert page.status_code == 200
    assert "another prompt version" in " ".join(page.context["form"].errors["include_runs"])
    assert Experiment.objects.count() == before


def test_a_blinded_editor_and_a_scorer_cannot_open_it(client, world):
    origin = _collected(world)
    login(client, world.users["scorer"])
    assert client.get(f"/experiments/{origin.pk}/again/").status_code == 403
    services.assignment_start(experiment=origin, user=world.users["editor"])
    login(client, world.users["editor"])
    page = client.get(f"/experiments/{origin.pk}/again/")
    assert page.status_code == 200 and "scoring this experiment blind" in page.content.decode()
    assert "Acme-secret-config-label" not in page.content.decode()
    refused = client.post(f"/experiments/{origin.pk}/again/", {"repeats": 2, "items": "snapshot"})
    assert "scoring this experiment blind" in refused.content.decode()
    assert not Experiment.objects.filter(follows=origin).exists()
    assert Run.objects.filter(experiment__follows=origin).count() == 0
