"""One row's cells across the columns a question names (share classes by their letters, months
by their numbers), one column's cells down every row of a table (a table split by rows read
whole), and one row's current and prior cells where columns place their periods against the
report's (``relative_pair``); ``rag_app.facts.lookup`` reads a row in the columns of a year."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from rag_app.facts.cells import Fact, in_percent, table_facts, table_parts
from rag_app.facts.labels import names_label, unit_asked
from rag_app.facts.lookup import (
    AskedFact,
    _columns,
    _order,
    _place,
    _rows_named,
    asked_cells,
    asked_facts,
    period_words,
)
from rag_app.facts.ranks import is_ordinal, ranked_rows, stated_rows
from rag_app.facts.rows import (
    UNIT,
    bare_label,
    classes_named,
    labelled_average,
    labelled_residual,
    labelled_total,
    names_prior,
    pair_asked,
    period_pairs,
    quarter_columns,
)
from rag_app.models import Chunk
from rag_app.text.period_pointers import states_change
from rag_app.text.periods import (
    PERIOD_SPAN,
    find_years,
    latest_with,
    months_named,
    quarter_named,
    quarter_of,
    quarters_of_year,
    sequential,
    yearless_quarter,
)
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
    months = months_named(query.text)
    quarters = quarters_of_year(query.text)
    for number, chunk in sources:
        facts = table_facts(chunk)
        labels = {f.col: f.column for f in facts if f.number is not None}
        named = {
            c: label
            for c, label in labels.items()
            if label and not find_years(label) and _column_named(label, question, words)
        }
        if len(named) < 2 and len(months) == 1 and names_prior(query.text):
            named = _month_columns(labels, [*months, ("-1", months[0][1])])  # 10月 against 上年同月
        if len(named) < 2 and len(months) >= 2:  # months of a monthly table: 10月 against 9月
            named = _month_columns(labels, months)
        if len(named) < 2:  # share classes: 混合A and 混合C named as A类 and C类
            named = classes_named(labels, query.text)
        as_named = len(named) < 2 and len(quarters) >= 2
        if as_named:  # 2024年四季度 against 三季度: both of 2024, in the question's order
            named = quarter_columns(labels, quarters)
        if len(named) < 2:
            continue
        rest = [f for f in facts if f.col not in named] or facts  # a table of the months alone
        rows = _rows_named(rest, question, words)[0]
        if len(rows) != 1:
            continue
        cells = {
            f.col: f for f in facts if f.row in rows and f.col in named and f.number is not None
        }
        if len(cells) < 2:
            continue
        ordered = (
            [c for c in named if c in cells]
            if as_named
            else sorted(cells, key=lambda c: _place(named[c], order, query.text))
        )
        return [AskedFact(number, cells[c]) for c in ordered]
    return []


def _month_columns(labels: dict[int, str], months: list[tuple[str, int]]) -> dict[int, str]:
    """The columns of one month each (2025年10月) that the question's months name, in its order:
    by year and month, or by month alone in the latest year the columns give ("-1": the year
    before it)."""
    by_column = {c: months_named(label) for c, label in labels.items()}
    single = {c: found[0] for c, found in by_column.items() if len(found) == 1 and found[0][0]}
    latest = max((year for year, _ in single.values()), default="")
    named: dict[int, str] = {}
    for year, month in months:
        if year == "-1":  # the same month a year before the latest
            year = str(int(latest) - 1) if latest else ""
        column = next(
            (c for c, (y, m) in single.items() if m == month and y == (year or latest)), None
        )
        if column is not None and column not in named:
            named[column] = labels[column]
    return named if len(named) == len(months) else {}


def _column_named(label: str, question: str, words: frozenset[str]) -> bool:
    """Whether the question names a column by its label's last part, a bracketed tail aside,
    with or without the period it names ("营收" of "2024年营收（亿美元）")."""
    last = label.split(" / ")[-1]
    core = UNIT.sub("", last).strip() or last
    bare = PERIOD_SPAN.sub("", core).strip()
    return bool(names_label(core, question, words) or (bare and names_label(bare, question, words)))


def ranked_cells(query: QueryAnalysis, sources: Sequence[tuple[int, Chunk]]) -> list[AskedFact]:
    """The cells of a ranking table's rows at the ranks the question names (第一大, 前十大:
    ``ranks.ranked_rows``) in the one column it names (in its words or their synonyms: 市占率 of
    市场份额; else by the unit it asks: 卖了多少台 of 销量（台）), each labelled by its row's name,
    in the order it names them; [] for fewer than two, or a column not told apart."""
    question = " ".join((query.text, *query.synonyms)).lower()
    words = frozenset(w for w in query.terms.words if not w.isdigit())
    chunks = dict(sources)
    out = []
    for item in ranked_rows(query.text, sources):
        facts = table_facts(chunks[item.source])
        labels = {f.col: f.column for f in facts if f.number is not None}
        named = {c for c, label in labels.items() if _column_named(label, question, words)}
        named = named or {c for c, label in labels.items() if unit_asked(label, question)}
        named -= {c for c in named if is_ordinal([f.value for f in facts if f.col == c])}  # 排名
        row = next((f.row for f in facts if item.name in (f.metric, f.value)), None)
        cell = next(
            (f for f in facts if f.row == row and f.col in named and f.number is not None), None
        )
        if len(named) != 1 or cell is None:
            return []
        out.append(AskedFact(item.source, replace(cell, metric=item.name)))
    return out if len(out) >= 2 else []


def column_cells(query: QueryAnalysis, sources: Sequence[tuple[int, Chunk]]) -> list[AskedFact]:
    """The cells of every row of the first table with one column the question names (its year's
    when it names one: "2023年 / 综合成本率（%）"), a total or the rest (其他) aside: what a count of rows beyond
    an amount reads ("有几个月高于7.5万元/吨"); [] when no table has one such column."""
    for parts in table_parts(sources):
        cells = _column_of(query, parts, lambda f: not labelled_total(f.metric))
        cells = [a for a in cells if not labelled_residual(a.fact.metric)]
        if len(cells) >= 2:
            return cells
    return []


def stated_average(query: QueryAnalysis, sources: Sequence[tuple[int, Chunk]]) -> AskedFact | None:
    """The average a table states over its rows (可比公司's 平均值) in the one column the question
    names ("可比公司2026年PE的均值": PE 2026E); None when no table states one."""
    for parts in table_parts(sources):
        stated = _column_of(query, parts, lambda f: labelled_average(f.metric))
        if len(stated) == 1:
            return stated[0]
    return None


def _column_of(
    query: QueryAnalysis, parts: Sequence[tuple[int, Chunk]], keep: Callable[[Fact], bool]
) -> list[AskedFact]:
    """The cells with a number of the one column of a table's ``parts`` the question names, of
    the rows ``keep`` keeps."""
    named = _one_named_column(query, [f for _, chunk in parts for f in table_facts(chunk)])
    return [
        AskedFact(number, f)
        for number, chunk in parts
        for f in table_facts(chunk)
        if f.col in named and f.number is not None and keep(f)
    ]


def _one_named_column(query: QueryAnalysis, facts: Sequence[Fact]) -> set[int]:
    """The one column of ``facts`` the question names (its year's: "2023年 / 综合成本率（%）")."""
    question = query.text.lower()
    words = frozenset(w for w in query.terms.words if not w.isdigit())
    years = find_years(query.text)
    named = _columns(facts, years, question, words) if years else set()
    if not years or len(named) != 1:
        labels = {f.col: f.column for f in facts if f.number is not None}
        named = {c for c, label in labels.items() if _column_named(label, question, words)}
        written = {c for c in named if bare_label(labels[c]).lower() in question}
        named = written if len(named) > 1 and len(written) == 1 else named  # 收入份额
    return named if len(named) == 1 else set()


def stated_cells(query: QueryAnalysis, sources: Sequence[tuple[int, Chunk]]) -> list[AskedFact]:
    """The cells of the column the question names over the rows of the first table with as
    many as it says it asks about ("那四家可比公司…PE均值": the four companies' PE 2025E, not the
    report's own PE row across years); [] when it states no count or no table matches it."""
    count = stated_rows(query.text)
    for parts in table_parts(sources) if count >= 2 else []:
        cells = column_cells(query, parts)
        if len(cells) == count:
            return cells
    return []


def month_cells(
    query: QueryAnalysis,
    sources: Sequence[tuple[int, Chunk]],
    within: tuple[int, int] | None = None,
) -> list[AskedFact]:
    """The cells of the row the question names in the table with the most columns of one month
    each (1月 … 10月; not a range, 1-10月累计), month by month, only those ``within`` a run of
    months when given: what a count of a row's months beyond an amount reads ("有几个月生猪销量
    超过150万头"), or a sum over months ("1-9月销售收入合计"); [] when no table has two."""

    def months(facts: Sequence[Fact]) -> set[int]:
        named = {f.col: months_named(f.column) for f in facts}
        return {
            c
            for c, found in named.items()
            if len(found) == 1 and (within is None or within[0] <= found[0][1] <= within[1])
        }

    return _row_across(query, sources, months)


def quarter_cells(
    query: QueryAnalysis,
    sources: Sequence[tuple[int, Chunk]],
    within: tuple[int, int] | None = None,
) -> list[AskedFact]:
    """The cells of the row the question names in the table with the most columns of one
    quarter each (2024Q1 … 2025Q3), quarter by quarter: with ``within`` (a run of months: 1-6
    of 上半年) only the quarters inside it, of the year the question names (else the latest);
    [] when no table has two."""
    asked = find_years(query.text)

    def quarters(facts: Sequence[Fact]) -> set[int]:
        found = {f.col: q for f in facts if (q := quarter_of(f.column)) is not None}
        if not found:  # a year's quarters headed without it (第一季度（1-3月份）): the year asked
            year = asked[0] if len(set(asked)) == 1 else ""
            found = {f.col: (year, n) for f in facts if (n := yearless_quarter(f.column))}
        if within is None:
            return set(found)
        latest = max((y for y, _ in found.values()), default="")
        year = asked[0] if len(set(asked)) == 1 else latest
        return {
            c
            for c, (y, n) in found.items()
            if y == year and within[0] <= 3 * n - 2 and 3 * n <= within[1]
        }

    return _row_across(query, sources, quarters)


def quarter_pair(
    query: QueryAnalysis,
    sources: Sequence[tuple[int, Chunk]],
    pair: tuple[tuple[str, int], tuple[str, int]],
) -> tuple[list[AskedFact], str]:
    """The named row's cells in the two quarters of ``pair`` (``quarter_before``,
    ``quarters_compared``), the later first, from a table with a column per quarter, else the
    named amount column's (not a 同比 or 环比 one's) in a table with a row per quarter; a quarter
    without its year is the latest year's that has it. Returns the cells and "column" or "row"."""

    def resolved(found: Sequence[tuple[str, int]]) -> list[tuple[str, int]]:
        (_, later), (before, earlier) = pair
        year = latest_with(pair[0], found)
        if not year:
            return []
        return [(year, later), (before or str(int(year) - int(earlier >= later)), earlier)]

    question = query.text.lower()
    words = frozenset(w for w in query.terms.words if not w.isdigit())
    for parts in table_parts(sources):  # a table split by rows: the quarters of every part
        read = [(number, table_facts(chunk)) for number, chunk in parts]
        wanted = resolved([q for _, facts in read for f in facts if (q := quarter_of(f.column))])
        cells: dict[tuple[str, int], AskedFact] = {}
        for number, facts in read:
            rows = _own_rows_named(facts, question, words)
            for f in facts if len(rows) == 1 else ():
                quarter = quarter_of(f.column)
                if quarter in wanted and quarter and f.row in rows and f.number is not None:
                    cells.setdefault(quarter, AskedFact(number, f))
        if len(cells) == 2 and len({a.fact.metric for a in cells.values()}) == 1:
            return [cells[q] for q in wanted], "column"
    by_row = {
        a: q
        for a in column_cells(query, sources)
        if (q := quarter_of(a.fact.metric)) and not states_change(a.fact.column)
    }
    wanted = resolved(list(by_row.values()))
    ordered = [a for q in wanted for a, found in by_row.items() if found == q]
    return (ordered, "row") if len(ordered) == 2 else ([], "")


def quarter_asked(query: QueryAnalysis, asked: Sequence[AskedFact]) -> list[AskedFact]:
    """Of cells in a year's quarter columns, the one quarter the question names (2025年三季度;
    三季度 alone: the latest year's that has it); [] when it names none or no cell is of it."""
    named = quarter_named(query.text)
    quarters = {a: q for a in asked if (q := quarter_of(a.fact.column))}
    if named is None or not quarters:
        return []
    year = latest_with(named, quarters.values())
    return [a for a, q in quarters.items() if q == (year, named[1])]


def _row_across(
    query: QueryAnalysis,
    sources: Sequence[tuple[int, Chunk]],
    columns: Callable[[Sequence[Fact]], set[int]],
) -> list[AskedFact]:
    """The cells of the one row the question names, in the ``columns`` of its table (months,
    quarters), from the table with the most such cells; [] when no table has two."""
    question = query.text.lower()
    words = frozenset(w for w in query.terms.words if not w.isdigit())
    best: list[AskedFact] = []
    for number, chunk in sources:
        facts = table_facts(chunk)
        wanted = columns(facts)
        if len(wanted) < max(2, len(best) + 1):
            continue
        rows = _rows_named(facts, question, words)[0] or _own_rows_named(facts, question, words)
        cells = [f for f in facts if f.row in rows and f.col in wanted and f.number is not None]
        if len(rows) == 1 and len(cells) > len(best):
            best = [AskedFact(number, f) for f in cells]
    return best


def _own_rows_named(facts: Sequence[Fact], question: str, words: frozenset[str]) -> set[int]:
    """The rows of merged headers the question names by their own labels (营业收入 of 收入与利润
    / 营业收入（亿元）): amounts before a stated 同比 or 环比 rate, a 同比 rate when named alone."""
    own = [replace(f, metric=f.metric.split(" / ")[-1]) for f in facts]
    for change in (states_change, sequential):  # 营收同比增长多少: the 营业收入 row, not 同比（%）
        if rows := _rows_named([f for f in own if not change(f.metric)], question, words)[0]:
            return rows
    return set()


def month_rows(
    query: QueryAnalysis,
    sources: Sequence[tuple[int, Chunk]],
    run: tuple[int, int] | None = None,
) -> list[AskedFact]:
    """The cells of a table whose rows are months (1月, 2025年10月), in the one column the
    question names (``column_cells``): the months of ``run`` (1-9月) when given, else the months
    the question names, in its order ("10月比9月": the latest year's when it names none); [] when
    fewer than two."""
    cells = column_cells(query, sources)
    by_month = {a: found[0] for a in cells if len(found := months_named(a.fact.metric)) == 1}
    if run is not None:
        return [a for a, (_, m) in by_month.items() if run[0] <= m <= run[1]]
    latest = max((y for y, _ in by_month.values()), default="")
    picked = []
    for year, month in months_named(query.text):
        picked += [a for a, (y, m) in by_month.items() if m == month and y in (year or latest, "")]
    return picked if len(picked) == len(months_named(query.text)) >= 2 else []


def relative_pair(
    query: QueryAnalysis, sources: Sequence[tuple[int, Chunk]]
) -> tuple[AskedFact, AskedFact] | None:
    """The cells of the row the question names in a table whose columns name no year but place
    their periods against the report's ("本报告期" and "上年同期", "期末" and "期初"): the current
    period's, then the prior's; None when no such table names the row, or the question names
    two years (their columns answer it)."""
    if len(set(find_years(query.text))) > 1:
        return None
    question = query.text.lower()
    words = frozenset(w for w in query.terms.words if not w.isdigit())
    for number, chunk in sources:
        facts = table_facts(chunk)
        if any(find_years(f.column) for f in facts):
            continue
        pair = pair_asked(period_pairs(facts), query.text)
        if pair is None:
            continue
        current, prior = {pair[0]}, {pair[1]}
        rows = _rows_named(facts, question, words)[0]
        cells = {
            f.col: f
            for f in facts
            if f.row in rows and f.col in current | prior and f.number is not None
        }
        if len(rows) == 1 and len(cells) == 2:
            return AskedFact(number, cells[min(current)]), AskedFact(number, cells[min(prior)])
    return None


def stated_rate(query: QueryAnalysis, sources: Sequence[tuple[int, Chunk]]) -> AskedFact | None:
    """The rate a table states for what the question names with one year: the cell it names
    when that is in a percent row named with an amount (facts v6: 同比（%） under 营业收入), else
    the cell of that row under the amount cell it names (归母净利润 of 2023); what a change asked
    of one year reads before working one out; None when the table states none."""
    years = find_years(query.text)
    asked = asked_facts(query, sources, years) if len(years) == 1 else []
    chunk = dict(sources).get(asked[0].source) if len(asked) == 1 else None
    if chunk is None:
        return None
    cell = asked[0].fact
    facts = table_facts(chunk)
    if in_percent(cell) and any(cell.metric.endswith(f" {f.metric}") for f in facts):
        return asked[0]  # the rate row itself (营业收入同比增长率)
    below = (f for f in facts if f.col == cell.col and f.row > cell.row and in_percent(f))
    rate = next((f for f in below if f.metric.endswith(f" {cell.metric}")), None)
    return AskedFact(asked[0].source, rate) if rate is not None else None


def amount_of(
    asked: list[AskedFact],
    sources: Sequence[tuple[int, Chunk]],
    query: QueryAnalysis,
    years: Sequence[str],
) -> list[AskedFact]:
    """The cells of the amount a rate row is named with (facts v6: 营业收入 of "增长率（%）
    营业收入（百万元）"), in the columns of ``asked`` when all of it is that rate row's: what
    a compound growth rate compounds, though the question's 复合增长率 names the rate row; else
    the cells of ``years`` of the row ``query`` names best among rows not in percent
    (归母净利润 of "归母净利润的CAGR", not 净利润增长率（%）); ``asked`` itself otherwise."""
    rows = {(a.source, a.fact.row) for a in asked}
    if len(rows) != 1 or not in_percent(asked[0].fact):
        return asked
    chunk = dict(sources).get(asked[0].source)
    facts = table_facts(chunk) if chunk is not None else ()
    label = asked[0].fact.metric
    amount = next((f.metric for f in facts if label.endswith(f" {f.metric}")), "")
    columns = {a.fact.col for a in asked}
    cells = [
        f for f in facts if f.metric == amount and f.col in columns and f.row < asked[0].fact.row
    ]
    if len(cells) == len(asked):
        return [AskedFact(asked[0].source, f) for f in cells]
    amounts = (
        (n, [f for f in table_facts(c) if not in_percent(f)], period_words(c)) for n, c in sources
    )
    return asked_cells(query, amounts, years) or asked
