"""A table chunk's cells as facts: row label (the metric), column label (period or category),
the value as written and as a number, and the scale the table writes its amounts in."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from rag_app.models import Chunk
from rag_app.text.periods import PERIOD_HEADER, find_years
from rag_app.text.scales import stated_scale, value_scale
from rag_app.text.tables import TableTooLarge, column_labels, parse_table

# "$ 1,452.4", "(9,819)", "-12.6", "23.4%", "106.2 倍": a number, its sign and a percent sign.
_NUMBER = re.compile(r"(?P<neg>[(（\-−–])?\s*[$£€¥]?\s*(?P<digits>\d[\d,]*(?:\.\d+)?|\.\d+)")
_LETTERS = re.compile(r"[A-Za-z]")
_SCALE_WORD = re.compile(r"\b(?:millions?|thousands?|billions?|bn|mn|m|k)\b", re.I)
_NO_VALUE = re.compile(r"^[\s\-–—−/n.a]*$", re.I)


@dataclass(frozen=True)
class Fact:
    """One cell: ``metric`` its row's label, ``column`` its column's label (header cells joined
    by " / "), ``value`` as written, ``number`` its value (sign applied, no scale; None for a
    cell with no number), ``scale`` the table's ("", thousand, million, billion, percent)."""

    chunk_id: str
    row: int
    col: int
    metric: str
    column: str
    value: str
    number: float | None
    scale: str


def in_percent(fact: Fact) -> bool:
    """A cell in percent: so written, or its row's label says so ("同比（%）")."""
    return fact.scale == "percent" or "%" in fact.metric


def number_of(text: str) -> float | None:
    """The number a cell writes: "(9,819)" -9819.0, "$ 1,452.4" 1452.4, "23.4%" 23.4; None for
    a cell without one ("-", "n/a", words)."""
    if _NO_VALUE.match(text):
        return None
    found = _NUMBER.search(text)
    if found is None:
        return None
    rest = _SCALE_WORD.sub(" ", text[: found.start()] + text[found.end() :])
    if len(_LETTERS.findall(rest)) > 3:
        return None  # "Note 3", "Level 2": words with a number in them
    value = float(found.group("digits").replace(",", ""))
    negative = bool(found.group("neg")) or text.strip().startswith(("-", "−", "–"))
    return -value if negative else value


def table_facts(chunk: Chunk) -> tuple[Fact, ...]:
    """Every data cell of a table chunk with a row label, as facts (none for other chunks)."""
    if chunk.type != "table" or not chunk.table_html:
        return ()
    part = bool(chunk.parent_table_id)  # rows of a table split into parts
    return _facts(chunk.chunk_id, chunk.table_html, chunk.header_rows, _stated(chunk), part)


def _stated(chunk: Chunk) -> str:
    """Where the table states its scale: caption, the paragraph introducing it, footnote."""
    return "\n".join(p for p in (chunk.caption, chunk.context, chunk.footnote) if p)


