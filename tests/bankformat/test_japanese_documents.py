"""Banks written the Japanese way: an ideographic space or a tab between a block's code and its
title, 第1ブロック and ブロック１ codes, full-width letters and digits, （！） anywhere in a key
entry; and a whole Japanese article with prose around the probe (site navigation, a byline, an
introduction, a paragraph between blocks, 「解答を表示」 before the key, notes, references,
comments and a footer after it), which imports exactly by accepting every suggested reading,
with no editing of the text."""

from pathlib import Path

import pytest

from probe import bankformat as bf
from probe.bankformat import BankData, BlockData, ItemData, KeyData, Readings

DOCUMENTS = Path(__file__).resolve().parent / "documents"


def read(name: str) -> bytes:
    return (DOCUMENTS / name).read_bytes()


def item(question, answer, flagged=False, note="", sources=(), answer_format=""):
    key = KeyData(answer=answer, flagged=flagged, flag_note=note, sources=list(sources))
    return ItemData(question=question, key=key, answer_format=answer_format)


ARTICLE_PROBE = [
    BlockData(
        code="A",
        title="データベース",
        description="PostgreSQL の基本と運用。",
        items=[
            item("PostgreSQL サーバーの既定の TCP ポート番号は何か。", "5432"),
            item(
                "テーブルを排他ロックせずに不要タプルの領域を回収するコマンドは何か。",
                "VACUUM（FULL ではない通常の VACUUM）",
            ),
            item("PostgreSQL の既定のトランザクション分離レベルは何か。", "Read Committed"),
            item(
                "MERGE コマンドが追加されたメジャーバージョンはどれか。",
                "15",
                True,
                "PostgreSQL 15 で追加された。古いリリースノートを学習したモデルは 16 と答えることがある。",
                answer_format="整数",
            ),
            item(
                "インデックスの種類を指定しないとき CREATE INDEX が作るのはどの種類か。",
                "B-tree",
                sources=["PostgreSQL 文書「CREATE INDEX」"],
            ),
        ],
    ),
    BlockData(
        code="B",
        title="ネットワーク",
        items=[
            item(
                "「リクエストが多すぎる」を意味する HTTP ステータスコードは何か。",
                "429",
                sources=["RFC 6585"],
            ),
            item("HTTPS の既定のポート番号は何か。", "443"),
            item("IPv6 アドレスを返す DNS のレコード型は何か。", "AAAA"),
            item("TCP で Nagle アルゴリズムを無効にするソケットオプションは何か。", "TCP_NODELAY"),
            item(
                "HTTP の意味論を定める現行の RFC はどれか。",
                "RFC 9110",
                True,
                "2022年6月までは RFC 7231 だった。",
            ),
        ],
    ),
    BlockData(
        code="C",
        title="データ形式",
        items=[
            item("JSON の仕様を定める現行の RFC はどれか。", "RFC 8259"),
            item("CSV ファイルの MIME タイプを登録した RFC はどれか。", "RFC 4180"),
            item("UTF-8 で「あ」は何バイトで表されるか。", "3"),
            item(
                "YAML 1.2 で、引用符なしの yes は何型として読まれるか。",
                "文字列",
                True,
                "YAML 1.1 では真偽値として読まれる。",
            ),
            item(
                "ISO 8601 で週番号の付いた日付を表すときの区切り文字は何か。", "W（例：2026-W04）"
            ),
        ],
    ),
]


def test_a_whole_japanese_article_imports_exactly_by_accepting_every_suggestion():
    result = bf.preview_suggested(read("japanese_article.txt"), "japanese_article.txt")
    assert result.problems == [] and result.open_warnings == [] and result.importable
    assert result.bank.blocks == ARTICLE_PROBE
    assert result.name == "社内データ基盤プローブ 2026年冬版"  # not 「本文へスキップ」
    assert result.bank.description == "" and result.bank.language == "ja"
    assert "heading:33" in result.readings.codes  # 「ブロックC データ形式」 read as the heading


