"""The value-first line read from a table's facts (``rag_app.facts``): the cell a question names
("Other operating expenses, 2019: 27.0 million [Source 2]"); for a change, a rate of change, an
average or a sum (``QueryAnalysis.operation``), the result with its working ("Other, change
2018-2019: 44.1 - 56.7 = -12.6 million [Source 2]"); which year's cell is largest or smallest;
the cells of one row. In the answer's language, with the scale the table states."""

from __future__ import annotations

from collections.abc import Sequence

from rag_app.answer.fact_counts import counted, which_years
from rag_app.answer.fact_format import cell_scale, fact_line, shared_head, written
from rag_app.answer.quotes import PointedTable
from rag_app.answer.values import asked_sources, names_several
from rag_app.facts.cells import Fact, in_percent
from rag_app.facts.columns import (
    amount_of,
    asked_columns,
    month_cells,
    month_rows,
    quarter_asked,
    quarter_cells,
    quarter_pair,
    ranked_cells,
    relative_pair,
    stated_average,
    stated_cells,
    stated_rate,
)
from rag_app.facts.lookup import (
    EVERY_YEAR,
    AskedFact,
    asked_facts,
    asked_pair,
    asked_rows,
    entity_facts,
)
from rag_app.facts.rows import period_role
from rag_app.models import Chunk
from rag_app.stage_settings import OfflineSettings
from rag_app.text.period_pointers import quarters_compared
from rag_app.text.periods import (
    distinct_years,
    find_years,
    is_forecast,
    month_before,
    month_range,
    months_named,
    part_months,
    quarter_before,
)
from rag_app.understand.analysis import QueryAnalysis
from rag_app.understand.operations import Operation

# Operations worked out from the cells of one row over the years a question names.
_OVER_YEARS = ("diff", "change_ratio", "average", "sum", "cagr")
# Operations on two cells the question names: a ratio, a part's share of a whole.
_OF_TWO = ("divide", "share")
# Operations worked out over several rows a question names, in one column (one year's).
_ACROSS_ROWS = ("diff", "average", "sum")


