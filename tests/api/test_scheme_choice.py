"""The tests' two-bucket scheme is chosen through the experiment form and the API with the
setting SCORING_TEST_SCHEMES on (as in the test settings), and offered by neither without it, as
in production: the API then names the schemes it takes and saves nothing."""

from api.urls import api
from probe.forms.experiments import ExperimentForm
from probe.models import Experiment
from scoring.models import Bucket


def _scheme_property(schema) -> dict:
    return schema["components"]["schemas"]["ExperimentIn"]["properties"]["scheme"]


def test_the_two_bucket_scheme_is_chosen_in_the_form_and_the_api(world, api_for, settings):
    form = ExperimentForm(team=world.team)
    assert "rw" in dict(form.fields["scheme"].choices)
    body = {
        "bank": world.bank.pk,
        "prompt_version": world.prompt.pk,
        "configs": [world.config.pk],
        "scheme": "rw",
    }
    created = api_for("editor").post(f"/teams/{world.team.slug}/experiments", body)
    assert created.status_code == 201, created.content
    assert Experiment.objects.get(pk=created.json()["id"]).scheme_obj.buckets == (
        Bucket.CORRECT,
        Bucket.INCORRECT,
    )
    assert "rw" in _scheme_property(api.get_openapi_schema())["enum"]

    # Without the setting, as in production, neither offers it, and the API says what is.
    settings.SCORING_TEST_SCHEMES = False
    assert "rw" not in dict(ExperimentForm(team=world.team).fields["scheme"].choices)
    assert _scheme_property(api.get_openapi_schema())["enum"] == ["four", "aa"]
    before = Experiment.objects.count()
    refused = api_for("editor").post(f"/teams/{world.team.slug}/experiments", body)
    assert refused.status_code == 422
    problem = next(p for p in refused.json()["problems"] if p["field"] == "scheme")
    assert "four, aa" in problem["message"]
    assert Experiment.objects.count() == before
