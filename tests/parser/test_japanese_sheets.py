"""Sheets written in Japanese: full-width labels and digits, Japanese labels and item numbers,
and answers that abstain in Japanese, read as UNKNOWN with the issue named.

The sheets are in tests/parser/sheets_ja/, written the way Japanese replies come back.
"""

from pathlib import Path

import pytest
from django.utils import translation
from hypothesis import given
from hypothesis import strategies as st

from probe import sheetparser as sp

SHEETS = Path(__file__).parent / "sheets_ja"


def _sheet(name: str, n: int) -> sp.ParsedSheet:
    return sp.parse_sheet((SHEETS / name).read_text(encoding="utf-8"), n)


def test_full_width_labels_colons_and_digits():
    sheet = _sheet("fullwidth.txt", 3)
    first, second, third = sheet.answers
    # The answer keeps its full-width digits as written; grouping folds them.
    assert (first.answer, first.confidence) == ("４２９ Too Many Requests", "HIGH")
    assert sp.normalise_answer(first.answer) == "429 too many requests"
    assert (second.answer, second.confidence) == ("Retry-After ヘッダー", "MEDIUM")
    assert (third.answer, third.confidence, third.abstained) == ("UNKNOWN", "LOW", True)
    for answer in sheet.answers:
        assert answer.issues == [sp.FULLWIDTH]  # one named deviation, nothing lost
    assert sheet.sheet_issues == []


def test_polite_japanese_abstentions_are_unknown_with_the_issue_named():
    sheet = _sheet("polite.txt", 8)
    got = [(a.answer, a.abstained, a.issues) for a in sheet.answers]
    assert got[0] == ("東京都千代田区", False, [])
    assert got[1] == ("UNKNOWN", True, [sp.ABSTAIN_DONT_KNOW])
    assert got[2] == ("UNKNOWN", True, [sp.ABSTAIN_DONT_KNOW])
    assert got[3] == ("UNKNOWN", True, [sp.ABSTAIN_DONT_KNOW])
    assert got[4] == ("UNKNOWN", True, [sp.ABSTAIN_CANNOT_ANSWER])
    assert got[5] == ("UNKNOWN", True, [sp.ABSTAIN_NO_IDEA])
    assert got[6] == ("UNKNOWN", True, [sp.ABSTAIN_NOT_SURE])
    assert got[7] == ("1603年（江戸幕府の成立）", False, [])
    assert [a.confidence for a in sheet.answers] == ["HIGH"] + ["LOW"] * 6 + ["MEDIUM"]
    assert sheet.sheet_issues == [sp.TEXT_BEFORE, sp.TEXT_AFTER]


def test_japanese_labels_and_item_numbers():
    sheet = _sheet("japanese_labels.txt", 4)
    one, two, three, four = sheet.answers
    assert (one.answer, one.confidence) == ("富士山", "HIGH")
    assert {sp.LABEL_LANGUAGE, sp.NUMBER_FORMAT, sp.CONFIDENCE_MAPPED} <= set(one.issues)
    assert (two.answer, two.abstained, two.confidence) == ("UNKNOWN", True, "LOW")
    assert sp.ABSTAIN_DONT_KNOW in two.issues
    # A hedge is not an abstention: the scorer chooses the bucket.
    assert (three.answer, three.hedged, three.confidence) == (
        "たぶん信濃川だと思います",
        True,
        "MEDIUM",
    )
    assert (four.answer, four.confidence) == ("琵琶湖", "HIGH")
    assert sheet.sheet_issues == []


def test_full_width_and_bracketed_item_numbers():
    sheet = _sheet("mixed_numbers.txt", 3)
    assert [a.answer for a in sheet.answers] == ["明治", "UNKNOWN", "大正"]
    assert [a.confidence for a in sheet.answers] == ["HIGH", "LOW", "MEDIUM"]
    assert sp.NUMBER_FORMAT in sheet.answers[0].issues
    assert sp.FULLWIDTH in sheet.answers[0].issues
    assert sheet.answers[1].issues[-1] == sp.ABSTAIN_DONT_KNOW
    assert sheet.answers[2].issues == []


