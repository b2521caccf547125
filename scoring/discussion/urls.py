"""Response comment URLs (included into the ``scoring`` namespace by scoring/urls.py)."""

from django.urls import path

from scoring.discussion import views

urlpatterns = [
    path(
        "experiments/<int:experiment_pk>/responses/<int:response_pk>/comments/",
        views.response_comments,
        name="response_comments",
    ),
    path(
        "experiments/<int:experiment_pk>/response-comments/<int:comment_pk>/edit/",
        views.response_comment_edit,
        name="response_comment_edit",
    ),
    path(
        "experiments/<int:experiment_pk>/response-comments/<int:comment_pk>/delete/",
        views.response_comment_delete,
        name="response_comment_delete",
    ),
]
