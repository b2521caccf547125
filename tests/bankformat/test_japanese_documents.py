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
