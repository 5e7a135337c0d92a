"""Which cells of a table a cited answer quotes: the values a sentence gives, and the rows it
gives them from.

A value alone does not say its row: a table repeats labels ("增长率（%）" under 营业收入 and again
under 归母净利润) and numbers (a capacity of 10.0 on three lines). A statement quoting one row
gives most of that row's cells, so each value it quotes is placed in the row, among those holding
it, that the statement quotes most of. A cell spanning rows belongs to each row it spans (表6's
"12英寸" is in the row of 中芯京城 as much as in the first 12-inch row), so rows are read from the
grid, spans expanded, and a quoted position named by its cell (``quoted_cell_ids``). Reading the
table's HTML is ``rag_app.text.tables``; marking cells for display is the UI's job.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag_app.text.periods import YEAR
from rag_app.text.tables import Grid

_QUOTED_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?%?")


def cell_value(text: str) -> str:
    """A cell's text as compared with quoted values: no percent sign, no thousands commas."""
    return text.strip().rstrip("%").replace(",", "")


# What a number written as a value may carry right after it: a percent sign, or a Chinese amount
# word (10.0万片, 57,796百万元, 3.5倍). A number glued to another word is part of a name or a
# measure ("12英寸", "28nm", "B2A"), not a value of its own: "12英寸" quoted is no 序号 "12".
_AMOUNT_WORDS = "%％万亿千百元倍"


def _numbers(sentence: str) -> list[str]:
    out = []
    for match in _QUOTED_NUMBER.finditer(sentence):
        before = sentence[match.start() - 1 : match.start()]
        after = sentence[match.end() : match.end() + 1]
        glued = (
            (after.isalpha() and after not in _AMOUNT_WORDS)
            or before.isascii()
            and (before.isalpha())
        )
        if not glued:
            out.append(match.group(0))
    return out


def quoted_values(sentences: Sequence[str]) -> set[str]:
    """The cell values the sentences quote: their numbers (of two or more characters, not a bare
    year, which names a column rather than a value, nor part of a word) and what they give as
    ``label: value`` (how the offline answerer and most models quote a row), each as
    ``cell_value`` reads a cell."""
    values = {cell_value(n) for s in sentences for n in _numbers(s)}
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


def quoted_cell_ids(grid: Grid, statements: Sequence[str]) -> set[int]:
    """The cells (``Grid.cell_ids``) of a table that ``statements`` quote, its rows read with
    spans expanded: a cell spanning several rows is quoted once, in whichever row it is quoted.
    """
    if not grid.cell_ids:
        return set()
    return {grid.cell_ids[r][c] for r, c in quoted_cells(grid.rows, statements)}
