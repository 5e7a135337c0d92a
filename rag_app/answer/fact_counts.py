"""How many years of a row, or rows of a column, are beyond the amount a question compares
with, and which year of a row is largest or smallest, each shown with its cell; who ranks
where in a ranking table, asked by rank."""

from __future__ import annotations

from collections.abc import Sequence

from rag_app.answer.fact_format import fact_line, power_of_ten, written
from rag_app.facts.categories import category_rows
from rag_app.facts.cells import Fact
from rag_app.facts.columns import column_cells, month_cells, quarter_cells
from rag_app.facts.lookup import EVERY_YEAR, AskedFact, asked_facts
from rag_app.facts.ranks import ranked_rows
from rag_app.models import Chunk
from rag_app.text.comparisons import Threshold, threshold
from rag_app.text.periods import (
    asks_by_quarter,
    counts_rows,
    distinct_years,
    find_years,
    is_whole_year_label,
    quarter_of,
)
from rag_app.understand.analysis import QueryAnalysis

# Operations asking one value: a lookup, not a count or a working.
_LOOKUPS = ("span", "value", "multi-span")


def counted(query: QueryAnalysis, sources: Sequence[tuple[int, Chunk]], lang: str) -> str:
    """How many years of one row are beyond the amount the question compares with, each year
    shown with its cell ("Interest income, years above 1500 thousand (2018 1,826; 2017 1,284):
    1"); "" when it compares with none or names no row with two years or more."""
    limit = threshold(query.text)
    if limit is None:  # 有几条12英寸产线: the rows of a category it writes
        return _of_category(query, sources, lang)
    rows = column_cells(query, sources) if counts_rows(query.text) else []
    if len(rows) >= 2:  # 有几家: the rows of the column it names, not one row's years
        return _counted_rows(limit, rows, sources, lang)
    asked = asked_facts(query, sources, [EVERY_YEAR])
    dated = [
        (years[0], item.fact)
        for item in asked
        if len(years := distinct_years(item.fact.column)) == 1 and item.fact.number is not None
    ]
    cells = dict(dated)
    if len(cells) < len(dated):  # a year's months ("2025年1月"): each by its column
        cells = {fact.column: fact for _, fact in dated}
    kind = ("years", "年份")
    months = month_cells(query, sources)
    if len(months) >= max(2, len(cells)):  # a table of the months, a column each (1月 … 10月)
        asked, cells, kind = months, {m.fact.column: m.fact for m in months}, ("months", "月份")
    quarters = _quarters_of_years(query, sources) if asks_by_quarter(query.text) else []
    if len(quarters) >= 2:  # 有几个季度: a table of the quarters, a column each (2024Q1 …)
        asked, cells = quarters, {q.fact.column: q.fact for q in quarters}
        kind = ("quarters", "季度")
    if len(cells) < 2 or len({(a.source, a.fact.row) for a in asked}) != 1:
        return _counted_rows(limit, column_cells(query, sources), sources, lang)
    space = " " if limit.unit.isascii() else ""
    bound = f"{written(limit.number)}{space if limit.unit else ''}{limit.unit}"
    return _count_line(limit, bound, asked[0], cells, kind, sources, lang)


def _of_category(query: QueryAnalysis, sources: Sequence[tuple[int, Chunk]], lang: str) -> str:
    """How many rows of a table hold the category the question writes, each row by its name
    ("晶圆尺寸为12英寸的行（中芯北京（B1）; …）：9"); "" when no one table's column holds it."""
    found = category_rows(query.text, sources)
    if found is None or not found.names:
        return ""
    shown = "; ".join(found.names)
    if lang == "en":
        head = f"rows with {found.column} {found.value} ({shown})"
    else:
        head = f"{found.column}为{found.value}的行（{shown}）"
    return fact_line(head, str(len(found.names)), "", found.source, lang)


def _counted_rows(
    limit: Threshold, asked: list[AskedFact], sources: Sequence[tuple[int, Chunk]], lang: str
) -> str:
    """How many rows of one column are beyond the amount, each shown with its cell ("电池级碳酸锂
    （万元/吨） 高于7.5的行（2025年1月 7.62; …）：4"); "" for fewer than two rows."""
    if len(asked) < 2:
        return ""
    cells = {a.fact.metric: a.fact for a in asked}
    if len(cells) < len(asked):  # one label on two rows: each counted, by its place
        cells = {f"{a.fact.metric} ({a.fact.row + 1})": a.fact for a in asked}
    bound = f"{written(limit.number)}{limit.unit}"
    return _count_line(limit, bound, asked[0], cells, ("rows", "行"), sources, lang)


def _count_line(
    limit: Threshold,
    bound: str,
    first: AskedFact,
    cells: dict[str, Fact],
    kind: tuple[str, str],
    sources: Sequence[tuple[int, Chunk]],
    lang: str,
) -> str:
    """The count of ``cells`` (each by its year, month or row) beyond ``limit``, each shown with
    its value, headed by the row (a count of years) or the column (a count of rows) counted."""
    label = first.fact.metric if kind[0] != "rows" else first.fact.column
    exponent = power_of_ten(first.fact, first.source, sources)
    passed = [k for k, f in cells.items() if limit.passes(float(f.number or 0.0), exponent)]
    shown = "; ".join(f"{k} {f.value}" for k, f in cells.items())
    if lang == "en":
        head = f"{label}, {kind[0]} {'above' if limit.above else 'below'} {bound} ({shown})"
    else:
        head = f"{label} {'高于' if limit.above else '低于'}{bound}的{kind[1]}（{shown}）"
    return fact_line(head, str(len(passed)), "", first.source, lang)


