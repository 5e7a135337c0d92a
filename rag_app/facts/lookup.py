"""The facts a question asks for: the cells of the rows it names (the most specific label) in
the column it names (the one year it asks about, or a column label it uses), or the one value
column of a table; a value asked of several periods gives one fact per period. A period's
amount is read, not its share beside it (``rows.amount_columns``); several rows named in one
column are read together (``asked_rows``); a share of one row named is of the whole its table
adds up to (``rows.whole_of``); a part of a year is read from columns naming one, and year-less
columns from their place against the report's period (``rows.pair_asked``: 本月 for 当月)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from rag_app.facts.cells import Fact, in_percent, table_facts
from rag_app.facts.labels import named_columns, names_label, of_company, unit_asked
from rag_app.facts.rows import (
    UNIT,
    amount_columns,
    bare_label,
    by_row_and_group,
    class_at,
    classes_named,
    label_core,
    labelled_total,
    month_columns,
    most_specific,
    names_prior,
    pair_asked,
    period_pairs,
    shared_lead,
    whole_of,
)
from rag_app.models import Chunk
from rag_app.text.analyzer import cut, match_terms
from rag_app.text.language import stem
from rag_app.text.periods import (
    PERIOD_SPAN,
    distinct_years,
    find_years,
    months_named,
    names_part_of_year,
    period_tokens,
    quarter_of,
)
from rag_app.understand.analysis import QueryAnalysis

# ``years`` meaning every column labelled with one year ("In which year was X largest?").
EVERY_YEAR = "*"


@dataclass(frozen=True)
class AskedFact:
    """A fact of the source numbered ``source`` ([Source N])."""

    source: int
    fact: Fact


def _columns(
    facts: Sequence[Fact], years: list[str], question: str, words: frozenset[str]
) -> set[int]:
    """The columns the question asks about: those labelled with its one year (all its years
    when it names several), else those whose label it names, else the one column of values."""
    numeric = {f.col for f in facts if f.number is not None}
    labels = {f.col: f.column for f in facts}  # one label a column: read each once
    if years:
        every, part = list(years) == [EVERY_YEAR], names_part_of_year(question)
        by_year: dict[str, set[int]] = {}
        for c, label in labels.items():
            dated = distinct_years(label)  # a year's own column, not a quarter of one unasked
            whole = part or not names_part_of_year(label)
            if ((len(dated) == 1 if every else set(dated) & set(years)) and whole) and c in numeric:
                by_year.setdefault(dated[0] if len(dated) == 1 else label, set()).add(c)
        named = named_columns(labels, question, words)
        # a period's amount, not its share beside it ("2024年 / 金额", "2024年 / 占比（%）")
        return {c for cols in by_year.values() for c in amount_columns(cols, facts, named)}
    if (by_month := month_columns(labels, question)) is not None:  # 10月, 去年10月
        return by_month & numeric
    named = {c for c, label in labels.items() if label and names_label(label, question, words)}
    named = named or named_columns(labels, question, words) & numeric  # 业务量 of 10月业务量
    if named:
        return named
    picked = amount_columns(numeric, facts, set())  # the one column of amounts
    return picked if len(picked) == 1 else set()


def period_words(chunk: Chunk) -> str:
    """The words a table states its period in besides its columns: caption, intro, headings."""
    return " ".join([chunk.caption, chunk.context, *chunk.heading_path])


def _of_period(chunk: Chunk, part: bool) -> Sequence[Fact]:
    return _in_period(table_facts(chunk), period_words(chunk), part)


def _in_period(facts: Sequence[Fact], stated: str, part: bool) -> Sequence[Fact]:
    """A table's facts, for a question asking a part of a year only those in a column naming a
    part of a year ("2025年1-6月"), or all of a table whose columns name no year when the words
    it ``stated`` its period in name a part ("2025年前三季度分产品收入"): a whole year's column
    does not answer a quarter."""
    if not part or not facts:
        return facts
    if not any(find_years(f.column) for f in facts):
        return facts if names_part_of_year(stated) else ()
    return tuple(f for f in facts if names_part_of_year(f.column))


def _rows_named(
    facts: Sequence[Fact], question: str, words: frozenset[str]
) -> tuple[set[int], int]:
    """The rows whose label the question names best (most words), with fallbacks: the label
    without its unit, the group of a merged header; the one whose unit it writes when several
    are named alike; none when it names none. With how many words it names them."""
    if not facts:
        return set(), 0
    scores = {m: names_label(m, question, words) for m in {f.metric for f in facts}}
    best = max(scores.values(), default=0)
    if not best:  # a unit the label ends with need not be named ("营业收入（亿美元）")
        scores = {m: names_label(UNIT.sub("", m).strip() or m, question, words) for m in scores}
        best = max(scores.values(), default=0)
    if not best:  # a merged header's group or leaf names it (营业收入 / 金额, 盈利能力 / 毛利率)
        ends = {m: (m.split(" / ")[0], UNIT.sub("", m.split(" / ")[-1])) for m in scores}
        scores = {m: max(names_label(p, question, words) for p in ends[m]) for m in scores}
        best = max(scores.values(), default=0)
    if not best and (lead := shared_lead([UNIT.sub("", m) for m in scores])):  # 速运物流…
        scores = {m: names_label(m[len(lead) :], question, words) for m in scores}
        best = max(scores.values(), default=0)
    if not best:
        return set(), 0
    rows = {f.row for f in facts if scores[f.metric] == best}
    if len(rows) > 1:  # named alike (营业收入 / 金额（百万元）, / 同比（%）): the unit asked
        in_unit = {f.row for f in facts if f.row in rows and unit_asked(f.metric, question)}
        rows = in_unit if len(in_unit) == 1 else rows
    if len(rows) > 1:  # a quantity named alone, of its sub-rows (合计, 其中：外贸): its total
        total = {
            f.row for f in facts if f.row in rows and labelled_total(f.metric.split(" / ")[-1])
        }
        rows = total if len(total) == 1 else rows
    return rows, best


def asked_facts(
    query: QueryAnalysis,
    sources: Sequence[tuple[int, Chunk]],
    years: Sequence[str] | None = None,
    row_name: str = "",
) -> list[AskedFact]:
    """The cells of the first table among ``sources`` that names the row the question asks
    about, in the columns it asks about (those of ``years`` when given, ``[EVERY_YEAR]`` for
    every one-year column, else of the years it names); [] when no table does, or a table names
    several rows equally well with different values. A question asking a part of a year reads
    only the columns of one (``_in_period``). ``row_name``: only the rows whose label writes it (a
    company's own rows in another report's table)."""
    tables = (
        (n, [f for f in table_facts(chunk) if row_name in f.metric], period_words(chunk))
        for n, chunk in sources
    )
    return asked_cells(query, tables, years, best_first=bool(row_name))


def asked_cells(
    query: QueryAnalysis,
    tables: Iterable[tuple[int, Sequence[Fact], str]],
    years: Sequence[str] | None = None,
    best_first: bool = False,
) -> list[AskedFact]:
    """``asked_facts`` over tables already read into facts (stored at ingest): each its source
    number, its facts in cell order and the words it states its period in (``period_words``);
    ``best_first``: rows of companies read by metric (``rows.by_row_and_group``), and the table
    naming the row with the most words first, else the first."""
    part = query.asks_part_of_year  # 2024q2, 2024h1
    question = query.text.lower()
    words = frozenset(w for w in query.terms.words if not w.isdigit())
    years = list(years) if years is not None else find_years(query.text)
    named: list[tuple[int, int, int, Sequence[Fact], set[int], list[str]]] = []
    for number, table, stated in tables:
        facts = _in_period(by_row_and_group(table) if best_first else table, stated, part)
        rows, score = _rows_named(facts, question, words)
        whole = any(bare_label(f.metric).lower() in question for f in facts if f.row in rows)
        if rows:  # else a row the question writes whole (清洗设备) before one named by its words
            key = -score if best_first else int(not whole)
            named.append((key, len(named), number, facts, rows, find_years(stated)))
    # best first: the table naming the row with the most words ("沧澜新能 营业收入" of companies
    # by metric, before a ranking's "沧澜新能"), else the sources' order; of several years, the
    # table giving most (2025-2027年毛利率: a forecast's 2025E-2027E, not 2025Q1-Q3)
    several = len(set(years) - {EVERY_YEAR}) >= 2
    picked: tuple[int, list[AskedFact]] = (-1, [])
    metric = bool(query.name) and any(s.kind == "metric" for s in query.spans())
    for _, _, number, facts, rows, table_years in sorted(named, key=lambda t: t[:2]):
        columns = _of_class(facts, _columns(facts, years, question, words), query.text)
        if metric and all(f.metric.strip() == query.name for f in facts if f.row in rows):
            columns = of_company(facts, columns, question, words, set(years) <= set(table_years))
        found = [f for f in facts if f.row in rows and f.col in columns and f.number is not None]
        labels = {f.column for f in found}
        if len(rows) > 1 and len({(f.column, f.value) for f in found}) != len(labels):
            if not picked[1]:
                return []  # two rows named alike with different values: not told apart
            found = []
        by_column: dict[int, Fact] = {}
        for fact in found:
            by_column.setdefault(fact.col, fact)
        if not found:
            continue
        cells = [AskedFact(number, f) for f in by_column.values()]
        given = len({y for f in by_column.values() for y in distinct_years(f.column)} & set(years))
        if not several:
            return cells
        picked = max(picked, (given, cells), key=lambda p: p[0])
    return picked[1]


def entity_facts(
    query: QueryAnalysis, sources: Sequence[tuple[int, Chunk]], years: Sequence[str] | None = None
) -> list[AskedFact]:
    """The cell of the row that names the question's company (a ranking's 台积电, a customer
    list's row) in the one column whose label names what is asked and the year it names
    ("2024年营收（亿美元）" of "台积电2024年的营收是多少？"): a table laid out with companies as
    rows, not metrics. [] when no row names it or several columns are named alike."""
    name = query.name
    if not name or query.asks_part_of_year:
        return []
    question = query.text.lower()
    words = frozenset(w for w in query.terms.words if not w.isdigit())
    years = list(years) if years is not None else find_years(query.text)
    for number, chunk in sources:
        facts = table_facts(chunk)
        rows = {f.row for f in facts if name in f.metric or (f.number is None and name in f.value)}
        if not rows:
            continue
        found: dict[tuple[int, int], Fact] = {}
        for fact in facts:
            if fact.row not in rows or fact.number is None:
                continue
            dated = distinct_years(fact.column)
            if years and not set(dated) & set(years):
                continue
            label = PERIOD_SPAN.sub("", fact.column).strip()
            if label and names_label(UNIT.sub("", label).strip() or label, question, words):
                found[(fact.row, fact.col)] = fact
        if len(found) == 1:
            return [AskedFact(number, next(iter(found.values())))]
    return []


def asked_pair(
    query: QueryAnalysis, sources: Sequence[tuple[int, Chunk]], share: bool = False
) -> tuple[AskedFact, AskedFact] | None:
    """The two cells a ratio or share is taken of, in the order the question names them: two
    rows of one table it names, in the one column of the year it names ("the ratio of inventory
    reserves to accrued compensation in 2018"), else one row's cells of the two years it names
    ("in fiscal 2019 to fiscal 2018"); for a ``share`` of one row it names, that row and the
    whole its table adds it up to, however labelled ("复合调味料占总收入" of a "合计" row); None when
    the question names no such pair."""
    part = query.asks_part_of_year  # 2024q2, 2024h1
    years = find_years(query.text)
    if len(years) == 2:
        found = asked_facts(query, sources, years)
        by_year = {
            distinct_years(a.fact.column)[0]: a for a in found if distinct_years(a.fact.column)
        }
        if len(found) == 2 and set(by_year) == set(years):
            return by_year[years[0]], by_year[years[1]]
        return None
    question = query.text.lower()
    words = frozenset(w for w in query.terms.words if not w.isdigit())
    order = _order(query.text)
    # a table with a column the question names (装车量 of "2024年装车量（GWh）") before others
    labelled = [
        (n, c)
        for n, c in sources
        if named_columns({f.col: f.column for f in table_facts(c)}, question, words)
    ]
    singles: list[AskedFact] = []  # one cell named, its whole not in its table
    for number, chunk in labelled + [s for s in sources if s not in labelled]:
        facts = _of_period(chunk, part)
        # a label's unit need not be named (生猪销售量 of "生猪销售量（万头）")
        named = {
            m
            for m in {f.metric for f in facts}
            if names_label(m, question, words) or names_label(bare_label(m), question, words)
        }
        # of labels named alike, the most specific ("Total costs", not "Total"); for a share,
        # unless it writes both whole (个人定期存款 of 个人存款; not 桩工机械 by 机械 alone)
        written = all(label_core(bare_label(m)).lower() in question for m in named)
        if len(named) > 2 or (share and len(named) == 2 and not written):
            named = most_specific(named)
        if len(named) != 2 and not (share and len(named) == 1):
            continue
        columns = _one_column(facts, years, question, words, query.text)
        cells: dict[str, Fact] = {}
        for fact in facts:
            if fact.metric in named and fact.col in columns and fact.number is not None:
                cells.setdefault(fact.metric, fact)
        if len(cells) == 1 and len(named) == 1:  # a share of the whole its rows add up to
            piece = next(iter(cells.values()))
            whole = whole_of(piece, facts)
            if whole is None:  # a percentage is no part of another table's amount
                singles += [] if in_percent(piece) else [AskedFact(number, piece)]
            elif not singles or (number, chunk) in labelled:  # a part of the table it names
                return AskedFact(number, piece), AskedFact(number, whole)
            continue
        if len(cells) != 2 or (share and len({in_percent(f) for f in cells.values()}) > 1):
            continue  # a percentage is no part of an amount
        first, second = sorted(cells, key=lambda m: _place(m, order, question))
        return AskedFact(number, cells[first]), AskedFact(number, cells[second])
    return _across_tables(singles) if share else None


def _across_tables(singles: list[AskedFact]) -> tuple[AskedFact, AskedFact] | None:
    """A share whose part one table gives and whose whole another (挖掘机械 of 分产品收入, 营业
    收入 of 盈利预测) in the same year: the smaller of the first two such cells over the larger."""
    for i, a in enumerate(singles):
        for b in singles[i + 1 :]:
            year = distinct_years(a.fact.column)
            if a.source != b.source and year and year == distinct_years(b.fact.column):
                small, large = sorted((a, b), key=lambda x: abs(x.fact.number or 0.0))
                return small, large
    return None


def asked_rows(query: QueryAnalysis, sources: Sequence[tuple[int, Chunk]]) -> list[AskedFact]:
    """The cells of the rows of one table the question names by its own words, two or more
    ("次级、可疑、损失三类贷款", "酱油和食醋"), in the one column it asks (its one year's amount;
    the latest year's when it names none; a table's one column of amounts), in the order it
    names them; [] when no table names two rows in one such column. A row labelled as a total
    is no operand beside the rows it adds up."""
    years = find_years(query.text)
    if len(set(years)) > 1:
        return []
    part = query.asks_part_of_year  # 2024q2, 2024h1
    question = query.text.lower()
    own = frozenset(w for w in match_terms(query.text)[0] if not w.isdigit())
    words = frozenset(w for w in query.terms.words if not w.isdigit())
    order = _order(query.text)
    for number, chunk in sources:
        facts = _of_period(chunk, part)
        named = most_specific(
            {m for m in {f.metric for f in facts} if names_label(m, question, own)}
        )
        named = {m for m in named if not labelled_total(m)}
        if len(named) < 2:
            continue
        columns = _one_column(facts, years, question, words, query.text)
        cells: dict[str, list[Fact]] = {}
        for fact in facts:
            if fact.metric in named and fact.col in columns and fact.number is not None:
                cells.setdefault(fact.metric, []).append(fact)
        if len(cells) < 2 or any(len({f.number for f in c}) > 1 for c in cells.values()):
            continue  # fewer than two rows, or one label on two rows of different values
        ordered = sorted(cells, key=lambda m: _place(m, order, question))
        return [AskedFact(number, cells[m][0]) for m in ordered]
    return []


def _one_column(
    facts: Sequence[Fact], years: list[str], question: str, words: frozenset[str], text: str = ""
) -> set[int]:
    """The column the question asks (``_columns``), of share classes the one its ``text``
    names (A类); when it names no year and the table's columns are years, the latest year's
    amount."""
    columns = _of_class(facts, _columns(facts, years, question, words), text)
    asked = [m for _, m in months_named(question)]
    if len(columns) > 1 and len(asked) == 1:  # the year's columns, one of them its month's
        columns &= {f.col for f in facts if [m for _, m in months_named(f.column)] == asked}
    quarters = {(p[:4], int(p[5])) for p in period_tokens(text) if len(p) == 6 and p[4] == "q"}
    if len(columns) > 1 and len(quarters) == 1:  # the year's quarters, one of them asked
        columns &= {f.col for f in facts if quarter_of(f.column) in quarters}
    if years and not columns and not any(find_years(f.column) for f in facts):
        # a table stating its period elsewhere (its caption, the report's year): the column
        # the question names
        columns = _columns(facts, [], question, words)
    if years or len(columns) == 1:
        return columns
    candidates = columns or {f.col for f in facts if f.number is not None}
    dated = {
        f.col: years_of[0]
        for f in facts
        if f.col in candidates and len(years_of := distinct_years(f.column)) == 1
    }
    if not dated and not columns:  # the report's own period (本月 for 当月), or the prior's
        pair = pair_asked(period_pairs(facts), question)
        return {pair[1] if names_prior(question) else pair[0]} if pair else columns
    if not dated:
        return columns
    latest = max(dated.values())
    return amount_columns({c for c, y in dated.items() if y == latest}, facts, set())


def _of_class(facts: Sequence[Fact], columns: set[int], text: str) -> set[int]:
    """``columns``, or of a table's share-class columns the one the question names (A类)."""
    classes = classes_named({f.col: f.column for f in facts if f.number is not None}, text)
    return set(classes) if len(columns) != 1 and len(classes) == 1 else columns


def _order(text: str) -> list[tuple[int, str]]:
    """The question's tokens, stemmed, each with where it starts."""
    out, at = [], 0
    for token in cut(text):
        start = text.find(token, at)
        at = start + len(token) if start >= 0 else at
        if token.strip():
            out.append((max(start, 0), stem(token.strip().lower())))
    return out


def _place(label: str, order: list[tuple[int, str]], question: str) -> int:
    """Where the question writes ``label``: where it writes it whole (a sub-item's lead-in and
    a unit aside; a class's capitals as written), else where it first writes one of its words
    (tokens, stemmed)."""
    if (at := class_at(label, question)) >= 0:
        return at
    question = question.lower()
    whole = UNIT.sub("", label_core(label)).strip().lower()
    if len(whole) >= 2 and whole in question:
        return question.index(whole)
    words = match_terms(label)[0]
    return min((at for at, token in order if token in words), default=len(question))
