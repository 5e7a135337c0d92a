"""Which cells of a table a cited answer quotes: the values a sentence gives, and the rows it
gives them from.

A value alone does not say its row: a table repeats labels ("增长率（%）" under 营业收入 and again
under 归母净利润) and numbers (a capacity of 10.0 on three lines). A statement quoting one row
gives most of that row's cells, so each value it quotes is placed in the row, among those holding
it, that the statement quotes most of. Reading the table's HTML is ``rag_app.text.table_rows``
and ``rag_app.text.tables``; marking cells for display is the UI's job.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag_app.text.periods import YEAR

_QUOTED_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?%?")


def cell_value(text: str) -> str:
    """A cell's text as compared with quoted values: no percent sign, no thousands commas."""
    return text.strip().rstrip("%").replace(",", "")


def quoted_values(sentences: Sequence[str]) -> set[str]:
    """The cell values the sentences quote: their numbers (of two or more characters, not a bare
    year, which names a column rather than a value) and what they give as ``label: value`` (how
    the offline answerer and most models quote a row), each as ``cell_value`` reads a cell."""
    values = {cell_value(n) for s in sentences for n in _QUOTED_NUMBER.findall(s)}
    values = {n for n in values if len(n) >= 2 and not YEAR.fullmatch(n)}
    for sentence in sentences:
        for part in re.split(r"[;；]", sentence):
            if ":" in part or "：" in part:
                value = re.split(r"[:：]", part)[-1].strip()
                if value:
                    values.add(cell_value(value))
    return values


def quoted_cells(rows: Sequence[Sequence[str]], statements: Sequence[str]) -> set[tuple[int, int]]:
    """The (row, cell) positions of ``rows`` (each row's cell texts) that ``statements`` quote.

    Each statement is one claim: an answer line, whose clauses (``label: value; ...``) quote one
    row or a few. For each value it quotes, the cells holding it are kept in the rows, among
    those holding it, where the statement quotes the most cells; a tie keeps every tied row. So
    quoting 表1's 营业收入 and first 增长率 rows marks the first "增长率（%）" label, not the second,
    and a figure stated alone is marked wherever it stands.
    """
    out: set[tuple[int, int]] = set()
    cells = [[cell_value(text) for text in row] for row in rows]
    for statement in statements:
        values = quoted_values([statement])
        if not values:
            continue
        hits = [[c for c, value in enumerate(row) if value in values] for row in cells]
        for value in values:
            holders = [r for r, row in enumerate(cells) if value in row]
            if not holders:
                continue
            best = max(len(hits[r]) for r in holders)
            for r in holders:
                if len(hits[r]) == best:
                    out.update((r, c) for c in hits[r] if cells[r][c] == value)
    return out
