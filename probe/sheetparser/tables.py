"""Table-shaped sheets: | 1 | 404 | HIGH |, with or without a header row."""

from __future__ import annotations

import re

from .assemble import Assembly, Record
from .codes import TABLE_FORMAT
from .confidence import parse_confidence
from .lines import BLANK, DECO, TABLE, Line
from .text import FW_TABLE, normalise_answer

# Tables: | 1 | 404 | HIGH |
_CELL_NUM_RE = re.compile(
    r"^[\s*_`~]*+(?:question|item|no\.?|q|\#)?[ \t]*+(\d{1,6})[.):]?[\s*_`~]*+$", re.I
)


def _cells(raw: str) -> list[str]:
    s = raw.strip().translate(FW_TABLE)
    orig = raw.strip()
    if s.startswith("|"):
        s, orig = s[1:], orig[1:]
    if s.endswith("|"):
        s, orig = s[:-1], orig[:-1]
    cells, pos = [], 0
    for part in s.split("|"):
        cells.append(orig[pos : pos + len(part)].strip())
        pos += len(part) + 1
    return cells


_SEPARATOR_CELL_RE = re.compile(r":?-+:?")


def _is_separator_row(cells: list[str]) -> bool:
    return bool(cells) and all(_SEPARATOR_CELL_RE.fullmatch(c.strip()) for c in cells)


def _is_header_row(lines: list[Line], idx: list[int], pos: int, cells, folded) -> bool:
    """A row naming the answer column, or a row of words right above a separator row."""
    i = idx[pos]
    return any("answer" in c or "回答" in c for c in folded) or (
        pos + 1 < len(idx)
        and idx[pos + 1] == i + 1
        and _is_separator_row(_cells(lines[i + 1].raw))
        and not _CELL_NUM_RE.match(cells[0].translate(FW_TABLE) if cells else "")
    )


def _header_columns(folded: list[str]) -> dict[str, int]:
    cols: dict[str, int] = {}
    for k, c in enumerate(folded):
        if "answer" in c or "回答" in c:
            cols.setdefault("answer", k)
        elif "confidence" in c or "確信" in c or "自信" in c:
            cols.setdefault("confidence", k)
        elif c in ("#", "no", "n", "nr", "item", "q", "number", "id", "question #"):
            cols.setdefault("number", k)
    return cols


def _row_columns(cells: list[str], num_col: int, cols) -> tuple[int, int | None] | None:
    """(answer column, confidence column or None) of a row, None if it has no answer cell."""
    if cols and "answer" in cols:
        return cols["answer"], cols.get("confidence")
    rest = [k for k in range(len(cells)) if k != num_col]
    if not rest:
        return None
    last = rest[-1]
    if len(rest) >= 2 and parse_confidence(cells[last])[0] is not None:
        return rest[-2], last
    return rest[0], None


def _row_record(cells: list[str], cols) -> Record | None:
    num_col = (cols or {}).get("number", 0)
    if num_col >= len(cells):
        return None
    m = _CELL_NUM_RE.match(cells[num_col].translate(FW_TABLE))
    if not m:
        return None
    columns = _row_columns(cells, num_col, cols)
    if columns is None:
        return None
    ans_col, conf_col = columns
    rec = Record(int(m.group(1)), [TABLE_FORMAT])
    rec.start_answer(cells[ans_col] if ans_col < len(cells) else "", [])
    if conf_col is not None and conf_col < len(cells):
        rec.conf_raw = cells[conf_col]
    return rec


def _mark_text_around(out: Assembly, lines: list[Line], first_row: int, last_row: int) -> None:
    for i, ln in enumerate(lines):
        if ln.kind in (BLANK, DECO, TABLE) or first_row <= i <= last_row:
            continue
        if i < first_row:
            out.text_before = True
        else:
            out.text_after = True


def assemble_table(lines: list[Line]) -> Assembly:
    """The records of a sheet written as a table, one row an item."""
    out = Assembly()
    idx = [i for i, ln in enumerate(lines) if ln.kind == TABLE]
    if not idx:
        return out
    cols: dict[str, int] | None = None
    for pos, i in enumerate(idx):
        cells = _cells(lines[i].raw)
        if _is_separator_row(cells):
            continue
        folded = [normalise_answer(c) for c in cells]
        if _is_header_row(lines, idx, pos, cells, folded):
            cols = _header_columns(folded)
            continue
        rec = _row_record(cells, cols)
        if rec is not None:
            out.recs.append(rec)
    if out.recs:
        _mark_text_around(out, lines, idx[0], idx[-1])
    return out
