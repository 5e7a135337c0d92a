"""How many years of a row, or rows of a column, are beyond the amount a question compares
with, each shown with its cell."""

from __future__ import annotations

from collections.abc import Sequence

from rag_app.answer.fact_format import fact_line, power_of_ten, written
from rag_app.facts.columns import column_cells
from rag_app.facts.lookup import EVERY_YEAR, AskedFact, asked_facts
from rag_app.models import Chunk
from rag_app.text.comparisons import Threshold, threshold
from rag_app.text.periods import distinct_years
from rag_app.understand.analysis import QueryAnalysis


def counted(query: QueryAnalysis, sources: Sequence[tuple[int, Chunk]], lang: str) -> str:
    """How many years of one row are beyond the amount the question compares with, each year
    shown with its cell ("Interest income, years above 1500 thousand (2018 1,826; 2017 1,284):
    1"); "" when it compares with none or names no row with two years or more."""
    limit = threshold(query.text)
    if limit is None:
        return ""
    asked = asked_facts(query, sources, [EVERY_YEAR])
    dated = [
        (years[0], item.fact)
        for item in asked
        if len(years := distinct_years(item.fact.column)) == 1 and item.fact.number is not None
    ]
    cells = dict(dated)
    if len(cells) < len(dated):  # a year's months ("2025年1月"): each by its column
        cells = {fact.column: fact for _, fact in dated}
    if len(cells) < 2 or len({(a.source, a.fact.row) for a in asked}) != 1:
        return _counted_rows(limit, column_cells(query, sources), sources, lang)
    source, first = asked[0].source, asked[0].fact
    exponent = power_of_ten(first, source, sources)
    passed = [y for y, f in cells.items() if limit.passes(float(f.number or 0.0), exponent)]
    shown = "; ".join(f"{year} {fact.value}" for year, fact in cells.items())
    space = " " if limit.unit.isascii() else ""
    bound = f"{written(limit.number)}{space if limit.unit else ''}{limit.unit}"
    if lang == "en":
        head = f"{first.metric}, years {'above' if limit.above else 'below'} {bound} ({shown})"
    else:
        head = f"{first.metric} {'高于' if limit.above else '低于'}{bound}的年份（{shown}）"
    return fact_line(head, str(len(passed)), "", source, lang)


def _counted_rows(
    limit: Threshold, asked: list[AskedFact], sources: Sequence[tuple[int, Chunk]], lang: str
) -> str:
    """How many rows of one column are beyond the amount, each shown with its cell ("电池级碳酸锂
    （万元/吨） 高于7.5的行（2025年1月 7.62; …）：4"); "" for fewer than two rows."""
    if len(asked) < 2:
        return ""
    source, first = asked[0].source, asked[0].fact
    exponent = power_of_ten(first, source, sources)
    passed = [a for a in asked if limit.passes(float(a.fact.number or 0.0), exponent)]
    shown = "; ".join(f"{a.fact.metric} {a.fact.value}" for a in asked)
    bound = f"{written(limit.number)}{limit.unit}"
    if lang == "en":
        head = f"{first.column}, rows {'above' if limit.above else 'below'} {bound} ({shown})"
    else:
        head = f"{first.column} {'高于' if limit.above else '低于'}{bound}的行（{shown}）"
    return fact_line(head, str(len(passed)), "", source, lang)
