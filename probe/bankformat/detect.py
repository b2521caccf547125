"""Which format a bank file is in: by its name's extension, else by its first lines."""

from __future__ import annotations

from .tabular import looks_like_csv, looks_like_jsonl

_EXTENSIONS = ((".jsonl", "jsonl"), (".ndjson", "jsonl"), (".json", "json"), (".csv", "csv"))


def detect_format(text: str, filename: str = "") -> str:
    """ "json", "jsonl", "csv" or "text": by the file name's extension (.json, .jsonl or
    .ndjson, .csv), else by the text: a first line that is a JSON object with a "question"
    field is JSON Lines, other text starting with '{' or '[' is JSON, a first line that is a
    header of known columns with "question" among them is CSV; anything else is plain text."""
    name = filename.lower()
    for extension, kind in _EXTENSIONS:
        if name.endswith(extension):
            return kind
    if looks_like_jsonl(text):
        return "jsonl"
    head = text.lstrip("\ufeff \t\r\n")
    if head.startswith(("{", "[")):
        return "json"
    if looks_like_csv(text):
        return "csv"
    return "text"
