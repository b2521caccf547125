"""Hostile text in answers, questions and keys: escaped, bidi controls and invisible characters
shown as marks, right-to-left text isolated; plain text left exactly as it was."""

import pytest
from django.template import Context, Template
from django.urls import reverse

from probe.models import ExperimentItem, Response


def render(text: str, chain: str = "") -> str:
    template = Template("{% load probe_tags %}{{ value|isolate" + chain + " }}")
    return template.render(Context({"value": text}))


def test_plain_text_is_left_as_it_was():
    assert render("429 Too Many Requests") == "429 Too Many Requests"
    assert render("") == "" and render(None) == ""


def test_markup_is_escaped():
    assert render("<script>alert(1)</script>") == "&lt;script&gt;alert(1)&lt;/script&gt;"
    assert "&lt;img" in render("\u202e<img src=x onerror=alert(1)>")


def test_a_right_to_left_override_becomes_a_visible_mark():
    html = render("\u202e924")
    assert html == (
        '<bdi class="text"><abbr class="hidden-char" title="RIGHT-TO-LEFT OVERRIDE">U+202E</abbr>'
        "924</bdi>"
    )
    assert "\u202e" not in html


@pytest.mark.parametrize(
    "char,name",
    [
        ("\u202a", "LEFT-TO-RIGHT EMBEDDING"),
        ("\u202c", "POP DIRECTIONAL FORMATTING"),
        ("\u2066", "LEFT-TO-RIGHT ISOLATE"),
        ("\u2069", "POP DIRECTIONAL ISOLATE"),
        ("\u200f", "RIGHT-TO-LEFT MARK"),
        ("\u061c", "ARABIC LETTER MARK"),
        ("\u200b", "ZERO WIDTH SPACE"),
        ("\u200d", "ZERO WIDTH JOINER"),
        ("\u2060", "WORD JOINER"),
        ("\ufeff", "ZERO WIDTH NO-BREAK SPACE"),
        ("\u00ad", "SOFT HYPHEN"),
        ("\U000e0041", "TAG LATIN CAPITAL LETTER A"),
    ],
)
def test_every_hidden_character_is_marked(char, name):
    html = render(f"Retry{char}-After")
    assert char not in html
    assert f'title="{name}">U+{ord(char):04X}</abbr>' in html
    assert html.startswith('<bdi class="text">Retry')


def test_two_answers_that_look_alike_do_not_render_alike():
    assert render("Retry-After") != render("Retry\u200b-After")


def test_right_to_left_text_is_isolated_but_not_altered():
    html = render("שלום 42")
    assert html == '<bdi class="text">שלום 42</bdi>'


def test_line_breaks_still_work_after_it():
    assert render("a\n\u202eb", "|linebreaksbr").count("<br>") == 1


@pytest.fixture
def hostile(world):
    response = Response.objects.filter(run__experiment=world.scored).order_by("pk").first()
    response.answer = "\u202e924"
    response.save(update_fields=["answer"])
    ExperimentItem.objects.filter(pk=response.item_id).update(
        question="Which\u200b code?", key_answer="\u2067429"
    )
    item = world.items[0]
    item.question = "Status\u202e code?"
    item.save()
    return response


def test_pages_show_the_marks_where_answers_questions_and_keys_appear(client, world, hostile):
    client.force_login(world.users["owner"])
    pages = {
        reverse("probe:run_detail", kwargs={"run_pk": hostile.run_id}) + "?key=1": (
            "U+202E",
            "U+200B",
        ),
        reverse("probe:bank_detail", kwargs={"bank_pk": world.bank.pk}): ("U+202E",),
        reverse("probe:item_detail", kwargs={"item_pk": world.items[0].pk}): ("U+202E",),
    }
    for url, marks in pages.items():
        body = client.get(url).content.decode()
        for mark in marks:
            assert f">{mark}</abbr>" in body, (url, mark)
        assert "\u202e" not in body and "\u200b" not in body, url
