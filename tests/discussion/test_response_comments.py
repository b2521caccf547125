"""Comments on a response: only for those who may see which model wrote it; every URL that
serves or lists them is a 404 to anyone else."""

import re

import pytest
from django.urls import reverse

from scoring.discussion import services
from scoring.models import ResponseComment
from tests.discussion.helpers import AFTER_REVEAL_TEXT, a_response, response_url, reveal, start


def write(world, kind, text, response=None):
    return services.response_comment_create(
        response=response or a_response(world), user=world.users[kind], text=text
    )


def _urls(world, response, comment):
    kwargs = {"experiment_pk": world.scored.pk, "comment_pk": comment.pk}
    return {
        "thread": response_url(world, response),
        "edit": reverse("scoring:response_comment_edit", kwargs=kwargs),
        "delete": reverse("scoring:response_comment_delete", kwargs=kwargs),
    }


@pytest.mark.parametrize(
    "kind,state,sees",
    [
        ("outsider", "none", False),
        ("scorer", "none", False),  # a scorer who has not joined may still join: blind
        ("scorer", "blind", False),
        ("scorer", "revealed", True),
        ("editor", "blind", False),
        ("editor", "revealed", True),
        ("editor", "none", True),  # a lead who does not score it sees the models anyway
        ("owner", "none", True),
        ("viewer", "none", True),
    ],
)
def test_who_reads_response_comments(client, world, kind, state, sees):
    response = a_response(world)
    comment = write(world, "owner", AFTER_REVEAL_TEXT, response)
    if state == "blind":
        start(world, kind)
    elif state == "revealed":
        reveal(world, kind)
    client.force_login(world.users[kind])
    urls = _urls(world, response, comment)
    for headers in ({}, {"HTTP_HX_REQUEST": "true"}):
        page = client.get(urls["thread"], **headers)
        if not sees:
            assert page.status_code == 404
            assert AFTER_REVEAL_TEXT.encode() not in page.content
            # Not even a POST, an edit or a deletion: the comment is not confirmed to exist.
            assert client.post(urls["thread"], {"text": "x"}, **headers).status_code in (403, 404)
            assert client.get(urls["edit"], **headers).status_code in (403, 404)
            assert client.post(urls["delete"], **headers).status_code in (403, 404)
        else:
            assert page.status_code == 200
            assert AFTER_REVEAL_TEXT in page.content.decode()
    # A response of another experiment through this one's URL: 404 for everyone.
    assert ResponseComment.objects.filter(pk=comment.pk, deleted_at=None).exists()


def test_a_blind_member_gets_404_whether_or_not_the_response_exists(client, world):
    start(world, "scorer")
    client.force_login(world.users["scorer"])
    real = client.get(response_url(world, a_response(world)))
    missing = client.get(
        reverse(
            "scoring:response_comments",
            kwargs={"experiment_pk": world.scored.pk, "response_pk": 999999},
        )
    )
    assert real.status_code == missing.status_code == 404
    strip = re.compile(rb"[A-Za-z0-9]{40,}")  # the CSRF tokens
    assert strip.sub(b"", real.content) == strip.sub(b"", missing.content)


def test_the_run_page_and_reconciliation_list_them_only_after_the_reveal(client, world):
    from scoring.reconciliation import services as reconcile_services

    response = a_response(world)
    write(world, "owner", AFTER_REVEAL_TEXT, response)
    reveal(world, "editor")
    reveal(world, "scorer")
    reconcile_services.reconciliation_start(experiment=world.scored, user=world.users["owner"])
    client.force_login(world.users["editor"])
    run_page = client.get(reverse("probe:run_detail", kwargs={"run_pk": response.run_id}))
    body = run_page.content.decode()
    assert response_url(world, response) in body and "1 comment" in body
    item_page = client.get(
        reverse(
            "scoring:reconcile_item",
            kwargs={"experiment_pk": world.scored.pk, "position": response.item.position},
        )
    )
    assert item_page.status_code == 200
    assert response_url(world, response) in item_page.content.decode()
    # A member who joins to score and has not revealed sees neither.
    client.force_login(world.users["viewer"])
    start(world, "viewer")
    body = client.get(reverse("probe:run_detail", kwargs={"run_pk": response.run_id})).content
    assert response_url(world, response).encode() not in body


def test_write_edit_delete(client, world):
    reveal(world, "scorer")
    client.force_login(world.users["scorer"])
    response = a_response(world)
    url = response_url(world, response)
    page = client.post(url, {"text": "Looks like a guess"}, HTTP_HX_REQUEST="true")
    assert page.status_code == 200 and "Looks like a guess" in page.content.decode()
    comment = ResponseComment.objects.get()
    urls = _urls(world, response, comment)
    body = client.post(urls["edit"], {"text": "A guess"}, HTTP_HX_REQUEST="true").content.decode()
    assert "A guess" in body and "edited" in body
    # Without htmx: back to the thread, at the comment.
    back = client.post(urls["delete"])
    assert back.status_code == 302 and back["Location"].endswith(f"#comment-{comment.pk}")
    body = client.get(url).content.decode()
    assert "This comment was deleted." in body and "A guess" not in body
