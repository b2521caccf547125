"""URLs for experiments, runs and collection (included into the ``probe`` namespace)."""

from django.urls import path

from ..views import experiments as views

urlpatterns = [
    path("t/<slug:team_slug>/experiments/", views.experiment_list, name="experiment_list"),
    path("t/<slug:team_slug>/experiments/new/", views.experiment_create, name="experiment_create"),
    path("experiments/<int:experiment_pk>/", views.experiment_detail, name="experiment_detail"),
    path(
        "experiments/<int:experiment_pk>/prompt/", views.experiment_prompt, name="experiment_prompt"
    ),
    path("experiments/<int:experiment_pk>/start/", views.experiment_start, name="experiment_start"),
    path(
        "experiments/<int:experiment_pk>/cancel/", views.experiment_cancel, name="experiment_cancel"
    ),
    path(
        "experiments/<int:experiment_pk>/finish/", views.experiment_finish, name="experiment_finish"
    ),
    path("runs/<int:run_pk>/", views.run_detail, name="run_detail"),
    path("runs/<int:run_pk>/raw/", views.run_raw, name="run_raw"),
    path("runs/<int:run_pk>/paste/", views.run_paste, name="run_paste"),
    path("runs/<int:run_pk>/cancel/", views.run_cancel, name="run_cancel"),
    path("runs/<int:run_pk>/retry/", views.run_retry, name="run_retry"),
    path("runs/<int:run_pk>/close/", views.run_close, name="run_close"),
    path("runs/<int:run_pk>/reparse/", views.run_reparse, name="run_reparse"),
]
