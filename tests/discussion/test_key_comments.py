"""Comments on a key entry: recorded as written blind or not, shown to a member still scoring
blind only when written blind, for the members who may see the key."""

import pytest
from django.urls import reverse

from probe.models import KeyEntryComment
from probe.services import discussion as services
from tests.discussion.helpers import (
    AFTER_REVEAL_TEXT,
    BLIND_TEXT,
    long_ago,
    membership,
    reveal,
    start,
    thread_url,
    tie_items,
    unreveal,
)


def write(world, kind, text, item=None, experiment=None):
    return services.key_comment_create(
        item=item or world.items[0],
        user=world.users[kind],
        membership=membership(world, kind),
        text=text,
        experiment=experiment,
    )


def test_written_blind_is_recorded_at_write_time(world):
    tie_items(world)
    # An editor scoring the experiment, before the reveal: blind.
    assignment = start(world, "editor")
    assert write(world, "editor", "blind remark").written_blind
    # The owner scores nothing, so sees every model's sheets: not blind.
    assert not write(world, "owner", "lead remark").written_blind
    # After the editor's reveal: not blind either; the earlier comment keeps its record.
    unreveal(assignment)
    reveal(world, "editor")
    assert not write(world, "editor", "after remark").written_blind
    assert KeyEntryComment.objects.get(text="blind remark").written_blind


def test_a_bank_without_answers_has_nothing_to_reveal(world):
    from tests.probe import factories

    bank = factories.BankFactory(team=world.team, name="Fresh bank")
    item = factories.ItemFactory(block=factories.BlockFactory(bank=bank, code="A"))
    factories.KeyEntryFactory(item=item, answer="fresh")
    # No experiment of this bank has an answer: even the owner's comment is blind.
    assert write(world, "owner", "before any answer", item=item).written_blind
    # On the scored bank the owner sees every model's sheets.
    assert not write(world, "owner", "after answers").written_blind


def test_edit_after_the_reveal_makes_it_a_comment_written_after(world):
    assignment = start(world, "editor")
    comment = write(world, "editor", "blind first")
    assert comment.written_blind
    unreveal(assignment)
    reveal(world, "editor")
    services.key_comment_edit(
        comment=comment,
        user=world.users["editor"],
        membership=membership(world, "editor"),
        text="now I know the models",
    )
    comment.refresh_from_db()
    assert not comment.written_blind and comment.edited_at is not None


@pytest.mark.parametrize(
    "kind,state,status,sees_blind,sees_after,notice",
    [
        ("outsider", "none", 404, False, False, False),
        ("viewer", "none", 403, False, False, False),
        ("scorer", "none", 403, False, False, False),
        ("editor", "blind", 200, True, False, True),
        ("editor", "revealed", 200, True, True, False),
        ("editor", "none", 200, True, True, False),
        ("owner", "none", 200, True, True, False),
    ],
)
def test_who_reads_which_key_comment(
    client, world, kind, state, status, sees_blind, sees_after, notice
):
    tie_items(world)
    editor_assignment = start(world, "editor")
    write(world, "editor", BLIND_TEXT)
    write(world, "owner", AFTER_REVEAL_TEXT)
    editor_assignment.delete()
    if state == "blind":
        start(world, kind)
    elif state == "revealed":
        reveal(world, kind)
    client.force_login(world.users[kind])
    pages = [thread_url(world.items[0])]
    if status == 200:
        pages += [
            reverse("probe:item_detail", kwargs={"item_pk": world.items[0].pk}) + "?key=1",
            reverse("scoring:key_review", kwargs={"experiment_pk": world.scored.pk}) + "?state=all",
            reverse("scoring:bank_key_review", kwargs={"bank_pk": world.bank.pk}),
        ]
    for url in pages:
        for headers in ({}, {"HTTP_HX_REQUEST": "true"}):
            response = client.get(url, **headers)
            assert response.status_code == status, url
            body = response.content.decode()
            # The thread is on its page and the item page (whose htmx answer is its row); on
            # the key reviews, under the entries they list.
            if status == 200 and not headers and url.startswith("/items/"):
                assert "Comments on the key" in body, url
            if url == pages[0]:
                assert (BLIND_TEXT in body) is sees_blind, url
            assert AFTER_REVEAL_TEXT not in body or sees_after, url
            if url == pages[0]:
                assert (AFTER_REVEAL_TEXT in body) is sees_after, url
                assert ("hidden until your reveal" in body) is notice, url


