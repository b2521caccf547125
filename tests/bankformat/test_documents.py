"""Whole documents carrying one probe, in the styles it is published in: a copy of a web page
(navigation, a menu, the title, a byline, the introduction, a paragraph between blocks, "Show the
key" right before the key, notes, footnotes, comments and a footer after it), a Markdown post
(YAML front matter, a quotation between blocks, the key inside <details>, notes and footnotes),
and a plain-text version (underlined headings, right-aligned numbers, hard-wrapped lines,
"Answers (...)" above the key, footnotes and a signature). Accepting every suggested reading
imports each one exactly: every block, item, format, key entry, source, (!) flag and note, under
its title. ``networking_probe.txt`` is the same probe written in the grammar itself."""

from pathlib import Path

import pytest

from probe import bankformat as bf
from probe.bankformat import Readings

DOCUMENTS = Path(__file__).resolve().parent / "documents"
TITLE = "What our models still get wrong about Linux networking"
# document -> the bank's name (the plain-text version's title is in capitals, as written)
DOCUMENTS_OF_THE_PROBE = {
    "networking_web_page.txt": TITLE,
    "networking_blog.md": TITLE,
    "networking_plain.txt": "LINUX NETWORKING PROBE, WINTER 2026",
}
FLAGGED = ["fc00::/7", "60", "255", "-o"]


def read(name: str) -> bytes:
    return (DOCUMENTS / name).read_bytes()


def the_probe() -> bf.BankData:
    return bf.load(read("networking_probe.txt"))


def unwrapped(bank: bf.BankData) -> bf.BankData:
    """The plain-text version wraps long lines at 80 columns; the grammar keeps a question's
    line breaks, so its questions and notes are the probe's with those breaks."""
    for item in bank.items:
        item.question = item.question.replace("\n", " ")
        if item.key is not None:
            item.key.flag_note = item.key.flag_note.replace("\n", " ")
    return bank


def overlapping(codes: list[str]) -> list[tuple[str, str]]:
    """Pairs of readings of one round that cover a common line, or where a drop covers the line
    another reading reads."""
    pairs = []
    for i, first in enumerate(codes):
        for second in codes[i + 1 :]:
            a, b = Readings.from_codes([first]), Readings.from_codes([second])
            anchors_a = a.items | ({a.key_at} - {None})
            anchors_b = b.items | ({b.key_at} - {None})
            if a.drop & b.drop or a.drop & anchors_b or b.drop & anchors_a:
                pairs.append((first, second))
    return pairs


@pytest.mark.parametrize("name", DOCUMENTS_OF_THE_PROBE)
def test_accepting_every_suggestion_imports_exactly_the_probe_under_its_title(name):
    result = bf.preview_suggested(read(name), name)
    assert result.problems == [] and result.open_warnings == []
    assert result.importable
    bank = unwrapped(result.bank) if name.endswith("plain.txt") else result.bank
    assert bank.blocks == the_probe().blocks  # every item, format, key entry, source, flag, note
    assert [i.key.answer for i in result.bank.items if i.key.flagged] == FLAGGED
    assert result.bank.item_count == 20 and result.bank.key_count == 20
    assert result.name == DOCUMENTS_OF_THE_PROBE[name]
    assert result.bank.description == ""


@pytest.mark.parametrize("name", DOCUMENTS_OF_THE_PROBE)
def test_every_round_offers_readings_that_neither_overlap_nor_repeat(name):
    """Take the suggestions round by round as the page's button does: no two readings of a round
    touch the same line, and no round offers a reading already taken."""
    readings = Readings()
    result = bf.preview(read(name), name)
    rounds = 0
    while result.suggestions:
        rounds += 1
        assert overlapping(result.suggestions) == []
        assert not set(result.suggestions) & set(readings.codes)
        readings = Readings.from_codes(readings.codes + tuple(result.suggestions))
        result = bf.preview(read(name), name, readings)
        assert rounds < 10
    assert result.ok and result.open_warnings == []
    assert result.readings.codes == bf.preview_suggested(read(name), name).readings.codes


def test_the_paragraph_before_show_the_key_ends_before_the_line_the_key_starts_on():
    """Before, the paragraph of the last item ran to "Show the key" (drop:55-57) while the key was
    offered from that same line (key:57): taking both left out the key's start, and the page was
    refused for good."""
    result = bf.preview(read("networking_web_page.txt"), "web.txt")
    codes = result.suggestions
    assert "key:57" in codes and "drop:55" in codes and "drop:55-57" not in codes
    lines = read("networking_web_page.txt").decode().split("\n")
    assert lines[56] == "Show the key" and lines[54].startswith("A note on scoring")


def test_a_drop_range_that_covers_the_key_start_does_not_undo_it():
    """Readings ticked by hand that overlap still compose: the line a key reading reads is read."""
    text = read("networking_web_page.txt")
    by_hand = bf.preview(
        text, "web.txt", Readings.from_codes(["drop:37", "drop:55-57", "key:57", "drop:91-115"])
    )
    offered = bf.preview(
        text, "web.txt", Readings.from_codes(["drop:37", "drop:55", "key:57", "drop:91-115"])
    )
    assert by_hand.problems == offered.problems == []
    assert by_hand.bank.blocks == offered.bank.blocks == the_probe().blocks


