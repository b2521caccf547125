"""Responses are compressed for a browser that accepts gzip: pages, htmx fragments and streamed
exports alike; a client that does not ask gets plain bytes."""

import gzip

from django.urls import reverse

from probe.models import Item
from tests.conftest import KEY_ANSWERS

GZIP = {"HTTP_ACCEPT_ENCODING": "gzip, deflate, br"}


def test_pages_and_fragments_are_gzipped(client, world):
    client.force_login(world.users["editor"])
    url = reverse("probe:bank_detail", kwargs={"bank_pk": world.bank.pk})
    page = client.get(url, **GZIP)
    assert page["Content-Encoding"] == "gzip" and "Accept-Encoding" in page["Vary"]
    assert "Which status code means Too Many Requests?" in gzip.decompress(page.content).decode()
    fragment = client.get(
        url + "?key=1", HTTP_HX_REQUEST="true", HTTP_HX_TARGET="item-list", **GZIP
    )
    body = gzip.decompress(fragment.content).decode()
    assert fragment["Content-Encoding"] == "gzip" and KEY_ANSWERS[0] in body
    assert "<html" not in body
    # Without Accept-Encoding: as is.
    plain = client.get(url)
    assert not plain.has_header("Content-Encoding") and b"<html" in plain.content


def test_the_same_page_never_compresses_to_the_same_length(client, world):
    # BREACH works by watching the compressed length change; Django pads each gzip header with
    # a random number of bytes, so identical pages differ in length from one response to the next.
    client.force_login(world.users["editor"])
    url = reverse("probe:bank_detail", kwargs={"bank_pk": world.bank.pk}) + "?key=1"
    lengths = {len(client.get(url, **GZIP).content) for _ in range(8)}
    assert len(lengths) > 1


def test_a_bank_download_is_gzipped_too(client, world):
    # Enough text that compression pays (Django sends a tiny body, or one that would not
    # shrink after its random padding, as it is).
    Item.objects.bulk_create(
        [
            Item(block=world.blocks[0], question=f"Filler question {n}?", order=10 + n)
            for n in range(60)
        ]
    )
    client.force_login(world.users["editor"])
    url = reverse("probe:bank_export", kwargs={"bank_pk": world.bank.pk}) + "?format=text"
    response = client.get(url, **GZIP)
    assert response.status_code == 200, response.status_code
    assert response.get("Content-Encoding") == "gzip"
    assert "Answer key" in gzip.decompress(response.content).decode()