def which_years(
    operation: str,
    asked: list[AskedFact],
    sources: Sequence[tuple[int, Chunk]],
    lang: str,
    query: QueryAnalysis,
) -> str:
    """The year whose cell of one row is largest or smallest, or the years the row gives, each
    with its value ("Freight, largest in (2019 $ 12,340; 2018 $ 10,115): 2019"); asked by
    quarters (哪个季度最高), the row's quarters (of the year it names), each by its column."""
    cells: dict[str, Fact] = {}
    for item in asked:
        years = distinct_years(item.fact.column)
        if len(years) == 1 and item.fact.number is not None:
            cells.setdefault(years[0], item.fact)
    kind = ("years", "年份")
    if asks_by_quarter(query.text):
        quarters = _quarters_of_years(query, sources)
        if len(quarters) >= 2:
            asked, cells = quarters, {q.fact.column: q.fact for q in quarters}
            kind = ("quarters", "季度")
    if len(cells) < 2 or len({(a.source, a.fact.row) for a in asked}) != 1:
        return ""
    source, first = asked[0].source, asked[0].fact
    # each year as its column writes it, a forecast's E kept ("预测值 / 2026E": 2026E)
    named = {y: _as_labelled(y, f.column) for y, f in cells.items()}
    shown = "; ".join(f"{named[year]} {fact.value}" for year, fact in cells.items())
    if operation == "years":
        answer = "; ".join(named.values())
        word = kind[0] if lang == "en" else kind[1]
    else:
        pick = max if operation == "year_max" else min
        answer = named[pick(cells, key=lambda y: float(cells[y].number or 0.0))]
        most = {"year_max": ("largest in", "最高"), "year_min": ("smallest in", "最低")}[operation]
        word = most[0] if lang == "en" else most[1] + kind[1]
    head = (
        f"{first.metric}, {word} ({shown})" if lang == "en" else f"{first.metric} {word}（{shown}）"
    )
    return fact_line(head, answer, "", source, lang)


def quarters_listed(query: QueryAnalysis, sources: Sequence[tuple[int, Chunk]], lang: str) -> str:
    """A year's value that only its quarters give (月产能 of 2024, in a table of quarters): each
    quarter of the row with its value ("产能 / 月产能（万片） 2024年各季度：2024Q1 81.4; …"),
    never added up (a month's capacity is no sum); "" when the row has no two quarters of the
    one year the question names."""
    years = set(find_years(query.text))
    if len(years) != 1 or query.asks_part_of_year or query.operation.name not in _LOOKUPS:
        return ""
    cells = [c for c in _quarters_of_years(query, sources) if c.fact.number is not None]
    if len(cells) < 2 or len({(c.source, c.fact.row, c.fact.metric) for c in cells}) != 1:
        return ""
    first, year = cells[0], years.pop()
    head = (
        f"{first.fact.metric}, {year} by quarter"
        if lang == "en"
        else f"{first.fact.metric} {year}年各季度"
    )
    shown = "; ".join(f"{c.fact.column} {c.fact.value}" for c in cells)
    return fact_line(head, shown, "", first.source, lang)


def _as_labelled(year: str, column: str) -> str:
    """A year as its column writes it when a letter marks it actual or forecast (2026E of
    "预测值 / 2026E"); else the year (a quarter's column keys by its own label)."""
    last = column.rpartition(" / ")[2]
    return last if last[:4] == year and is_whole_year_label(last, year) else year


def _quarters_of_years(
    query: QueryAnalysis, sources: Sequence[tuple[int, Chunk]]
) -> list[AskedFact]:
    """The cells of the row the question names in a table's quarter columns, those of the
    years it names when it names any (2024年四个季度中: 2024Q1-Q4, not every quarter since 2019)."""
    named = set(find_years(query.text))
    return [
        cell
        for cell in quarter_cells(query, sources)  # a yearless column is of the year asked
        if not named or (quarter := quarter_of(cell.fact.column)) is None or quarter[0] in named
    ]


def ranked_lines(
    query: QueryAnalysis, sources: Sequence[tuple[int, Chunk]], lang: str = "zh"
) -> list[str]:
    """Who ranks where, asked by rank ("排名第一的是哪家？", "前五名是哪几家？", "Which company
    ranked first?"): the names at those ranks in a ranking table among the sources, one line
    with its source; none when the question asks no rank or no ranking table gives them."""
    if not any(w in query.text.lower() for w in _ASKING_WHO):
        return []
    rows = ranked_rows(query.text, sources)
    if not rows:
        return []
    names = ("; " if lang == "en" else "、").join(r.name for r in rows)
    ranks = [r.rank for r in rows]
    if len(rows) > 1 and ranks == list(range(1, len(rows) + 1)):
        head = f"Top {len(rows)}" if lang == "en" else f"前{len(rows)}名"
    else:
        listed = ", ".join(map(str, ranks))
        head = f"Rank {listed}" if lang == "en" else f"第{'、'.join(map(str, ranks))}名"
    caption = f"{rows[0].caption} " if rows[0].caption else ""
    return [fact_line(f"{caption}{head}", names, "", rows[0].source, lang)]


# What asks for a name: the interrogatives of the follow-up lexicon that do (哪, 谁, which, who).
_ASKING_WHO = ("哪", "谁", "which", "who")
