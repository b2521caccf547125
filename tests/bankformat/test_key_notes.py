"""A key entry's keyword lines (``Note:``, ``Source:``, ``Sources:``; ``注記：``, ``注：``, ``出典：``;
either colon) belong to their entry wherever it is, the last entry of the last key block too.

Before, the detection of "text after the last key entry" took a ``Note:`` line in the key's last
block for a document heading ("Notes"), and its reading left out the note and every key entry
after it: "Accept every suggested reading" (and ``import_bank --accept-suggested``) lost keys,
and so did the app's own text export imported again. A suggested reading must never leave out a
line that answers an item; a real "Notes" section of prose after the key is still left out."""

from pathlib import Path

import pytest
from django.core.management import call_command

from probe import bankformat as bf
from probe.bankformat import Readings
from probe.bankformat.textparse import answering_lines, read_text
from probe.models import Bank

DOCUMENTS = Path(__file__).resolve().parent / "documents"

TWO_ITEMS = "Block A. T\n1. q1\n2. q2\n\n"


def keys(bank: bf.BankData) -> list[tuple]:
    return [
        None if i.key is None else (i.key.answer, i.key.flagged, i.key.flag_note, i.key.sources)
        for i in bank.items
    ]


# document -> the keys it holds: (answer, flagged, note, sources) per item, in order
NOTES_IN_THE_LAST_BLOCK = {
    "note on the first entry": (
        TWO_ITEMS + "Answer key\n1. a1\n   Note: n1\n2. a2\n",
        [("a1", False, "n1", []), ("a2", False, "", [])],
    ),
    "note that is a sentence": (
        TWO_ITEMS + "Answer key\n1. a1\n   Note: The alpha-3 code is JPN.\n2. a2\n",
        [("a1", False, "The alpha-3 code is JPN.", []), ("a2", False, "", [])],
    ),
    "note not indented": (
        TWO_ITEMS + "Answer key\n1. a1\nNote: n1\n2. a2\n",
        [("a1", False, "n1", []), ("a2", False, "", [])],
    ),
    "note on the last entry": (
        TWO_ITEMS + "Answer key\n1. a1\n2. a2\n   Note: n2\n",
        [("a1", False, "", []), ("a2", False, "n2", [])],
    ),
    "note in capitals, full-width colon": (
        TWO_ITEMS + "Answer key\n1. a1\n   NOTE： n1\n2. a2\n",
        [("a1", False, "n1", []), ("a2", False, "", [])],
    ),
    "note of two lines, then a source": (
        TWO_ITEMS + "Answer key\n1. a1\n   Note: first line\n   second line\n"
        "   Source: RFC 1\n2. a2\n   Sources: RFC 2 ; RFC 3\n",
        [
            ("a1", False, "first line\nsecond line", ["RFC 1"]),
            ("a2", False, "", ["RFC 2", "RFC 3"]),
        ],
    ),
    "note after a blank line": (
        TWO_ITEMS + "Answer key\n1. a1\n\n   Note: n1\n2. a2\n",
        [("a1", False, "n1", []), ("a2", False, "", [])],
    ),
    "flag, then a note and a source on every entry": (
        TWO_ITEMS + "Answer key\n1. a1 (!) check it\n   Source: s1\n2. a2\n   Note: n2\n"
        "   Source: s2\n",
        [("a1", True, "check it", ["s1"]), ("a2", False, "n2", ["s2"])],
    ),
    "notes in the last of two key blocks": (
        "Block A. T\n1. q1\n2. q2\n\nBlock B. U\n1. q3\n2. q4\n\nAnswer key\nBlock A\n"
        "1. a1\n   Note: n1\n2. a2\nBlock B\n1. b1\n   Note: m1\n2. b2\n   Note: m2\n",
        [
            ("a1", False, "n1", []),
            ("a2", False, "", []),
            ("b1", False, "m1", []),
            ("b2", False, "m2", []),
        ],
    ),
    "注記： in a Japanese bank": (
        "ブロックA　テスト\n１．問一\n２．問二\n\n解答鍵\n１．答一\n　　注記：補足です。\n２．答二\n",
        [("答一", False, "補足です。", []), ("答二", False, "", [])],
    ),
    "注： and 出典： on the last entry": (
        "ブロックA　テスト\n１．問一\n２．問二\n\n解答鍵\n１．答一\n２．答二\n　　注：短い注。\n"
        "　　出典：資料\n",
        [("答一", False, "", []), ("答二", False, "短い注。", ["資料"])],
    ),
    "注記 with an ASCII colon": (
        "ブロックA　テスト\n１．問一\n２．問二\n\n解答鍵\n１．答一\n   注記: 補足\n２．答二\n",
        [("答一", False, "補足", []), ("答二", False, "", [])],
    ),
}


