"""The JSON form: the app's own lossless bank file."""

from __future__ import annotations

import json
import re
from bisect import bisect_left
from json.decoder import scanstring

from django.utils.translation import gettext as _

from ..wording import word_list
from .data import (
    ANSWER_KINDS,
    MAX_FORMAT_CHARS,
    MAX_REF_CHARS,
    MAX_TITLE_CHARS,
    MAX_TOPIC_CHARS,
    SCHEMA,
    SCHEMA_VERSION,
    BankData,
    BankFormatError,
    BlockData,
    FormatProblem,
    ItemData,
    KeyData,
    checked_date,
    fail,
)
from .decode import prepare
from .lexicon import CODE_RE

LANGUAGES = ("en", "ja")  # the languages of the headings of the text form

_JSON_WS = re.compile(r"[ \t\n\r]*")
_LOCATE_DEPTH = (
    7  # containers shallower than this are walked: down to blocks[i].items[j].key.sources[k]
)

JSON_REASONS = {
    "Expecting value": lambda: _("a value was expected"),
    "Expecting ',' delimiter": lambda: _("a comma is missing"),
    "Expecting ':' delimiter": lambda: _("a colon is missing"),
    "Expecting property name enclosed in double quotes": lambda: _(
        "a field name in double quotes was expected (is there a comma too many?)"
    ),
    "Unterminated string starting at": lambda: _("a string is not closed"),
    "Invalid control character at": lambda: _(
        "a string contains a raw line break or control character"
    ),
    "Invalid \\escape": lambda: _("a string contains an invalid backslash escape"),
    "Invalid \\uXXXX escape": lambda: _("a string contains an invalid \\u escape"),
    "Extra data": lambda: _("there is more text after the end of the JSON data"),
}


class JsonNestingError(ValueError):
    """JSON nested deeper than the decoder's recursion allows: refused with a message, never a
    RecursionError escaping to the page (a bank file is at most seven levels deep)."""

    def __str__(self) -> str:
        return _("it is nested far too deeply")


def loads(text: str):
    """json.loads, with nesting too deep for the decoder turned into a JsonNestingError (a
    ValueError, which every caller already refuses with a message)."""
    try:
        return json.loads(text)
    except RecursionError:
        raise JsonNestingError() from None


def _path_text(path: tuple) -> str:
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + part
    return out


