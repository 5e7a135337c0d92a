"""A table's cells as the library stores them at ingest (issue 25): each cell ``table_facts``
reads, with whose it is (the document's subject), the period its column names, the unit and the
power of ten its amount is written in, the table it is a cell of (caption, the paragraph that
introduces it, its footnote, the headings above it) and its pages.

Read with the reader answers use (``cells.table_facts``): a stored fact is the cell a question
would read from the chunk, so a series read from stored facts is the one read from the tables.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import groupby

from rag_app.facts.cells import Fact, table_facts
from rag_app.facts.ranks import periods_of
from rag_app.models import Chunk
from rag_app.text.periods import distinct_years
from rag_app.text.scales import exponent_after, stated_exponent

# How stored facts are read: a document whose facts another version stored has them read again
# from its chunks on first read (``rag_app.index.library_facts``), as profiles are.
FACTS_VERSION = 7  # 2: a row label the table repeats is named with the row it falls under; 3: a second label column; 4: also under a first column's runs; 5: a ranking's rows by their names; 6: a lone repeated rate (同比（%）) named with the amount above it; 7: a split table's part with one period row read transposed as its first part
# The powers of ten of the reader's scale names (TAT-QA's), for the table's stated scale.
_EXPONENTS = {"thousand": 3, "million": 6, "billion": 9}
# A label's unit: its bracketed tail of up to 8 characters, no digits ("营业收入（百万元）",
# "同比（%）", "（单位：亿元）"); a note's number ("（注1）") is none.
_UNIT_TAIL = re.compile(r"[（(]\s*(?:单位\s*[:：]\s*)?([^（()）\d]{1,8}?)\s*[)）]\s*$")
# A unit written after a value's number: "23.4%", "106.2 倍", "12.5亿元", "2.1x".
_VALUE_UNIT = re.compile(r"\d\s*([^\d\s()（）.,，;；:：/+\-–—−]{1,4})\s*$")
_DIGITS = re.compile(r"\d[\d,]*(?:\.\d+)?")


@dataclass(frozen=True)
class StoredFact(Fact):
    """A cell (``Fact``: its row's label as ``metric``, its column's as ``column``, the value as
    written and read, the reader's ``scale``) with where and whose it is: ``subject`` the
    document's (its profile's; "" when none), ``period`` what its column names ("2024",
    "2025E", "2024Q2", "2024H1", "2025年1-6月"; "" for a column of no one period), ``unit`` as
    its label or value writes it ("百万元", "%", "倍"), ``exponent`` the power of ten its amount
    is written in (万 4, 百万 6, 亿 8, thousand 3; 0 for none or a percentage), the table's
    ``caption``, ``context`` (the paragraph introducing it), ``footnote`` and ``headings``."""

    doc_id: str
    subject: str
    period: str
    unit: str
    exponent: int
    caption: str
    context: str
    footnote: str
    headings: tuple[str, ...]
    pages: tuple[int, ...]

    @property
    def qualifier(self) -> str:
        """What qualifies the table beyond its caption: its introducing paragraph, its footnote."""
        return "\n".join(p for p in (self.context, self.footnote) if p)

    @property
    def stated(self) -> str:
        """The words the table states its period in (``lookup.period_words`` of its chunk)."""
        return " ".join([self.caption, self.context, *self.headings])


def stored_facts(chunks: Sequence[Chunk], subject: str = "") -> tuple[StoredFact, ...]:
    """Every fact of the table chunks among ``chunks`` (one document's), in their order and
    each table's cell order, as stored: ``subject`` is the document's."""
    out: list[StoredFact] = []
    for chunk in chunks:
        for fact in table_facts(chunk):
            out.append(
                StoredFact(
                    **vars(fact),
                    doc_id=chunk.doc_id,
                    subject=subject,
                    period=period_of(fact.column),
                    unit=(unit := _unit(fact, chunk.caption)),
                    exponent=0 if unit in ("%", "％") else _exponent(fact, chunk),
                    caption=chunk.caption,
                    context=chunk.context,
                    footnote=chunk.footnote,
                    headings=tuple(chunk.heading_path),
                    pages=tuple(chunk.pages),
                )
            )
    return tuple(out)


def by_table(facts: Sequence[StoredFact]) -> Iterator[tuple[StoredFact, ...]]:
    """One document's stored facts (in stored order) a table at a time."""
    for _, cells in groupby(facts, key=lambda f: f.chunk_id):
        yield tuple(cells)


def period_of(column: str) -> str:
    """The one period a column label names, its merged headers read as one (``ranks.periods_of``:
    "2024年 / 金额" 2024, "2023年 / Q1" 2023Q1, "2025E", "2024年上半年" 2024H1), else its one
    year ("2023年12月31日/2023年度" 2023); "" for none or several ("2024 vs 2023", "本报告期")."""
    periods = list(dict.fromkeys(periods_of(column.replace(" / ", " "))))
    if len(periods) == 1:
        return periods[0]
    years = distinct_years(column)
    return years[0] if len(years) == 1 else ""


def _unit(fact: Fact, caption: str) -> str:
    """The unit the value writes after its number, else its row label's, else its column
    label's (the last part that has one), else the caption's; "" when none does."""
    own = _VALUE_UNIT.search(fact.value) if fact.number is not None else None
    if own:
        return own.group(1)
    for label in (fact.metric, *reversed(fact.column.split(" / ")), caption):
        found = _UNIT_TAIL.search(label)
        if found:
            return found.group(1).strip()
    return ""


def _exponent(fact: Fact, chunk: Chunk) -> int:
    """The power of ten the amount is written in: the word after its number ("12.5亿"), else
    what its row or column label states ("（百万元）", "单位：万元"; none by a unit of its own
    without one: "（元）", "（倍）"), else the reader's scale for the table, else what the
    caption, introducing paragraph or footnote states; 0 for a percentage or a cell with no
    number."""
    if fact.number is None or fact.scale == "percent":
        return 0
    number = _DIGITS.search(fact.value)
    if number and (after := exponent_after(fact.value, number.end())):
        return after
    for text in (fact.metric, *reversed(fact.column.split(" / "))):
        if stated := stated_exponent(text):
            return stated
        if _UNIT_TAIL.search(text):
            return 0
    if fact.scale in _EXPONENTS:
        return _EXPONENTS[fact.scale]
    for text in (chunk.caption, chunk.context, chunk.footnote):
        if stated := stated_exponent(text):
            return stated
    return 0