@pytest.mark.parametrize(
    "answer,code",
    [
        ("分かりません", sp.ABSTAIN_DONT_KNOW),
        ("わかりません", sp.ABSTAIN_DONT_KNOW),
        ("わからない", sp.ABSTAIN_DONT_KNOW),
        ("分からないです。", sp.ABSTAIN_DONT_KNOW),
        ("不明", sp.ABSTAIN_DONT_KNOW),
        ("不明。", sp.ABSTAIN_DONT_KNOW),
        ("知りません", sp.ABSTAIN_DONT_KNOW),
        ("存じません", sp.ABSTAIN_DONT_KNOW),
        ("わかりかねます", sp.ABSTAIN_DONT_KNOW),
        ("覚えていません", sp.ABSTAIN_DONT_KNOW),
        ("すみません、分かりません", sp.ABSTAIN_DONT_KNOW),
        ("回答できません", sp.ABSTAIN_CANNOT_ANSWER),
        ("お答えできません。", sp.ABSTAIN_CANNOT_ANSWER),
        ("答えられません", sp.ABSTAIN_CANNOT_ANSWER),
        ("判断できません", sp.ABSTAIN_CANNOT_ANSWER),
        ("回答不能", sp.ABSTAIN_CANNOT_ANSWER),
        ("見当がつきません", sp.ABSTAIN_NO_IDEA),
        ("さっぱり分かりません", sp.ABSTAIN_NO_IDEA),
        ("自信がありません", sp.ABSTAIN_NOT_SURE),
        ("定かではありません", sp.ABSTAIN_NOT_SURE),
        ("ＵＮＫＮＯＷＮ", sp.FULLWIDTH),
    ],
)
def test_japanese_abstention(answer, code):
    parsed = sp.parse_single(f"ANSWER: {answer}\nCONFIDENCE: LOW", 1)
    assert (parsed.answer, parsed.abstained) == ("UNKNOWN", True)
    assert code in parsed.issues


@pytest.mark.parametrize(
    "answer",
    [
        "不明な点もありますが、東京です",  # an answer that mentions doubt is still an answer
        "東京だと思いますが自信がありません",
        "わからないことはない：東京",
        "知床",  # starts like 知らない
        "不明瞭",
        "分かり易い説明",
    ],
)
def test_a_japanese_answer_is_not_an_abstention(answer):
    parsed = sp.parse_single(f"ANSWER: {answer}\nCONFIDENCE: MEDIUM", 1)
    assert parsed.abstained is False
    assert parsed.answer == answer


def test_the_issue_is_named_in_japanese_for_a_japanese_scorer():
    with translation.override("ja"):
        assert sp.issue_label(sp.ABSTAIN_DONT_KNOW) == "「分かりません」（UNKNOWN として扱う）"
        assert (
            sp.issue_label(sp.FULLWIDTH)
            == "書式に全角文字（軽微：そのまま読み取り、準拠として数えます）"
        )


japanese_text = st.text(
    alphabet=st.sampled_from(
        list("分かりませんわからない不明知存じ答え回答できです。、！？：（）１２３ＡＮＳＷＥＲ")
        + list("ＣＯＮＦＩＤＥＮＣＥ：ＨＩＧＨＬＯＷ問第設 \n.:1234")
    ),
    max_size=300,
)


@given(japanese_text, st.integers(min_value=0, max_value=8))
def test_japanese_text_never_breaks_the_parser(text, n):
    sheet = sp.parse_sheet(text, n)
    assert len(sheet.answers) == n
    for answer in sheet.answers:
        assert answer.abstained is (answer.answer == "UNKNOWN")
        assert set(answer.issues) <= set(sp.ISSUE_LABELS)