@functools.lru_cache(maxsize=1024)
def _facts(
    chunk_id: str, html: str, header_rows: int, stated: str, part: bool = False
) -> tuple[Fact, ...]:
    try:
        grid = parse_table(html, header_rows)
    except TableTooLarge:
        return ()
    if not grid.header_rows and grid.rows and not grid.rows[0][0].strip() and len(grid.rows) > 1:
        # a first row with no label of its own ("", 2019, 2018) heads the columns
        grid = parse_table(html, 1)
    labels = column_labels(grid, " / ")
    # a row with a label and no values may state the scale ("(in millions)" under the years)
    bare = [row[0] for row in grid.data_rows if row and not any(c.strip() for c in row[1:])]
    table_scale = stated_scale([stated, *labels, *bare])
    if _periods_down(grid.data_rows, labels, 1 if part else 2):
        return _transposed(chunk_id, grid.data_rows, labels, table_scale)
    facts = []
    groups = _groups(grid.data_rows)
    sub = _sub_labels(grid.data_rows, labels)
    ranked = not sub and _ranked_first(grid.data_rows)
    for r, row in enumerate(grid.data_rows):
        cells = [cell.strip() for cell in row[1:]]
        if _heads_columns(cells):  # a row of years heads the columns below it
            labels = (
                [row[0].strip(), *cells]
                if not labels
                else [
                    " / ".join(p for p in (labels[c] if c < len(labels) else "", cell) if p)
                    if c
                    else labels[0]
                    for c, cell in enumerate([row[0].strip(), *cells])
                ]
            )
            continue
        metric = row[0].strip() if row else ""
        columns = range(1 + sub, len(row))
        if ranked and len(row) > 1 and row[1].strip():  # a ranking's row: named by its name
            metric, columns = row[1].strip(), range(len(row))
        if not metric:
            continue
        metric = f"{metric} {groups[r]}" if r in groups else metric
        if sub and len(row) > 1 and row[1].strip():  # 集装箱吞吐量（万标准箱） / 其中：外贸
            metric = f"{metric} / {row[1].strip()}"
        for c in columns:
            value = row[c].strip()
            if not value or value == metric:
                continue
            column = labels[c] if c < len(labels) else ""
            number = number_of(value)
            scale = value_scale(value, [column, metric]) or table_scale
            if number is not None and "%" in value:
                scale = "percent"
            facts.append(Fact(chunk_id, r, c, metric, column, value, number, scale))
    return tuple(facts)


def _ranked_first(rows: Sequence[Sequence[str]]) -> bool:
    """Whether a table's first column ranks its rows (1, 2, 3 …, a residual or total row aside)
    beside a column of names: each row is named by its name, its rank one of its values."""
    firsts = [row[0].strip() for row in rows if len(row) > 1]
    ranks = [f for f in firsts if f.isdigit()]
    names = [row[1].strip() for row in rows if len(row) > 1 and row[0].strip().isdigit()]
    return (
        len(ranks) >= 2
        and [int(f) for f in ranks] == list(range(int(ranks[0]), int(ranks[0]) + len(ranks)))
        and all(n and number_of(n) is None for n in names)
        and len(set(names)) == len(names)
    )


def _sub_labels(rows: Sequence[Sequence[str]], labels: Sequence[str]) -> int:
    """1 when a table labels its rows in two columns, its second column words with no number:
    under one header spanning both (指标: a quantity, then 合计 / 其中：外贸 / 内贸 under it), or
    its first column a label repeated down runs of rows (份额类别: 混合A over 过去三个月, 过去
    六个月 … of 阶段); else 0."""
    if len(labels) < 3 or not labels[0]:
        return 0
    second = [row[1].strip() for row in rows if len(row) > 1 and row[1].strip()]
    if not second or any(number_of(cell) is not None for cell in second):
        return 0
    if labels[0] == labels[1]:
        return 1
    firsts = [row[0].strip() for row in rows if row and row[0].strip()]
    runs = [f for i, f in enumerate(firsts) if i == 0 or firsts[i - 1] != f]
    repeated = len(runs) < len(firsts) and len(runs) == len(set(runs))
    return int(repeated and len(second) == len(firsts) and number_of(firsts[0]) is None)


def _groups(rows: Sequence[Sequence[str]]) -> dict[int, str]:
    """Rows in runs of two or more whose labels the table writes again (国内, 国际 under each of
    two quantities), each with the row right above its run ("旅客运输量（千人次）"), so that
    "国内 旅客运输量（千人次）" and "国内 货邮运输量（吨）" are two. A lone repeated row is the
    rate of the amount above it when it is in percent and that row is not (同比（%） under 营业收入
    and again under 归母净利润); else it is left as it is (a block's "Total")."""
    labels = [row[0].strip() if row else "" for row in rows]
    repeated = {label for label in labels if label and labels.count(label) > 1}
    out: dict[int, str] = {}
    r = 0
    while r < len(labels):
        end = r
        while end < len(labels) and labels[end] in repeated:
            end += 1
        above = labels[r - 1] if r > 0 and labels[r - 1] not in repeated else ""
        lone_rate = end - r == 1 and _in_percent(rows[r]) > _in_percent(rows[r - 1])
        if above and (end - r >= 2 or lone_rate):
            out.update(dict.fromkeys(range(r, end), above))
        r = max(end, r + 1)
    return out