def worked_lines(
    query: QueryAnalysis,
    sources: Sequence[tuple[int, Chunk]],
    lang: str = "zh",
    min_confidence: float = OfflineSettings.operation_confidence,
) -> list[str]:
    """The computed answer, one line, when the question asks for a change, rate of change,
    average or sum (read with at least ``min_confidence``) over the years it names and one row
    gives a value for each; else none. It comes before any value line: a change asked of 2024
    is not 2024's value."""
    operation = query.operation
    sources = _of_table_pointed(query, sources)
    every_source, sources = sources, asked_sources(query, sources)
    if operation.name in _OF_TWO and operation.confidence >= min_confidence:
        # one row in two columns it names (A类 against C类, 承保利润 of 保险服务收入) first
        columns = asked_columns(query, sources)
        pair = (columns[0], columns[1]) if len(columns) == 2 else None
        pair = pair or asked_pair(query, sources, share=operation.name == "share")
        if pair is None and query.name and operation.name == "divide":
            # companies no report is about, two rows of another's table (沧澜新能 / 锐驰电池)
            others = [s for s in every_source if s not in sources]
            pair = asked_pair(query, others)
        line = _ratio(operation.name, pair, lang) if pair else ""
        return [line] if line else []
    if operation.name == "count" and operation.confidence >= min_confidence:
        line = counted(query, sources, lang)
        return [line] if line else []
    if aggregate := _unsure_aggregate(operation, min_confidence):
        # 次级、可疑、损失类贷款合计 (a value first), 前五名…一共卖了多少 (a sum, unsurely): the
        # rows it names, by name or by rank, added up (not the table's 合计 row its 合计 matches)
        cells = asked_rows(query, sources) or ranked_cells(query, sources)
        if line := _across_rows(aggregate, cells, sources, lang):
            return [line]
    if operation.name not in _OVER_YEARS or operation.confidence < min_confidence:
        return []
    if operation.name in _ACROSS_ROWS:  # several rows it names (四家可比公司: that many)
        cells = stated_cells(query, sources) or asked_rows(query, sources)
        line = _across_rows(operation.name, cells, sources, lang)
        if not line:  # rows it names by rank (第一大 against 第二大, 前十大)
            line = _across_rows(operation.name, ranked_cells(query, sources), sources, lang)
        if line:
            return [line]
    # one row it names, in several columns it names (第四季度 against 第三季度, 营业收入 and 营业成本)
    line = _across_rows(operation.name, asked_columns(query, sources), sources, lang, by="column")
    run = None
    if operation.name in ("sum", "average"):  # a run of months, or a part of a year's months
        run = month_range(query.text) or part_months(query.text)
    if not line and run is not None:  # a run of months of a monthly table (1-9月), or its quarters
        line = _across_rows(
            operation.name, month_cells(query, sources, run), sources, lang, "column"
        ) or _across_rows(
            operation.name, quarter_cells(query, sources, run), sources, lang, "column"
        )
    if not line and (run is not None or len(months_named(query.text)) >= 2):  # months as rows
        line = _across_rows(operation.name, month_rows(query, sources, run), sources, lang)
    sequential = month_before(query.text) if operation.name in ("diff", "change_ratio") else None
    if not line and sequential is not None:  # 10月环比: 10月 against 9月, as columns or rows
        line = _month_over_month(operation.name, query, sources, sequential, lang)
    quarters = (
        quarter_before(query.text) or quarters_compared(query.text)
        if operation.name in ("diff", "change_ratio")
        else None
    )
    if not line and quarters is not None:  # 三季度环比: the third quarter against the second
        cells, by = quarter_pair(query, sources, quarters)
        line = _across_rows(operation.name, cells, sources, lang, by)
    if line or names_several(query, every_source):  # 澄远智能2024年 and 拓衡传感2023年: no row's
        return [line] if line else []  # two years are what it asks
    years = _years_of(operation.name, find_years(query.text))
    asked = asked_facts(query, sources, years)
    if years == [EVERY_YEAR] and operation.name in ("sum", "average"):  # no year named: not
        asked = [] if len({is_forecast(a.fact.column) for a in asked}) > 1 else asked  # 2022A-26E
    stated = stated_rate(query, sources) if operation.name == "change_ratio" else None
    if operation.name == "average" and not asked_rows(query, sources):  # 可比公司平均值
        stated = stated_average(query, sources)
    if stated is not None:  # the change or average the table states, not one worked out
        head = f"{stated.fact.metric} {stated.fact.column}"
        scale = "percent" if operation.name == "change_ratio" else ""
        line = fact_line(head, stated.fact.value, scale, stated.source, lang)
    else:  # a compound rate compounds the amount, not the rate row its words name
        asked = amount_of(asked, sources, query, years) if operation.name == "cagr" else asked
        line = _worked(operation.name, asked, sources, lang) if asked else ""
    if not line and operation.name in ("diff", "change_ratio"):  # 本报告期 against 上年同期
        relative = relative_pair(query, sources)
        line = _worked(operation.name, list(relative), sources, lang) if relative else ""
    if not line and query.name:
        # a company no report is about, in its own rows of another's table (an industry
        # report's companies by metric and year): only the rows that name it
        others = [s for s in every_source if s not in sources]
        asked = asked_facts(query, others, years, row_name=query.name)
        line = _worked(operation.name, asked, others, lang) if asked else ""
    return [line] if line else []