class _Locator:
    """Line numbers of the values of an already valid JSON text, by path; duplicate field names."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.newlines = [m.start() for m in re.finditer("\n", text)]
        self.lines: dict[tuple, int] = {}
        self.duplicates: list[tuple[tuple, str, int, int]] = []
        self.decoder = json.JSONDecoder()

    def line(self, pos: int) -> int:
        return bisect_left(self.newlines, pos) + 1

    def skip(self, pos: int) -> int:
        return _JSON_WS.match(self.text, pos).end()

    def value(self, pos: int, path: tuple) -> int:
        text = self.text
        pos = self.skip(pos)
        self.lines[path] = self.line(pos)
        char = text[pos]
        if char == "{" and len(path) < _LOCATE_DEPTH:
            pos = self.skip(pos + 1)
            if text[pos] == "}":
                return pos + 1
            seen: dict[str, int] = {}
            while True:
                pos = self.skip(pos)
                key_line = self.line(pos)
                key, pos = scanstring(text, pos + 1)
                if key in seen:
                    self.duplicates.append((path, key, seen[key], key_line))
                else:
                    seen[key] = key_line
                pos = self.skip(pos) + 1  # the colon
                pos = self.skip(self.value(pos, path + (key,)))
                if text[pos] == ",":
                    pos += 1
                    continue
                return pos + 1
        if char == "[" and len(path) < _LOCATE_DEPTH:
            pos = self.skip(pos + 1)
            if text[pos] == "]":
                return pos + 1
            index = 0
            while True:
                pos = self.skip(self.value(pos, path + (index,)))
                index += 1
                if text[pos] == ",":
                    pos += 1
                    continue
                return pos + 1
        return self.decoder.raw_decode(text, pos)[1]


class _JsonChecker:
    def __init__(self, lines: dict[tuple, int]) -> None:
        self.lines = lines
        self.problems: list[FormatProblem] = []

    def line(self, path: tuple) -> int | None:
        while path not in self.lines and path:
            path = path[:-1]
        return self.lines.get(path)

    def problem(self, path: tuple, message: str, line: int | None = None) -> None:
        if path:
            message = _("%(path)s: %(problem)s") % {"path": _path_text(path), "problem": message}
        self.problems.append(FormatProblem(line or self.line(path), message))

    def fields(self, obj: dict, path: tuple, required: tuple, optional: tuple) -> None:
        for name in required:
            if name not in obj:
                self.problem(
                    path, _("the required field '%(field)s' is missing.") % {"field": name}
                )
        allowed = required + optional
        for name in obj:
            if name not in allowed:
                self.problem(
                    path,
                    _("unknown field '%(field)s' (the fields are %(allowed)s).")
                    % {"field": name, "allowed": word_list(allowed)},
                )

    def string(
        self,
        obj: dict,
        name: str,
        path: tuple,
        *,
        non_empty=False,
        one_line=False,
        limit: int | None = None,
    ) -> str:
        if name not in obj:
            return ""  # a missing required field is reported by fields()
        return self.text(
            obj[name], path + (name,), non_empty=non_empty, one_line=one_line, limit=limit
        )

    def text(
        self, value, where: tuple, *, non_empty=False, one_line=False, limit: int | None = None
    ) -> str:
        if not isinstance(value, str) or (non_empty and not value.strip()):
            if non_empty:
                self.problem(where, _("must be a non-empty string."))
            else:
                self.problem(where, _("must be a string."))
            return ""
        if "\x00" in value or any("\ud800" <= char <= "\udfff" for char in value):
            self.problem(
                where, _("contains a character that cannot be stored (NUL or a lone surrogate).")
            )
        if one_line and ("\n" in value or "\r" in value):
            self.problem(where, _("must be one line of text (no line breaks)."))
        if limit is not None and len(value) > limit:
            self.problem(
                where,
                _("is %(length)s characters long; the limit is %(limit)s.")
                % {"length": len(value), "limit": limit},
            )
        return value

    def language(self, data: dict) -> str:
        value = data.get("language", "en")
        if value not in LANGUAGES:
            self.problem(
                ("language",),
                _("must be one of %(choices)s (the language of the headings of a text export).")
                % {"choices": word_list(f'"{code}"' for code in LANGUAGES)},
            )
            return "en"
        return value

    def kind(self, obj: dict, path: tuple) -> str:
        value = self.string(obj, "answer_kind", path)
        if value and value not in ANSWER_KINDS:
            self.problem(
                path + ("answer_kind",),
                _("must be one of %(kinds)s, or empty.") % {"kinds": word_list(ANSWER_KINDS)},
            )
            return ""
        return value

    def date(self, obj: dict, name: str, path: tuple) -> str:
        value = obj.get(name)
        if value is None:
            return ""
        checked = checked_date(value) if isinstance(value, str) else None
        if checked is None:
            self.problem(path + (name,), _("must be a date written YYYY-MM-DD, or null."))
            return ""
        return checked

    def version(self, obj: dict, path: tuple) -> int:
        value = obj.get("version", 1)
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            self.problem(path + ("version",), _("must be a whole number from 1 up."))
            return 1
        return value

    def boolean(self, obj: dict, name: str, path: tuple) -> bool:
        value = obj.get(name, False)
        if not isinstance(value, bool):
            self.problem(path + (name,), _("must be true or false."))
            return False
        return value

    def bank(self, data) -> BankData:
        if not isinstance(data, dict):
            raise fail(
                self.line(()),
                _(
                    'the file is JSON but not a bank: a bank file is a JSON object ({ ... }) with "schema": "%(schema)s".'
                )
                % {"schema": SCHEMA},
            )
        if "schema" not in data:
            raise fail(
                self.line(()),
                _(
                    'the file is JSON but not a bank file: it has no "schema" field (a bank file has "schema": "%(schema)s").'
                )
                % {"schema": SCHEMA},
            )
        if data["schema"] != SCHEMA:
            raise fail(
                self.line(("schema",)),
                _('the file is not a bank file: its schema is %(found)s, not "%(schema)s".')
                % {"found": json.dumps(data["schema"], ensure_ascii=False)[:80], "schema": SCHEMA},
            )
        version = data.get("version")
        if isinstance(version, int) and not isinstance(version, bool) and version > SCHEMA_VERSION:
            raise fail(
                self.line(("version",)),
                _(
                    "the file uses bank format version %(version)s, which is newer than this app understands (version %(supported)s); update the app, or export the bank in version %(supported)s."
                )
                % {"version": version, "supported": SCHEMA_VERSION},
            )
        self.fields(data, (), ("schema", "version", "blocks"), ("name", "description", "language"))
        if "version" in data and (
            not isinstance(version, int) or isinstance(version, bool) or version < 1
        ):
            self.problem(
                ("version",),
                _("must be a whole number from 1 to %(supported)s.")
                % {"supported": SCHEMA_VERSION},
            )
        bank = BankData(
            name=self.string(data, "name", (), one_line=True),
            language=self.language(data),
            description=self.string(data, "description", ()),
        )
        blocks = data.get("blocks", [])
        if not isinstance(blocks, list):
            self.problem(("blocks",), _("must be a list of blocks."))
            blocks = []
        elif "blocks" in data and not blocks:
            self.problem(
                ("blocks",),
                _("the bank has no blocks: add at least one block with its code, title and items."),
            )
        codes: dict[str, int] = {}
        for index, block in enumerate(blocks):
            path = ("blocks", index)
            if not isinstance(block, dict):
                self.problem(path, _("must be an object (a block)."))
                continue
            bank.blocks.append(self.block(block, path, codes))
        return bank

    def block(self, obj: dict, path: tuple, codes: dict[str, int]) -> BlockData:
        self.fields(obj, path, ("code", "title", "items"), ("description",))
        code = obj.get("code", "")
        if not isinstance(code, str) or not CODE_RE.match(code):
            self.problem(
                path + ("code",),
                _('must be one or two letters or digits, such as "A" (found %(found)s).')
                % {"found": json.dumps(code, ensure_ascii=False)[:80]},
            )
            code = code if isinstance(code, str) else ""
        elif code.casefold() in codes:
            first = codes[code.casefold()]
            self.problem(
                path + ("code",),
                _("block %(block)s appears twice (first as blocks[%(index)s]).")
                % {"block": code, "index": first},
            )
        else:
            codes[code.casefold()] = path[-1]
        block = BlockData(
            code=code,
            title=self.string(obj, "title", path, one_line=True, limit=MAX_TITLE_CHARS),
            description=self.string(obj, "description", path),
            line=self.line(path),
        )
        items = obj.get("items", [])
        if not isinstance(items, list):
            self.problem(path + ("items",), _("must be a list of items."))
            items = []
        for index, item in enumerate(items):
            item_path = path + ("items", index)
            if not isinstance(item, dict):
                self.problem(item_path, _("must be an object (an item)."))
                continue
            block.items.append(self.item(item, item_path))
        return block

    def item(self, obj: dict, path: tuple) -> ItemData:
        fields = (
            "id",
            "topic",
            "answer_format",
            "answer_kind",
            "retired",
            "retired_reason",
            "version",
            "key",
        )
        self.fields(obj, path, ("question",), fields)
        item = ItemData(
            ref=self.string(obj, "id", path, one_line=True, limit=MAX_REF_CHARS),
            topic=self.string(obj, "topic", path, one_line=True, limit=MAX_TOPIC_CHARS),
            question=self.string(obj, "question", path, non_empty=True),
            answer_format=self.string(obj, "answer_format", path, limit=MAX_FORMAT_CHARS),
            retired=self.boolean(obj, "retired", path),
            retired_reason=self.string(obj, "retired_reason", path),
            version=self.version(obj, path),
            answer_kind=self.kind(obj, path),
            line=self.line(path),
        )
        key = obj.get("key")
        if key is None:
            return item
        key_path = path + ("key",)
        if not isinstance(key, dict):
            self.problem(key_path, _("must be an object (a key entry) or null."))
            return item
        self.fields(
            key, key_path, ("answer",), ("flagged", "flag_note", "sources", "sources_checked")
        )
        item.key = KeyData(
            answer=self.string(key, "answer", key_path, non_empty=True),
            flagged=self.boolean(key, "flagged", key_path),
            flag_note=self.string(key, "flag_note", key_path),
            sources_checked=self.date(key, "sources_checked", key_path),
        )
        sources = key.get("sources", [])
        if not isinstance(sources, list):
            self.problem(key_path + ("sources",), _("must be a list of strings."))
            return item
        for index, source in enumerate(sources):
            where = key_path + ("sources", index)
            item.key.sources.append(self.text(source, where, non_empty=True, one_line=True))
        return item


def parse_json(text: str) -> BankData:
    """Read the JSON form: validates types and required fields, naming the JSON path and line."""
    text = prepare(text)
    try:
        data = loads(text)
    except json.JSONDecodeError as error:
        explain = JSON_REASONS.get(error.msg)
        raise fail(
            error.lineno,
            _("the file is not valid JSON: %(reason)s (column %(column)s).")
            % {"reason": explain() if explain else error.msg, "column": error.colno},
        ) from None
    except JsonNestingError:
        raise fail(None, _("The file is not a bank: its JSON is nested far too deeply.")) from None
    except ValueError as error:  # e.g. an integer with thousands of digits
        raise fail(None, _("The file is not valid JSON: %(reason)s.") % {"reason": error}) from None
    locator = _Locator(text)
    locator.value(0, ())
    checker = _JsonChecker(locator.lines)
    bank = checker.bank(data)
    for path, name, first, second in locator.duplicates:
        checker.problem(
            path,
            _("the field '%(field)s' appears twice (first on line %(first)s); remove one.")
            % {"field": name, "first": first},
            line=second,
        )
    if checker.problems:
        raise BankFormatError(checker.problems)
    return bank


def _key_json(key: KeyData | None):
    if key is None:
        return None
    return {
        "answer": key.answer,
        "flagged": key.flagged,
        "flag_note": key.flag_note,
        "sources": list(key.sources),
        "sources_checked": key.sources_checked or None,
    }


def dump_json(bank: BankData) -> str:
    """The lossless form: every field, in list order; parse_json() reads it back equal."""
    data = {
        "schema": SCHEMA,
        "version": SCHEMA_VERSION,
        "name": bank.name,
        "description": bank.description,
        "language": bank.language,
        "blocks": [
            {
                "code": block.code,
                "title": block.title,
                "description": block.description,
                "items": [
                    {
                        "id": item.ref,
                        "topic": item.topic,
                        "question": item.question,
                        "answer_format": item.answer_format,
                        "answer_kind": item.answer_kind,
                        "retired": item.retired,
                        "retired_reason": item.retired_reason,
                        "version": item.version,
                        "key": _key_json(item.key),
                    }
                    for item in block.items
                ],
            }
            for block in bank.blocks
        ],
    }
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"
