"""The import page's example of the plain-text form, in the interface's language: in Japanese
the example is written the Japanese way, and it is a bank the importer reads as it reads."""

import html
import re

import pytest
from django.urls import reverse
from django.utils import translation

from probe.bankformat import parse_text
from probe.services.preferences import user_language_set

pytestmark = pytest.mark.django_db

EXAMPLE = re.compile(r'<pre class="example"( lang="ja")?>(.*?)</pre>', re.S)


@pytest.fixture(autouse=True)
def _default_language_afterwards():
    yield
    translation.deactivate()


@pytest.mark.parametrize("language", ["en", "ja"])
def test_the_example_is_in_the_interfaces_language_and_imports(client, world, language):
    user = world.users["editor"]
    user_language_set(user=user, language=language)
    client.force_login(user)
    page = client.get(reverse("probe:bank_import", kwargs={"team_slug": world.team.slug}))
    assert page.status_code == 200
    (match,) = EXAMPLE.findall(page.content.decode())
    japanese, text = match[0] == ' lang="ja"', html.unescape(match[1])
    assert japanese == (language == "ja")
    assert ("ブロック" in text) == (language == "ja")
    bank = parse_text(text.replace("…", "x").replace("...", "x"))
    (block,) = bank.blocks
    assert (block.code, len(block.items)) == ("A", 2)
    first = block.items[0].key
    assert first.answer == "422" and first.flagged and "9110" in first.flag_note
