"""URLs for model configurations (included into the ``probe`` namespace)."""

from django.urls import path

from ..views import configs as views

urlpatterns = [
    path("t/<slug:team_slug>/models/", views.config_list, name="config_list"),
    path("t/<slug:team_slug>/models/new/", views.config_create, name="config_create"),
    path("models/<int:config_pk>/edit/", views.config_edit, name="config_edit"),
    path("models/<int:config_pk>/archive/", views.config_archive, name="config_archive"),
    path("models/<int:config_pk>/test/", views.config_test, name="config_test"),
]
