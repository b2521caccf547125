"""Sentences are translated whole, with the Japanese punctuation in Japanese, where the pieces
of a page meet: the report's note on its intervals ends in 「。」 (not 「…再抽出.」), a warning
of the import preview reads 「2 行目：…」 like the other messages of the page, and an example
given in a Japanese message is written the Japanese way (a heading the importer reads)."""

import re
from types import SimpleNamespace

import pytest
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation

from probe.bankformat import BankFormatError, lexicon, parse_text
from probe.services.preferences import user_language_set
from tests.probe.test_import_preview import WEB_PAGE

JAPANESE = r"[\u3040-\u30ff\u3400-\u9fff]"


@pytest.fixture(autouse=True)
def _default_language_afterwards():
    yield
    translation.deactivate()


@pytest.mark.parametrize("n_blocks", [1, 3])
def test_the_interval_note_is_one_sentence_in_each_language(n_blocks):
    report = SimpleNamespace(inference=SimpleNamespace(resamples=2000, seed=7, n_blocks=n_blocks))
    with translation.override("ja"):
        japanese = render_to_string(
            "scoring/partials/_report_interval_note.html", {"report": report}
        )
    with translation.override("en"):
        english = render_to_string(
            "scoring/partials/_report_interval_note.html", {"report": report}
        )
    assert japanese.endswith("広げて読みます。</p>"), japanese
    assert not re.search(rf"{JAPANESE}[.,]", japanese), japanese
    assert english.endswith("for small N.</p>"), english
    assert ("3 個の各ブロック内で設問を再抽出" in japanese) == (n_blocks == 3)
    assert ("within each of the 3 blocks" in english) == (n_blocks == 3)


def test_a_warning_of_the_import_preview_takes_the_japanese_colon(client, world):
    user = world.users["editor"]
    user_language_set(user=user, language="ja")
    client.force_login(user)
    url = reverse("probe:bank_import", kwargs={"team_slug": world.team.slug})
    body = client.post(url, {"source_text": WEB_PAGE, "filename": "", "name": ""}).content.decode()
    warnings = body.split('<ol class="warning-list">')[1].split("</ol>")[0]
    assert re.search(r'<a href="#line-33" class="line-ref">33 行目</a>：', warnings), warnings
    assert "</a>:" not in warnings


@pytest.mark.parametrize(
    "text",
    ["1. 富士山の標高は？\n", "No heading here.\n\n1. What is the default port?\n"],
)
def test_the_example_heading_of_a_japanese_message_is_a_japanese_heading(text):
    with translation.override("ja"):
        with pytest.raises(BankFormatError) as refused:
            parse_text(text)
    messages = " ".join(str(p) for p in refused.value.problems)
    examples = re.findall(r"「([^」]*)」のような見出し", messages)
    assert examples and "Block" not in messages, messages
    for example in examples:
        kind, match = lexicon.classify(example)
        assert kind == "heading" and lexicon.language_of(match) == "ja", example
