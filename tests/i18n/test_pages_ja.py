"""Every page of the permission-matrix crawl, rendered in Japanese, has no English sentence left.

The pages are the ones tests/probe/test_permissions.py finds in the URL resolver, so a new view is
covered unasked. What users wrote (team, bank, item, key, prompt and configuration text, model
answers) is English in the fixtures and is taken out first, as is text marked lang="en" (the
switcher's "English") and code (pre, code, kbd, textarea). What is left must be Japanese, apart
from a short list of names and the protocol tokens models write.
"""

import re
from html.parser import HTMLParser

import pytest
from django.apps import apps
from django.db import models
from django.urls import reverse

from tests.probe.test_permissions import TEAM_URLS, _kwargs_for

# Names and tokens that stay as they are in a Japanese interface.
ALLOWED = {
    # what models write and the parser reads
    *"ANSWER CONFIDENCE HIGH MEDIUM LOW UNKNOWN".split(),
    # formats, protocols, units and keys
    *"JSON CSV URL API HTTP HTTPS SHA MB ID UTF Ctrl Enter Esc Tab Shift Alt Web pp px".split(),
    *"UTC GMT JST KST CET CEST EST EDT PST PDT".split(),  # time zones, written beside a time
    "en",  # language codes, shown beside their names
    "ja",
    # products, providers and people
    *"OpenAI Anthropic Gemini Google vLLM Ollama llama cpp OpenRouter AA Omniscience".split(),
    *"Chat Completions Responses Messages".split(),  # the names of the provider APIs
    "Lines",  # the JSON Lines format
    *"Cohen Fleiss Krippendorff Holm RFC Markdown".split(),
    *"Gwet Wilson AC".split(),  # Gwet's AC1, Wilson's interval
}
# Fields that hold the product's codes, not what users wrote: a page shows them translated.
CODES_NOT_TEXT = {("probe.AuditEvent", "subject")}
WORD = re.compile(r"[A-Za-z][A-Za-z’']+")
# Identifiers, not words: gpt-4.1, sim-expert, OPENAI_API_KEY, api.openai.com, docs/x.md,
# https://…, and hashes such as ef03847820ca.
IDENTIFIER = re.compile(
    r"[A-Za-z0-9]+(?:[-_./:]+[A-Za-z0-9…]+)+|https?://\S*|\b(?=[0-9a-f]*\d)[0-9a-f]{8,}\b"
)
SKIPPED_TAGS = {"script", "style", "pre", "code", "kbd", "textarea", "template", "svg"}
ATTRIBUTES = {"title", "aria-label", "placeholder", "alt", "data-copied", "data-copy-failed"}
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source"}


