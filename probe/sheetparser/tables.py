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


def assemble_table(lines: list[Line]) -> Assembly:
    out = Assembly()
    idx = [i for i, ln in enumerate(lines) if ln.kind == TABLE]
    if not idx:
        return out
    cols: dict[str, int] | None = None
    first_row, last_row = idx[0], idx[-1]
    for pos, i in enumerate(idx):
        cells = _cells(lines[i].raw)
        if _is_separator_row(cells):
            continue
        folded = [normalise_answer(c) for c in cells]
        is_header = any("answer" in c or "回答" in c for c in folded) or (
            pos + 1 < len(idx)
            and idx[pos + 1] == i + 1
            and _is_separator_row(_cells(lines[i + 1].raw))
            and not _CELL_NUM_RE.match(cells[0].translate(FW_TABLE) if cells else "")
        )
        if is_header:
            cols = {}
            for k, c in enumerate(folded):
                if "answer" in c or "回答" in c:
                    cols.setdefault("answer", k)
                elif "confidence" in c or "確信" in c or "自信" in c:
                    cols.setdefault("confidence", k)
                elif c in ("#", "no", "n", "nr", "item", "q", "number", "id", "question #"):
                    cols.setdefault("number", k)
            continue
        num_col = (cols or {}).get("number", 0)
        if num_col >= len(cells):
            continue
        m = _CELL_NUM_RE.match(cells[num_col].translate(FW_TABLE))
        if not m:
            continue
        if cols and "answer" in cols:
            ans_col = cols["answer"]
            conf_col = cols.get("confidence")
        else:
            rest = [k for k in range(len(cells)) if k != num_col]
            if not rest:
                continue
            last = rest[-1]
            if len(rest) >= 2 and parse_confidence(cells[last])[0] is not None:
                conf_col, ans_col = last, rest[-2]
            else:
                conf_col, ans_col = None, rest[0]
        rec = Record(int(m.group(1)), [TABLE_FORMAT])
        rec.start_answer(cells[ans_col] if ans_col < len(cells) else "", [])
        if conf_col is not None and conf_col < len(cells):
            rec.conf_raw = cells[conf_col]
        out.recs.append(rec)
    if out.recs:
        for i, ln in enumerate(lines):
            if ln.kind in (BLANK, DECO, TABLE) or first_row <= i <= last_row:
                continue
            if i < first_row:
                out.text_before = True
            else:
                out.text_after = True
    return out
