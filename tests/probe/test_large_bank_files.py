"""A 10,000-item bank exported in either format imports again, through the browser's import
page: the import limit holds every bank this app can export at that size."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from probe import bankformat
from probe.models import Bank, Item
from probe.services.banks import bank_to_data
from tests.builders import bulk_bank

N_ITEMS = 10_000


@pytest.fixture
def big(world):
    """10,000 items in five blocks: questions of about 90 characters, most keyed with a source,
    every 13th flagged with a note, every 40th retired, a few with an answer format."""
    bank, _items = bulk_bank(
        world.team,
        name="Ten thousand",
        description="Generated.",
        n_items=N_ITEMS,
        block_title="Topic {code}: defaults and limits",
        item=lambda b, i: {
            "question": f"Which default does setting {b}.{i} take in release {i % 9}, "
            f"and which document states it?",
            "answer_format": "a number" if i % 11 == 0 else "",
            "retired": i % 40 == 39,
        },
        key=lambda k: (
            None  # a few items without a key
            if k % 97 == 0
            else {
                "answer": f"{k * 7 % 1000} (since release {k % 9})",
                "flagged": k % 13 == 0,
                "flag_note": "Check the release notes." if k % 13 == 0 else "",
                "sources": [f"https://docs.example.org/settings#{k}"],
            }
        ),
    )
    return bank


@pytest.mark.parametrize("file_format,extension", [("json", "json"), ("text", "txt")])
def test_a_10000_item_bank_exported_imports_again(client, world, big, file_format, extension):
    client.force_login(world.users["editor"])
    exported = client.get(
        reverse("probe:bank_export", kwargs={"bank_pk": big.pk}) + f"?format={file_format}"
    )
    assert exported.status_code == 200
    body = exported.content
    # Larger than the old 1 MiB limit that refused such a bank; within the stated limit.
    assert 1024 * 1024 < len(body) <= bankformat.MAX_BYTES
    url = reverse("probe:bank_import", kwargs={"team_slug": world.team.slug})
    # The upload shows the preview (nothing saved yet), which posts the text back to import.
    preview = client.post(
        url, {"file": SimpleUploadedFile(f"ten-thousand.{extension}", body), "name": "Again"}
    )
    assert preview.status_code == 200 and "Check the import" in preview.content.decode()
    assert not Bank.objects.filter(name="Again").exists()
    response = client.post(
        url,
        {
            "source_text": body.decode("utf-8"),
            "filename": f"ten-thousand.{extension}",
            "name": "Again",
            "action": "import",
            "shown": "",
        },
    )
    assert response.status_code == 302, response.content.decode().split("<main", 1)[-1][:3000]
    again = Bank.objects.get(team=world.team, name="Again")
    assert Item.objects.filter(block__bank=again).count() == N_ITEMS
    original, copy = bank_to_data(big), bank_to_data(again)
    assert copy.blocks == original.blocks
    assert copy.missing_key_count == original.missing_key_count > 0


def test_numbers_from_1000_are_items_only_where_they_continue_their_block():
    lines = ["Block A. Many"] + [f"{n}. Question {n}?" for n in range(1, 1001)]
    lines += ["2023. A year, not an item", "Block B. Few", "1. When?", "1000. Not an item either"]
    lines += ["Answer key", "Block A. Many", "999. k999", "1000. k1000", "1001. no such item"]
    bank = bankformat.parse_text("\n".join(lines) + "\n")
    many, few = bank.blocks
    assert len(many.items) == 1000 and len(few.items) == 1
    assert many.items[-1].question == "Question 1000?\n2023. A year, not an item"
    assert few.items[0].question == "When?\n1000. Not an item either"
    assert many.items[999].key.answer == "k1000\n1001. no such item"