def test_the_hidden_notice_tells_no_count(client, world):
    start(world, "editor")
    for n in range(3):
        write(world, "owner", f"{AFTER_REVEAL_TEXT} {n}")
    client.force_login(world.users["editor"])
    body = client.get(thread_url(world.items[0])).content.decode()
    assert "hidden until your reveal" in body
    assert "(3)" not in body and "3 comments" not in body
    # Nor the hidden comments' edit or delete addresses.
    hidden = KeyEntryComment.objects.filter(written_blind=False)
    for comment in hidden:
        assert f"comment-{comment.pk}" not in body
        url = reverse(
            "probe:key_comment_delete",
            kwargs={"item_pk": world.items[0].pk, "comment_pk": comment.pk},
        )
        assert client.post(url).status_code == 404


def test_a_blind_reader_reads_the_same_notice_whether_or_not_a_comment_is_hidden(client, world):
    """The notice is not a marker: it shows on an item with an after-reveal comment and on one
    without, so a blind reader cannot tell where someone commented after seeing the answers."""
    start(world, "editor")
    write(world, "owner", AFTER_REVEAL_TEXT, item=world.items[0])
    client.force_login(world.users["editor"])
    with_hidden = client.get(thread_url(world.items[0])).content.decode()
    without = client.get(thread_url(world.items[1])).content.decode()
    assert "hidden until your reveal" in with_hidden
    assert "hidden until your reveal" in without
    assert AFTER_REVEAL_TEXT not in with_hidden


def test_post_edit_and_delete_through_the_page(client, world):
    client.force_login(world.users["editor"])
    url = thread_url(world.items[0])
    response = client.post(url, {"text": "First remark"}, HTTP_HX_REQUEST="true")
    assert response.status_code == 200 and "First remark" in response.content.decode()
    comment = KeyEntryComment.objects.get()
    assert comment.author == world.users["editor"]
    edit = reverse(
        "probe:key_comment_edit", kwargs={"item_pk": world.items[0].pk, "comment_pk": comment.pk}
    )
    assert client.get(edit, HTTP_HX_REQUEST="true").status_code == 200
    response = client.post(edit, {"text": "Changed remark"}, HTTP_HX_REQUEST="true")
    body = response.content.decode()
    assert "Changed remark" in body and "edited" in body
    # Someone else may not edit or delete it.
    client.force_login(world.users["owner"])
    assert client.get(edit).status_code == 404
    delete = reverse(
        "probe:key_comment_delete",
        kwargs={"item_pk": world.items[0].pk, "comment_pk": comment.pk},
    )
    assert client.post(delete).status_code == 404
    # Past the window the author can no longer edit, but can delete: "deleted" stays.
    client.force_login(world.users["editor"])
    long_ago(comment)
    assert client.get(edit).status_code == 404
    body = client.post(delete, HTTP_HX_REQUEST="true").content.decode()
    assert "This comment was deleted." in body and "Changed remark" not in body
    comment.refresh_from_db()
    assert comment.deleted and comment.text == ""


def test_an_empty_comment_is_refused(client, world):
    client.force_login(world.users["editor"])
    response = client.post(thread_url(world.items[0]), {"text": "   "}, HTTP_HX_REQUEST="true")
    assert response.status_code == 400
    assert not KeyEntryComment.objects.exists()


def test_another_teams_item_is_a_404(client, world):
    other_item = world.other_bank.blocks.get().items.get()
    client.force_login(world.users["owner"])
    assert client.get(thread_url(other_item)).status_code == 404
    assert client.post(thread_url(other_item), {"text": "x"}).status_code == 404
