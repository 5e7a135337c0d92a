"""A question analysed once: its tokens for the keyword index, its terms for matching passages
(finance synonyms included), its periods, its language, what its phrasing asks for (a list, the
one that stands out, a numbered table or figure), the name it leads with, its period, subject and
metric spans, and how a follow-up was made standalone. The pipeline computes it once, after the
follow-up is resolved, and passes it down: retrieval, the prompt, the answerers, the
answerability check, the citation check and Self-RAG all read it, and none re-reads the question
its own way. Its query embedding is computed once too (``QueryAnalysis.embedding``), by the
library's embedder the pipeline hands it: dense retrieval and the operation read share it."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any, cast

import numpy as np

from rag_app.models import Understood
from rag_app.protocols import Embedder
from rag_app.stage_settings import OfflineSettings
from rag_app.text.analyzer import QuestionTerms, index_tokens, numbers, phrases, question_terms
from rag_app.text.aspects import Aspects, question_aspects
from rag_app.text.language import Language, cjk_share, detect_language, language_of_share
from rag_app.text.names import leading_name
from rag_app.text.periods import (
    names_part_of_year,
    period_tokens,
    quarters_of_year,
    quarters_spanned,
)
from rag_app.text.phrasing import (
    asks_about_figure,
    asks_for_list,
    asks_for_superlative,
    content_references,
    joins,
)
from rag_app.text.spans import Span, spans
from rag_app.text.synonyms import FINANCE_SYNONYMS
from rag_app.understand.operations import Operation, asked_operation, reads_embedding


@dataclass(frozen=True)
class QueryAnalysis:
    """What the stages need to know about a question.

    ``text``: the question as retrieved for and answered (a follow-up made standalone);
    ``asked``: as the user wrote it, and ``understood`` how it was made standalone (``how`` ""
    when it stood alone). ``language``: its language (``cjk_share`` its share of CJK words, for
    a stage with a threshold of its own: ``language_at``). ``index_tokens``: the keyword index's
    tokens of the question; ``terms``: its match terms with their finance synonyms;
    ``synonyms``: the synonym terms the question does not hold (query expansion) and
    ``synonym_tokens`` their index tokens; ``periods``: canonical period tokens (2024q2);
    ``numbers`` and ``phrases``: the numbers it writes and its phrases (Chinese trigrams, word
    pairs) for reranking; ``asks_for_list`` / ``asks_for_superlative`` / ``asks_about_figure``:
    what its phrasing asks for; ``references``: the numbered table or figure it points at, per
    content type ("table", "image"), in its words ("表3", "Fig. 2").

    Read when a stage first needs them, then kept: ``name`` (the company or report it leads
    with, ``text.names``), ``spans(subjects)`` (its period, subject and metric spans over the
    library's subjects, ``text.spans``) and ``aspects(subjects)`` (the companies, years and
    metrics it asks about, ``text.aspects``); ``embedding(embedder)``, its query vector, and
    ``operation``, which reads that vector when ``embedder`` (the library's, handed to
    ``analyse_query``) is the encoder the operation model was fitted on.
    """

    text: str
    language: Language
    index_tokens: tuple[str, ...]
    terms: QuestionTerms
    synonyms: tuple[str, ...]
    synonym_tokens: tuple[str, ...]
    periods: tuple[str, ...]
    numbers: frozenset[str]
    phrases: tuple[str, ...]
    asks_for_list: bool
    asks_for_superlative: bool
    asks_about_figure: bool
    references: tuple[tuple[str, str], ...]
    cjk_share: float | None
    asked: str
    understood: Understood
    # The index tokens of the Chinese terms whose English names the question writes
    # (``text.synonyms``' bridges): keyword search reads them as the question's own words.
    bridged_tokens: tuple[str, ...] = ()
    # What the library's company reports are about, by document: every name each gives its
    # company (``retrieve.subjects.company_names_by_document``), for a report whose title is a
    # section's heading and names none.
    companies: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # The library's embedder, whose vector of the question the operation read shares with
    # retrieval (None: the operation is read from the words alone).
    embedder: Embedder | None = field(default=None, repr=False, compare=False, hash=False)
    # What is read on demand, once (a mutable cache of a frozen record; not compared).
    _lazy: dict[object, Any] = field(
        default_factory=dict, init=False, repr=False, compare=False, hash=False
    )

    def reference(self, kind: str) -> str:
        """The numbered ``kind`` ("table" or "image") the question points at, "" when none."""
        return next((found for k, found in self.references if k == kind), "")

    def language_at(self, min_cjk_share: float) -> Language:
        """The question's language when ``min_cjk_share`` of its words must be CJK for Chinese:
        ``text.language``'s one rule over the share read once (no words: Chinese)."""
        return language_of_share(self.cjk_share, min_cjk_share)

    @property
    def asks_part_of_year(self) -> bool:
        """Whether it asks of a part of a year (2024Q2, 2025年上半年, 前三季度): a whole year's
        value does not answer it."""
        return bool(self.periods) or names_part_of_year(self.text)

    @property
    def name(self) -> str:
        """The company or report the question names first (``text.names.leading_name``)."""
        return cast(str, self._once("name", lambda: leading_name(self.text)))

    def embedding(self, embedder: Embedder) -> np.ndarray:
        """The question's query embedding by ``embedder`` (its ``embed_queries``, e5's "query: "
        prompt), computed once per embedding model and kept: dense retrieval and the operation
        read share it, so a question is embedded once."""
        key = ("embedding", embedder.name)
        return cast(np.ndarray, self._once(key, lambda: embedder.embed_queries([self.text])[0]))

    @property
    def operation(self) -> Operation:
        """What the question asks to be done with its values: read, list, count or work out
        (``understand.operations``, a model learned from data), read once when first asked: from
        its words and its embedding when the analysis was handed the encoder the model was
        fitted on, else from its words."""
        return cast(Operation, self._once("operation", self._read_operation))

    def _read_operation(self) -> Operation:
        embedder = self.embedder
        if embedder is not None and reads_embedding(embedder.name):
            vector = self.embedding(embedder)
            return asked_operation(self.text, vector=vector, encoder=embedder.name)
        return asked_operation(self.text)

    def spans(self, subjects: Collection[str] = ()) -> tuple[Span, ...]:
        """The question's period, subject and metric spans, ``subjects`` being the library's
        report subjects (``text.spans.spans``)."""
        key = ("spans", tuple(subjects))
        return cast(tuple[Span, ...], self._once(key, lambda: tuple(spans(self.text, subjects))))

    def aspects(self, subjects: Collection[str] = ()) -> Aspects:
        """The companies, years and metrics the question asks about, ``subjects`` being the
        sources' report subjects (``text.aspects.question_aspects``)."""
        key = ("aspects", tuple(subjects))
        return cast(Aspects, self._once(key, lambda: question_aspects(self.text, subjects)))

    def _once(self, key: object, read: Any) -> object:
        if key not in self._lazy:
            self._lazy[key] = read()
        return self._lazy[key]


