"""Key review URLs (included into the ``scoring`` namespace by scoring/urls.py)."""

from django.urls import path

from scoring.review import views

urlpatterns = [
    path("experiments/<int:experiment_pk>/key-review/", views.key_review, name="key_review"),
    path(
        "experiments/<int:experiment_pk>/key-review/<int:position>/",
        views.key_review_decide,
        name="key_review_decide",
    ),
    path("banks/<int:bank_pk>/key-review/", views.bank_key_review, name="bank_key_review"),
    path("items/<int:item_pk>/key-review/", views.bank_key_decide, name="bank_key_decide"),
]
