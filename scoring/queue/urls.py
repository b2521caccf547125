"""The blind queue's URLs (included into the ``scoring`` namespace by scoring/urls.py)."""

from django.urls import path

from scoring.queue import views, views_decide

urlpatterns = [
    path("experiments/<int:experiment_pk>/score/", views.scoring_start, name="start"),
    path("score/<str:assignment_token>/<int:position>/", views.scoring_item, name="item"),
    path(
        "score/<str:assignment_token>/<int:position>/decide/",
        views_decide.scoring_decide,
        name="decide",
    ),
    path(
        "score/<str:assignment_token>/<int:position>/dispute/",
        views_decide.scoring_dispute,
        name="dispute",
    ),
    path(
        "score/<str:assignment_token>/<int:position>/note/", views_decide.scoring_note, name="note"
    ),
    path("experiments/<int:experiment_pk>/scorer-times/", views.scoring_times, name="times"),
    path("score/<str:assignment_token>/record/", views_decide.scoring_record, name="record"),
    path("score/<str:assignment_token>/items/", views.scoring_overview, name="overview"),
    path("score/<str:assignment_token>/next-open/", views.scoring_next_open, name="next_open"),
    path("score/<str:assignment_token>/undo/", views_decide.scoring_undo, name="undo"),
    path("score/<str:assignment_token>/reveal/", views.scoring_reveal, name="reveal"),
    path("t/<slug:team_slug>/lead-queue/", views.lead_queue_page, name="lead_queue"),
]