def test_the_ambiguous_heading_is_offered_as_a_heading_not_deleted():
    """「ブロックC データ形式」 (an ordinary space) is not a heading by the grammar; the reading
    offered reads it as one, and no warning offers to leave the line out."""
    result = bf.preview(read("japanese_article.txt"), "a.txt")
    offered = {w.reading: w for w in result.warnings if w.reading}
    assert "heading:33" in offered
    for code in offered:
        assert 33 not in Readings.from_codes([code]).drop
    # The restart it causes is not mistaken for the key's start in the same round.
    assert not any(code.startswith("key:") for code in offered)


def test_the_ordinal_codes_and_full_width_forms_read_without_any_reading():
    result = bf.preview(read("japanese_ordinal.txt"), "ops.txt")
    assert result.ok and result.warnings == []
    bank = result.bank
    assert [(b.code, b.title) for b in bank.blocks] == [
        ("1", "監視"),
        ("2", "ログ"),
        ("3", "証明書"),
    ]
    assert [i.key.answer for i in bank.items] == [
        "9090",
        "rate",
        "journalctl",
        "emerg（緊急）",
        "compress",
        "90",
        "CRL（証明書失効リスト）",
    ]
    flags = [(i.key.answer, i.key.flag_note) for i in bank.items if i.key.flagged]
    assert flags == [
        ("rate", "irate は直近２点だけを使うので別の関数である。"),
        ("emerg（緊急）", "emergency と綴るモデルもいる。"),
        ("90", "2026年から短くなる予定がある。"),
    ]
    assert bank.items[1].answer_format == "関数名" and bank.items[4].key.sources == ["logrotate(8)"]
    assert bank.name == "運用チーム向けプローブ（第３版）" and bank.language == "ja"


@pytest.mark.parametrize(
    "line,code,title",
    [
        ("ブロックA　データベース", "A", "データベース"),
        ("ブロックＡ　データベース", "A", "データベース"),
        ("ブロックA\tデータベース", "A", "データベース"),
        ("## ブロックＢ　ネットワーク", "B", "ネットワーク"),
        ("Block A\tHTTP semantics", "A", "HTTP semantics"),
        ("第1ブロック　データベース", "1", "データベース"),
        ("第１ブロック：データベース", "1", "データベース"),
        ("第２ブロック", "2", ""),
        ("第Ａブロック．監視", "A", "監視"),
        ("ブロック１", "1", ""),
        ("ブロック１２．表題", "12", "表題"),
    ],
)
def test_japanese_heading_forms(line, code, title):
    bank = bf.parse_text(f"{line}\n1. 問い？\n")
    assert (bank.blocks[0].code, bank.blocks[0].title) == (code, title)


@pytest.mark.parametrize(
    "line,block",
    [
        ("ブロックB データ", "B"),
        ("ブロックBデータ", "B"),
        ("Block B Networking", "B"),
        ("第2ブロック データ", "2"),
    ],
)
def test_a_heading_without_a_separator_is_offered_as_the_heading(line, block):
    text = f"ブロックA　表題\n1. 問い？\n{line}\n1. 次の問い？\n"
    as_read = bf.preview(text)
    assert [w.reading for w in as_read.warnings if w.kind == "blockheading"] == ["heading:3"]
    taken = bf.preview_suggested(text)
    assert taken.ok and taken.open_warnings == []
    assert [b.code for b in taken.bank.blocks] == ["A", block]
    assert [len(b.items) for b in taken.bank.blocks] == [1, 1]


@pytest.mark.parametrize(
    "line",
    [
        "Block B is where the models disagreed most, so read its key carefully.",
        "第1章 はじめに",
        "Block C overview",
    ],
)
def test_prose_that_starts_like_a_heading_is_not_offered_as_one(line):
    result = bf.preview(f"Block A. T\n1. Q?\n{line}\n")
    assert not [w for w in result.warnings if w.kind == "blockheading"]


@pytest.mark.parametrize(
    "entry,answer,note",
    [
        ("１．2011（！）草案の名前が違った。", "2011", "草案の名前が違った。"),
        ("１．2011　（！）　草案の名前が違った。", "2011", "草案の名前が違った。"),
        ("１．2011（！）", "2011", ""),
        ("１．2011\n　　（！）草案の名前が違った。", "2011", "草案の名前が違った。"),
        ("１．2011\n　　（！）\n　　草案の名前が違った。", "2011", "草案の名前が違った。"),
        ("1. 2011 (！) 草案", "2011", "草案"),
        ("1. 2011 （!） 草案", "2011", "草案"),
    ],
)
def test_the_full_width_flag_anywhere_in_a_key_entry(entry, answer, note):
    bank = bf.parse_text(f"ブロックA　表題\n１．問い？\n解答鍵\n{entry}\n")
    key = bank.items[0].key
    assert (key.answer, key.flagged, key.flag_note) == (answer, True, note)


