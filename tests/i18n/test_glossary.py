"""One glossary, applied everywhere: the Japanese catalogue uses the glossary's terms (docs/i18n.md),
never a synonym of one, names the buckets exactly as the glossary does, and ends no Japanese
sentence with a half-width full stop."""

import re
from pathlib import Path

import polib
import pytest

ROOT = Path(__file__).resolve().parents[2]
CATALOGUES = sorted((ROOT / "locale" / "ja" / "LC_MESSAGES").glob("*.po"))

# A glossary term and the synonyms a translator might reach for instead of it.
SYNONYMS = {
    "設問": ["質問項目", "問題項目"],
    "解答鍵": ["解答キー", "正解キー", "答えのキー", "正解表"],
    "ハルシネーション率": ["幻覚率", "ハルシネーション割合"],
    "較正": ["キャリブレーション", "校正"],
    "正味有用値": ["正味有用性", "ネット有用"],
    "棄権": ["回答拒否", "回答放棄"],
    "区分": ["バケット"],
    "盲検": ["ブラインド"],
    "採点者": ["スコアラー"],
    # C and W: 正答 / 誤答, as the buttons say, never 正しい / 誤り.
    "正答": ["正解", "C で正しい", "正しいか誤りか"],
    "誤答": ["W で誤り", "誤り：", "正しいか誤りか"],
    "責任者": ["リード"],
    "知識量": ["知識率"],
}
# The bucket names, wherever a message is the name alone.
BUCKETS = {
    "correct": "正答",
    "wrong": "誤答",
    "confidently wrong": "自信のある誤答",
    "hedged wrong": "留保付き誤答",
    "abstained": "棄権",
    "incorrect": "誤答",
    "partial": "部分正答",
    "not attempted": "未回答",
}
JAPANESE = r"[\u3040-\u30ff\u3400-\u9fff]"


def _entries():
    for path in CATALOGUES:
        for entry in polib.pofile(str(path)):
            if entry.obsolete:
                continue
            texts = list(entry.msgstr_plural.values()) if entry.msgid_plural else [entry.msgstr]
            for text in texts:
                if text:
                    yield path.name, entry, text


ENTRIES = list(_entries())


def test_the_glossary_in_the_docs_holds_these_terms():
    glossary = (ROOT / "docs" / "i18n.md").read_text()
    for term in [*SYNONYMS, *BUCKETS.values()]:
        assert f"| {term}" in glossary or f", {term}" in glossary or f"/ {term}" in glossary, term


@pytest.mark.parametrize("term", sorted(SYNONYMS))
def test_no_message_uses_a_synonym_of_a_glossary_term(term):
    found = [
        f"{name}: {entry.msgid[:60]!r} -> {text[:60]!r}"
        for name, entry, text in ENTRIES
        for synonym in SYNONYMS[term]
        if synonym in text
    ]
    assert not found, f"use {term}: " + "; ".join(found)


def test_a_move_in_the_reports_is_the_glossarys_word():
    """final − scorer is 変動 in the text, the CSV and the table's heading; 移動 is moving an
    item (the bank page, the audit log)."""
    found = [
        f"{entry.msgid!r} ({entry.msgctxt}) -> {text!r}"
        for _name, entry, text in ENTRIES
        if re.search(r"\bmov(e|ed|es)\b", re.sub(r"%\(\w+\)s", "", entry.msgid), re.I)
        and any("report" in path for path, _line in entry.occurrences)
        and "変動" not in text
    ]
    assert not found, "use 変動: " + "; ".join(found)


def test_a_bucket_named_alone_is_named_as_the_glossary_names_it():
    wrong = [
        f"{entry.msgid!r} -> {text!r} (glossary: {BUCKETS[entry.msgid.strip().lower()]})"
        for _name, entry, text in ENTRIES
        if entry.msgid.strip().lower() in BUCKETS and text != BUCKETS[entry.msgid.strip().lower()]
    ]
    assert not wrong, wrong


def test_no_japanese_sentence_ends_in_a_half_width_full_stop():
    found = [
        f"{entry.msgid[:50]!r} -> {text[:80]!r}"
        for _name, entry, text in ENTRIES
        if re.search(rf"{JAPANESE}[.](\s|$)", text)
    ]
    assert not found, found


