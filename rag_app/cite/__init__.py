"""Citations: ``[Source N]`` markers parsed and normalised, answers split into sentences, and
each sentence checked against the sources it cites (words, numbers and embeddings)."""

from rag_app.cite.check import check_answer
from rag_app.cite.markers import (
    CANONICAL,
    CitationRef,
    normalize_markers,
    parse_citations,
    strip_markers,
)
from rag_app.cite.report import Citation, CitationReport, Place, SentenceCheck, TracedNumber
from rag_app.cite.sentences import answer_sentences
from rag_app.stage_settings import DEFAULT_CITE_SETTINGS, CiteSettings

__all__ = [
    "CANONICAL",
    "Citation",
    "CitationRef",
    "CitationReport",
    "CiteSettings",
    "DEFAULT_CITE_SETTINGS",
    "Place",
    "SentenceCheck",
    "check_answer",
    "normalize_markers",
    "parse_citations",
    "answer_sentences",
    "strip_markers",
    "TracedNumber",
]