def fact_value_lines(
    query: QueryAnalysis,
    sources: Sequence[tuple[int, Chunk]],
    lang: str = "zh",
    min_confidence: float = OfflineSettings.operation_confidence,
) -> list[str]:
    """One line: the computed answer (``worked_lines``); the cells of one row the question
    lists; else the one cell it names; else none."""
    operation = query.operation
    every_source, sources = sources, asked_sources(query, sources)
    if (
        operation.name in (*_OVER_YEARS, *_OF_TWO, "count")
        and operation.confidence >= min_confidence
    ):
        return worked_lines(query, every_source, lang, min_confidence)
    sure = operation.confidence >= min_confidence
    if sure and operation.name in ("year_max", "year_min", "years"):
        asked = asked_facts(query, sources, [EVERY_YEAR])
        line = which_years(operation.name, asked, sources, lang, query)
        return [line] if line else []
    listing = operation.name == "multi-span" and sure and not names_several(query, every_source)
    named = find_years(query.text)
    years = _years_of("sum", named) if listing and len(named) == 2 else None
    asked = asked_facts(query, sources, years)
    if not asked and not listing:
        # a company no report is about, in a row of another's table (a ranking's 台积电)
        named_row = entity_facts(query, every_source)
        if named_row:
            source, fact = named_row[0].source, named_row[0].fact
            scale = cell_scale(fact, source, every_source)
            sep = ", " if lang == "en" else " "
            return [fact_line(f"{query.name}{sep}{fact.column}", fact.value, scale, source, lang)]
    # an amount of a part of a year, asked as a lookup or a sum however sure: its parts added
    lookup = operation.name in ("value", "span", "sum")
    if len(asked) != 1 and lookup and not listing:
        added = _parts_added(query, sources, lang)  # 前三季度 of a table of quarters
        if added:
            return added
    if len(asked) > 1 and query.asks_part_of_year:  # 三季度 of the year's quarters
        asked = quarter_asked(query, asked) or asked
    if not asked:
        return []
    if listing:
        line = _listed(asked, sources, lang)
        return [line] if line else []
    if len(asked) != 1:
        return []
    source, fact = asked[0].source, asked[0].fact
    head = f"{fact.metric}, {fact.column}" if lang == "en" else f"{fact.metric} {fact.column}"
    return [fact_line(head, fact.value, cell_scale(fact, source, sources), source, lang)]


def _unsure_aggregate(operation: Operation, min_confidence: float) -> str:
    """A sum or an average the model reads unsurely, or next to a value: worked out only over
    rows the question names; "" when it reads none so."""
    if operation.name in ("sum", "average") and operation.confidence < min_confidence:
        return operation.name
    if operation.name == "value" and operation.runner_up in ("sum", "average"):
        return operation.runner_up
    return ""


def _of_table_pointed(
    query: QueryAnalysis, sources: Sequence[tuple[int, Chunk]]
) -> Sequence[tuple[int, Chunk]]:
    """The sources of the numbered table a question points at ("表4中…有几家"), else all."""
    if not query.reference("table"):
        return sources
    pointed = PointedTable(query, sources).pointed
    return [(n, chunk) for n, chunk in sources if n in pointed] or sources


def _parts_added(
    query: QueryAnalysis, sources: Sequence[tuple[int, Chunk]], lang: str
) -> list[str]:
    """An amount asked of a part of a year no column gives (2025年前三季度, 上半年, 1-9月), added
    up from the quarters or months of a table that has them (a quarter from its months); none
    for a rate (a margin's quarters do not add up)."""
    run = month_range(query.text) or part_months(query.text)
    if run is None:
        return []
    for cells in (quarter_cells(query, sources, run), month_cells(query, sources, run)):
        if len(cells) >= 2 and not any(in_percent(a.fact) for a in cells):
            line = _across_rows("sum", cells, sources, lang, "column")
            return [line] if line else []
    return []


def _listed(asked: list[AskedFact], sources: Sequence[tuple[int, Chunk]], lang: str) -> str:
    """Several cells of one row, one per column the question names ("Freight, 2019; 2018:
    $ 12,340; $ 10,115"); "" for one cell or cells of several rows."""
    if len(asked) < 2 or len({(a.source, a.fact.row) for a in asked}) != 1:
        return ""
    source, first = asked[0].source, asked[0].fact
    columns = "; ".join(a.fact.column for a in asked)
    head = f"{first.metric}, {columns}" if lang == "en" else f"{first.metric} {columns}"
    values = "; ".join(a.fact.value for a in asked)
    return fact_line(head, values, cell_scale(first, source, sources), source, lang)


def _years_of(operation: str, named: list[str]) -> list[str]:
    """The years an operation is worked over: none named, every year the row gives; one, that
    year and the one before (a 2019 average); two for an average or a sum, every year between."""
    if not named:
        return [EVERY_YEAR]  # no year named: every year the row gives ("the change in X")
    if len(named) == 1:
        return [named[0], str(int(named[0]) - 1)]
    if len(named) == 2 and operation in ("average", "sum", "cagr"):
        low, high = sorted(int(y) for y in named)
        return [str(y) for y in range(high, low - 1, -1)] if high - low <= 10 else named
    return named


