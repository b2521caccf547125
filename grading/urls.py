"""Grading's pages: the graders and grading prompts of a team, an experiment's grading (jobs,
agreement, re-grades, costs) for those who may see it, and a scorer's answer to a second
opinion (POST only, after they committed the item)."""

from django.urls import path

from . import views, views_experiment

app_name = "grading"

urlpatterns = [
    path("t/<slug:team_slug>/graders/", views.grader_list, name="graders"),
    path("t/<slug:team_slug>/grading-prompts/", views.prompt_list, name="prompts"),
    path("t/<slug:team_slug>/grading-prompts/diff/", views.prompt_diff, name="prompt_diff"),
    path(
        "experiments/<int:experiment_pk>/grading/",
        views_experiment.experiment_grading,
        name="experiment",
    ),
    path(
        "experiments/<int:experiment_pk>/grading/agreement/",
        views_experiment.experiment_agreement,
        name="agreement",
    ),
    path(
        "experiments/<int:experiment_pk>/grading/regrade/",
        views_experiment.experiment_regrade,
        name="regrade",
    ),
    path(
        "experiments/<int:experiment_pk>/grading/export.<str:fmt>",
        views_experiment.experiment_export,
        name="export",
    ),
    path(
        "score/<str:assignment_token>/<int:position>/opinion/",
        views.opinion_respond,
        name="opinion_respond",
    ),
]
