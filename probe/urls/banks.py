"""URLs for banks, their blocks and items, and bank import (included into the ``probe`` namespace)."""

from django.urls import path

from ..views import bank_import, banks, items

urlpatterns = [
    path("t/<slug:team_slug>/banks/new/", banks.bank_create, name="bank_create"),
    path("t/<slug:team_slug>/banks/import/", bank_import.bank_import, name="bank_import"),
    path("t/<slug:team_slug>/items/recheck/", items.items_recheck, name="items_recheck"),
    path("banks/<int:bank_pk>/", banks.bank_detail, name="bank_detail"),
    path("banks/<int:bank_pk>/header/", banks.bank_header, name="bank_header"),
    path("banks/<int:bank_pk>/edit/", banks.bank_edit, name="bank_edit"),
    path("banks/<int:bank_pk>/delete/", banks.bank_delete, name="bank_delete"),
    path("banks/<int:bank_pk>/export/", banks.bank_export, name="bank_export"),
    path("banks/<int:bank_pk>/blocks/new/", banks.block_create, name="block_create"),
    path("banks/<int:bank_pk>/items/new/", items.item_create, name="item_create"),
    path("banks/<int:bank_pk>/items/move/", items.items_move, name="items_move"),
    path("blocks/<int:block_pk>/edit/", banks.block_edit, name="block_edit"),
    path("blocks/<int:block_pk>/move/", banks.block_move, name="block_move"),
    path("blocks/<int:block_pk>/delete/", banks.block_delete, name="block_delete"),
    path("items/<int:item_pk>/", items.item_detail, name="item_detail"),
    path("items/<int:item_pk>/edit/", items.item_edit, name="item_edit"),
    path("items/<int:item_pk>/move/", items.item_move, name="item_move"),
    path("items/<int:item_pk>/retire/", items.item_retire, name="item_retire"),
    path("items/<int:item_pk>/delete/", items.item_delete, name="item_delete"),
]
