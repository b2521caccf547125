"""URLs for prompt versions and model configurations (included into the ``probe`` namespace)."""

from django.urls import path

from ..views import prompts as views

urlpatterns = [
    path("t/<slug:team_slug>/prompts/", views.prompt_list, name="prompt_list"),
    path("t/<slug:team_slug>/prompts/new/", views.prompt_create, name="prompt_create"),
    path("prompts/<int:prompt_pk>/", views.prompt_detail, name="prompt_detail"),
    path("prompts/<int:prompt_pk>/edit/", views.prompt_edit, name="prompt_edit"),
    path("prompts/<int:prompt_pk>/delete/", views.prompt_delete, name="prompt_delete"),
    path("prompts/<int:prompt_pk>/diff/", views.prompt_diff, name="prompt_diff"),
    path("t/<slug:team_slug>/models/", views.config_list, name="config_list"),
    path("t/<slug:team_slug>/models/new/", views.config_create, name="config_create"),
    path("models/<int:config_pk>/edit/", views.config_edit, name="config_edit"),
    path("models/<int:config_pk>/archive/", views.config_archive, name="config_archive"),
    path("models/<int:config_pk>/test/", views.config_test, name="config_test"),
]
