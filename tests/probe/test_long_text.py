"""The |fold filter: short text as |isolate shows it, long text folded with its beginning and
"Show all", escaped and isolated like any other model text."""

from django.template import Context, Template
from django.utils import translation

from probe.templatetags.probe_tags import FOLD_AT, FOLD_HEAD, fold, isolate


def test_short_text_is_shown_as_isolate_shows_it():
    for text in ["429", "a" * FOLD_AT, "שלום 429", "<b>x</b>"]:
        assert fold(text) == isolate(text)


def test_long_text_is_folded_escaped_and_whole():
    text = "<script>alert(1)</script>" * 10_000
    html = fold(text)
    assert html.startswith('<details class="long-text"><summary>')
    assert "<script>" not in html
    assert html.count("&lt;script&gt;") == 10_000 + FOLD_HEAD // 25  # the whole, and its head
    assert "Show all (250,000 characters)" in html and "Show less" in html


def test_line_breaks_are_kept_with_br_and_the_label_is_translated():
    text = "line\n" * 1000
    template = Template('{% load probe_tags %}{{ text|fold:"br" }}')
    html = template.render(Context({"text": text}))
    assert html.count("<br>") >= 1000
    with translation.override("ja"):
        assert "すべて表示（5,000 文字）" in fold(text)