@pytest.mark.parametrize("name", NOTES_IN_THE_LAST_BLOCK)
def test_a_note_in_the_last_key_block_is_part_of_its_entry(name):
    text, expected = NOTES_IN_THE_LAST_BLOCK[name]
    result = bf.preview(text, "bank.txt")
    assert result.problems == []
    assert result.warnings == []  # nothing reads as text after the key
    assert keys(result.bank) == expected
    accepted = bf.preview_suggested(text, "bank.txt")
    assert accepted.readings.codes == () and accepted.importable
    assert keys(accepted.bank) == expected


def test_the_testers_file_gives_no_warning_and_keeps_both_entries():
    text = "Block A. T\n1. q1\n2. q2\nAnswer key\n1. a1\n   Note: n1\n2. a2\n"
    result = bf.preview_suggested(text, "min.txt")
    assert [w.message for w in result.warnings] == []
    assert keys(result.bank) == [("a1", False, "n1", []), ("a2", False, "", [])]


def test_a_notes_section_of_prose_after_the_key_is_still_left_out():
    text = (
        TWO_ITEMS + "Answer key\n1. a1\n   Note: n1\n2. a2\n   Note: n2\n\n"
        "Notes\n\nEntries marked (!) should be checked against a primary source.\n"
        "Thanks to everyone who tried the questions.\n"
    )
    result = bf.preview(text, "article.txt")
    assert [(w.kind, w.reading) for w in result.warnings] == [("trailing", "drop:11-14")]
    accepted = bf.preview_suggested(text, "article.txt")
    assert accepted.readings.codes == ("drop:11-14",) and accepted.importable
    assert keys(accepted.bank) == [("a1", False, "n1", []), ("a2", False, "n2", [])]


def test_a_numbered_list_of_notes_after_the_key_is_left_out_but_no_entry_is():
    """The notes' numbers repeat the entries (1., 2.): they answer no item, so leaving them out
    loses nothing; the entries with their Note lines stay."""
    text = (
        TWO_ITEMS + "Answer key\n1. a1\n   Note: n1\n2. a2\n   注記：n2\n\nNotes\n"
        "1. We ran the probe twice.\n2. Entries marked (!) were checked.\n"
    )
    result = bf.preview(text, "article.txt")
    assert result.problems  # as written, the notes repeat entries 1 and 2
    assert [(w.kind, w.reading) for w in result.warnings] == [("trailing", "drop:11-13")]
    accepted = bf.preview_suggested(text, "article.txt")
    assert accepted.importable
    assert keys(accepted.bank) == [("a1", False, "n1", []), ("a2", False, "n2", [])]


def test_a_heading_inside_an_entry_before_the_last_one_ends_only_that_entry():
    """A real document heading in the last key block, with an entry answering an item after it:
    the reading ends that entry; it never runs on over the next entry."""
    text = TWO_ITEMS + "Answer key\n1. a1\n\n## Remarks\nModels mixed these up.\n2. a2\n"
    result = bf.preview_suggested(text, "bank.txt")
    assert result.readings.codes == ("drop:8-9",)
    assert keys(result.bank) == [("a1", False, "", []), ("a2", False, "", [])]


