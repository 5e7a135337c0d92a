"""Ranking tables, read by their shape: a column counting the rows (1, 2, 3...: a rank) beside a
column of names (厂商, 企业, Company). ``ranked_rows`` gives the rows a question asks by rank
("排名第一的是哪家", "前五名是哪几家", "Which company ranked first?"): the rank read from the
question's ordinal numerals, the table by the words its caption and headers share with it.
``is_ordinal`` and ``name_column`` also tell the document profile (``index.profile``) which
column of a table lists entities."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rag_app.facts.cells import table_parts
from rag_app.models import Chunk
from rag_app.text.analyzer import match_terms
from rag_app.text.periods import (
    MONTH_NAMED,
    PERIOD_SPAN,
    PERIOD_YEAR,
    YEARLESS_PART,
    find_years,
    period_tokens,
)
from rag_app.text.tables import Grid, TableTooLarge, column_labels, parse_table

NUMERIC = re.compile(r"^[\s(（\-−–+$¥￥€£]*[\d.,，%\s/]+[)）]?$")
# A cell holding a sentence's punctuation is a sentence, not a name or a label.
SENTENCE = re.compile(r"[，。；;！？!?]")
_CN_DIGITS = {c: i for i, c in enumerate("零一二三四五六七八九十")} | {"两": 2}
_EN_ORDINALS = (
    "first",
    "second",
    "third",
    "fourth",
    "fifth",
    "sixth",
    "seventh",
    "eighth",
    "ninth",
    "tenth",
)
_EN_NUMBERS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
_NUMERAL = r"(\d{1,2}|[一二两三四五六七八九十]{1,2})"
# 第N (not a quarter: 第一季度), No. N; 前N / top N
_NTH = re.compile(
    rf"第\s*{_NUMERAL}(?!\s*[季节章部条款期批轮])|\bNo\.\s*(\d{{1,2}})\b|\branked\s+({'|'.join(_EN_ORDINALS)})\b",
    re.I,
)
_FIRST_N = re.compile(
    rf"前\s*{_NUMERAL}(?!\s*[季个月年天周期批轮次])|\btop\s+(\d{{1,2}}|{'|'.join(_EN_NUMBERS)})\b",
    re.I,
)


def is_ordinal(values: Sequence[str]) -> bool:
    """Whether a column counts its rows (1, 2, 3...: a rank or serial number, not a value)."""
    if len(values) < 2 or not all(v.isdigit() for v in values):
        return False
    numbers = [int(v) for v in values]
    return numbers == list(range(numbers[0], numbers[0] + len(numbers)))


def name_column(grid: Grid) -> int | None:
    """The first column whose data cells are names: none a number, a period or a sentence,
    and all different; None when the table has none."""
    rows = grid.data_rows
    if len(rows) < 2:
        return None
    for c in range(grid.n_cols):
        cells = [row[c].strip() for row in rows if row[c].strip()]
        if len(cells) < 2 or len(set(cells)) < len(cells):
            continue
        if all(
            not NUMERIC.match(cell) and not periods_of(cell) and not SENTENCE.search(cell)
            for cell in cells
        ):
            return c
    return None


def periods_of(text: str) -> list[str]:
    """The periods ``text`` names, as one form: "2023Q1" (of 2023Q1, 2023年第一季度, "2023年 Q1"),
    "2025E", "2024" (of 2024, 2024年); a year that is a value (2031亿元) is none."""
    if not text:
        return []
    found = [p.upper() for p in period_tokens(text)]
    if found:
        return found
    out = []
    for match in PERIOD_SPAN.finditer(text):
        if match.group(0)[:1].isdigit() and not PERIOD_YEAR.match(text, match.start()):
            continue
        out.append(re.sub(r"\s+|年度?$", "", match.group(0)).upper())
    return out


def is_period(text: str) -> bool:
    """Whether ``text`` (a row's label) is a period and nothing else: 2024年, 10月份, 第三季度
    (a monthly table's rows name months, no entities)."""
    core = text.strip()
    return any(p.fullmatch(core) for p in (PERIOD_SPAN, MONTH_NAMED, YEARLESS_PART))


def asked_ranks(question: str) -> tuple[int, ...]:
    """The ranks a question asks by: (1,) of 排名第一 / ranked first, (1, ..., 5) of 前五名 /
    top five; () when it names none."""
    first_n = _FIRST_N.search(question)
    if first_n:
        n = _number(next(g for g in first_n.groups() if g))
        return tuple(range(1, n + 1)) if 1 < n <= 20 else ()
    named = [_number(next(g for g in nth.groups() if g)) for nth in _NTH.finditer(question)]
    return tuple(dict.fromkeys(n for n in named if 1 <= n <= 50))


# A count of rows a question states (四家可比公司, 5只个股, 六个主要险种): not a rank (第四家,
# 前五家), nor a count of periods or points (四个季度, 3个百分点).
_STATED_ROWS = re.compile(
    rf"(?<![第前\d一二两三四五六七八九十]){_NUMERAL}\s*(?:[家只]|个(?!\s*(?:季|月|年|百分点|基点)))"
    r"(?!\s*[中里内])"
)


def stated_rows(question: str) -> int:
    """How many rows (companies, lines of business) ``question`` says it asks about: 4 of
    "那四家可比公司", 6 of "六个主要险种", 0 when it states none."""
    found = _STATED_ROWS.search(question)
    return _number(found.group(1)) if found else 0


def _number(text: str) -> int:
    lowered = text.lower()
    if lowered.isdigit():
        return int(lowered)
    if lowered in _EN_ORDINALS:
        return _EN_ORDINALS.index(lowered) + 1
    if lowered in _EN_NUMBERS:
        return _EN_NUMBERS.index(lowered) + 1
    if lowered == "十":
        return 10
    if lowered.startswith("十"):  # 十二
        return 10 + _CN_DIGITS.get(lowered[1:], 0)
    if lowered.endswith("十"):  # 二十
        return _CN_DIGITS.get(lowered[0], 0) * 10
    if len(lowered) == 2 and lowered[1] in _CN_DIGITS:  # 二十一 is 3; 二一 is not a numeral
        return 0
    return _CN_DIGITS.get(lowered, 0)


@dataclass(frozen=True)
class RankedRow:
    """A ranking table's row: its rank, its name cell, its source's number."""

    source: int
    rank: int
    name: str
    caption: str


def ranked_rows(question: str, sources: Sequence[tuple[int, Chunk]]) -> list[RankedRow]:
    """The rows of the first ranking table among ``sources`` whose caption or headers share a
    word with the question (beyond the rank), at the ranks the question asks; [] when it asks
    none, no such table is among the sources, or it lacks a rank asked. A table ranking again
    within each period ("2023年度" 1-5, "2022年度" 1-5) is read in the period the question names
    (its first when it names none)."""
    ranks = asked_ranks(question)
    if not ranks:
        return []
    words = match_terms(question)[0]
    years = find_years(question)
    for parts in table_parts(sources):  # a table split by rows read whole
        by_rank: dict[int, RankedRow] = {}
        for number, chunk in parts:
            for rank, name in _ranked(chunk, words, years).items():
                by_rank.setdefault(rank, RankedRow(number, rank, name, chunk.caption))
        if by_rank and all(rank in by_rank for rank in ranks):
            return [by_rank[rank] for rank in ranks]
    return []


def _ranked(chunk: Chunk, words: frozenset[str] | set[str], years: list[str]) -> dict[int, str]:
    """A ranking table's names by rank, when its caption or headers share a word with the
    question's ``words``; {} for another table or chunk."""
    if chunk.type != "table" or not chunk.table_html:
        return {}
    try:
        grid = parse_table(chunk.table_html, chunk.header_rows)
    except (TableTooLarge, ValueError):
        return {}
    if not words & match_terms(" ".join([chunk.caption, *column_labels(grid)]))[0]:
        return {}
    ranking = _ranking(grid.data_rows, grid.n_cols, years)
    if ranking is None:
        return {}
    rank_col, rows = ranking
    name_col = _name_column(rows, grid.n_cols, rank_col)
    if name_col is None:
        return {}
    return {int(r[rank_col].strip()): r[name_col].strip() for r in rows}


def _ranking(
    rows: Sequence[Sequence[str]], n_cols: int, years: Sequence[str]
) -> tuple[int, list[Sequence[str]]] | None:
    """The rank column and the rows of the ranking asked: a column counting its rows 1, 2, 3...
    within each group of rows the columns before it head (a period's rowspan); the group naming
    a year the question names, else the first."""
    for col in range(n_cols):
        groups: dict[tuple[str, ...], list[Sequence[str]]] = {}
        for row in rows:
            if row[col].strip().isdigit():
                groups.setdefault(tuple(c.strip() for c in row[:col]), []).append(row)
        if not groups or not all(is_ordinal([r[col].strip() for r in g]) for g in groups.values()):
            continue
        named = [g for key, g in groups.items() if any(y in " ".join(key) for y in years)]
        return col, (named or list(groups.values()))[0]
    return None


def _name_column(rows: Sequence[Sequence[str]], n_cols: int, rank_col: int) -> int | None:
    """The first column after the rank whose cells are names (else before it)."""
    for col in [*range(rank_col + 1, n_cols), *range(rank_col)]:
        cells = [r[col].strip() for r in rows if r[col].strip()]
        if (
            len(cells) == len(rows)
            and len(set(cells)) == len(cells)
            and all(
                not NUMERIC.match(c) and not periods_of(c) and not SENTENCE.search(c) for c in cells
            )
        ):
            return col
    return None
