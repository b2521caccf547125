"""URLs for prompt versions (included into the ``probe`` namespace)."""

from django.urls import path

from ..views import prompts as views

urlpatterns = [
    path("t/<slug:team_slug>/prompts/", views.prompt_list, name="prompt_list"),
    path("t/<slug:team_slug>/prompts/new/", views.prompt_create, name="prompt_create"),
    path("prompts/<int:prompt_pk>/", views.prompt_detail, name="prompt_detail"),
    path("prompts/<int:prompt_pk>/edit/", views.prompt_edit, name="prompt_edit"),
    path("prompts/<int:prompt_pk>/delete/", views.prompt_delete, name="prompt_delete"),
    path("prompts/<int:prompt_pk>/diff/", views.prompt_diff, name="prompt_diff"),
]