def _worked(
    operation: str, asked: list[AskedFact], sources: Sequence[tuple[int, Chunk]], lang: str
) -> str:
    """The result of ``operation`` over one row's cells, one per year, with its working; ""
    when the cells are not one row's, one per year."""
    by_year: dict[str, Fact] = {}
    for item in asked:
        years = distinct_years(item.fact.column) or _relative_year(item.fact.column)
        if len(years) != 1 or years[0] in by_year:
            return ""
        by_year[years[0]] = item.fact
    if len({(a.source, a.fact.row) for a in asked}) != 1 or len(by_year) < 2:
        return ""
    if operation in ("diff", "change_ratio"):  # of the latest two years given, actuals first
        actual = [y for y, f in by_year.items() if not is_forecast(f.column)]
        pool = actual if len(actual) >= 2 else by_year
        by_year = {y: by_year[y] for y in sorted(pool, reverse=True)[:2]}
    ordered = [by_year[y] for y in sorted(by_year, reverse=True)]  # the latest first
    values = [f.number for f in ordered]
    if any(v is None for v in values):
        return ""
    numbers = [float(v) for v in values if v is not None]
    texts = [written(v) for v in numbers]
    percent = ""
    if operation in ("diff", "change_ratio") and len(numbers) != 2:
        return ""
    latest, earliest = max(by_year), min(by_year)
    span_years = int(latest) - int(earliest)  # the years compounded over (cagr)
    if operation == "cagr" and (span_years < 1 or numbers[0] <= 0 or numbers[-1] <= 0):
        return ""
    if operation == "diff":
        result, working = numbers[0] - numbers[1], f"{texts[0]} - {texts[1]}"
    elif operation == "change_ratio":
        if numbers[1] == 0:
            return ""
        result = (numbers[0] - numbers[1]) / abs(numbers[1]) * 100
        working, percent = f"({texts[0]} - {texts[1]}) / {written(abs(numbers[1]))}", "%"
    elif operation == "cagr":  # compound annual growth from the earliest to the latest year
        result = ((numbers[0] / numbers[-1]) ** (1 / span_years) - 1) * 100
        working, percent = f"({texts[0]} / {texts[-1]})^(1/{span_years}) - 1", "%"
    elif operation == "average":
        result = sum(numbers) / len(numbers)
        working = f"({' + '.join(texts)}) / {len(numbers)}"
    else:
        result, working = sum(numbers), " + ".join(texts)
    source, fact = asked[0].source, ordered[0]
    years = sorted(by_year, reverse=True)
    names = {
        "en": {
            "diff": "change",
            "change_ratio": "percentage change",
            "average": "average",
            "sum": "sum",
            "cagr": "compound annual growth",
        },
        "zh": {
            "diff": "变化",
            "change_ratio": "变化率",
            "average": "平均",
            "sum": "合计",
            "cagr": "年均复合增长率",
        },
    }["en" if lang == "en" else "zh"]
    span = f"{years[-1]}-{years[0]}"
    if not distinct_years(fact.column):  # a year-less pair: the columns as the table names them
        span = (
            f"{fact.column}比{ordered[-1].column}"
            if lang != "en"
            else f"{fact.column} vs {ordered[-1].column}"
        )
    head = (
        f"{fact.metric}, {names[operation]} {span}"
        if lang == "en"
        else f"{fact.metric} {span}{names[operation]}"
    )
    scale = "" if percent or "%" in fact.value else cell_scale(fact, source, sources)
    amount = f"{working} = {written(result)}{percent}"
    if "%" in fact.value and operation != "change_ratio":
        amount += "%"
    return fact_line(head, amount, scale, source, lang)


def _month_over_month(
    operation: str,
    query: QueryAnalysis,
    sources: Sequence[tuple[int, Chunk]],
    months: tuple[int, int],
    lang: str,
) -> str:
    """A month against the one before it, read from a table with a column per month, else one
    with a row per month: the later month's cell first."""
    run = (months[1], months[0])
    for cells, by in (
        (month_cells(query, sources, run), "column"),
        (month_rows(query, sources, run), "row"),
    ):
        ordered = sorted(
            cells,
            key=lambda a: -months_named(a.fact.column if by == "column" else a.fact.metric)[0][1],
        )
        line = _across_rows(operation, ordered, sources, lang, by)
        if line:
            return line
    return ""


