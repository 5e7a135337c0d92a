"""The facts a question asks for: the cells of the rows it names (the most specific label) in
the column it names (the one year it asks about, or a column label it uses), or the one value
column of a table; a value asked of several periods gives one fact per period."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rag_app.facts.cells import Fact, table_facts
from rag_app.models import Chunk
from rag_app.text.analyzer import cut, match_terms
from rag_app.text.language import stem
from rag_app.text.periods import PART_OF_YEAR, PERIOD_SPAN, distinct_years, find_years
from rag_app.understand.analysis import QueryAnalysis

_UNIT = re.compile(r"[（(][^（()）]{1,12}[)）]\s*$")
# ``years`` meaning every column labelled with one year ("In which year was X largest?").
EVERY_YEAR = "*"


@dataclass(frozen=True)
class AskedFact:
    """A fact of the source numbered ``source`` ([Source N])."""

    source: int
    fact: Fact


def _named(label: str, question_lower: str, words: frozenset[str]) -> int:
    """How many words of ``label`` the question names, all of them or 0."""
    lowered = label.lower().strip()
    if len(lowered) >= 2 and lowered in question_lower:
        return max(1, len(match_terms(label)[0]))
    label_words = {w for w in match_terms(label)[0] if not w.isdigit()}
    return len(label_words) if label_words and label_words <= words else 0


def _unit_asked(label: str, question: str) -> bool:
    """Whether the question writes the unit a label ends with ("多少百万元" of "金额（百万元）")."""
    unit = _UNIT.search(label)
    return unit is not None and unit.group()[1:-1].strip().lower() in question


def _columns(
    facts: Sequence[Fact], years: list[str], question: str, words: frozenset[str]
) -> set[int]:
    """The columns the question asks about: those labelled with its one year (all its years
    when it names several), else those whose label it names, else the one column of values."""
    numeric = {f.col for f in facts if f.number is not None}
    labels = {f.col: f.column for f in facts}  # one label a column: read each once
    if list(years) == [EVERY_YEAR]:
        return {c for c, label in labels.items() if len(distinct_years(label)) == 1}
    if years:
        return {c for c, label in labels.items() if set(distinct_years(label)) & set(years)}
    named = {c for c, label in labels.items() if label and _named(label, question, words)}
    if named:
        return named
    return numeric if len(numeric) == 1 else set()


def asked_facts(
    query: QueryAnalysis,
    sources: Sequence[tuple[int, Chunk]],
    years: Sequence[str] | None = None,
) -> list[AskedFact]:
    """The cells of the first table among ``sources`` that names the row the question asks
    about, in the columns it asks about (those of ``years`` when given, ``[EVERY_YEAR]`` for
    every one-year column, else of the years it names); [] when no table does, or a table names several rows equally well with different
    values."""
    if query.periods or PART_OF_YEAR.search(query.text):
        return []  # a quarter or a half (2024q2, 2024h1): no whole-year column answers it
    question = query.text.lower()
    words = frozenset(w for w in query.terms.words if not w.isdigit())
    years = list(years) if years is not None else find_years(query.text)
    for number, chunk in sources:
        facts = table_facts(chunk)
        if not facts:
            continue
        scores = {m: _named(m, question, words) for m in {f.metric for f in facts}}
        best = max(scores.values(), default=0)
        if not best:  # a unit the label ends with need not be named ("营业收入（亿美元）")
            scores = {m: _named(_UNIT.sub("", m).strip() or m, question, words) for m in scores}
            best = max(scores.values(), default=0)
        if not best:  # a merged header's group names it ("营业收入" of "营业收入 / 金额（百万元）")
            scores = {m: _named(m.split(" / ")[0], question, words) for m in scores}
            best = max(scores.values(), default=0)
        if not best:
            continue
        rows = {f.row for f in facts if scores[f.metric] == best}
        if len(rows) > 1:  # named alike (营业收入 / 金额（百万元）, / 同比（%）): the unit asked
            in_unit = {f.row for f in facts if f.row in rows and _unit_asked(f.metric, question)}
            rows = in_unit if len(in_unit) == 1 else rows
        columns = _columns(facts, years, question, words)
        found = [f for f in facts if f.row in rows and f.col in columns and f.number is not None]
        if not found:
            continue
        if len(rows) > 1 and len({(f.column, f.value) for f in found}) != len(
            {f.column for f in found}
        ):
            return []  # two rows named alike with different values: not told apart
        by_column: dict[int, Fact] = {}
        for fact in found:
            by_column.setdefault(fact.col, fact)
        return [AskedFact(number, f) for f in by_column.values()]
    return []


def entity_facts(
    query: QueryAnalysis, sources: Sequence[tuple[int, Chunk]], years: Sequence[str] | None = None
) -> list[AskedFact]:
    """The cell of the row that names the question's company (a ranking's 台积电, a customer
    list's row) in the one column whose label names what is asked and the year it names
    ("2024年营收（亿美元）" of "台积电2024年的营收是多少？"): a table laid out with companies as
    rows, not metrics. [] when no row names it or several columns are named alike."""
    name = query.name
    if not name or query.periods or PART_OF_YEAR.search(query.text):
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
            if label and _named(_UNIT.sub("", label).strip() or label, question, words):
                found[(fact.row, fact.col)] = fact
        if len(found) == 1:
            return [AskedFact(number, next(iter(found.values())))]
    return []



def asked_pair(
    query: QueryAnalysis, sources: Sequence[tuple[int, Chunk]]
) -> tuple[AskedFact, AskedFact] | None:
    """The two cells a ratio or share is taken of, in the order the question names them: two
    rows of one table it names, in the one column of the year it names ("the ratio of inventory
    reserves to accrued compensation in 2018"), else one row's cells of the two years it names
    ("in fiscal 2019 to fiscal 2018"); None when the question names no such pair."""
    if query.periods or PART_OF_YEAR.search(query.text):
        return None
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
    order = [stem(t.strip().lower()) for t in cut(query.text) if t.strip()]
    for number, chunk in sources:
        facts = table_facts(chunk)
        named = {m for m in {f.metric for f in facts} if _named(m, question, words)}
        if len(named) > 2:  # of labels named alike, the most specific ("Total costs", not "Total")
            named = {m for m in named if not any(_less_specific(m, other) for other in named)}
        if len(named) != 2:
            continue
        columns = _columns(facts, years, question, words)
        if not years and len(columns) > 1:  # no year named: the latest year's column
            dated = {
                f.col: years_of[0]
                for f in facts
                if f.col in columns and len(years_of := distinct_years(f.column)) == 1
            }
            if dated:
                columns = {max(dated, key=lambda c: (dated[c], -c))}
        cells: dict[str, Fact] = {}
        for fact in facts:
            if fact.metric in named and fact.col in columns and fact.number is not None:
                cells.setdefault(fact.metric, fact)
        if len(cells) != 2:
            continue
        first, second = sorted(cells, key=lambda m: _place(m, order))
        return AskedFact(number, cells[first]), AskedFact(number, cells[second])
    return None


def _less_specific(label: str, than: str) -> bool:
    """Whether ``than`` names everything ``label`` does and more ("Total" than "Total costs")."""
    mine, theirs = match_terms(label)[0], match_terms(than)[0]
    return label != than and mine < theirs


def _place(label: str, order: list[str]) -> int:
    """Where the question first writes a word of ``label`` (its tokens, stemmed, in order)."""
    words = match_terms(label)[0]
    return min((i for i, token in enumerate(order) if token in words), default=len(order))
