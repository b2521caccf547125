"""URLs of the discussion of key entries, and of the mentions' completion list."""

from django.urls import path

from ..views import discussion

urlpatterns = [
    path("items/<int:item_pk>/comments/", discussion.key_comments, name="key_comments"),
    path(
        "items/<int:item_pk>/comments/<int:comment_pk>/edit/",
        discussion.key_comment_edit,
        name="key_comment_edit",
    ),
    path(
        "items/<int:item_pk>/comments/<int:comment_pk>/delete/",
        discussion.key_comment_delete,
        name="key_comment_delete",
    ),
    path("t/<slug:team_slug>/mentions/", discussion.mention_suggest, name="mention_suggest"),
]
