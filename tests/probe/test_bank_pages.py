"""Bank pages: full pages and their htmx fragments, inline edits, ordering, filters, keys."""

import json

import pytest
from django.urls import reverse

from probe.models import AuditEvent, Block, Item, KeyEntry
from tests.conftest import KEY_ANSWERS

HX = {"HTTP_HX_REQUEST": "true"}


def bank_url(world, query=""):
    return reverse("probe:bank_detail", kwargs={"bank_pk": world.bank.pk}) + query


@pytest.fixture
def editor(client, world):
    client.force_login(world.users["editor"])
    return client


def test_bank_page_lists_blocks_with_counts(editor, world):
    body = editor.get(bank_url(world)).content.decode()
    assert "<html" in body
    assert "HTTP semantics" in body and "Python" in body
    assert "Which status code means Too Many Requests?" in body
    # Block A: 2 items, 1 flagged, 0 missing key; block B: 1 item missing its key.
    assert body.count('class="flag"') == 1 and body.count('class="warn"') == 1


def test_item_edit_fragment_and_full_page(editor, world):
    item = world.items[0]
    url = reverse("probe:item_edit", kwargs={"item_pk": item.pk})
    fragment = editor.get(url, **HX).content.decode()
    assert "<html" not in fragment and 'name="question"' in fragment
    page = editor.get(url).content.decode()
    assert "<html" in page and 'name="question"' in page


def test_inline_edit_saves_and_returns_the_row(editor, world):
    item = world.items[0]
    url = reverse("probe:item_edit", kwargs={"item_pk": item.pk})
    response = editor.post(
        url, {"question": "Which code is Too Many Requests?", "answer_format": "a number"}, **HX
    )
    body = response.content.decode()
    assert response.status_code == 200 and "<html" not in body
    assert f'id="item-{item.pk}"' in body and "Which code is Too Many Requests?" in body
    assert "bank-changed" in json.loads(response["HX-Trigger"])
    item.refresh_from_db()
    assert item.question == "Which code is Too Many Requests?" and item.answer_format == "a number"
    event = AuditEvent.objects.filter(action="update", subject="item").get()
    assert event.details["changes"]["question"][0] == "Which status code means Too Many Requests?"


def test_inline_edit_error_is_shown_next_to_the_field_and_nothing_changes(editor, world):
    item = world.items[0]
    url = reverse("probe:item_edit", kwargs={"item_pk": item.pk})
    response = editor.post(url, {"question": "   ", "answer_format": "x"}, **HX)
    body = response.content.decode()
    assert 'class="field has-error' in body and "This field is required." in body
    item.refresh_from_db()
    assert (
        item.question == "Which status code means Too Many Requests?" and item.answer_format == ""
    )


def test_full_page_edit_redirects_back_to_the_item(editor, world):
    item = world.items[1]
    url = reverse("probe:item_edit", kwargs={"item_pk": item.pk})
    response = editor.post(url, {"question": "New?", "answer_format": ""})
    assert response.status_code == 302 and response["Location"].endswith(f"#item-{item.pk}")


def test_key_entry_edit_inline_records_the_change(editor, world):
    item = world.items[2]  # no key yet
    url = reverse("probe:item_edit", kwargs={"item_pk": item.pk}) + "?key=1"
    fragment = editor.get(url, **HX).content.decode()
    assert 'name="key-key_answer"' in fragment
    response = editor.post(
        url,
        {
            "question": item.question,
            "answer_format": "",
            "key": "1",
            "key-key_answer": "3.10",
            "key-flagged": "on",
            "key-flag_note": "PEP 634",
            "key-sources": "https://peps.python.org/pep-0634/\nWhat's New 3.10",
        },
        **HX,
    )
    assert "3.10" in response.content.decode()
    entry = KeyEntry.objects.get(item=item)
    assert entry.flagged and entry.flag_note == "PEP 634" and len(entry.sources) == 2
    # A flag without an answer is refused beside the field.
    response = editor.post(
        url,
        {"question": item.question, "key": "1", "key-key_answer": "", "key-flagged": "on"},
        **HX,
    )
    assert "needs an answer" in response.content.decode()
    assert KeyEntry.objects.get(item=item).answer == "3.10"


