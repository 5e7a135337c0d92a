"""The periods a question asks for that the library does not hold (``trust.answerability``'s
period check): a year none of the documents giving what is asked lays its tables out by and no
sentence states with it; a quarter outside the quarters they lay out (a year's missing one, or
before or after them all); a month outside the months they lay out. Only the documents that
write what is asked are read (a price series' months, not an insurer's year-end columns)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from rag_app.text.periods import find_years, month_tokens
from rag_app.text.spans import Span
from rag_app.trust.document_reading import Document
from rag_app.trust.findings import Gap
from rag_app.understand.analysis import QueryAnalysis


@dataclass(frozen=True)
class PeriodFinding:
    """The period gap (None when every period asked is held), and whether every period the
    question asks is missing (then nothing is left to answer)."""

    gap: Gap | None
    all_missing: bool


def unheld_periods(
    question: QueryAnalysis,
    spans: Sequence[Span],
    head: str,
    words: tuple[str, ...],
    scope: list[str],
    elsewhere: set[str],
    profile: Mapping[str, Document],
) -> PeriodFinding:
    """The periods ``question`` asks that the ``scope``'s documents do not hold (see the
    module); ``head`` its asked noun, ``words`` its content words, ``elsewhere`` the years
    another report gives its subject in."""
    asked_years = sorted({y for s in spans if s.kind == "period" for y in find_years(s.text)})
    dated = [d for d in scope if head and profile[d].writes(head)] or scope
    in_tables = sorted({y for d in dated for y in profile[d].table_years})
    missing = [
        y
        for y in asked_years
        if y not in in_tables
        and y not in elsewhere
        and not any(profile[d].states(y, head, words) for d in dated)
        and not any(_loose(profile[d]) and y in profile[d].years() for d in dated)
    ]
    parts = [p for p in question.periods if len(p) > 4 and p[:4].isdigit()]
    missing += [
        p.upper()
        for p in parts
        if p[:4] not in missing and all(profile[d].lacks_part(p) for d in dated)
    ]
    asked_years += [p for p in parts if p[:4] not in asked_years]
    # a month of a series that stops before it (2025年11月 of prices given to 10月)
    months = month_tokens(question.text)
    missing += [m for m in months if m[:4] not in missing and _month_beyond(m, dated, profile)]
    if not missing:
        return PeriodFinding(None, False)
    # the closest held: the years its tables cover (else any year its text names); for a
    # month, the months its tables give
    held = in_tables or sorted({y for d in dated for y in profile[d].years()})
    if "月" in missing[-1]:
        held = _held_months(missing[-1], dated, profile) or held
    gap = Gap("period", "、".join(missing), _nearest(held))
    return PeriodFinding(gap, len(missing) == len(asked_years))


def _loose(document: Document) -> bool:
    """Whether a year it names anywhere counts as held: an English filing's or a story's page,
    not a Chinese report (a company's own or an industry's), whose tables say which years it
    gives figures for."""
    return not document.strict() and document.chinese() < 0.5


def _month_beyond(month: str, scope: list[str], profile: Mapping[str, Document]) -> bool:
    """Whether ``month`` (2025年11月) is beyond what the documents give: a table lays out months
    of its year, or months that begin after it or end before it (2024年12月 of prices from
    2025年1月), and no table or sentence gives that one."""
    year = month.partition("年")[0]
    held = [profile[d].months() for d in scope]
    if any(month in t or month in x for t, x in held):
        return False
    tabled = sorted({_month_key(m) for t, _ in held for m in t})
    asked = _month_key(month)
    return bool(tabled) and (
        not tabled[0] <= asked <= tabled[-1] or any(y == int(year) for y, _ in tabled)
    )


def _month_key(month: str) -> tuple[int, int]:
    """A month token (2025年11月) as (year, month), to order months."""
    year, _, rest = month.partition("年")
    return int(year), int(rest.rstrip("月"))


def _held_months(month: str, scope: list[str], profile: Mapping[str, Document]) -> list[str]:
    """The months the documents' tables give, in order: those of ``month``'s year, else all."""
    held = {m for d in scope for m in profile[d].months()[0]}
    year = month.partition("年")[0] + "年"
    return sorted({m for m in held if m.startswith(year)} or held, key=_month_key)


def _nearest(held: list[str]) -> tuple[str, ...]:
    if not held:
        return ()
    lo, hi = held[0], held[-1]
    return (lo, hi) if lo != hi else (lo,)
