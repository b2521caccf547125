"""The discussion pages in Japanese: the threads, the hidden notice, a refused mention and the
mention's notification read in the reader's language, with the glossary's words."""

from django.urls import reverse

from probe.services.discussion import key_comment_create
from probe.services.preferences import user_language_set
from tests.discussion.helpers import (
    AFTER_REVEAL_TEXT,
    a_response,
    membership,
    response_url,
    start,
    thread_url,
)


def test_the_threads_in_japanese(client, world):
    editor = world.users["editor"]
    user_language_set(user=editor, language="ja")
    start(world, "editor")
    key_comment_create(
        item=world.items[0],
        user=world.users["owner"],
        membership=membership(world, "owner"),
        text=AFTER_REVEAL_TEXT,
    )
    client.force_login(editor)
    body = client.get(thread_url(world.items[0])).content.decode()
    assert "解答鍵へのコメント" in body and "コメントを追加" in body
    assert "あなたの開示まで表示されません" in body
    assert "Comments on the key" not in body and "Add a comment" not in body
    # A mention the owner may read is taken; the owner's inbox says it in Japanese too.
    user_language_set(user=world.users["owner"], language="ja")
    client.post(thread_url(world.items[0]), {"text": "@acme-owner 確認をお願いします"})
    client.force_login(world.users["owner"])
    inbox = client.get(reverse("inbox")).content.decode()
    assert "acme-editor さんが「Acme secret bank」のコメントであなたをメンションしました。" in inbox


def test_a_refused_mention_in_japanese(client, world):
    owner = world.users["owner"]
    user_language_set(user=owner, language="ja")
    start(world, "scorer")
    client.force_login(owner)
    page = client.post(
        response_url(world, a_response(world)),
        {"text": "@acme-scorer これは？"},
        HTTP_HX_REQUEST="true",
    )
    body = page.content.decode()
    assert page.status_code == 400
    assert "acme-scorer さんはこの実験をまだ開示していないため" in body
    assert "この回答へのコメント" in body and "@acme-scorer これは？</textarea>" in body
