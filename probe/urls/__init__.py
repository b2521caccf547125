"""URLs of the probe app (namespace ``probe``); each view's scope keyword names its object."""

from django.urls import path

from ..views import bank_import as views_import
from ..views import banks as views
from ..views import items as views_items
from . import experiments as urls_experiments
from . import prompts as urls_prompts

app_name = "probe"

urlpatterns = [
    path("t/<slug:team_slug>/", views.team_home, name="team_home"),
    path("t/<slug:team_slug>/banks/new/", views.bank_create, name="bank_create"),
    path("t/<slug:team_slug>/banks/import/", views_import.bank_import, name="bank_import"),
    path("t/<slug:team_slug>/items/recheck/", views_items.items_recheck, name="items_recheck"),
    path("t/<slug:team_slug>/members/", views.member_list, name="member_list"),
    path("t/<slug:team_slug>/audit/", views.audit_log, name="audit_log"),
    path("members/<int:member_pk>/role/", views.member_update, name="member_update"),
    path("members/<int:member_pk>/remove/", views.member_remove, name="member_remove"),
    path("members/<int:member_pk>/reset-link/", views.member_reset_link, name="member_reset_link"),
    path(
        "invitations/<int:invitation_pk>/revoke/",
        views.invitation_revoke,
        name="invitation_revoke",
    ),
    path("banks/<int:bank_pk>/", views.bank_detail, name="bank_detail"),
    path("banks/<int:bank_pk>/header/", views.bank_header, name="bank_header"),
    path("banks/<int:bank_pk>/edit/", views.bank_edit, name="bank_edit"),
    path("banks/<int:bank_pk>/delete/", views.bank_delete, name="bank_delete"),
    path("banks/<int:bank_pk>/export/", views.bank_export, name="bank_export"),
    path("banks/<int:bank_pk>/blocks/new/", views.block_create, name="block_create"),
    path("banks/<int:bank_pk>/items/new/", views.item_create, name="item_create"),
    path("banks/<int:bank_pk>/items/move/", views.items_move, name="items_move"),
    path("blocks/<int:block_pk>/edit/", views.block_edit, name="block_edit"),
    path("blocks/<int:block_pk>/move/", views.block_move, name="block_move"),
    path("blocks/<int:block_pk>/delete/", views.block_delete, name="block_delete"),
    path("items/<int:item_pk>/", views.item_detail, name="item_detail"),
    path("items/<int:item_pk>/edit/", views.item_edit, name="item_edit"),
    path("items/<int:item_pk>/move/", views.item_move, name="item_move"),
    path("items/<int:item_pk>/retire/", views.item_retire, name="item_retire"),
    path("items/<int:item_pk>/delete/", views.item_delete, name="item_delete"),
]

urlpatterns += urls_prompts.urlpatterns + urls_experiments.urlpatterns