def analyse_query(
    question: str,
    understood: Understood | None = None,
    embedder: Embedder | None = None,
    companies: Mapping[str, tuple[str, ...]] | None = None,
) -> QueryAnalysis:
    """Analyse a question once for every stage.

    ``question`` is the question as asked; ``understood`` how the conversation made it
    standalone (the pipeline's follow-up step), whose text is the one analysed; without it the
    question stands alone as asked. ``embedder``, the library's, embeds the question when a
    stage first asks (``QueryAnalysis.embedding``); without it the operation is read from the
    question's words. ``companies``: the library's company reports' names, by document.
    """
    understood = understood if understood is not None else Understood(question)
    text = understood.text
    bridged = FINANCE_SYNONYMS.bridge(text)  # an English name's Chinese term: the question's own
    bridged += quarters_spanned(text)  # 2024年前三季度: the quarter columns that give it
    bridged += quarters_of_year(text)  # 2024年四季度…比三季度: both of 2024
    synonyms = tuple(FINANCE_SYNONYMS.expand(text))
    return QueryAnalysis(
        text=text,
        language=detect_language(text),
        index_tokens=tuple(index_tokens(text)),
        terms=question_terms(text, [*synonyms, *bridged]),
        synonyms=synonyms,
        synonym_tokens=tuple(index_tokens(" ".join(synonyms))) if synonyms else (),
        bridged_tokens=tuple(index_tokens(" ".join(bridged))) if bridged else (),
        periods=tuple(period_tokens(text)),
        numbers=frozenset(numbers(text)),
        phrases=tuple(phrases(text)),
        asks_for_list=asks_for_list(text),
        asks_for_superlative=asks_for_superlative(text),
        asks_about_figure=asks_about_figure(text),
        references=tuple(content_references(text).items()),
        cjk_share=cjk_share(text),
        asked=question,
        understood=understood,
        companies=tuple((companies or {}).items()),
        embedder=embedder,
    )


def each_asked(query: QueryAnalysis) -> list[QueryAnalysis]:
    """The question once for each metric, or each name, when it asks the same of several joined
    ("营收和归母净利润分别是多少？", "中芯东方和中芯西青的规划产能是多少？"): each with the
    question's operation, but a list's is one value's, and where the joining word made it a sum
    ("营收和净利润同比增长了多少？" 0.9) each reads its own (the words model); [] when it names
    fewer, or a part is itself added up (营业收入和营业成本合计)."""
    text, read = query.text, query.operation
    metrics = _joined_metrics(query)
    joined = metrics or _joined_names(query)
    added = (
        read.name in ("sum", "average") and read.confidence >= OfflineSettings.operation_confidence
    )
    if not joined or (added and not metrics):  # 臻藏系列和窖龄系列…加在一起: the two added
        return []
    start, end, each = joined
    companies = dict(query.companies)
    parts = [analyse_query(text[:start] + one + text[end:], companies=companies) for one in each]
    if any(p.operation.name in ("sum", "average") for p in parts):
        return []
    for part in parts:  # 分别是多少: each one value
        taken = part.operation if read.name in ("sum", "average") else read
        one = "span" if taken.name == "multi-span" else taken.name
        part._lazy["operation"] = Operation(one, taken.confidence, taken.runner_up)
    return parts


def _joined_metrics(query: QueryAnalysis) -> tuple[int, int, list[str]] | None:
    """Where the question writes metrics joined (营收和归母净利润), and each; None if it does not."""
    metrics = [s for s in query.spans() if s.kind == "metric"]
    text = query.text
    if len(metrics) < 2 or not all(joins(text[a.end : b.start]) for a, b in pairwise(metrics)):
        return None
    return metrics[0].start, metrics[-1].end, [m.text for m in metrics]


def _joined_names(query: QueryAnalysis) -> tuple[int, int, list[str]] | None:
    """Where the question leads with two names joined (中芯东方和中芯西青), and each, each read
    as the name its own question would lead with; None if it does not."""
    text = query.text
    k = next((i for i, c in enumerate(text) if i >= 2 and joins(c)), -1)
    second = leading_name(text[k + 1 :]) if k > 0 else ""
    if not second or not text[k + 1 :].startswith(second):
        return None
    end = k + 1 + len(second)
    first = leading_name(text[:k] + text[end:])
    return (0, end, [first, second]) if first == text[:k] else None