def test_move_up_down_and_to_another_block(editor, world):
    first, second = world.items[0], world.items[1]
    url = reverse("probe:item_move", kwargs={"item_pk": second.pk})
    response = editor.post(url, {"direction": "up"}, **HX)
    # Only the two rows that traded places come back.
    body = response.content.decode()
    assert body.index(f'id="item-{second.pk}"') < body.rindex(f'id="item-{first.pk}"')
    ordered = list(
        Item.objects.filter(block=world.blocks[0]).order_by("order").values_list("pk", flat=True)
    )
    assert ordered == [second.pk, first.pk]
    editor.post(url, {"block": world.blocks[1].pk}, **HX)
    second.refresh_from_db()
    assert second.block == world.blocks[1]
    assert (
        list(world.blocks[1].items.order_by("order").values_list("pk", flat=True))[-1] == second.pk
    )


def test_block_reorder(editor, world):
    editor.post(
        reverse("probe:block_move", kwargs={"block_pk": world.blocks[1].pk}), {"direction": "up"}
    )
    assert list(
        Block.objects.filter(bank=world.bank).order_by("order").values_list("code", flat=True)
    ) == ["B", "A"]


def test_retire_and_restore(editor, world):
    item = world.items[0]
    url = reverse("probe:item_retire", kwargs={"item_pk": item.pk})
    editor.post(url, {"retired": "1"}, **HX)
    item.refresh_from_db()
    assert item.retired
    assert (
        "Too Many Requests"
        not in editor.get(bank_url(world), **{"HTTP_HX_TARGET": "item-list", **HX}).content.decode()
    )
    assert "Too Many Requests" in editor.get(bank_url(world, "?retired=retired")).content.decode()
    editor.post(url, {"retired": "0"}, **HX)
    item.refresh_from_db()
    assert not item.retired


def test_retiring_from_the_bank_list_asks_for_the_reason_the_item_page_asks_for(editor, world):
    item = world.items[0]
    body = editor.get(bank_url(world)).content.decode()
    row = body[body.index(f'id="item-{item.pk}"') :]
    row = row[: row.index("</article>")]
    retire = row[row.index('class="retire-ask"') :]
    assert 'name="reason"' in retire and f'for="retire-reason-{item.pk}"' in retire
    editor.post(
        reverse("probe:item_retire", kwargs={"item_pk": item.pk}),
        {"retired": "1", "reason": "superseded by the 2026 release"},
        **HX,
    )
    item.refresh_from_db()
    assert item.retired and item.retired_reason == "superseded by the 2026 release"
    # A retired row offers Restore, and asks nothing.
    body = editor.get(bank_url(world, "?retired=retired")).content.decode()
    row = body[body.index(f'id="item-{item.pk}"') :]
    assert 'class="retire-ask"' not in row[: row.index("</article>")]


@pytest.mark.parametrize(
    "query,present,absent",
    [
        ("?q=header", ["when to retry"], ["Too Many Requests", "added match"]),
        ("?flagged=1", ["when to retry"], ["Too Many Requests", "added match"]),
        ("?missing_key=1", ["added match"], ["Too Many Requests", "when to retry"]),
    ],
)
def test_filters(editor, world, query, present, absent):
    body = editor.get(bank_url(world, query), HTTP_HX_TARGET="item-list", **HX).content.decode()
    assert "<html" not in body and 'id="item-list"' in body
    for text in present:
        assert text in body
    for text in absent:
        assert text not in body


def test_filter_by_block(editor, world):
    body = editor.get(bank_url(world, f"?block={world.blocks[1].pk}")).content.decode()
    assert "added match" in body and "Too Many Requests?" not in body


def test_key_shown_to_editors_only_when_asked_and_audited(client, world):
    client.force_login(world.users["editor"])
    assert KEY_ANSWERS[0] not in client.get(bank_url(world)).content.decode()
    body = client.get(bank_url(world, "?key=1")).content.decode()
    assert KEY_ANSWERS[0] in body and "Check RFC 9110 10.2.3" in body
    client.get(bank_url(world, "?key=1"))  # a second look inside the interval: one record
    assert AuditEvent.objects.filter(action="key_view", user=world.users["editor"]).count() == 1


