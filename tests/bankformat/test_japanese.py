"""Banks written in Japanese: ブロック and bare "A．" headings, 解答鍵 / 解答 / 答え, full-width
digits and punctuation in item numbers, the full-width (!) flag, Japanese keywords; round trips
in both formats, and text exports that keep the language of their headings."""

from pathlib import Path

import pytest

from probe import bankformat as bf
from probe.bankformat import BankData, BlockData, ItemData, KeyData

DOCUMENT = Path(__file__).resolve().parent / "documents" / "japanese.txt"


def text_of(*lines: str) -> str:
    return "\n".join(lines) + "\n"


def test_a_bank_written_in_japanese_reads_exactly():
    bank = bf.load(DOCUMENT.read_bytes(), DOCUMENT.name)
    assert bank.language == "ja"
    assert bank.name == "ウェブ基盤プローブ 2025年春"
    assert [(b.code, b.title) for b in bank.blocks] == [
        ("A", "レンダリング"),
        ("B", "ネットワーク"),
    ]
    a, b = bank.blocks
    assert [i.number for i in a.items] == [1, 2, 3]
    assert a.items[1].answer_format == "西暦の4桁"
    assert a.items[1].key == KeyData(
        answer="2011",
        flagged=True,
        flag_note="2011年4月の草案は「Grid Layout」という名前で公開された。",
        sources=["W3C 公開履歴"],
    )
    assert b.items[0].key == KeyData(
        answer="429", flagged=True, flag_note="RFC 6585 で定義された。"
    )
    assert b.items[1].retired and b.items[1].question == "HTTPS の既定のポート番号は何か。"
    assert bank.flagged_count == 2 and bank.missing_key_count == 0


@pytest.mark.parametrize("heading", ["解答鍵", "解答", "答え", "## 解答鍵", "解答：", "答え:"])
def test_every_japanese_answer_key_heading_starts_the_key(heading):
    bank = bf.parse_text(text_of("ブロックA. 一般", "1. 問い？", heading, "1. 答え一"))
    assert bank.items[0].key.answer == "答え一"


@pytest.mark.parametrize(
    "line,code,title",
    [
        ("ブロックA. レンダリング", "A", "レンダリング"),
        ("ブロックＡ：レンダリング", "A", "レンダリング"),
        ("ブロック B．ネットワーク", "B", "ネットワーク"),
        ("## ブロックC", "C", ""),
        ("A. レンダリング", "A", "レンダリング"),
        ("Ｂ．ネットワーク", "B", "ネットワーク"),
        ("## C：データベース", "C", "データベース"),
    ],
)
def test_japanese_block_headings(line, code, title):
    bank = bf.parse_text(text_of(line, "1. 問い？"))
    assert (bank.blocks[0].code, bank.blocks[0].title) == (code, title)


def test_an_english_a_dot_line_is_not_a_heading():
    """Only a Japanese title makes a bare "A." line a heading: "A. 1990" is an answer choice."""
    bank = bf.parse_text(text_of("Block A. T", "1. Which year?", "A. 1990", "B. 1991"))
    assert len(bank.blocks) == 1
    assert bank.items[0].question == "Which year?\nA. 1990\nB. 1991"


@pytest.mark.parametrize(
    "line,number,text",
    [
        ("１．問い", 1, "問い"),
        ("１２．問い", 12, "問い"),
        ("１)問い", 1, "問い"),
        ("１）問い", 1, "問い"),
        ("3) 問い", 3, "問い"),
        ("２．2011年の問い", 2, "2011年の問い"),  # a full-width period may be followed by a digit
    ],
)
def test_full_width_digits_and_punctuation_in_item_numbers(line, number, text):
    bank = bf.parse_text(text_of("ブロックA. 一般", line))
    assert (bank.items[0].number, bank.items[0].question) == (number, text)


def test_an_ascii_period_followed_by_a_digit_is_still_not_an_item():
    bank = bf.parse_text(text_of("Block A. T", "1. Wait", "1.5 seconds?"))
    assert bank.items[0].question == "Wait\n1.5 seconds?"


@pytest.mark.parametrize("flag", ["（！）", "(！)", "（!）", "(!)"])
def test_the_flag_in_full_width_form(flag):
    bank = bf.parse_text(
        text_of("ブロックA. 一般", "1. 問い？", "解答鍵", f"1. 答え {flag} 一次資料で確認")
    )
    assert bank.items[0].key == KeyData(answer="答え", flagged=True, flag_note="一次資料で確認")


