"""The kinds of line of the plain-text form, and small helpers shared by its reader and writer."""

from __future__ import annotations

import re
import unicodedata

from probe.wording import number_ranges

# Separators after a block code: . : - en dash, em dash, and the full-width period and colon.
_SEPARATORS = ".:\\-\u2013\u2014\uff0e\uff1a"
# CJK ideographs, hiragana, katakana (a bare "A. title" heading needs a Japanese title).
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uff66-\uff9f"
# "Block A. Title"; the separator may also be an ideographic space or a tab, the way Japanese
# documents set a heading ("ブロックA　データベース"), but not an ordinary space alone.
_HEADING_RE = re.compile(
    r"^(?:#{1,6}\s*)?(?P<word>block\s+|ブロック\s*)(?P<code>[^\W_]{1,2}?)\s*"
    r"(?:(?:[" + _SEPARATORS + r"]|[\u3000\t])\s*(?P<title>.*))?$",
    re.IGNORECASE,
)
# "第1ブロック　データベース", "第Ａブロック：…": the code between 第 and ブロック.
_ORDINAL_HEADING_RE = re.compile(
    r"^(?:#{1,6}\s*)?(?P<word>第)(?P<code>[0-9\uff10-\uff19]{1,2}|[A-Za-z\uff21-\uff3a\uff41-\uff5a])"
    r"ブロック\s*(?:(?:[" + _SEPARATORS + r"]|[\u3000\t])\s*(?P<title>.*))?$"
)
# A line a person reads as a heading though the grammar does not: an ordinary space, or nothing,
# between the code and the title ("Block A HTTP", "ブロックA データベース", "ブロックAデータベース").
# The preview offers to read it as the heading (a "heading:" reading).
_LOOSE_CODE = r"(?P<code>[A-Za-z0-9\uff10-\uff19\uff21-\uff3a\uff41-\uff5a]{1,2}?)"
LOOSE_HEADING_RE = re.compile(
    r"^(?:#{1,6}\s*)?(?:(?P<word>block\s+|ブロック\s*)"
    + _LOOSE_CODE
    + r"|(?P<ordinal>第)"
    + _LOOSE_CODE.replace("code", "ordinal_code")
    + r"ブロック)"
    r"(?:\s+|(?=[" + _CJK + r"]))(?P<title>\S.{0,80})$",
    re.IGNORECASE,
)


def loose_heading(stripped: str) -> re.Match | None:
    """A line that reads as a block heading without a separator: its title is a title (no
    sentence: "Block B is where the models disagreed." is prose), capitalised unless Japanese."""
    match = LOOSE_HEADING_RE.match(stripped)
    if match is None:
        return None
    title = match["title"].strip()
    if title[-1] in ".?!;,。？！、" or (not CJK_RE.search(title) and not title[0].isupper()):
        return None
    return match


def heading_parts(match: re.Match) -> tuple[str, str]:
    """The code (ASCII) and title of a block heading, strict or loose."""
    groups = match.groupdict()
    code = groups.get("code") or groups.get("ordinal_code") or ""
    return normal_code(code), (groups.get("title") or "").strip()


# "A. レンダリング": a single capital letter (ASCII or full-width), a period or colon, and a
# Japanese title (an English "A. ..." line stays text: it is too often a choice of an answer).
_BARE_HEADING_RE = re.compile(
    r"^(?:#{1,6}\s*)?(?P<code>[A-Z\uff21-\uff3a])\s*[.:\uff0e\uff1a]\s*(?P<title>.+)$"
)
_KEY_HEADING_RE = re.compile(
    r"^(?:#{1,6}\s*)?(?P<word>answer\s+key|answers?|key|解答鍵|解答|答え|正解)\s*[:\uff1a]?$",
    re.IGNORECASE,
)
_DIGITS = "0-9\uff10-\uff19"
# A number, then "." or ")" not followed by a digit ("1.5 seconds" is not an item), or a
# full-width "．" or "）", which may be ("２．2011").
_NUMBER_RE = re.compile(
    r"^(?P<num>[1-9\uff11-\uff19][" + _DIGITS + r"]{0,6})\s*"
    r"(?:[.)](?![" + _DIGITS + r"])|[\uff0e\uff09])\s*(?P<rest>.*)$"
)
# Up to 999 a number at the start of a line is an item number anywhere; from 1000 on (a block of
# a large bank: up to 9,999,999, so that a bank over the item limit is counted, not cut) only
# where it continues its block: the item after the one
# before, or a key entry of an item the block has (see textparse). So "2023. A year..." stays text.
FREE_NUMBER_MAX = 999
# What a person may read as an item though the grammar does not: "1000. ...", "Q7. ...", "問7．".
LOOSE_NUMBER_RE = re.compile(
    r"^(?:(?:q|question|item|問題?)\s*)?(?P<num>[" + _DIGITS + r"]{1,7})\s*[.):\uff0e\uff09\uff1a]"
    r"(?![" + _DIGITS + r"])\s*(?P<rest>\S.*)$",
    re.IGNORECASE,
)
RETIRED_RE = re.compile(r"^[\[\uff3b](?:retired|廃止)[\]\uff3d]\s*(.*)$", re.IGNORECASE)
FORMAT_RE = re.compile(r"^(?:format|形式)\s*[:\uff1a]\s*(.*)$", re.IGNORECASE)
TOPIC_RE = re.compile(r"^(?:topic|トピック|話題)\s*[:\uff1a]\s*(.*)$", re.IGNORECASE)
SOURCE_RE = re.compile(r"^(?:sources?|出典)\s*[:\uff1a]\s*(.*)$", re.IGNORECASE)
NOTE_RE = re.compile(r"^(?:note|注記|注)\s*[:\uff1a]\s*(.*)$", re.IGNORECASE)
FLAG_RE = re.compile(r"(?<!\\)[(\uff08][!\uff01][)\uff09]")
_ESCAPED_FLAG_RE = re.compile(r"\\([(\uff08][!\uff01][)\uff09])")
NAME_HASHES_RE = re.compile(r"^#{1,6}(?:\s+|$)")
CODE_RE = re.compile(r"^[^\W_]{1,2}$")
CJK_RE = re.compile("[" + _CJK + "]")
DEEPER = 2  # columns deeper than an item's first line that make a line a continuation