def test_japanese_sentences_join_with_the_japanese_comma():
    found = [
        f"{entry.msgid[:50]!r} -> {text[:80]!r}"
        for _name, entry, text in ENTRIES
        if re.search(rf"{JAPANESE}, {JAPANESE}", text)
    ]
    assert not found, found


def test_japanese_text_in_brackets_takes_full_width_brackets():
    """「（両者の和）」, never 「(両者の和)」: brackets around Japanese words are full-width. A
    formula keeps its half-width grouping (「正答 / (正答 + 誤答)」), and so do the tokens
    inside Japanese text (「フラグ (!)」)."""
    found = [
        f"{entry.msgid[:50]!r} -> {match.group(0)!r} in {text[:80]!r}"
        for _name, entry, text in ENTRIES
        for match in re.finditer(r"\(([^()]*)\)", text)
        if re.search(JAPANESE, match.group(1)) and not re.search(r"[+\u2212×/=<>]", match.group(1))
    ]
    assert not found, found


# A group of half-width brackets (a placeholder's own "%(n)s" is not one) and what makes one
# Japanese: Japanese words inside, or Japanese text right before or after it (「設問数 (N)」).
BRACKETS = re.compile(r"(?<!%)\(((?:[^()]|%\([a-z_]+\))*)\)")


def test_a_bracket_beside_japanese_words_is_full_width():
    """「設問数（N）」「パスワード（確認用）」, never 「設問数 (N)」: a bracket that sits in Japanese
    text is full-width whatever it holds, a placeholder (「コメント（%(n)s）」) or a code;
    the flag keeps its token (「フラグ (!)」) and a formula its grouping."""
    found = []
    for _name, entry, text in ENTRIES:
        for match in BRACKETS.finditer(text):
            inner = match.group(1)
            if inner == "!" or re.search(r"[+\u2212×/=<>]", inner):
                continue
            before, after = text[: match.start()], text[match.end() :]
            if (
                re.search(JAPANESE, inner)
                or re.search(rf"{JAPANESE}\s?$", before)
                or re.search(rf"^\s?{JAPANESE}", after)
            ):
                found.append(f"{entry.msgid[:50]!r} -> {match.group(0)!r} in {text[:80]!r}")
    assert not found, found


TEMPLATES = ROOT / "templates"
# A bracket typed in a template around a value ("({{ thread.count }})"): it stays half-width in
# Japanese (「この回答へのコメント (1)」); the value goes through the `bracketed` filter instead.
TYPED_BRACKETS = re.compile(r"\(\s*(\{\{[^}]*\}\}|\{%[^%]*%\})\s*\)")
TRANSLATED = re.compile(
    r"\{%\s*blocktranslate.*?\{%\s*endblocktranslate\s*%\}|\{%\s*translate\s[^%]*%\}", re.S
)


def test_no_template_types_brackets_around_a_value():
    found = []
    for path in sorted(TEMPLATES.rglob("*.html")):
        source = TRANSLATED.sub(" ", path.read_text(encoding="utf-8"))
        found += [
            f"{path.relative_to(ROOT)}: {m.group(0)}" for m in TYPED_BRACKETS.finditer(source)
        ]
    assert not found, found


@pytest.mark.django_db
def test_the_bracketed_filter_and_the_password_confirmation_take_japanese_brackets(client):
    from django.contrib.auth.forms import PasswordChangeForm, UserCreationForm
    from django.utils import translation

    from probe.templatetags.probe_tags import bracketed
    from probe.views.accounts import _short_password_help
    from tests.probe.factories import UserFactory

    with translation.override("ja"):
        assert bracketed(3) == "（3）"
        assert bracketed("<b>") == "（&lt;b&gt;）"
        signup = _short_password_help(UserCreationForm(), "password1")
        change = _short_password_help(PasswordChangeForm(UserFactory()), "new_password1")
        assert str(signup.fields["password2"].label) == "パスワード（確認用）"
        assert str(change.fields["new_password2"].label) == "新しいパスワード（確認用）"
    with translation.override("en"):
        assert bracketed(3) == "(3)"