def test_the_notes_after_the_key_are_not_a_second_flag_and_the_import_waits_for_them():
    """With the key read but the footnotes after it not yet left out, the footnote "Entries
    marked (!) were checked..." glues onto the last entry (-s), which it flags: the bank reads,
    but that state is not importable until the trailing text is left out or kept."""
    text = read("networking_plain.txt")
    readings = Readings.from_codes(["drop:4-8", "drop:57", "key:60"])
    result = bf.preview(text, "plain.txt", readings)
    assert result.ok and result.bank.flagged_count == 5  # the bogus flag, as read
    assert result.bank.items[-1].key.flagged
    assert [w.kind for w in result.blocking] == ["trailing"]
    assert not result.importable
    done = bf.preview(text, "plain.txt", readings.plus(result.blocking[0].reading))
    assert done.importable and done.bank.flagged_count == 4
    assert not done.bank.items[-1].key.flagged


def test_a_warning_kept_as_written_is_settled_and_changes_nothing():
    text = read("networking_web_page.txt")
    result = bf.preview_suggested(text, "web.txt")
    kept = bf.preview(text, "web.txt", Readings.from_codes(["keep:37"]))
    assert 37 not in [w.line for w in kept.open_warnings]
    assert 37 in [w.line for w in kept.warnings]  # still known, no longer open
    assert "keep:37" not in kept.suggestions
    assert bf.describe_reading("keep:37") == "Keep line 37 as written."
    assert result.readings.codes[1] == "drop:37"


@pytest.mark.parametrize(
    "front,name",
    [
        (["Skip to content", "Menu", "Home", "About", "# Real title", "Intro."], "Real title"),
        (
            ["<title>Probe of the week &amp; more</title>", "Skip to content"],
            "Probe of the week & more",
        ),
        (["---", 'title: "From YAML"', "date: 2026-01-01", "---"], "From YAML"),
        (
            [
                "Skip to content",
                "Site name",
                "Home · Blog · About",
                "The article's title here",
                "By A. Writer · 5 min read",
                "A long first paragraph of prose that introduces the probe to the reader.",
            ],
            "The article's title here",
        ),
        (
            # A blogging platform's page: sharing buttons below the title, then the author
            # alone on a line above the reading time.
            [
                "Medium",
                "Sign up",
                "Sign in",
                "Write",
                "Follow",
                "Five Questions Every Model Fumbles About Time Zones",
                "Listen",
                "Share",
                "Priya Natarajan",
                "6 min read · Nov 3, 2026",
                "We asked a few models about time zones, and the results were instructive.",
            ],
            "Five Questions Every Model Fumbles About Time Zones",
        ),
        (["Skip to content", "Home", "A Title In Capitals", "5 min read"], "A Title In Capitals"),
        (["Skip to content", "Home", "Search"], ""),
        (["Only a title"], "Only a title"),
    ],
)
def test_the_bank_name_is_the_title_never_a_navigation_line(front, name):
    text = "\n".join(front) + "\n\nBlock A. T\n1. Q?\n"
    assert bf.parse_text(text).name == name


def test_a_name_longer_than_a_bank_name_is_shortened_at_a_word():
    title = "word " * 100
    result = bf.preview(f"# {title}\nBlock A. T\n1. Q?\n")
    assert len(result.name) <= 200 and result.name.endswith("word…")


def test_two_key_readings_ticked_by_hand_are_named_as_conflicting():
    text = read("networking_web_page.txt")
    result = bf.preview(text, "web.txt", Readings.from_codes(["key:57", "key:59"]))
    assert result.readings.key_at == 57
    assert result.conflicts == {
        "key:59": "No effect: the answer key already starts at line 57 (another reading "
        "taken). Untick one of the two."
    }
    assert bf.preview_suggested(text, "web.txt").conflicts == {}


def test_the_title_of_a_pasted_page_source():
    text = "<html><head><title>Probe &amp; key</title></head>\nSkip to content\nBlock A. T\n1. Q?\n"
    assert bf.parse_text(text).name == "Probe & key"


def test_a_heading_between_two_blocks_of_the_key_ends_only_its_entry():
    """Before, a document heading inside any key entry was taken as the start of the text after
    the key, and its reading left out every key entry after it."""
    text = "\n".join(
        [
            "Block A. T",
            "1. Q1?",
            "Block B. U",
            "1. Q2?",
            "Answer key",
            "Block A",
            "1. a1",
            "",
            "## Notes on block A",
            "Models mixed the two up.",
            "Block B",
            "1. b1",
        ]
    )
    result = bf.preview_suggested(text)
    assert result.readings.codes == ("drop:9-10",)  # before: drop:9-12, the key of block B too
    assert [i.key.answer for i in result.bank.items] == ["a1", "b1"]