class _Text(HTMLParser):
    """The text a user reads or hears: text nodes and labelling attributes, with where it is."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, bool]] = []  # (tag, skipped)
        self.chunks: list[str] = []

    def _skipped(self) -> bool:
        return bool(self.stack) and self.stack[-1][1]

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        lang = attrs.get("lang")
        skipped = self._skipped() or tag in SKIPPED_TAGS or (lang is not None and lang != "ja")
        if not skipped:
            for name in ATTRIBUTES & attrs.keys():
                self.chunks.append(attrs[name] or "")
            if tag == "input" and attrs.get("type") in {"submit", "button"}:
                self.chunks.append(attrs.get("value") or "")
            if "hx-confirm" in attrs:
                self.chunks.append(attrs["hx-confirm"] or "")
        if tag not in VOID:
            self.stack.append((tag, skipped))

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.stack.pop()

    def handle_endtag(self, tag):
        for index in range(len(self.stack) - 1, -1, -1):
            if self.stack[index][0] == tag:
                del self.stack[index:]
                break

    def handle_data(self, data):
        if not self._skipped() and data.strip():
            self.chunks.append(data)


def _user_data() -> list[str]:
    """Every string stored in the database: what users and models wrote, not the interface."""
    values: set[str] = set()
    for model in apps.get_models():
        if model._meta.app_label not in {"probe", "scoring", "grading", "auth"}:
            continue
        fields = [
            f.name
            for f in model._meta.get_fields()
            if isinstance(f, models.CharField | models.TextField)
            and not f.choices
            and (model._meta.label, f.name) not in CODES_NOT_TEXT
        ]
        for row in model.objects.values_list(*fields) if fields else []:
            for value in row:
                if value:
                    values.add(str(value))
                    values.update(line.strip() for line in str(value).splitlines())
    return sorted((v for v in values if len(v) >= 2), key=len, reverse=True)


def english_left(html: str, data: list[str]) -> list[str]:
    parser = _Text()
    parser.feed(html)
    found = []
    for chunk in parser.chunks:
        text = " ".join(chunk.split())
        for value in data:
            if value in text:
                text = re.sub(rf"(?<![\w./-]){re.escape(value)}(?![\w./-])", " ", text, flags=re.A)
        text = IDENTIFIER.sub(" ", text)
        words = [w for w in WORD.findall(text) if w not in ALLOWED]
        if words:
            found.append(f"{chunk.strip()[:120]!r} -> {words}")
    return found


JAPANESE = r"[\u3040-\u30ff\u3400-\u9fff\uff01-\uff5e]"
# Half-width brackets in Japanese text: around Japanese words (「(あなた)」), or after them
# (「未決着 (2)」). A formula keeps its grouping (「正答 / (正答 + 誤答)」) and the flag its
# token (「フラグ (!)」).
HALF_WIDTH_BRACKETS = re.compile(rf"(?:{JAPANESE}\s?)?\(([^()]*)\)")


def half_width_brackets(html: str, data: list[str]) -> list[str]:
    parser = _Text()
    parser.feed(html)
    found = []
    for chunk in parser.chunks:
        text = " ".join(chunk.split())
        for value in data:
            if value in text:
                text = text.replace(value, " ")
        for match in HALF_WIDTH_BRACKETS.finditer(text):
            inner = match.group(1)
            if inner == "!" or re.search(r"[+\u2212\u00d7/=<>]", inner):
                continue
            after_japanese = match.group(0)[0] != "("
            if after_japanese or re.search(JAPANESE, inner):
                found.append(f"{match.group(0)!r} in {chunk.strip()[:80]!r}")
    return found


def test_the_check_finds_half_width_brackets_in_japanese_text():
    page = "<p>acme-owner (あなた)</p><p>未決着 (2)</p><p>正答 / (正答 + 誤答)</p><p>フラグ (!)</p>"
    found = half_width_brackets(page, data=[])
    assert len(found) == 2 and "あなた" in found[0] and "(2)" in found[1]
    assert half_width_brackets("<p>Acme (secret) bank</p><p>（あなた）</p>", data=[]) == []


def test_the_check_finds_english_and_passes_japanese():
    page = (
        '<html lang="ja"><body><h1>設問 3</h1><p title="Copy">回答：ANSWER</p>'
        '<pre>raw reply text</pre><button lang="en">English</button>'
        "<p>Item missing from the reply</p></body></html>"
    )
    found = english_left(page, data=[])
    assert len(found) == 2
    assert "Copy" in found[0] and "Item missing" in found[1]
    assert english_left("<p>バンク Acme secret bank を削除</p>", data=["Acme secret bank"]) == []


def _pages(world):
    for name in sorted(TEAM_URLS):
        pattern = TEAM_URLS[name]
        if pattern.callback.team_view["GET"] is None:
            continue  # POST only
        for kind in ("owner", "scorer"):
            url = reverse(name, kwargs=_kwargs_for(pattern, world, kind, name))
            yield kind, url


@pytest.mark.django_db
def test_every_page_is_japanese(client, world):
    login = client.get(reverse("login"), HTTP_ACCEPT_LANGUAGE="ja")
    assert login.status_code == 200
    pages = [("login", "anonymous", login.content.decode())]
    for kind, url in _pages(world):
        client.force_login(world.users[kind])
        response = client.get(url, HTTP_ACCEPT_LANGUAGE="ja")
        if response.status_code != 200 or "html" not in response.get("Content-Type", ""):
            continue  # a page this role may not see, or a download
        assert response["Content-Language"] == "ja", url
        pages.append((url, kind, response.content.decode()))
    assert len(pages) > 40, f"only {len(pages)} pages rendered: the crawl no longer reaches them"
    # Stored text is read after the crawl: some of it (the default prompts) is made on first use.
    data = _user_data()
    problems = [
        f"{url} ({kind}): {problem}"
        for url, kind, html in pages
        for problem in [
            *english_left(html, data),
            *(f"half-width brackets: {b}" for b in half_width_brackets(html, data)),
        ]
    ]
    assert not problems, "English or half-width brackets on Japanese pages:\n" + "\n".join(problems)