def _in_percent(row: Sequence[str]) -> bool:
    """Whether a row is of percentages: its label says so ("同比（%）") or its values do."""
    values = [cell for cell in row[1:] if number_of(cell) is not None]
    return "%" in row[0] or bool(values) and all("%" in cell for cell in values)


def _periods_down(rows: Sequence[Sequence[str]], labels: Sequence[str], fewest: int = 2) -> bool:
    """Whether a table lays its periods down its first column (2023A, 2024A, ... as row labels)
    and its metrics across (营业收入, 毛利率 as column labels): a forecast table transposed. A
    part of a table split by rows may hold one period (``fewest`` 1): the last quarter's row
    under the header the part repeats is read as its first part's are."""
    firsts = [row[0].strip() for row in rows if row and row[0].strip()]
    dated = [f for f in firsts if PERIOD_HEADER.match(f)]
    across = [label for label in labels[1:] if label]
    return (
        len(dated) >= fewest
        and len(dated) * 2 > len(firsts)
        and bool(across)
        and not any(PERIOD_HEADER.match(label.split(" / ")[-1]) for label in across)
    )


def _transposed(
    chunk_id: str, rows: Sequence[Sequence[str]], labels: Sequence[str], table_scale: str
) -> tuple[Fact, ...]:
    """The facts of a table with periods down and metrics across, read as if its periods
    were columns: each cell's metric its column's label, its column its row's period (``row``
    and ``col`` say which metric and which period, as in a table laid out the usual way)."""
    facts = []
    for r, row in enumerate(rows):
        period = row[0].strip() if row else ""
        if not period:
            continue
        for c in range(1, len(row)):
            value = row[c].strip()
            metric = labels[c] if c < len(labels) else ""
            if not value or not metric:
                continue
            number = number_of(value)
            scale = value_scale(value, [metric]) or table_scale
            if number is not None and "%" in value:
                scale = "percent"
            facts.append(Fact(chunk_id, c, r + 1, metric, period, value, number, scale))
    return tuple(facts)


def _heads_columns(cells: list[str]) -> bool:
    """Whether a row's cells after its label are all years, two or more ("2019", "2018")."""
    filled = [c for c in cells if c]
    return len(filled) >= 2 and all(find_years(c) == [c] for c in filled)


def table_parts(
    sources: Sequence[tuple[int, Chunk]],
) -> list[list[tuple[int, Chunk]]]:
    """The sources grouped by table, a table split by rows into sub-tables read as one (their
    parts in the order found), in the order each table is first found."""
    tables: dict[str, list[tuple[int, Chunk]]] = {}
    for number, chunk in sources:
        tables.setdefault(chunk.parent_table_id or chunk.chunk_id, []).append((number, chunk))
    return list(tables.values())


def source_scale(number: int, sources: Sequence[tuple[int, Chunk]]) -> str:
    """The scale source ``number`` states for its amounts (its caption, introducing paragraph,
    header line, headings, footnote), else the nearest other source of its document that
    states one ("The table below presents net sales (in millions):"); "" when none does."""
    chunk = dict(sources).get(number)
    if chunk is None:
        return ""
    header = chunk.text.split("\n", 1)[0] if chunk.type == "table" else ""
    own = stated_scale([_stated(chunk), header, *chunk.heading_path])
    if own:
        return own
    same = [c for _, c in sources if c.doc_id == chunk.doc_id and c is not chunk]
    before = sorted((c for c in same if c.chunk_id < chunk.chunk_id), key=lambda c: c.chunk_id)
    after = sorted((c for c in same if c.chunk_id > chunk.chunk_id), key=lambda c: c.chunk_id)
    return stated_scale(c.text for c in [*reversed(before), *after])
