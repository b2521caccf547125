"""Scorers, reconciliation and agreement URLs (included into ``scoring`` by scoring/urls.py)."""

from django.urls import path

from scoring.reconciliation import views

urlpatterns = [
    path("experiments/<int:experiment_pk>/scorers/", views.scorers, name="scorers"),
    path("experiments/<int:experiment_pk>/reconcile/", views.reconcile_overview, name="reconcile"),
    path(
        "experiments/<int:experiment_pk>/reconcile/<int:position>/",
        views.reconcile_item,
        name="reconcile_item",
    ),
    path("experiments/<int:experiment_pk>/agreement/", views.agreement, name="agreement"),
]
