"""A large bank: the page shows one page of items, counts and filters cover the whole bank, one
control moves the ticked items, and an edit costs the same at any bank size."""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from probe.models import AuditEvent, Bank, Block, Item, KeyEntry
from probe.views.banks import ITEMS_PER_PAGE

HX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def editor(client, world):
    client.force_login(world.users["editor"])
    return client


def big_bank(world, n_items: int) -> tuple[Bank, list[Block], list[Item]]:
    """n_items in block A (every 7th flagged, every 50th retired), two items in block B."""
    bank = Bank.objects.create(team=world.team, name=f"Big bank {n_items}")
    a = Block.objects.create(bank=bank, code="A", title="Alpha", order=1)
    b = Block.objects.create(bank=bank, code="B", title="Beta", order=2)
    items = Item.objects.bulk_create(
        [
            Item(block=a, question=f"Alpha question {i:04d}", order=i, retired=i % 50 == 0)
            for i in range(1, n_items + 1)
        ]
        + [Item(block=b, question=f"Beta question {i}", order=i) for i in (1, 2)]
    )
    KeyEntry.objects.bulk_create(
        [
            KeyEntry(item=item, answer=f"key {item.pk}", flagged=k % 7 == 0)
            for k, item in enumerate(items)
        ]
    )
    return bank, [a, b], items


def page_of(client, bank, query="", **headers):
    url = reverse("probe:bank_detail", kwargs={"bank_pk": bank.pk}) + query
    response = client.get(url, **headers)
    assert response.status_code == 200
    return response, response.content.decode()


def rows(body: str) -> list[int]:
    return [int(pk) for pk in re.findall(r'<article class="item[^"]*" id="item-(\d+)"', body)]


def test_the_page_shows_one_page_and_counts_the_whole_bank(editor, world):
    bank, blocks, items = big_bank(world, 260)
    _, body = page_of(editor, bank)
    active = [i for i in items if not i.retired]
    assert len(rows(body)) == ITEMS_PER_PAGE
    assert f"{len(active)} items" in body and "showing 1–100" in body
    assert 'rel="next"' in body and "page=3" in body
    # The block summary counts every item of block A, not just the page's.
    assert re.search(r"Alpha</td>\s*<td class=\"num\">255</td>", body)

    _, last = page_of(editor, bank, "?page=3", HTTP_HX_REQUEST="true", HTTP_HX_TARGET="item-list")
    assert "<html" not in last and len(rows(last)) == len(active) - 2 * ITEMS_PER_PAGE
    assert rows(last)[-1] == items[-1].pk  # Beta's items come last


def test_numbers_count_the_active_items_of_the_block_across_pages(editor, world):
    bank, blocks, items = big_bank(world, 260)
    _, body = page_of(editor, bank, "?page=2")
    # Item 149 of block A is its 147th active item: items 50 and 100 are retired.
    by_question = {i.question: i for i in items}
    item_149 = by_question["Alpha question 0149"]
    assert re.search(rf'for="select-{item_149.pk}">.*?</span>A147</label>', body)
    _, retired = page_of(editor, bank, "?retired=retired")
    assert "A–" in retired and len(rows(retired)) == 5


def test_filters_cover_the_whole_bank(editor, world):
    bank, blocks, items = big_bank(world, 260)
    flagged = [i for k, i in enumerate(items) if k % 7 == 0 and not i.retired]
    _, body = page_of(editor, bank, "?flagged=1")
    assert f"{len(flagged)} items" in body
    assert set(rows(body)) == {i.pk for i in flagged}
    _, search = page_of(editor, bank, "?q=question+0257")
    assert rows(search) == [items[256].pk]


def test_one_control_moves_the_ticked_items(editor, world):
    bank, (a, b), items = big_bank(world, 120)
    chosen = [items[3], items[10]]
    other_team_item = Item.objects.exclude(block__bank__team=world.team).first()
    url = reverse("probe:items_move", kwargs={"bank_pk": bank.pk}) + "?page=2"
    response = editor.post(
        url,
        {"block": b.pk, "item": [chosen[0].pk, chosen[1].pk, other_team_item.pk]},
        **HX,
    )
    body = response.content.decode()
    assert response.status_code == 200 and 'id="item-list"' in body
    assert "2 items moved to block B." in body
    assert "showing 101–" in body  # the same page comes back
    assert list(b.items.order_by("order").values_list("pk", flat=True))[-2:] == [
        chosen[0].pk,
        chosen[1].pk,
    ]
    other_team_item.refresh_from_db()
    assert other_team_item.block.bank.team != world.team  # never moved
    assert AuditEvent.objects.filter(bank=bank, action="move").count() == 2
    # The page has one move control, not one per item.
    _, page = page_of(editor, bank)
    assert page.count('name="block"') == 2  # the filter's block select and the move control
    assert page.count('form="bulk-move"') == ITEMS_PER_PAGE


