"""The metrics a question names that the reports in scope do not give: by the finance lexicon
(its synonyms bridge an English question and a Chinese report) and by the glossary's statement
terms, in Chinese or English (``rag_app.trust.answerability`` turns them into gaps); what a
worked question works out of a held metric (its 复合增长率, its CAGR) is none of them."""

from __future__ import annotations

from collections.abc import Sequence

from rag_app.stage_settings import OfflineSettings
from rag_app.text.names import head_noun
from rag_app.text.periods import YEARLESS_PART
from rag_app.text.spans import Span, strip_modifiers
from rag_app.text.synonyms import BRIDGES, SYNONYM_GROUPS, contains_term
from rag_app.trust.document_reading import Document
from rag_app.understand.analysis import QueryAnalysis
from rag_app.understand.operations import term_operation


def unheld_lexicon_metrics(spans: tuple[Span, ...], documents: Sequence[Document]) -> list[str]:
    """The finance metrics a question names (``text.spans``, by the finance lexicon) for which
    no report of ``documents`` gives a value in any of their synonyms (``Document.gives_value``):
    the lexicon bridges an English question and a Chinese report (研发费用 for "R&D expense")
    and tells 扣非净利润 from 净利润, which the words alone do not."""
    gaps = []
    for span in spans:
        if span.kind != "metric":
            continue
        term = strip_modifiers(span.text.lower()) or span.text.lower()
        group = next((g for g in SYNONYM_GROUPS if term in (t.lower() for t in g)), (term,))
        if not any(
            document.gives_value(t.lower())
            if document.strict()
            else contains_term(document.text, t.lower())
            for document in documents
            for t in group
        ):
            gaps.append(span.text)
    return gaps


def unheld_statement_terms(
    text: str, spans: tuple[Span, ...], documents: Sequence[Document]
) -> list[str]:
    """The statement terms a question names, in the glossary's Chinese term or an English
    name of it (存货, "inventory"), that no Chinese report of ``documents`` writes, in the Chinese
    term or its synonyms: what the finance lexicon alone does not know in English, and the
    head noun of a Chinese question may miss (存货是多少 after a period)."""
    lowered = text.lower()
    for span in spans:
        if span.kind == "period" and span.text:  # 年末 of 2022年末: part of a period
            lowered = lowered.replace(span.text.lower(), " ")
    lowered = YEARLESS_PART.sub(" ", lowered)  # 上半年 without its year: a period too
    named = [s.text.lower() for s in spans if s.kind == "metric"]
    gaps = []
    for chinese, *english in BRIDGES:
        said = [n for n in (chinese, *english) if contains_term(lowered, n.lower())]
        if not said or any(n.lower() in m or m in n.lower() for n in said for m in named):
            continue  # not named, or named as the lexicon's metric (checked there)
        group = next((g for g in SYNONYM_GROUPS if chinese in g), (chinese,))
        if not any(document.writes(t.lower()) for document in documents for t in group):
            gaps.append(max(said, key=len))
    return gaps


def named_before_held(
    unheld: list[str], spans: tuple[Span, ...], text: str = "", documents: Sequence[Document] = ()
) -> list[str]:
    """Of the ``unheld`` metrics a question worked out of others names, those it names before
    the first metric the reports hold: what is worked out of a held metric and named after it
    (营业收入的年均复合增长率) is no metric the reports must give; 研发费用增长率 still asks 研发费用.
    A noun of ``text`` right before it that ``documents`` write is such a metric too (集装箱吞吐量
    of "集装箱吞吐量环比增长了多少", a label of the tables, not of the finance lexicon)."""
    named = [s.text for s in spans if s.kind == "metric"]
    first = next((i for i, m in enumerate(named) if m not in unheld), len(named))
    kept = [m for m in unheld if m not in named or named.index(m) < first]
    at = {m: text.lower().find(m.lower()) for m in kept}
    before = {m: head_noun(text[: at[m]]) if at[m] >= 0 else "" for m in kept}
    return [m for m in kept if not any(before[m] and d.writes(before[m]) for d in documents)]


def names_operation(question: QueryAnalysis, term: str) -> bool:
    """Whether ``term`` names the operation ``question`` is read to ask (CAGR of a compound
    rate), by the words model's weights for the term's own words."""
    named = term_operation(term, OfflineSettings.operation_term_lean)
    return bool(named) and named == question.operation.name