def _across_rows(
    operation: str,
    asked: list[AskedFact],
    sources: Sequence[tuple[int, Chunk]],
    lang: str,
    by: str = "row",
) -> str:
    """The sum, average, difference or rate of change of the cells of several rows in one
    column, in the order the question names them ("次级 + 可疑 + 损失 2024年末 / 金额：21.37 +
    11.85 + 6.72 = 39.94"), or ``by`` "column" of one row's cells in several columns ("营业收入
    第四季度 - 第三季度：…"); "" for fewer than two cells, or other than two for a difference or a
    rate of change (the first named against the second)."""
    pairwise = operation in ("diff", "change_ratio")
    if len(asked) < 2 or (pairwise and len(asked) != 2) or operation not in _OVER_YEARS:
        return ""
    facts = [a.fact for a in asked]
    numbers = [float(f.number or 0.0) for f in facts]
    texts = [written(v) for v in numbers]
    percent = "%" if "%" in facts[0].value else ""
    if operation == "diff":
        result, working = numbers[0] - numbers[1], f"{texts[0]} - {texts[1]}"
    elif operation == "change_ratio":
        if numbers[1] == 0:
            return ""
        result = (numbers[0] - numbers[1]) / abs(numbers[1]) * 100
        working, percent = f"({texts[0]} - {texts[1]}) / {written(abs(numbers[1]))}", "%"
    elif operation == "average":
        result = sum(numbers) / len(numbers)
        working = f"({' + '.join(texts)}) / {len(numbers)}"
    else:
        result, working = sum(numbers), " + ".join(texts)
    signs = {"diff": " - ", "change_ratio": " / ", "average": " + ", "sum": " + "}
    shared, parts = shared_head([f.metric if by == "row" else f.column for f in facts])
    head, rest = signs[operation].join(parts), facts[0].column if by == "row" else facts[0].metric
    head = f"{shared} / {head}" if shared else head
    head = (
        f"{rest}, {head}"
        if by == "column" and lang == "en"
        else (
            f"{rest} {head}"
            if by == "column"
            else (f"{head}, {rest}" if lang == "en" else f"{head} {rest}")
        )
    )
    scale = "" if percent else cell_scale(facts[0], asked[0].source, sources)
    return fact_line(head, f"{working} = {written(result)}{percent}", scale, asked[0].source, lang)


def _relative_year(label: str) -> list[str]:
    """A year-less column's place as a sortable key: the report's period "1", the prior "0"."""
    role = period_role(label)
    return ["1" if role == "current" else "0"] if role else []


def _ratio(operation: str, pair: tuple[AskedFact, AskedFact], lang: str) -> str:
    """A ratio of the first cell named to the second ("Inventory reserves / Accrued
    compensation, 2018: 948 / 358 = 2.65"), or a part's share of its whole, the smaller of the
    two as a percentage of the larger ("... : 2303 / 2496 = 92.27%"); "" for a zero divisor."""
    first, second = (a.fact for a in pair)
    if operation == "share" and abs(first.number or 0.0) > abs(second.number or 0.0):
        first, second = second, first
    top, bottom = float(first.number or 0.0), float(second.number or 0.0)
    if not bottom or (operation == "share" and in_percent(first) != in_percent(second)):
        return ""  # no divisor; a percentage is no part of an amount
    result = top / bottom * (100 if operation == "share" else 1)
    percent = "%" if operation == "share" else ""
    if first.metric == second.metric:  # one row's cells of two years
        head, period = first.metric, f"{first.column} / {second.column}"
    else:
        head = f"{first.metric} / {second.metric}"
        period = first.column if first.column == second.column else ""
    if period:
        head = f"{head}, {period}" if lang == "en" else f"{head} {period}"
    amount = f"{written(top)} / {written(bottom)} = {written(result)}{percent}"
    return fact_line(head, amount, "", pair[0].source, lang)
