"""What the parser returns: one ParsedAnswer per item, gathered in a ParsedSheet."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field

from .codes import MINOR_ISSUES


def is_compliant(issues: Iterable[str]) -> bool:
    """Whether an answer with these issue codes follows the format: no issue but minor ones."""
    return all(code in MINOR_ISSUES for code in issues)


@dataclass
class ParsedAnswer:
    """One item's parsed answer. ``answer`` is None only when the item is missing."""

    number: int
    answer: str | None = None
    confidence: str | None = None
    abstained: bool = False
    issues: list[str] = field(default_factory=list)
    hedged: bool = False

    @property
    def missing(self) -> bool:
        return self.answer is None

    @property
    def compliant(self) -> bool:
        return is_compliant(self.issues)

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class ParsedSheet:
    """A whole sheet: exactly one ParsedAnswer per item, index i is item i + 1."""

    answers: list[ParsedAnswer]
    sheet_issues: list[str] = field(default_factory=list)

    @property
    def compliance(self) -> float:
        """Fraction of the items whose ``issues`` list is empty (1.0 for a sheet of no items).

        Item issues only: sheet issues (a preamble, a summary after the block, items out of order)
        do not lower it, because they do not make any one answer harder to read. A missing,
        hedged or abstained-by-synonym item counts as not compliant; an exact ``UNKNOWN`` is
        compliant, and so is an item whose only issues are minor ones (codes.MINOR_ISSUES).
        """
        if not self.answers:
            return 1.0
        return sum(1 for a in self.answers if a.compliant) / len(self.answers)

    @property
    def issue_counts(self) -> dict[str, int]:
        """Code -> count: for item codes, the number of items carrying it; each sheet issue
        counts once."""
        counts: Counter[str] = Counter()
        for a in self.answers:
            counts.update(a.issues)
        counts.update(self.sheet_issues)
        return dict(counts)

    def to_dict(self) -> dict:
        return {
            "answers": [a.to_dict() for a in self.answers],
            "sheet_issues": list(self.sheet_issues),
            "compliance": self.compliance,
        }
