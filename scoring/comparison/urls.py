"""Follow-up and comparison URLs (included into the ``scoring`` namespace by scoring/urls.py)."""

from django.urls import path

from scoring.comparison import followup_views, views

urlpatterns = [
    path("experiments/<int:experiment_pk>/again/", followup_views.follow_up, name="follow_up"),
    path("t/<slug:team_slug>/compare/", views.compare_page, name="compare"),
]
