"""A table's rows counted by a category the question writes: "中芯国际有几条12英寸产线？" counts
the rows whose 晶圆尺寸 is 12英寸, "在建的产线有几条？" those whose 状态 is 在建. A category is read
by its column's shape, not by its words: a column whose cells repeat a few values (a size, a
status, a place), one of which the question writes whole."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rag_app.facts.ranks import NUMERIC, name_column
from rag_app.models import Chunk
from rag_app.text.tables import Grid, TableTooLarge, column_labels, parse_table


@dataclass(frozen=True)
class CategoryRows:
    """The rows of source ``source``'s table whose ``column`` is ``value``, by their ``names``
    (its name column's cells), of ``total`` rows."""

    source: int
    column: str
    value: str
    names: tuple[str, ...]
    total: int


def category_rows(question: str, sources: Sequence[tuple[int, Chunk]]) -> CategoryRows | None:
    """The rows of the one table among ``sources`` with a category column holding a value the
    question writes (the longest, when one holds another: 12英寸, not 2英寸); None when no table
    has one, or several do."""
    lowered = question.lower()
    found: list[CategoryRows] = []
    for number, chunk in sources:  # a table split by rows comes merged (prompt.tables)
        grid = _grid(chunk)
        if grid is None or (names := name_column(grid)) is None:
            continue
        rows = grid.data_rows
        for c, label in enumerate(column_labels(grid)):
            values = [row[c].strip() for row in rows]
            kinds = set(values)
            if c == names or not 2 <= len(kinds) < len(values):
                continue  # a category repeats its values; a name column does not
            written = [v for v in kinds if len(v) >= 2 and not NUMERIC.match(v) and _in(v, lowered)]
            written = [v for v in written if not any(v != w and v in w for w in written)]
            if len(written) == 1:
                kept = tuple(row[names].strip() for row in rows if row[c].strip() == written[0])
                found.append(CategoryRows(number, label, written[0], kept, len(rows)))
    return found[0] if len(found) == 1 else None


def _in(value: str, text: str) -> bool:
    """Whether ``text`` writes ``value`` whole: not its digits inside a longer number (8英寸 is
    not written by 18英寸)."""
    value = value.lower()
    at = text.find(value)
    while at >= 0:
        before, after = text[at - 1 : at], text[at + len(value) : at + len(value) + 1]
        if not (value[0].isdigit() and before.isdigit()) and not (
            value[-1].isdigit() and after.isdigit()
        ):
            return True
        at = text.find(value, at + 1)
    return False


def _grid(chunk: Chunk) -> Grid | None:
    if chunk.type != "table" or not chunk.table_html:
        return None
    try:
        return parse_table(chunk.table_html, chunk.header_rows)
    except (TableTooLarge, ValueError):
        return None
