"""One metric across periods and across the library's companies, each point a cited cell: what
"中芯国际和华虹2022-2026年毛利率对比" asks for, as a table and a chart (issue 25). The row each
document's tables give for the metric the question names (``lookup.asked_cells``: the most
specific row label it names), its cell of every one-year column, in the years the question
names when it names two (a range) or more; read from the facts the library stores at ingest
(``stored``), or from table chunks read the same way."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from rag_app.facts.lookup import EVERY_YEAR, asked_cells
from rag_app.facts.stored import StoredFact, by_table, stored_facts
from rag_app.models import Chunk
from rag_app.text.periods import distinct_years, find_years
from rag_app.understand.analysis import QueryAnalysis

# Fewer points than this is a lookup, not a series.
MIN_POINTS = 3


@dataclass(frozen=True)
class SeriesPoint:
    """One cell: ``subject`` (whose, the document's company or title), ``period`` (its year),
    ``value`` as written, ``number`` read, and where it is (document, chunk, pages)."""

    subject: str
    period: str
    value: str
    number: float
    metric: str  # the row label as this document writes it, unit included
    doc_id: str
    chunk_id: str
    pages: tuple[int, ...]
    table: str = ""  # the caption of the table it is a cell of
    column: str = ""  # the part of its column's label naming the year ("2025E", "2024年度")


@dataclass(frozen=True)
class Series:
    metric: str  # the row label as the first document writing it does
    points: tuple[SeriesPoint, ...]

    @property
    def subjects(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(p.subject for p in self.points))

    @property
    def periods(self) -> tuple[str, ...]:
        return tuple(sorted({p.period for p in self.points}))


def asks_for_series(query: QueryAnalysis, subjects_named: int) -> bool:
    """Whether a question asks for values over periods or across companies: it names two years
    or more (a range), or two subjects or more."""
    return len(set(find_years(query.text))) >= 2 or subjects_named >= 2


def metric_series(
    query: QueryAnalysis,
    tables: Mapping[str, Sequence[Chunk]],
    subjects: Mapping[str, str],
) -> Series | None:
    """The series of the metric ``query`` names over ``tables`` (each document's table chunks,
    in document order), one subject per document (``subjects``, else its id); None when the
    documents give fewer than ``MIN_POINTS`` cells of it."""
    facts = {d: stored_facts(chunks, subjects.get(d, "")) for d, chunks in tables.items()}
    return facts_series(query, facts, subjects)


def facts_series(
    query: QueryAnalysis,
    facts: Mapping[str, Sequence[StoredFact]],
    subjects: Mapping[str, str] | None = None,
) -> Series | None:
    """``metric_series`` over each document's stored facts (``stored.stored_facts``, in stored
    order), a document's subject ``subjects``' when given, else its facts', else its id."""
    named = sorted(set(find_years(query.text)))
    wanted = {str(y) for y in range(int(named[0]), int(named[-1]) + 1)} if len(named) >= 2 else None
    points: list[SeriesPoint] = []
    for doc_id, stored in facts.items():
        tables = list(by_table(stored))
        numbered = ((n, cells, cells[0].stated) for n, cells in enumerate(tables, start=1))
        seen: set[str] = set()
        for item in asked_cells(query, numbered, [EVERY_YEAR]):
            years = distinct_years(item.fact.column)
            if len(years) != 1 or item.fact.number is None or years[0] in seen:
                continue
            if wanted is not None and years[0] not in wanted:
                continue
            seen.add(years[0])
            table = tables[item.source - 1][0]
            subject = (subjects or {}).get(doc_id) or table.subject or doc_id
            points.append(
                SeriesPoint(
                    subject,
                    years[0],
                    item.fact.value,
                    float(item.fact.number),
                    item.fact.metric,
                    doc_id,
                    table.chunk_id,
                    table.pages,
                    table.caption,
                    next(
                        (p for p in item.fact.column.split(" / ") if years[0] in p),
                        years[0],
                    ).strip(),
                )
            )
    if len(points) < MIN_POINTS:
        return None
    points.sort(key=lambda p: (p.subject, p.period))
    return Series(points[0].metric, tuple(points))
