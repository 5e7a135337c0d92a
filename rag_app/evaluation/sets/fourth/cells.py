"""Cells of the fourth set's tables, and the values worked out from them.

As in the third set (``third.cells``), an arithmetic question names its cells as ``[table key, row,
column]`` and never their values. Two things are new here. A row may be named under its parent as
``"旅客运输量（千人次）>国际"``, since the airline's table repeats 国内 / 国际 / 地区 under every
metric. A column may be covered by one merged cell (the quarterly report's 本报告期末 spans two
columns): the lookup takes it when every matching column holds the same text. ``worked_out`` adds a
compound annual growth rate (``cagr``) to the third set's operations.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal

from rag_app.evaluation.sets.docgen import Doc
from rag_app.evaluation.sets.third import cells as third
from rag_app.evaluation.sets.third.numbers import fmt, num

PERCENT = (*third.PERCENT, "cagr")
_BLANK = " 　"


def _label(line: list[str]) -> str:
    return line[0].strip(_BLANK) if line else ""


def _row(rows: list[list[str]], key: str, row: str) -> int:
    parent, _, child = row.rpartition(">")
    if parent:
        top = _row(rows, key, parent)
        below = [r for r in range(top + 1, len(rows)) if _label(rows[r]) == child]
        if not below:
            raise KeyError(f"{key}: no row {child!r} under {parent!r}")
        return below[0]
    at = [r for r, line in enumerate(rows) if _label(line) == row]
    at = at or [r for r, line in enumerate(rows) if row in (c.strip(_BLANK) for c in line)]
    if len(at) != 1:
        raise KeyError(f"{key}: {len(at)} rows labelled {row!r}")
    return at[0]


def cell(d: Doc, key: str, row: str, column: str) -> str:
    """The text of the cell of table ``key`` in ``d`` at ``row`` and ``column`` ("/"-separated
    header texts above the row, or one header text holding a "/"); ``KeyError`` unless one row and
    one cell text match."""
    rows = third.grid(d.items[d.index(key)]["table_body"])
    r = _row(rows, key, row)
    whole = any(c.strip(_BLANK) == column for line in rows[:r] for c in line)
    parts = [column] if whole else column.split("/")  # a header may hold a "/" (万元/吨)
    found = {
        rows[r][j]
        for j in range(1, len(rows[r]))
        if all(
            any(j < len(rows[h]) and rows[h][j].strip(_BLANK) == p for h in range(r)) for p in parts
        )
    }
    if len(found) != 1:
        raise KeyError(f"{key}: {len(found)} cells headed {column!r} in row {row!r}")
    return found.pop()


def worked_out(operation: str, cells: Sequence[str], threshold: str = "", years: int = 0):
    """(answer, derivation) as ``third.cells.worked_out``; a ``cagr`` takes the first cell as the
    start and the last as the end, ``years`` apart, and is given in percent (two decimals, half up,
    trailing zeros dropped, as every answer of the set)."""
    if operation != "cagr":
        return third.worked_out(operation, cells, threshold)
    start, end = num(cells[0]), num(cells[-1])
    rate = ((end / start) ** (Decimal(1) / Decimal(years)) - 1) * 100
    text = fmt(rate, 2, sep=False)
    text = text.rstrip("0").rstrip(".") if "." in text else text
    return text, f"({cells[-1]}/{cells[0]})^(1/{years})-1"


def counted_labels(refs: Sequence[Sequence[str]], cells: Sequence[str], threshold: str) -> str:
    """A count's derivation: the labels of the cells counted, joined by ``##`` (their columns when
    they share a row, else their rows), as in the third set."""
    same_row = len({ref[1] for ref in refs}) == 1
    hits = third.counted(cells, threshold)
    return "##".join(ref[2] if same_row else ref[1] for ref, hit in zip(refs, hits) if hit)
