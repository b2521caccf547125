"""Key review, scorers, agreement and reconciliation URLs (included into ``scoring``)."""

from django.urls import path

from . import views_review as views

urlpatterns = [
    path("experiments/<int:experiment_pk>/key-review/", views.key_review, name="key_review"),
    path(
        "experiments/<int:experiment_pk>/key-review/<int:position>/",
        views.key_review_decide,
        name="key_review_decide",
    ),
    path("banks/<int:bank_pk>/key-review/", views.bank_key_review, name="bank_key_review"),
    path("items/<int:item_pk>/key-review/", views.bank_key_decide, name="bank_key_decide"),
    path("experiments/<int:experiment_pk>/scorers/", views.scorers, name="scorers"),
    path("experiments/<int:experiment_pk>/reconcile/", views.reconcile_overview, name="reconcile"),
    path(
        "experiments/<int:experiment_pk>/reconcile/<int:position>/",
        views.reconcile_item,
        name="reconcile_item",
    ),
    path("experiments/<int:experiment_pk>/agreement/", views.agreement, name="agreement"),
]