@pytest.mark.parametrize("role", ["viewer", "scorer"])
def test_key_never_shown_to_scorers_and_viewers(client, world, role):
    client.force_login(world.users[role])
    for query in ("", "?key=1", "?key=1&flagged=1"):
        body = client.get(bank_url(world, query)).content.decode()
        assert "when to retry" in body
        for answer in KEY_ANSWERS:
            assert answer not in body
        assert "Show key" not in body and "Edit" not in body
    assert not AuditEvent.objects.filter(action="key_view").exists()


def test_search_does_not_reveal_the_key_to_a_viewer(client, world):
    client.force_login(world.users["viewer"])
    body = client.get(bank_url(world, "?q=Retry-After+(keyed)")).content.decode()
    assert "when to retry" not in body  # a hit would tell the viewer the key's text


def test_rename_inline(editor, world):
    url = reverse("probe:bank_edit", kwargs={"bank_pk": world.bank.pk})
    assert 'name="name"' in editor.get(url, **HX).content.decode()
    response = editor.post(url, {"name": "Renamed", "description": "Now described"}, **HX)
    assert "Renamed" in response.content.decode() and "<html" not in response.content.decode()
    response = editor.post(url, {"name": "", "description": ""}, **HX)
    assert "This field is required." in response.content.decode()
    world.bank.refresh_from_db()
    assert world.bank.name == "Renamed"


def test_delete_bank_needs_the_name(client, world):
    client.force_login(world.users["owner"])
    url = reverse("probe:bank_delete", kwargs={"bank_pk": world.bank.pk})
    assert "Type the bank" in client.get(url).content.decode()
    client.post(url, {"confirm_name": "wrong"})
    assert type(world.bank).objects.filter(pk=world.bank.pk).exists()
    response = client.post(url, {"confirm_name": world.bank.name})
    assert response.status_code == 302
    assert not type(world.bank).objects.filter(pk=world.bank.pk).exists()
    event = AuditEvent.objects.get(action="delete", subject="bank")
    assert event.bank_name == "Acme secret bank" and event.details["items"] == 3


def test_create_block_and_item_with_validation(editor, world):
    response = editor.post(
        reverse("probe:block_create", kwargs={"bank_pk": world.bank.pk}),
        {"code": "a", "title": "Duplicate code"},
    )
    assert "already has a block A" in response.content.decode()
    editor.post(
        reverse("probe:block_create", kwargs={"bank_pk": world.bank.pk}),
        {"code": "c", "title": "Celery"},
    )
    block = Block.objects.get(bank=world.bank, code="C")
    response = editor.post(
        reverse("probe:item_create", kwargs={"bank_pk": world.bank.pk}),
        {"block": block.pk, "question": "Which option acks late?", "key-key_answer": "acks_late"},
    )
    assert response.status_code == 302
    assert block.items.get().key_entry.answer == "acks_late"


def test_members_owner_changes_roles_and_keeps_an_owner(client, world):
    client.force_login(world.users["owner"])
    own = world.team.memberships.get(user=world.users["owner"])
    response = client.post(
        reverse("probe:member_update", kwargs={"member_pk": own.pk}),
        {"role": "viewer"},
        follow=True,
    )
    assert "at least one owner" in response.content.decode()
    own.refresh_from_db()
    assert own.role == "owner"


def test_audit_log_lists_changes(client, world):
    client.force_login(world.users["editor"])
    client.post(
        reverse("probe:item_retire", kwargs={"item_pk": world.items[0].pk}), {"retired": "1"}
    )
    client.force_login(world.users["owner"])
    body = client.get(
        reverse("probe:audit_log", kwargs={"team_slug": world.team.slug})
    ).content.decode()
    assert "acme-editor" in body and "retired" in body


def test_every_key_change_keeps_its_history(editor, world):
    from probe.models import KeyEntryRevision

    item = world.items[0]
    url = reverse("probe:item_edit", kwargs={"item_pk": item.pk}) + "?key=1"
    base = {"question": item.question, "answer_format": "", "key": "1"}
    editor.post(url, {**base, "key-key_answer": "429", "key-sources": "RFC 6585"}, **HX)
    editor.post(url, {**base, "key-key_answer": ""}, **HX)
    revisions = list(KeyEntryRevision.objects.filter(item=item).order_by("pk"))
    assert [(r.answer, r.new_answer) for r in revisions] == [(KEY_ANSWERS[0], "429"), ("429", "")]
    assert revisions[0].changed_by == world.users["editor"] and revisions[1].sources == ["RFC 6585"]
