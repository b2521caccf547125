"""The experiment form offers the prompt in the bank's language; the Japanese prompt asks for
half-width labels; a reply with full-width labels is a minor deviation, still compliant."""

import re

import pytest
from django.urls import reverse

from probe.models import PromptVersion
from probe.prompts import DEFAULT_PROMPT_NAME, DEFAULT_PROMPTS
from probe.services.prompts import prompt_defaults_ensure
from probe.sheetparser import FULLWIDTH, parse_sheet
from tests.conftest import login
from tests.probe import factories


def _japanese_bank(team):
    bank = factories.BankFactory(team=team, name="社内ナレッジ")
    block = factories.BlockFactory(bank=bank, code="A", title="データベース")
    factories.ItemFactory(block=block, question="PostgreSQL の既定のポート番号は何ですか。")
    return bank


def _selected(body: str, select_id: str) -> str:
    select = re.search(rf'<select[^>]*id="{select_id}".*?</select>', body, re.S).group(0)
    return re.search(r'<option value="(\d+)"[^>]*selected', select).group(1)


@pytest.fixture
def defaults(world):
    prompt_defaults_ensure(team=world.team)
    return {
        p.language: p
        for p in PromptVersion.objects.filter(
            team=world.team, name__in=DEFAULT_PROMPT_NAME.values()
        )
    }


def _form(client, world, language):
    url = reverse("probe:experiment_create", kwargs={"team_slug": world.team.slug})
    return client.get(url, HTTP_ACCEPT_LANGUAGE=language).content.decode()


def test_a_japanese_bank_gets_the_japanese_prompt_in_an_english_interface(client, world, defaults):
    world.bank.delete()
    _japanese_bank(world.team)
    login(client, world.users["editor"])
    body = _form(client, world, "en")
    assert _selected(body, "id_prompt_version") == str(defaults["ja"].pk)


def test_an_english_bank_gets_the_english_prompt_in_a_japanese_interface(client, world, defaults):
    login(client, world.users["editor"])
    body = _form(client, world, "ja")
    assert _selected(body, "id_prompt_version") == str(defaults["en"].pk)


def test_with_several_banks_the_options_say_their_language(client, world, defaults):
    japanese = _japanese_bank(world.team)
    empty = factories.BankFactory(team=world.team, name="Empty so far")
    login(client, world.users["editor"])
    body = _form(client, world, "ja")
    # No single bank to go by: the interface's language.
    assert _selected(body, "id_prompt_version") == str(defaults["ja"].pk)
    assert f'<option value="{japanese.pk}" data-language="ja">' in body
    assert f'<option value="{world.bank.pk}" data-language="en">' in body
    assert f'<option value="{empty.pk}">' in body  # no language of its own
    assert re.search(rf'<option value="{defaults["ja"].pk}"[^>]* data-language="ja"', body)
    assert 'data-prompt-follows="id_prompt_version"' in body


def test_a_bank_asked_for_in_the_address_is_chosen_with_its_prompt(client, world, defaults):
    """「?bank=」 (a link from a bank) starts the form on that bank and its language's prompt;
    another team's bank, or anything else, is ignored."""
    japanese = _japanese_bank(world.team)
    other = factories.BankFactory(name="Not theirs")
    login(client, world.users["editor"])
    url = reverse("probe:experiment_create", kwargs={"team_slug": world.team.slug})
    body = client.get(url, {"bank": japanese.pk}, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert _selected(body, "id_bank") == str(japanese.pk)
    assert _selected(body, "id_prompt_version") == str(defaults["ja"].pk)
    for ignored in (other.pk, "x"):
        body = client.get(url, {"bank": ignored}).content.decode()
        select = re.search(r'<select[^>]*id="id_bank".*?</select>', body, re.S).group(0)
        assert "selected" not in select.replace('value="" selected', "")


def test_the_japanese_prompt_asks_for_half_width_labels_and_digits():
    text = DEFAULT_PROMPTS["ja"]
    assert "半角" in text and "1. ANSWER: 42" in text


def test_the_japanese_prompt_writes_its_own_prose_with_full_width_punctuation():
    """The labels a model must answer with stay half-width (「1. ANSWER: 42」); the Japanese
    prose around them, and an item's answer format, take the Japanese forms."""
    from probe.prompts import PromptItem, build_item_prompt, build_sheet_prompt

    prose = re.sub(r"「[^」]*」|（[.:]）|[A-Z]+:", "", DEFAULT_PROMPTS["ja"])
    assert not re.findall(r"[\u3040-\u30ff\u3400-\u9fff][:(]", prose), prose
    assert "規則：" in DEFAULT_PROMPTS["ja"]
    item = PromptItem(1, "A", "地理", "富士山の標高は？", "整数")
    assert "\n   （整数）" in build_sheet_prompt(DEFAULT_PROMPTS["ja"], [item], "ja")
    assert "\n   （整数）" in build_item_prompt(DEFAULT_PROMPTS["ja"], item, "ja")
    assert "\n   (整数)" in build_sheet_prompt(DEFAULT_PROMPTS["en"], [item])


def test_full_width_labels_are_a_named_minor_deviation_not_non_compliance():
    reply = "\n".join(
        f"{chr(0xFF10 + n)}．ＡＮＳＷＥＲ：答え{n}\nＣＯＮＦＩＤＥＮＣＥ：ＨＩＧＨ"
        for n in (1, 2, 3)
    )
    sheet = parse_sheet(reply, 3)
    assert [a.answer for a in sheet.answers] == ["答え1", "答え2", "答え3"]
    assert [a.confidence for a in sheet.answers] == ["HIGH"] * 3
    assert all(FULLWIDTH in a.issues for a in sheet.answers)  # named, so the report lists it
    assert sheet.compliance == 1.0


def test_a_japanese_prompt_writes_its_block_headings_the_japanese_way():
    """The sheet a model reads is in the prompt's language to its headings, and the simulator
    (and any reader of the sheet) still finds every item under them."""
    from adapters.simulator.knowledge import Knowledge, parse_prompt_items
    from probe.prompts import PromptItem, build_sheet_prompt

    items = [
        PromptItem(1, "A", "データベース", "既定のポート番号は？", ""),
        PromptItem(2, "A", "データベース", "分離レベルの既定値は？", ""),
        PromptItem(3, "B", "ネットワーク", "TCP の接続開始で最初に送るのは？", ""),
    ]
    japanese = build_sheet_prompt(DEFAULT_PROMPTS["ja"], items, "ja")
    assert "ブロックA\u3000データベース\n1. 既定のポート番号は？" in japanese
    assert "\n\nブロックB\u3000ネットワーク\n3. " in japanese and "Block A." not in japanese
    english = build_sheet_prompt(DEFAULT_PROMPTS["en"], items)
    assert "Block A. データベース\n1. " in english
    found = parse_prompt_items(japanese, Knowledge([]))
    assert [(p.number, p.text) for p in found] == [(i.position, i.question) for i in items]