def test_moving_nothing_or_to_no_block_says_so_and_changes_nothing(editor, world):
    bank, (a, b), items = big_bank(world, 10)
    url = reverse("probe:items_move", kwargs={"bank_pk": bank.pk})
    body = editor.post(url, {"block": b.pk}, **HX).content.decode()
    assert "Select the items to move first." in body
    body = editor.post(url, {"item": [items[0].pk]}, **HX).content.decode()
    assert "Choose the block to move the selected items to." in body
    assert a.items.count() == 10
    # Without htmx: back to the bank page, the message shown there.
    response = editor.post(url, {"block": b.pk}, follow=True)
    assert "Select the items to move first." in response.content.decode()


def test_a_viewer_cannot_move_items(client, world):
    bank, (a, b), items = big_bank(world, 3)
    client.force_login(world.users["viewer"])
    url = reverse("probe:items_move", kwargs={"bank_pk": bank.pk})
    assert client.post(url, {"block": b.pk, "item": [items[0].pk]}).status_code == 403
    assert a.items.count() == 3
    _, body = page_of(client, bank)
    assert 'form="bulk-move"' not in body


def test_an_inline_edit_costs_the_same_queries_at_any_bank_size(
    editor, world, django_assert_max_num_queries
):
    small, _, small_items = big_bank(world, 5)
    url = reverse("probe:item_edit", kwargs={"item_pk": small_items[2].pk})
    with CaptureQueriesContext(connection) as small_queries:
        editor.post(url, {"question": "Edited small", "answer_format": ""}, **HX)
    large, _, large_items = big_bank(world, 400)
    url = reverse("probe:item_edit", kwargs={"item_pk": large_items[300].pk})
    with django_assert_max_num_queries(len(small_queries)):
        response = editor.post(url, {"question": "Edited large", "answer_format": ""}, **HX)
    body = response.content.decode()
    # Its number among the active items of block A: 301 minus the six retired before it.
    assert "Edited large" in body and "A295" in body


def test_moving_an_item_up_swaps_it_with_its_neighbour_only(editor, world):
    bank, (a, b), items = big_bank(world, 200)
    target = items[100]
    before = dict(a.items.values_list("pk", "order"))
    editor.post(reverse("probe:item_move", kwargs={"item_pk": target.pk}), {"direction": "up"})
    after = dict(a.items.values_list("pk", "order"))
    changed = {pk for pk in before if before[pk] != after[pk]}
    assert changed == {target.pk, items[99].pk}
    assert after[target.pk] == before[items[99].pk]


def test_key_pages_and_fragments_are_not_stored_by_caches(editor, world):
    response, _ = page_of(editor, world.bank, "?key=1")
    assert "no-store" in response["Cache-Control"]
    item = world.items[0]
    fragment = editor.get(
        reverse("probe:item_detail", kwargs={"item_pk": item.pk}) + "?key=1", **HX
    )
    assert "no-store" in fragment["Cache-Control"]
    edit = editor.get(reverse("probe:item_edit", kwargs={"item_pk": item.pk}) + "?key=1", **HX)
    assert "no-store" in edit["Cache-Control"]


def test_moving_up_returns_only_the_two_rows_that_traded_places(editor, world):
    bank, (a, b), items = big_bank(world, 150)
    target, neighbour = items[10], items[9]
    url = reverse("probe:item_move", kwargs={"item_pk": target.pk}) + "?page=1"
    response = editor.post(url, {"direction": "up"}, **HX)
    body = response.content.decode()
    assert response["HX-Retarget"] == f"#item-{target.pk}" and response["HX-Reswap"] == "outerHTML"
    assert rows(body) == [target.pk, neighbour.pk]  # in their new order
    assert f'<article id="item-{neighbour.pk}" hx-swap-oob="delete">' in body
    assert ">A10</label>" in body and ">A11</label>" in body  # their numbers traded too
    assert 'data-moved="up"' in body and "data-neighbour" in body
    # A neighbour on another page: the page is rendered again instead.
    first_of_page_2 = items[100]
    url = reverse("probe:item_move", kwargs={"item_pk": first_of_page_2.pk}) + "?page=2"
    body = editor.post(url, {"direction": "up"}, **HX).content.decode()
    assert 'id="item-list"' in body and len(rows(body)) == 150 + 2 - 3 - ITEMS_PER_PAGE
