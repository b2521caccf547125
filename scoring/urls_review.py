"""Key review, scorers, agreement and reconciliation URLs (included into ``scoring``)."""

from django.urls import path

from . import views_reconcile, views_review

urlpatterns = [
    path("experiments/<int:experiment_pk>/key-review/", views_review.key_review, name="key_review"),
    path(
        "experiments/<int:experiment_pk>/key-review/<int:position>/",
        views_review.key_review_decide,
        name="key_review_decide",
    ),
    path("banks/<int:bank_pk>/key-review/", views_review.bank_key_review, name="bank_key_review"),
    path("items/<int:item_pk>/key-review/", views_review.bank_key_decide, name="bank_key_decide"),
    path("experiments/<int:experiment_pk>/scorers/", views_reconcile.scorers, name="scorers"),
    path(
        "experiments/<int:experiment_pk>/reconcile/",
        views_reconcile.reconcile_overview,
        name="reconcile",
    ),
    path(
        "experiments/<int:experiment_pk>/reconcile/<int:position>/",
        views_reconcile.reconcile_item,
        name="reconcile_item",
    ),
    path("experiments/<int:experiment_pk>/agreement/", views_reconcile.agreement, name="agreement"),
]
