"""One row's cells across the columns a question names, and one column's cells down every
row of a table (``rag_app.facts.lookup`` reads a row in the columns of a year)."""

from __future__ import annotations

from collections.abc import Sequence

from rag_app.facts.cells import table_facts
from rag_app.facts.lookup import (
    _UNIT,
    AskedFact,
    _columns,
    _named,
    _order,
    _place,
    _rows_named,
)
from rag_app.facts.rows import labelled_total
from rag_app.models import Chunk
from rag_app.text.periods import find_years
from rag_app.understand.analysis import QueryAnalysis


def asked_columns(query: QueryAnalysis, sources: Sequence[tuple[int, Chunk]]) -> list[AskedFact]:
    """The cells of the one row of a table the question names, in two or more of its columns
    that name no year and that the question names by their own words ("第四季度" and "第三季度" of
    a quarter's columns, "营业收入" and "营业成本" of a product's row, "生产量" and "销售量"), in the
    order it names them; [] when no table has one such row and columns."""
    if len(set(find_years(query.text))) > 1:
        return []
    question = query.text.lower()
    words = frozenset(w for w in query.terms.words if not w.isdigit())
    order = _order(query.text)
    for number, chunk in sources:
        facts = table_facts(chunk)
        labels = {f.col: f.column for f in facts if f.number is not None}
        named = {
            c: label
            for c, label in labels.items()
            if label and not find_years(label) and _column_named(label, question, words)
        }
        if len(named) < 2:
            continue
        rows = _rows_named([f for f in facts if f.col not in named], question, words)[0]
        if len(rows) != 1:
            continue
        cells = {
            f.col: f for f in facts if f.row in rows and f.col in named and f.number is not None
        }
        if len(cells) < 2:
            continue
        ordered = sorted(cells, key=lambda c: _place(named[c], order, question))
        return [AskedFact(number, cells[c]) for c in ordered]
    return []


def _column_named(label: str, question: str, words: frozenset[str]) -> bool:
    """Whether the question names a column by its label's last part, a bracketed tail aside."""
    last = label.split(" / ")[-1]
    core = _UNIT.sub("", last).strip() or last
    return bool(_named(core, question, words))


def column_cells(query: QueryAnalysis, sources: Sequence[tuple[int, Chunk]]) -> list[AskedFact]:
    """The cells of every row of the first table with one column the question names (its year's
    when it names one: "2023年 / 综合成本率（%）"), a total row aside: what a count of rows beyond
    an amount reads ("有几个月高于7.5万元/吨"); [] when no table has one such column."""
    question = query.text.lower()
    words = frozenset(w for w in query.terms.words if not w.isdigit())
    years = find_years(query.text)
    for number, chunk in sources:
        facts = table_facts(chunk)
        named = _columns(facts, years, question, words) if years else set()
        if not years or len(named) != 1:
            labels = {f.col: f.column for f in facts if f.number is not None}
            named = {c for c, label in labels.items() if _column_named(label, question, words)}
        if len(named) != 1:
            continue
        cells = [
            AskedFact(number, f)
            for f in facts
            if f.col in named and f.number is not None and not labelled_total(f.metric)
        ]
        if len(cells) >= 2:
            return cells
    return []