def _documents() -> dict[str, str]:
    found = {p.name: p.read_text(encoding="utf-8") for p in sorted(DOCUMENTS.glob("*.txt"))}
    found |= {p.name: p.read_text(encoding="utf-8") for p in sorted(DOCUMENTS.glob("*.md"))}
    found |= {name: text for name, (text, _keys) in NOTES_IN_THE_LAST_BLOCK.items()}
    return found


@pytest.mark.parametrize("name", _documents())
def test_no_suggested_reading_ever_leaves_out_a_line_that_answers_an_item(name):
    """Round by round, as the page's button takes them: no drop offered covers a key entry that
    answers an item, as that round reads the text."""
    text = _documents()[name]
    readings = Readings()
    for _round in range(10):
        result = bf.preview(text, name, readings)
        if not result.suggestions:
            break
        parser, _lines = read_text(result.text, readings)
        entries = answering_lines(parser)
        for code in result.suggestions:
            assert not Readings.from_codes([code]).drop & entries, (code, sorted(entries))
        readings = Readings.from_codes(readings.codes + tuple(result.suggestions))


def _bank_with_notes(language: str) -> bf.BankData:
    """A bank whose key has notes on entries of its last block (on the last entry too), flagged
    notes of two lines and notes that start with a keyword-like word."""
    note = "注記：" if language == "ja" else "Note: "
    text = (
        "# Notes bank\n\nBlock A. First\n1. q1\n2. q2\n\nBlock B. Last\n1. q3\n2. q4\n3. q5\n"
        "4. q6\n\nAnswer key\nBlock A\n1. a1\n   " + note + "n1\n2. a2\nBlock B\n"
        "1. b1\n   " + note + "Notes on this one\n   span two lines\n"
        "2. b2 (!) flagged note\n   second line of it\n   Source: s2\n"
        "3. b3\n   \\Note: a literal first line\n"
        "4. b4\n   " + note + "the last note\n   Sources: s4 ; s5\n"
    )
    bank = bf.load(text.encode(), "notes.txt")
    bank.language = language
    return bank


@pytest.mark.parametrize("language", ["en", "ja"])
def test_the_text_export_of_a_bank_with_notes_in_its_last_block_reads_back_the_same(language):
    bank = _bank_with_notes(language)
    assert [i.key.flag_note for i in bank.items] == [
        "n1",
        "",
        "Notes on this one\nspan two lines",
        "flagged note\nsecond line of it",
        "",
        "the last note",
    ]
    assert bank.items[4].key.answer == "b3\nNote: a literal first line"
    text = bf.dump_text(bank)
    result = bf.preview_suggested(text, "export.txt")
    assert result.readings.codes == () and result.warnings == [] and result.importable
    assert result.bank == bank
    assert bf.dump_text(result.bank) == text


@pytest.mark.parametrize("language", ["en", "ja"])
def test_import_bank_accept_suggested_and_the_text_export_keep_every_note(
    tmp_path, world, language
):
    """The command line: import with --accept-suggested, export as text, import that again."""
    bank = _bank_with_notes(language)
    source = tmp_path / "notes.txt"
    source.write_text(bf.dump_text(bank), encoding="utf-8")
    call_command(
        "import_bank", str(source), team=world.team.slug, name="First", accept_suggested=True
    )
    first = Bank.objects.get(team=world.team, name="First")
    out = tmp_path / "export.txt"
    call_command("export_bank", str(first.pk), format="text", output=str(out))
    call_command("import_bank", str(out), team=world.team.slug, name="Again", accept_suggested=True)
    again = Bank.objects.get(team=world.team, name="Again")
    for saved in (first, again):
        loaded = bf.load(out.read_bytes(), "export.txt")
        assert loaded.blocks == bank.blocks
        notes = [
            item.key_entry.flag_note
            for block in saved.blocks.order_by("order")
            for item in block.items.select_related("key_entry").order_by("order")
        ]
        assert notes == [i.key.flag_note for i in bank.items]
        assert saved.blocks.get(code="B").items.filter(key_entry__isnull=False).count() == 4
