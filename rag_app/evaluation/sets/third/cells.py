"""Cells of the third set's tables, named by row and column, and the values worked out from them.

An arithmetic question names its cells as ``[table key, row label, column]``, never their values:
``cell`` reads the table's HTML back into a grid (a merged cell fills every place it covers), finds
the one row holding the label and the one column whose headers above that row hold every part of
the column (``"2024年12月31日/金额"`` under a merged header). ``worked_out`` then computes the answer
and writes the derivation with the cells as printed, so no gold value is typed by hand.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from decimal import ROUND_HALF_UP, Decimal

from rag_app.evaluation.sets.docgen import Doc
from rag_app.evaluation.sets.third.numbers import num

_ROW = re.compile(r"<tr>(.*?)</tr>")
_CELL = re.compile(r'<td(?: rowspan="(\d+)")?(?: colspan="(\d+)")?>(.*?)</td>')
_BLANK = " 　"


def grid(table_body: str) -> list[list[str]]:
    """The table as rows of cell texts, merged cells repeated over the places they span."""
    covered: dict[tuple[int, int], str] = {}
    out: list[list[str]] = []
    for r, row in enumerate(_ROW.findall(table_body)):
        line: list[str] = []
        cells = iter(_CELL.findall(row))
        while True:
            if (r, len(line)) in covered:
                line.append(covered.pop((r, len(line))))
                continue
            nxt = next(cells, None)
            if nxt is None:
                break
            rs, cs, text = int(nxt[0] or 1), int(nxt[1] or 1), html.unescape(nxt[2])
            for _ in range(cs):
                for down in range(1, rs):
                    covered[(r + down, len(line))] = text
                line.append(text)
        out.append(line)
    return out


def _clean(text: str) -> str:
    return text.strip(_BLANK)


def cell(d: Doc, key: str, row: str, column: str) -> str:
    """The text of the cell of table ``key`` in ``d`` at ``row`` (a cell of that row, usually its
    label) and ``column`` ("/"-separated header texts above it); ``KeyError`` unless exactly one
    row and one column match."""
    rows = grid(d.items[d.index(key)]["table_body"])
    at = [r for r, line in enumerate(rows) if _clean(line[0]) == row]
    at = at or [r for r, line in enumerate(rows) if row in map(_clean, line)]
    if len(at) != 1:
        raise KeyError(f"{key}: {len(at)} rows labelled {row!r}")
    r = at[0]
    parts = column.split("/")
    width = len(rows[r])
    cols = [
        j
        for j in range(1, width)
        if all(any(j < len(rows[h]) and _clean(rows[h][j]) == p for h in range(r)) for p in parts)
    ]
    if len(cols) != 1:
        raise KeyError(f"{key}: {len(cols)} columns headed {column!r} above row {row!r}")
    return rows[r][cols[0]]


def _short(value: Decimal) -> str:
    """Two decimals, rounded half up, without trailing zeros ("30.20" -> "30.2", "7.00" -> "7")."""
    q = value.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
    text = f"{q:f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


PERCENT = ("change_ratio", "share")


def counted(cells: Sequence[str], threshold: str) -> list[bool]:
    """Which cells a count counts: those above ``threshold`` ("<1.3": those below 1.3)."""
    limit = num(threshold.lstrip("<>"))
    if threshold.startswith("<"):
        return [num(c) < limit for c in cells]
    return [num(c) > limit for c in cells]


def worked_out(operation: str, cells: Sequence[str], threshold: str = "") -> tuple[str, str]:
    """(answer, derivation) of ``operation`` over cell texts, in the second set's notation:
    ``a-b``, ``(a-b)/b``, ``(a+b+c)/3``, ``a+b``, ``a/b`` (a share in percent). A ``count``
    counts the cells above ``threshold`` (below it when it starts with "<")."""
    values = [num(c) for c in cells]
    if operation == "diff":
        return _short(values[0] - values[1]), f"{cells[0]}-{cells[1]}"
    if operation == "change_ratio":
        return (
            _short((values[0] - values[1]) / values[1] * 100),
            f"({cells[0]}-{cells[1]})/{cells[1]}",
        )
    if operation == "sum":
        return _short(sum(values, Decimal(0))), "+".join(cells)
    if operation == "average":
        return _short(sum(values, Decimal(0)) / len(values)), f"({'+'.join(cells)})/{len(cells)}"
    if operation == "share":
        return _short(values[0] / values[1] * 100), f"{cells[0]}/{cells[1]}"
    if operation == "divide":
        return _short(values[0] / values[1]), f"{cells[0]}/{cells[1]}"
    if operation == "count":
        return str(sum(counted(cells, threshold))), ""
    raise ValueError(f"unknown operation {operation!r}")