def is_keyword_line(text: str) -> bool:
    """A ``Format:``, ``Topic:``, ``Source:`` or ``Note:`` line (in either language)."""
    return any(pattern.match(text) for pattern in (FORMAT_RE, TOPIC_RE, SOURCE_RE, NOTE_RE))


def _bare_heading(stripped: str) -> re.Match | None:
    match = _BARE_HEADING_RE.match(stripped)
    if match and CJK_RE.search(match["title"]):
        return match
    return None


# A rule of a plain-text document: the underline of a heading (===, ---) or a separator (***).
_RULE_RE = re.compile(r"^(?:[=\-*_~\u2500\u2501\u2014]\s?){3,}$")


def classify(stripped: str) -> tuple[str, re.Match | None]:
    """blank | key (answer key heading) | heading (block) | number | plain. A rule line (===,
    ---, ***) reads as a blank line: it underlines or separates, it is no text."""
    if not stripped or _RULE_RE.match(stripped):
        return "blank", None
    if stripped.startswith("\\"):
        return "plain", None
    if match := _KEY_HEADING_RE.match(stripped):
        return "key", match
    if match := (
        _HEADING_RE.match(stripped)
        or _ORDINAL_HEADING_RE.match(stripped)
        or _bare_heading(stripped)
    ):
        return "heading", match
    if match := _NUMBER_RE.match(stripped):
        return "number", match
    return "plain", None


def normal_code(code: str) -> str:
    """Full-width letters and digits of a block code read as their ASCII forms."""
    return unicodedata.normalize("NFKC", code)


def language_of(match: re.Match) -> str:
    """The language of a heading line: "ja" for ブロック, 解答鍵 and bare "A. ..." headings."""
    word = match.groupdict().get("word")
    if word is None or CJK_RE.search(word) or match.groupdict().get("ordinal"):
        return "ja"
    return "en"


def unescape_flag(text: str) -> str:
    """A flag written with a backslash before it is literal text."""
    return _ESCAPED_FLAG_RE.sub(r"\1", text)


def indent_of(raw: str) -> int:
    expanded = raw.expandtabs(4)
    return len(expanded) - len(expanded.lstrip())


def unescape(stripped: str) -> str:
    """A single leading backslash makes a line literal text; it is removed."""
    return stripped[1:].strip() if stripped.startswith("\\") else stripped


def trim(lines: list[str]) -> list[str]:
    lines = [line.strip() for line in lines]
    start, end = 0, len(lines)
    while start < end and not lines[start]:
        start += 1
    while end > start and not lines[end - 1]:
        end -= 1
    return lines[start:end]


def tidy(lines: list[str]) -> str:
    return "\n".join(trim(lines))


def text_lines(text: str) -> list[str]:
    """A stored multi-line text as the lines the text format writes."""
    return trim(text.replace("\r\n", "\n").replace("\r", "\n").split("\n"))


def one_line(text: str) -> str:
    return " ".join(text_lines(text))


def split_sources(text: str) -> list[str]:
    """Split on a semicolon with a space before or after it (not on 'a;b').

    Done by hand: the obvious regex (\\s+;\\s*|;\\s+) is quadratic on a long run of spaces."""
    pieces = text.split(";")
    parts = [pieces[0]]
    for piece in pieces[1:]:
        if parts[-1][-1:].isspace() or piece[:1].isspace():
            parts.append(piece)
        else:
            parts[-1] += ";" + piece
    return [part.strip() for part in parts if part.strip()]


def ranges(numbers) -> str:
    """Item numbers as a list of their runs in the reader's language: "1–3, 5" in English,
    「1〜3、5」 in Japanese."""
    return number_ranges(numbers)
