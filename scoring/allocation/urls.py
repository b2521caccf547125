"""The lead's item-sharing URLs (included into ``scoring`` by scoring/urls.py)."""

from django.urls import path

from scoring.allocation import views

urlpatterns = [
    path("experiments/<int:experiment_pk>/scorers/share/", views.share, name="scorers_share"),
    path("experiments/<int:experiment_pk>/scorers/hand-on/", views.hand_on, name="scorers_hand_on"),
]
