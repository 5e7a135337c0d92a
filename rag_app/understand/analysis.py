"""A question analysed once: its tokens for the keyword index, its terms for matching passages
(finance synonyms included), its periods, its language and what its phrasing asks for. The
pipeline computes it once and passes it down, so no stage re-reads the question its own way."""

from __future__ import annotations

from dataclasses import dataclass

from rag_app.text.analyzer import QuestionTerms, index_tokens, numbers, phrases, question_terms
from rag_app.text.language import Language, detect_language
from rag_app.text.periods import period_tokens
from rag_app.text.phrasing import asks_for_list, asks_for_superlative
from rag_app.text.synonyms import FINANCE_SYNONYMS


@dataclass(frozen=True)
class QueryAnalysis:
    """What the stages need to know about a question's words.

    ``index_tokens``: the keyword index's tokens of the question; ``terms``: its match terms
    with their finance synonyms; ``synonyms``: the synonym terms the question does not hold
    (query expansion) and ``synonym_tokens`` their index tokens; ``periods``: canonical period
    tokens (2024q2); ``numbers`` and ``phrases``: the numbers it writes and its phrases (Chinese
    trigrams, word pairs) for reranking; ``asks_for_list`` / ``asks_for_superlative``: what its
    phrasing asks for.
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


def analyse_query(text: str) -> QueryAnalysis:
    """Analyse ``text`` (a question) once for every stage."""
    synonyms = tuple(FINANCE_SYNONYMS.expand(text))
    return QueryAnalysis(
        text=text,
        language=detect_language(text),
        index_tokens=tuple(index_tokens(text)),
        terms=question_terms(text, synonyms),
        synonyms=synonyms,
        synonym_tokens=tuple(index_tokens(" ".join(synonyms))) if synonyms else (),
        periods=tuple(period_tokens(text)),
        numbers=frozenset(numbers(text)),
        phrases=tuple(phrases(text)),
        asks_for_list=asks_for_list(text),
        asks_for_superlative=asks_for_superlative(text),
    )