def test_an_escaped_full_width_flag_is_text():
    bank = bf.parse_text(
        text_of("ブロックA. 一般", "1. 問い？", "解答鍵", "1. 答え \\（！） のまま")
    )
    assert bank.items[0].key == KeyData(answer="答え （！） のまま")


def test_japanese_keywords():
    bank = bf.parse_text(
        text_of(
            "ブロックA. 一般",
            "1. [廃止] 問い？",
            "   形式：一語",
            "解答鍵",
            "1. 答え",
            "   出典：RFC 9110 ; RFC 6585",
            "   注記：旗は外した",
        )
    )
    item = bank.items[0]
    assert item.retired and item.answer_format == "一語"
    assert item.key == KeyData(
        answer="答え", flag_note="旗は外した", sources=["RFC 9110", "RFC 6585"]
    )


def test_the_text_export_of_a_japanese_bank_keeps_japanese_headings_and_reads_back():
    bank = bf.load(DOCUMENT.read_bytes())
    text = bf.dump_text(bank)
    assert "ブロックA. レンダリング" in text and "\n解答鍵\n" in text
    assert "Block" not in text and "Answer key" not in text
    assert "形式：西暦の4桁" in text and "出典：W3C 公開履歴" in text and "[廃止]" in text
    again = bf.parse_text(text)
    assert again == bank and again.language == "ja"
    assert bf.dump_text(again) == text


def test_an_english_bank_exports_english_headings():
    bank = bf.parse_text(text_of("Block A. T", "1. Q?", "Answer key", "1. yes (!) check"))
    assert bank.language == "en"
    assert bf.dump_text(bank).startswith("Block A. T\n")


def test_the_json_round_trip_keeps_the_language():
    bank = bf.load(DOCUMENT.read_bytes())
    text = bf.dump_json(bank)
    assert '"language": "ja"' in text
    again = bf.parse_json(text)
    assert again == bank and again.language == "ja"
    assert bf.dump_json(again) == text
    assert bf.parse_text(bf.dump_text(again)) == bank


def test_a_json_language_that_is_not_one_is_refused():
    text = bf.dump_json(BankData(blocks=[BlockData(code="A", title="")])).replace(
        '"language": "en"', '"language": "fr"'
    )
    with pytest.raises(bf.BankFormatError) as error:
        bf.parse_json(text)
    assert 'language: must be one of "en", "ja"' in str(error.value)


def test_japanese_answers_containing_flags_are_escaped_in_the_export():
    bank = BankData(
        blocks=[
            BlockData(
                code="A",
                title="一般",
                items=[ItemData(question="問い？", key=KeyData(answer="（！）と(!)の両方"))],
            )
        ],
        language="ja",
    )
    assert bf.parse_text(bf.dump_text(bank)) == bank


def test_a_preview_of_a_japanese_article_offers_the_same_readings():
    text = text_of(
        "# 記事のタイトル",  # 1
        "",  # 2
        "ブロックA. 一般",  # 3
        "1. 最初の問い？",  # 4
        "2. 次の問い？",  # 5
        "",  # 6
        "解答",  # 7
        "1. 一",  # 8
        "2. 二",  # 9
        "",  # 10
        "## 参考文献",  # 11
        "本記事の内容は個人の見解です。",  # 12
    )
    result = bf.preview(text)
    assert [(w.kind, w.reading) for w in result.warnings] == [("trailing", "drop:11-12")]
    fixed = bf.preview_suggested(text)
    assert [i.key.answer for i in fixed.bank.items] == ["一", "二"]


def test_the_japanese_document_has_no_warnings():
    assert bf.preview(DOCUMENT.read_bytes(), DOCUMENT.name).warnings == []


def test_the_japanese_example_of_the_documentation_reads_as_it_says():
    import re

    docs = Path(__file__).resolve().parents[2] / "docs" / "bank-format.md"
    example = next(
        block
        for block in re.findall(r"```text\n(.*?)```", docs.read_text(), re.S)
        if "解答鍵" in block
    )
    bank = bf.parse_text(example)
    assert bank.language == "ja"
    assert [(b.code, b.title, len(b.items)) for b in bank.blocks] == [
        ("A", "レンダリング", 2),
        ("B", "ネットワーク", 2),
    ]
    assert bank.blocks[0].items[1].answer_format == "西暦の4桁"
    assert [i.key.flagged for i in bank.items] == [False, True, True, False]
    assert bank.blocks[1].items[1].retired and bank.missing_key_count == 0
