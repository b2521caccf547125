"""URLs for the team pages: members, invitations and the audit log (included into the ``probe``
namespace)."""

from django.urls import path

from ..views import preferences as views_preferences
from ..views import teams as views

urlpatterns = [
    path("t/<slug:team_slug>/", views.team_home, name="team_home"),
    path("t/<slug:team_slug>/members/", views.member_list, name="member_list"),
    path("t/<slug:team_slug>/audit/", views.audit_log, name="audit_log"),
    path(
        "t/<slug:team_slug>/time-zone/",
        views_preferences.team_time_zone,
        name="team_time_zone",
    ),
    path("t/<slug:team_slug>/sign-in/", views.team_sign_in, name="team_sign_in"),
    path("members/<int:member_pk>/role/", views.member_update, name="member_update"),
    path("members/<int:member_pk>/remove/", views.member_remove, name="member_remove"),
    path("members/<int:member_pk>/reset-link/", views.member_reset_link, name="member_reset_link"),
    path(
        "invitations/<int:invitation_pk>/revoke/",
        views.invitation_revoke,
        name="invitation_revoke",
    ),
]
