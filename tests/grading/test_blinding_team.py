"""An editor who also scores an experiment sees nothing of its graders on the team's pages before
their reveal: every team page, every grading page and fragment, and the API, crawled as that
editor, are the same bytes with the experiment graded as without, and never name it beside a
grader. A lead who does not score it still sees the jobs."""

import re

import pytest
from django.urls import reverse

from api.models import ApiToken
from grading import engine, services
from grading.models import Grade
from tests.api.conftest import ApiClient
from tests.grading.test_opinion_page import CSRF
from tests.scoring.test_blinding import crawl

pytestmark = pytest.mark.django_db

NAME = "Acme-graded-experiment-quux"


def _pages(client, world, experiment):
    team = world.team.slug
    prompt = world.team.grading_prompts.order_by("pk").first()
    starts = [
        reverse("probe:team_home", kwargs={"team_slug": team}),
        reverse("grading:graders", kwargs={"team_slug": team}),
        reverse("grading:prompts", kwargs={"team_slug": team}),
        reverse("grading:prompt_diff", kwargs={"team_slug": team}) + f"?b={prompt.pk}",
    ]
    for name, kwargs in (
        ("grading:experiment", {}),
        ("grading:agreement", {}),
        ("grading:regrade", {}),
        ("grading:export", {"fmt": "csv"}),
        ("grading:export", {"fmt": "json"}),
    ):
        starts.append(reverse(name, kwargs={"experiment_pk": experiment.pk, **kwargs}))
    prefixes = (f"/t/{team}/", f"/experiments/{experiment.pk}/grading")
    pages = crawl(client, starts, keep=lambda path: path.startswith(prefixes))
    return {
        (url, bool(headers)): (response.status_code, CSRF.sub(r"\1…", response.content.decode()))
        for url, headers, response in pages
    }


def _api(api, experiment, team):
    paths = [
        f"/teams/{team}/experiments",
        f"/teams/{team}/configs",
        f"/teams/{team}/prompts",
        f"/experiments/{experiment.pk}",
        f"/experiments/{experiment.pk}/grading",
        f"/experiments/{experiment.pk}/results/figures",
    ]
    return {path: (r.status_code, r.content.decode()) for path in paths for r in [api.get(path)]}


def test_a_blind_editor_who_scores_sees_nothing_of_the_graded_experiment(client, world):
    from scoring.queue import services as scoring

    experiment = world.scored
    experiment.name = NAME
    experiment.save(update_fields=["name"])
    services.grading_prompt_defaults_ensure(team=world.team)
    rules = services.grader_create(team=world.team, user=None, label="Acme-rules-grader-xyzzy")
    model = services.grader_create(
        team=world.team,
        user=None,
        label="Acme-model-grader-plugh",
        model_config=world.config,
        prompt=world.team.grading_prompts.get(language="en"),
    )
    editor = world.users["editor"]
    client.force_login(editor)
    assignment = scoring.assignment_start(experiment=experiment, user=editor)
    item = reverse("scoring:item", kwargs={"assignment_token": assignment.token, "position": 1})
    assert client.get(item).status_code == 200  # scoring, not revealed
    _row, token = ApiToken.issue(user=editor, team=world.team, access="read", name="editor")
    api = ApiClient(token)
    before, before_api = _pages(client, world, experiment), _api(api, experiment, world.team.slug)

    job = services.grading_start(experiment=experiment, grader=rules, user=None, queue=False)
    assert engine.job_grade(job_pk=job.pk) == "done"
    assert Grade.objects.filter(job=job, state=Grade.State.DECIDED).exists()
    services.grading_start(experiment=experiment, grader=model, user=None, queue=False)
    reasons = {r for r in Grade.objects.filter(job=job).values_list("reason", flat=True) if r}

    after, after_api = _pages(client, world, experiment), _api(api, experiment, world.team.slug)
    assert len(after) >= 12 and set(after) == set(before)
    graders_page = reverse("grading:graders", kwargs={"team_slug": world.team.slug})
    assert "Acme-rules-grader-xyzzy" in after[(graders_page, False)][1]  # the graders show
    for where, (status, body) in after.items():
        assert (status, body) == before[where], f"{where} differs once the experiment is graded"
        for secret in reasons:
            assert secret not in body, f"{secret!r} in {where}"
        if "grad" in where[0]:
            assert NAME not in body, f"the graded experiment is named in {where}"
            assert not re.search(rf"/experiments/{experiment.pk}/grading", body), where
    assert after_api == before_api
    assert after_api[f"/experiments/{experiment.pk}/grading"][0] == 409

    # The lead who does not score it sees both jobs and their status on the graders page.
    client.force_login(world.users["owner"])
    body = client.get(graders_page).content.decode()
    assert NAME in body and body.count(f"/experiments/{experiment.pk}/grading/") == 2
    assert "(Done)" in body and "(Queued)" in body
