"""The graders page, the grading prompts and their diff, an experiment's grading page, and the
prices of a model configuration: a lead creates a grader of any adapter (the rules, the local
simulator, an OpenAI-compatible server), starts it, sees its progress and unreadable replies;
bad input is refused with its message and nothing is lost."""

import pytest
from django.urls import reverse

from grading import engine, services
from grading.models import Grader, GradingJob, GradingPrompt
from probe.models import ModelConfig
from probe.services.configs import config_create
from tests.grading.conftest import grader_config

pytestmark = pytest.mark.django_db


def test_a_lead_creates_graders_of_each_kind_and_bad_input_is_explained(client, graded_world):
    world = graded_world
    client.force_login(world.users["editor"])
    url = reverse("grading:graders", kwargs={"team_slug": world.team.slug})
    page = client.get(url)
    assert page.status_code == 200 and "New grader" in page.content.decode()
    prompt = GradingPrompt.objects.get(team=world.team, language="en")
    sim = grader_config(world, base_url="http://127.0.0.1:9/", label="Sim grader config")
    compatible = grader_config(
        world,
        base_url="http://127.0.0.1:9/v1",
        provider="openai_chat",
        model_name="local-grader",
        label="Compatible config",
    )
    assert client.post(url, {"label": "Rules only"}).status_code == 302
    for label, config in (("Sim", sim), ("Compat", compatible)):
        response = client.post(
            url, {"label": label, "model_config": config.pk, "prompt": prompt.pk}
        )
        assert response.status_code == 302
    refused = client.post(url, {"label": "Half", "model_config": sim.pk})
    assert refused.status_code == 400
    body = refused.content.decode()
    assert "needs both a model configuration and a grading prompt" in body
    assert 'value="Half"' in body, "what was typed stays in the form"
    assert set(Grader.objects.filter(team=world.team).values_list("label", flat=True)) == {
        "Rules only",
        "Sim",
        "Compat",
    }
    # The threshold the team may change.
    saved = client.post(
        url, {"action": "threshold", "metric": "ac1", "min_answers": 50, "margin": 0}
    )
    assert saved.status_code == 302
    assert world.team.trust_threshold.metric == "ac1"
    assert (
        client.post(
            url, {"action": "threshold", "metric": "ac1", "min_answers": 50, "margin": 3}
        ).status_code
        == 400
    )


def test_grading_prompt_versions_are_listed_and_diffed(client, graded_world):
    world = graded_world
    client.force_login(world.users["editor"])
    url = reverse("grading:prompts", kwargs={"team_slug": world.team.slug})
    assert client.get(url).status_code == 200
    first = GradingPrompt.objects.get(team=world.team, language="en")
    same = client.post(url, {"prompt": first.pk, "text": first.text, "note": "nothing"})
    assert same.status_code == 400 and "No change" in same.content.decode()
    bad = client.post(
        url, {"prompt": first.pk, "text": first.text, "examples": "[{", "note": "broken"}
    )
    assert bad.status_code == 400 and "not valid JSON" in bad.content.decode()
    text = first.text + "\nNames of people must match in full."
    saved = client.post(url, {"prompt": first.pk, "text": text, "note": "People's names."})
    assert saved.status_code == 302
    second = GradingPrompt.objects.get(team=world.team, name=first.name, version=2)
    assert second.parent == first and second.content_hash != first.content_hash
    diff = client.get(
        reverse("grading:prompt_diff", kwargs={"team_slug": world.team.slug}), {"b": second.pk}
    )
    body = diff.content.decode()
    assert diff.status_code == 200
    assert "Names of people must match in full." in body and 'class="diff"' in body
    assert "1</span> line added" in body or "+1" in body
    # Another team's version is a 404, like any of its objects.
    other = GradingPrompt.objects.create(
        team=world.other_team, name="Theirs", text="x", content_hash="0" * 64
    )
    url = reverse("grading:prompt_diff", kwargs={"team_slug": world.team.slug})
    assert client.get(url, {"b": other.pk}).status_code == 404


def test_the_experiment_page_starts_grading_and_shows_progress(client, graded_world, simulator):
    world = graded_world
    experiment = world.grading.experiment
    client.force_login(world.users["editor"])
    config = grader_config(world, base_url=simulator.base_url, model_name="sim-grader-sloppy")
    services.grading_prompt_defaults_ensure(team=world.team)
    grader = services.grader_create(
        team=world.team,
        user=None,
        label="Sloppy",
        model_config=config,
        prompt=world.team.grading_prompts.get(language="en"),
    )
    url = reverse("grading:experiment", kwargs={"experiment_pk": experiment.pk})
    assert client.post(url, {"action": "start", "grader": grader.pk}).status_code == 302
    job = GradingJob.objects.get(experiment=experiment, grader=grader)
    again = client.post(url, {"action": "start", "grader": grader.pk})
    assert again.status_code == 400, "the same grader twice at once is refused"
    assert engine.job_grade(job_pk=job.pk) == "done"
    body = client.get(url).content.decode()
    failures = job.grades.filter(state="parse_failure").count()
    assert "Unreadable replies" in body and f"<td>{failures}</td>" in body
    assert f'value="{job.grades.count()}"' in body


def test_prices_are_settings_of_a_configuration(client, graded_world):
    world = graded_world
    config = config_create(
        team=world.team,
        user=None,
        label="Priced",
        provider="simulator",
        model_name="sim-expert",
        base_url="http://127.0.0.1:8765/",
        price_input_per_million="2.5",
        price_output_per_million="10",
    )
    config.refresh_from_db()
    assert str(config.price_input_per_million) == "2.5000"
    with pytest.raises(Exception) as refused:
        config_create(
            team=world.team,
            user=None,
            label="Bad price",
            provider="simulator",
            model_name="sim-expert",
            base_url="http://127.0.0.1:8765/",
            price_input_per_million="-1",
        )
    assert "price" in str(refused.value)
    assert not ModelConfig.objects.filter(label="Bad price").exists()
    client.force_login(world.users["editor"])
    page = client.get(reverse("probe:config_edit", kwargs={"config_pk": config.pk}))
    assert "Prices (for costs only, never sent)" in page.content.decode()
