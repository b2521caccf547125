"""Which line of a document's front matter is its title, the bank's name.

A probe copied from a web page starts with the site's navigation ("Skip to content", a menu, a
breadcrumb), then the article's title, a byline and the introduction. The title is, in order:
an HTML ``<title>`` line the paste carries, a YAML ``title:`` field, a Markdown heading of level
one (``# Title``), else the first heading-like line after the navigation and before the prose.
Never a navigation line: with none of these the bank has no name from the document.
"""

from __future__ import annotations

import html
import re

from .lexicon import CJK_RE

# Anywhere in a line: a paste of a page's source may carry "<head><title>...</title>".
TITLE_TAG_RE = re.compile(r"<title(?:\s[^>]*)?>(?P<title>[^<]*?\S[^<]*)</title>", re.IGNORECASE)
YAML_TITLE_RE = re.compile(r"^title\s*:\s*(?P<title>\S.*)$", re.IGNORECASE)
_H1_RE = re.compile(r"^#(?:\s+\S|\s*$)")  # "#" alone: the empty title of an export
MAX_NAME_CHARS = 200  # Bank.name

# Lines a site repeats on every page: skip links, menus, sign-in, sharing.
_NAVIGATION = {
    "skip to content",
    "skip to main content",
    "skip navigation",
    "jump to content",
    "menu",
    "main menu",
    "open menu",
    "close menu",
    "toggle navigation",
    "navigation",
    "home",
    "search",
    "sign in",
    "log in",
    "login",
    "sign up",
    "register",
    "subscribe",
    "share",
    "share this",
    "share this post",
    "listen",
    "follow",
    "write",
    "save",
    "open in app",
    "get the app",
    "back to top",
    "table of contents",
    "contents",
    "本文へスキップ",
    "本文へ移動",
    "メニュー",
    "ホーム",
    "検索",
    "ログイン",
    "目次",
}
_SEPARATOR_RE = re.compile(r"\s[·|/›»>•–]\s|\s·|·\s")
_BYLINE_RE = re.compile(
    r"^(?:by|posted|published|updated|last updated|written by|author)\b|\bmin(?:ute)?s? read\b"
    r"|^(?:投稿|公開|更新|著者|執筆)",
    re.IGNORECASE,
)
_SENTENCE_END = ".!?。！？"


def name_of(line: str) -> str:
    """The title as the bank's name: without its <title> tags, YAML field or # marks."""
    if match := TITLE_TAG_RE.search(line):
        line = html.unescape(match["title"]).strip()
    elif match := YAML_TITLE_RE.match(line):
        line = match["title"].strip().strip("\"'")
    return line


def _byline(text: str) -> bool:
    return bool(_BYLINE_RE.search(text))


def _navigation(text: str) -> bool:
    """A skip link, a menu entry, a breadcrumb (a byline is not navigation: it follows the
    title)."""
    folded = text.casefold().strip(" :>»›")
    if folded in _NAVIGATION or folded.startswith("skip to"):
        return True
    if _byline(text):
        return False
    return len(_SEPARATOR_RE.findall(text)) >= 2 or (
        bool(_SEPARATOR_RE.search(text)) and len(text.split()) <= 4
    )


def _author(texts: list[str], index: int) -> bool:
    """A short line right before a byline ("6 min read · 3 Nov 2026"): the author's name."""
    text = texts[index]
    words = text.split()
    name_like = (
        len(text) <= 12
        if CJK_RE.search(text)
        else len(words) <= 4 and all(word[:1].isupper() for word in words)
    )
    following = texts[index + 1] if index + 1 < len(texts) else ""
    # A byline that names its author itself ("By A. Writer") leaves the line before it alone.
    named = following.casefold().startswith(("by ", "written by", "著者", "執筆"))
    return name_like and text[-1] not in _SENTENCE_END and _byline(following) and not named


def _prose(text: str) -> bool:
    if len(text) > 150:
        return True
    long = len(text) >= 30 if CJK_RE.search(text) else len(text.split()) >= 6
    return text[-1] in _SENTENCE_END and long


def _one_word(text: str) -> bool:
    return not CJK_RE.search(text) and len(text.split()) < 2


def title_index(texts: list[str]) -> int | None:
    """The index of the title among the non-blank front matter lines, or None."""
    for pattern in (TITLE_TAG_RE, YAML_TITLE_RE, _H1_RE):
        for index, text in enumerate(texts):
            if (pattern.search if pattern is TITLE_TAG_RE else pattern.match)(text):
                return index
    if len(texts) == 1 and not _navigation(texts[0]) and not _byline(texts[0]):
        return 0
    before_prose: list[int] = []
    earlier: list[int] = []
    for index, text in enumerate(texts):
        if _prose(text):
            break
        if _navigation(text):
            # The site's name and menu come before its last navigation line, the title after.
            earlier, before_prose = earlier + before_prose, []
        elif not _byline(text):
            # An author's name above the reading time, once a title could have come before it.
            titled = any(not _one_word(texts[i]) for i in earlier + before_prose)
            if not (titled and _author(texts, index)):
                before_prose.append(index)
    before_prose = before_prose or earlier
    for index in before_prose:
        if not _one_word(texts[index]) and len(texts[index]) <= MAX_NAME_CHARS:
            return index
    return before_prose[0] if before_prose else None
