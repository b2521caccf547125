"""Writing CSV and JSON Lines: one row per item, in the benchmark's shape with the app's own columns.

``parse_csv`` and ``parse_jsonl`` (``tabular``) read every file written here back into the same
bank: its name, description and language, every block with its description, every item and key
entry. A CSV goes through the one CSV writer of every download (``probe.csvfile``): a BOM, CRLF
line ends and no cell a spreadsheet would evaluate.
"""

from __future__ import annotations

import json

from ..csvfile import csv_text
from .data import BankData
from .lexicon import split_sources
from .tabular import COLUMNS


def _records(bank: BankData):
    for block in bank.blocks:
        for item in block.items:
            key = item.key
            yield {
                "id": item.ref,
                "domain": block.title,
                "topic": item.topic,
                "question": item.question,
                "target": key.answer if key else "",
                "source_refs": list(key.sources) if key else [],
                "answer_format": item.answer_format,
                "block": block.code,
                "block_description": block.description,
                "answer_kind": item.answer_kind,
                "flagged": bool(key and key.flagged),
                "flag_note": key.flag_note if key else "",
                "sources_checked": key.sources_checked if key else "",
                "retired": item.retired,
                "retired_reason": item.retired_reason,
                "version": item.version,
                "bank_name": bank.name,
                "bank_description": bank.description,
                "bank_language": bank.language,
            }


def _csv_sources(sources: list[str]) -> str:
    joined = " ; ".join(sources)
    if split_sources(joined) == sources:
        return joined
    return json.dumps(sources, ensure_ascii=False)  # a source with " ; " in it: a JSON list


def dump_csv(bank: BankData) -> str:
    """A header, then one row per item, blocks in order; parse_csv() reads it back equal."""

    def rows():
        for record in _records(bank):
            record["source_refs"] = _csv_sources(record["source_refs"])
            yield record

    return csv_text(rows(), COLUMNS)


def dump_jsonl(bank: BankData) -> str:
    """One JSON object per item, every field; parse_jsonl() reads it back equal."""
    return "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in _records(bank))