def test_a_japanese_article_in_the_page_readings_round_trip_through_text_export():
    bank = BankData(name="x", blocks=ARTICLE_PROBE, language="ja")
    again = bf.parse_text(bf.dump_text(bank))
    assert again.blocks == ARTICLE_PROBE


PROSE_PROBE = [
    BlockData(
        code="A",
        title="監視",
        items=[
            item("Prometheus の既定の待ち受けポート番号は何か。", "9090"),
            item(
                "Alertmanager の既定の待ち受けポート番号は何か。",
                "9093",
                True,
                "古い文書には 9094 と書かれているものがある。",
                answer_format="整数",
            ),
        ],
    ),
    BlockData(
        code="B",
        title="証明書",
        items=[
            item("Let's Encrypt の証明書の有効期間は何日か。", "90"),
            item("証明書の失効を確かめる、OCSP 以外の仕組みは何か。", "CRL"),
        ],
    ),
]


def test_prose_between_the_last_item_and_the_key_is_left_out_with_no_reading_to_take():
    """A paragraph of the article after the last question (after a blank line, not indented
    under it) and before 「解答鍵」 is the document's, not the question's: the file reads as
    its probe and imports as it is, with no warning to settle and nothing to accept."""
    result = bf.preview(read("japanese_prose_before_key.txt"), "probe.txt")
    assert result.problems == [] and result.warnings == [] and result.importable
    assert result.bank.blocks == PROSE_PROBE
    assert result.name == "小さな監視プローブ（試用版）" and result.bank.language == "ja"
    assert bf.preview_suggested(read("japanese_prose_before_key.txt")).readings.codes == ()


@pytest.mark.parametrize("heading", ["Answer key", "## 解答鍵", "解答：", "Answers"])
def test_a_paragraph_before_any_form_of_the_key_heading_is_the_documents(heading):
    text = f"Block A\n1. Which port?\n\nWe asked each model once.\n\n{heading}\n1. 9090\n"
    result = bf.preview(text)
    assert result.importable and result.warnings == []
    assert result.bank.items[0].question == "Which port?"
    assert result.bank.items[0].key.answer == "9090"


@pytest.mark.parametrize(
    "tail,question",
    [
        # Indented under the item: its own second paragraph, as the export writes one.
        ("   The second paragraph.", "Which port?\n\nThe second paragraph."),
        # Hard-wrapped, with no blank line: the question goes on.
        ("on the server?", "Which port?\non the server?"),
        # Escaped: the author wrote it as part of the question.
        ("\\Format: written by hand", "Which port?\n\nFormat: written by hand"),
    ],
)
def test_what_belongs_to_the_last_item_stays_in_it(tail, question):
    blank = "" if tail == "on the server?" else "\n"
    result = bf.preview(f"Block A\n1. Which port?\n{blank}{tail}\n\nAnswer key\n1. 9090\n")
    assert result.bank.items[0].question == question


def test_an_item_that_goes_on_after_the_paragraph_still_asks_the_reader():
    """A paragraph followed by a line of the item's own (its Format:) is not plainly the
    document's: the warning is offered as before, and nothing is left out unasked."""
    text = "Block A\n1. Which port?\n\nWe asked once.\nFormat: a number\n\nAnswer key\n1. 9090\n"
    result = bf.preview(text)
    assert [w.kind for w in result.warnings] == ["paragraph"] and not result.importable
    assert "We asked once." in result.bank.items[0].question


def test_the_paragraph_before_the_key_is_left_out_of_the_text_export_round_trip():
    bank = bf.preview(read("japanese_prose_before_key.txt")).bank
    again = bf.parse_text(bf.dump_text(bank))
    assert again.blocks == PROSE_PROBE
