"""The parsed form of a bank file, and the error that lists every problem found in one."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.conf import settings
from django.utils.translation import gettext as _

# The stated size limit of a bank file: 16 MiB, so that every bank this app exports imports
# again (a 10,000-item bank is about 3 MB as JSON; the limit leaves room for about 50,000 items of
# the same size, or fewer with long questions and keys).
MAX_BYTES = 16 * 1024 * 1024
# The most items one bank may have (the setting BANK_MAX_ITEMS): a file with more is refused
# with its count, never cut. 50,000 items of the size the size limit assumes fit in 16 MB.
DEFAULT_MAX_ITEMS = 50_000
SCHEMA = "blindprobe.bank"
SCHEMA_VERSION = 1
MAX_TITLE_CHARS = 200  # Block.title is a CharField(max_length=200)
MAX_FORMAT_CHARS = 200  # Item.answer_format is a CharField(max_length=200)
MAX_TOPIC_CHARS = 200  # Item.topic
MAX_REF_CHARS = 100  # Item.ref
# The answer formats an item may be given as a choice (Item.answer_kind; keep in step).
ANSWER_KINDS = ("date", "name", "number", "identifier", "short_phrase", "free_text")


def answer_kind_of(text: str) -> str:
    """ "short phrase", "Short-Phrase", "short_phrase" -> "short_phrase"; "" if not a kind."""
    folded = "_".join(text.strip().lower().replace("-", " ").split())
    return folded if folded in ANSWER_KINDS else ""


def checked_date(text: str) -> str | None:
    """A YYYY-MM-DD date as written, "" for none, None when it is not a date."""
    import datetime

    text = (text or "").strip()
    if not text:
        return ""
    try:
        return datetime.date.fromisoformat(text).isoformat() if len(text) == 10 else None
    except ValueError:
        return None


@dataclass
class KeyData:
    """A key entry: the expected answer, the (!) flag with its note, and source references."""

    answer: str
    flagged: bool = False
    flag_note: str = ""
    sources: list[str] = field(default_factory=list)
    sources_checked: str = ""  # the day the sources were last checked, YYYY-MM-DD, or ""
    line: int | None = field(default=None, compare=False)


@dataclass
class ItemData:
    """One item. ``number`` (as written in a text file) and ``line`` are for messages only and
    take no part in equality."""

    question: str
    answer_format: str = ""
    retired: bool = False
    key: KeyData | None = None
    topic: str = ""  # a finer subject than the block's
    ref: str = ""  # the item's id in the file it came from (the "id" of a CSV or JSON Lines row)
    answer_kind: str = ""  # one of ANSWER_KINDS, or ""
    version: int = 1  # the item's version in the bank it was exported from (edits count up)
    retired_reason: str = ""  # why it was retired, when it is
    number: int | None = field(default=None, compare=False)
    line: int | None = field(default=None, compare=False)


@dataclass
class BlockData:
    code: str
    title: str
    description: str = ""
    items: list[ItemData] = field(default_factory=list)
    line: int | None = field(default=None, compare=False)


@dataclass
class BankData:
    name: str = ""
    description: str = ""
    blocks: list[BlockData] = field(default_factory=list)
    # The language of the headings of a plain-text file ("en": Block, Answer key; "ja": ブロック,
    # 解答鍵), so that a text export writes the headings the bank was written with.
    language: str = field(default="en", compare=False)

    @property
    def items(self) -> list[ItemData]:
        return [item for block in self.blocks for item in block.items]

    @property
    def item_count(self) -> int:
        """All items, retired ones included."""
        return sum(len(block.items) for block in self.blocks)

    @property
    def key_count(self) -> int:
        """Items with a key entry, retired ones included."""
        return sum(1 for item in self.items if item.key is not None)

    @property
    def retired_count(self) -> int:
        return sum(1 for item in self.items if item.retired)

    @property
    def missing_key_count(self) -> int:
        """Items in use (not retired) that have no key entry."""
        return sum(1 for item in self.items if not item.retired and item.key is None)

    @property
    def flagged_count(self) -> int:
        """Items in use (not retired) whose key entry carries the (!) flag."""
        return sum(
            1
            for item in self.items
            if not item.retired and item.key is not None and item.key.flagged
        )


@dataclass(frozen=True)
class FormatProblem:
    line: int | None
    message: str

    def __str__(self) -> str:
        if self.line is None:
            return self.message
        return _("Line %(line)s: %(message)s") % {"line": self.line, "message": self.message}


class BankFormatError(ValueError):
    """The file was refused; ``problems`` lists every problem found, in line order."""

    def __init__(self, problems):
        if isinstance(problems, FormatProblem):
            problems = [problems]
        problems = list(problems)
        if not problems:
            raise ValueError("BankFormatError needs at least one problem")
        # File-wide problems (no line) first, then by line; stable otherwise.
        self.problems: list[FormatProblem] = sorted(
            problems, key=lambda p: (p.line is not None, p.line or 0)
        )
        super().__init__(self.problems)

    def __str__(self) -> str:
        return "\n".join(str(problem) for problem in self.problems)


def fail(line: int | None, message: str) -> BankFormatError:
    return BankFormatError([FormatProblem(line, message)])


def max_items() -> int:
    """The item limit in force: the setting BANK_MAX_ITEMS, else DEFAULT_MAX_ITEMS."""
    return int(getattr(settings, "BANK_MAX_ITEMS", DEFAULT_MAX_ITEMS))


def item_limit_problem(count: int) -> FormatProblem | None:
    """The problem of a bank of ``count`` items over the limit (None within it)."""
    limit = max_items()
    if count <= limit:
        return None
    return FormatProblem(
        None,
        _(
            "The bank has %(count)s items; the limit is %(limit)s items per bank. Nothing was cut: split the file into several banks."
        )
        % {"count": f"{count:,}", "limit": f"{limit:,}"},
    )


def check_item_limit(bank: BankData) -> BankData:
    """The bank, or BankFormatError when it has more items than the limit."""
    problem = item_limit_problem(bank.item_count)
    if problem is not None:
        raise BankFormatError([problem])
    return bank
