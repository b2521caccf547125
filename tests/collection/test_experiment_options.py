"""The scoring options chosen when an experiment is created."""

from django.urls import reverse

from probe.models import Experiment


def test_scheme_hidden_confidence_and_noise_floor_are_kept(client, world):
    client.force_login(world.users["editor"])
    response = client.post(
        reverse("probe:experiment_create", kwargs={"team_slug": world.team.slug}),
        {
            "bank": world.bank.pk,
            "prompt_version": world.prompt.pk,
            "configs": [world.config.pk],
            "repeats": 2,
            "mode": "sheet",
            "scheme": "aa",
            "hide_confidence": "on",
            "noise_floor": "2.5",
            "name": "With options",
        },
    )
    assert response.status_code == 302
    experiment = Experiment.objects.get(name="With options")
    assert (experiment.scheme, experiment.hide_confidence, experiment.noise_floor) == (
        "aa",
        True,
        2.5,
    )
    page = client.get(response["Location"]).content.decode()
    assert (
        "Correct / Incorrect / Partial / Not attempted" in page and "noise floor 2.5 items" in page
    )


def test_a_negative_noise_floor_is_refused_beside_the_field(client, world):
    client.force_login(world.users["editor"])
    response = client.post(
        reverse("probe:experiment_create", kwargs={"team_slug": world.team.slug}),
        {
            "bank": world.bank.pk,
            "prompt_version": world.prompt.pk,
            "configs": [world.config.pk],
            "repeats": 2,
            "mode": "sheet",
            "scheme": "four",
            "noise_floor": "-1",
        },
    )
    assert response.status_code == 200
    assert "has-error" in response.content.decode()
    assert not Experiment.objects.filter(noise_floor=-1).exists()


def test_simulated_repeats_are_distinct_draws_unless_a_seed_is_set(world):
    from probe.services.collection import request_for

    run_1, run_2 = world.runs
    assert request_for(run_1, None, []).seed == 1 and request_for(run_2, None, []).seed == 2
    run_2.config_snapshot = {**run_2.config_snapshot, "seed": 99}
    assert request_for(run_2, None, []).seed == 99


def test_the_live_fragment_also_updates_the_scoring_card(client, world):
    """When collection ends while the page is open, the way into scoring appears without a reload."""
    client.force_login(world.users["editor"])
    url = reverse("probe:experiment_detail", kwargs={"experiment_pk": world.scored.pk})
    fragment = client.get(
        url, HTTP_HX_REQUEST="true", HTTP_HX_TARGET="experiment-progress"
    ).content.decode()
    assert 'id="experiment-scoring" hx-swap-oob="true"' in fragment
    assert reverse("scoring:start", kwargs={"experiment_pk": world.scored.pk}) in fragment
    page = client.get(url).content.decode()
    assert page.count('id="experiment-scoring"') == 1 and "hx-swap-oob" not in page
