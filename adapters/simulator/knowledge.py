"""What a simulated model may know, and the numbered items of the prompt it is asked."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from adapters.simulator.wording import folded


def normalize(text: str) -> str:
    """Case and whitespace folded, for matching a prompt's item to a knowledge question."""
    return " ".join(text.casefold().split())


@dataclass(frozen=True)
class KnowledgeItem:
    question: str
    answer: str
    key: str  # the normalised question


class Knowledge:
    """The items and answers the simulator may know, from `{"items": [{question, answer}]}`."""

    def __init__(self, items: list[KnowledgeItem]) -> None:
        self.items = items
        self._by_key = {item.key: item for item in items}

    @cached_property
    def folded_answers(self) -> frozenset[str]:
        """Every answer folded as answers are compared (``wording.folded``): what no simulated
        answer may be."""
        return frozenset(folded(item.answer) for item in self.items)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Knowledge:
        if not isinstance(data, Mapping) or not isinstance(data.get("items"), list):
            raise ValueError(
                'a knowledge file must be {"items": [{"question": ..., "answer": ...}]}'
            )
        items = []
        for number, entry in enumerate(data["items"], start=1):
            if not isinstance(entry, Mapping):
                raise ValueError(f"knowledge item {number} must be an object")
            question, answer = entry.get("question"), entry.get("answer")
            if not isinstance(question, str) or not question.strip():
                raise ValueError(f"knowledge item {number} has no question")
            if not isinstance(answer, str | int | float) or not str(answer).strip():
                raise ValueError(f"knowledge item {number} has no answer")
            items.append(KnowledgeItem(question.strip(), str(answer).strip(), normalize(question)))
        return cls(items)

    def lookup(self, text: str) -> KnowledgeItem | None:
        """The item whose question `text` is, after folding case and whitespace."""
        key = normalize(text)
        if key in self._by_key:
            return self._by_key[key]
        first_line = normalize(text.strip().split("\n", 1)[0]) if text.strip() else ""
        if first_line in self._by_key:
            return self._by_key[first_line]
        # A question followed by a note or a flag on the same item: the longest contained question.
        contained = [item for item in self.items if len(item.key) >= 12 and item.key in key]
        return max(contained, key=lambda item: len(item.key)) if contained else None

    def found_in(self, prompt: str) -> list[KnowledgeItem]:
        """Knowledge questions that appear in `prompt`, in order (for prompts without numbers)."""
        text = normalize(prompt)
        hits = [(text.find(item.key), item) for item in self.items if item.key and item.key in text]
        return [item for _, item in sorted(hits, key=lambda hit: hit[0])]


@dataclass
class PromptItem:
    number: int
    text: str
    known: KnowledgeItem | None = None


_NUMBERED_LINE = re.compile(r"^\s*(?:\*\*)?(\d{1,4})\s*[.)](?:\*\*)?\s+(\S.*?)\s*$")
_BLOCK_HEADING = re.compile(r"^\s*(?:#+\s*)?(?:\*\*)?(?:block\s+\w+\b|ブロック\S+)", re.IGNORECASE)
_FORMAT_EXAMPLE = re.compile(r"^(?:\*\*)?(answer|confidence)\s*:", re.IGNORECASE)


def parse_prompt_items(prompt: str, knowledge: Knowledge) -> list[PromptItem]:
    """The numbered items of a probe prompt (instruction text, then `1. question` ... `N. question`).

    Block headings between items are skipped; a line right under an item continues its question.
    When the instruction itself has a numbered list, the items are the last run of increasing
    numbers. A prompt with one unnumbered question (per-item mode) is matched to the knowledge.
    """
    entries: list[PromptItem] = []
    current: PromptItem | None = None
    for line in prompt.splitlines():
        match = _NUMBERED_LINE.match(line)
        if match and not _FORMAT_EXAMPLE.match(match.group(2)):
            current = PromptItem(int(match.group(1)), match.group(2))
            entries.append(current)
        elif not line.strip() or _BLOCK_HEADING.match(line):
            current = None
        elif current is not None:
            current.text += "\n" + line.strip()
    for entry in entries:
        entry.known = knowledge.lookup(entry.text)

    runs: list[list[PromptItem]] = []
    for entry in entries:
        previous = runs[-1][-1] if runs else None
        jumps_into_items = (
            previous is not None
            and entry.number != previous.number + 1
            and entry.known is not None
            and previous.known is None
        )
        if previous is not None and entry.number > previous.number and not jumps_into_items:
            runs[-1].append(entry)
        else:
            runs.append([entry])
    if runs:
        return runs[-1]
    return [
        PromptItem(n, item.question, item) for n, item in enumerate(knowledge.found_in(prompt), 1)
    ]


# --- answering --------------------------------------------------------------------------------
