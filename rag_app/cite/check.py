"""``check_answer``: which sources an answer cites, and whether each sentence is supported.

Support of a sentence, in [0, 1], from two kinds of evidence:

* lexical: the share of the sentence's content words (jieba; Chinese character bigrams as a
  fallback) found in the source, and its numbers. Every number of the sentence must be in the
  source (as a value: ``1,234.5`` = ``1234.5``, ``20.0%`` = ``20%``, ``63`` = ``63.2`` rounded).
  A missing number other than a year caps support at ``missing_number_cap`` (0.25) times the
  share of numbers found: a changed figure is the commonest hallucination in research answers,
  and no wording makes up for it. A missing year multiplies support by 0.85.
* semantic (when an embedder is given): the cosine between the sentence and the source's best
  units (sentences or table rows, those sharing most words and numbers with it). Raw cosines
  are rescaled linearly from the embedder's band to [0, 1], because e5 puts even unrelated
  Chinese sentences above 0.8: for e5, 0.85 -> 0 and 0.95 -> 1 between Chinese texts, 0.82 ->
  0 and 0.94 -> 1 between English ones, 0.80 -> 0 and 0.86 -> 1 across the two languages
  (``rag_app.cite.settings`` has the measurements).

Words and numbers give one score: the word share, plus, when the sentence has numbers and all
are found, ``0.3`` of the remaining distance to 1. Semantic evidence gives a second opinion:
``0.7 * max(lexical, semantic) + 0.3 * min(...)`` (across languages, where words cannot match,
the semantic score alone), with the same number bonus; support is the higher of the two. So semantic evidence can only raise support (it rescues paraphrases and
translations, which share few words), and it is computed only for sentences that words and
numbers leave below the threshold and that miss no number, in one batched ``embed_queries``
call per answer (often none; a second only to find which other source supports a sentence
whose cited source does not). A sentence supported by words and numbers alone reports that
score.

A cited sentence is checked against its cited sources together (their words and numbers
pooled, the best unit among them); when they fall short the best other sources are checked
too, so the report can say "cited source does not support; Source 1 does". An uncited factual
sentence is checked against the best sources and reported as uncited. Notices, "not found"
replies, headings, questions and short connectives are not factual claims and are never
flagged.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Union

from rag_app.cite.claims import AnswerSentence, read_sentences
from rag_app.cite.evidence import (
    SourceEvidence,
    source_evidence,
    source_units_from_block,
    source_units_from_chunk,
)
from rag_app.cite.markers import CitationRef, marker_spans, parse_citations
from rag_app.cite.planning import Plan, embed_plans, plan_sources
from rag_app.cite.relevance import judge_relevance
from rag_app.cite.report import Citation, CitationReport, SentenceCheck
from rag_app.cite.semantic import SemanticMatcher, semantic_bands
from rag_app.cite.support import SupportScorer
from rag_app.cite.tracing import trace_checks
from rag_app.cite.verdicts import english, not_factual_check, verdict
from rag_app.models import Chunk, Hit
from rag_app.protocols import Embedder
from rag_app.stage_settings import DEFAULT_CITE_SETTINGS, CiteSettings
from rag_app.text.aspects import SourceSubject, source_subject
from rag_app.understand.analysis import QueryAnalysis

if TYPE_CHECKING:
    from rag_app.prompt.builder import Source

# The names this module defined before the checker was split; kept importable from here.
__all__ = [
    "Citation",
    "CitationReport",
    "SentenceCheck",
    "SourceLike",
    "check_answer",
    "english",
    "semantic_bands",
]

SourceLike = Union["Source", Chunk, Hit]


def _chunk_of(source: Any) -> Chunk:
    if isinstance(source, Chunk):
        return source
    if isinstance(source, Hit):
        return source.chunk
    return source.hit.chunk  # a prompt Source


def _block_of(source: Any) -> str:
    """The prompt block the model saw of a prompt source; "" for a chunk or a hit."""
    if isinstance(source, (Chunk, Hit)):
        return ""
    block = getattr(source, "text", None)
    return block if isinstance(block, str) else ""


def _units_of(source: Any) -> list[str]:
    """What the model saw of a prompt source (its block) and what its card shows (the whole
    chunk): a block cut to the budget or to an excerpt leaves out sentences the offline
    answerer quotes from the chunk, and the reader checks them against the card."""
    units = source_units_from_chunk(_chunk_of(source))
    block = _block_of(source)
    return source_units_from_block(block) + units if block else units


def _as_mapping(sources: Mapping[int, Any] | Sequence[Any]) -> dict[int, Any]:
    if isinstance(sources, Mapping):
        return {int(k): v for k, v in sources.items()}
    return {int(s.number): s for s in sources}  # PromptResult.sources


def check_answer(
    text: str,
    sources: Mapping[int, SourceLike] | Sequence[Source],
    embedder: Embedder | None,
    question: QueryAnalysis,
    *,
    threshold: float | None = None,
    settings: CiteSettings = DEFAULT_CITE_SETTINGS,
) -> CitationReport:
    """Check the citations and the support of every sentence of an answer.

    ``sources`` maps each ``[Source N]`` number to what it stood for: a prompt ``Source`` (its
    ``text``, the block the model saw, and its whole chunk, which its card shows, are checked),
    a ``Chunk`` or a ``Hit`` (text, table rows,
    caption, description); ``PromptResult.sources`` may be passed as is. ``embedder`` adds the
    semantic side (one batched ``embed_queries`` call); None checks words and numbers only.
    ``question`` is the analysis of the question answered: with ``settings.relevance`` on (and
    a question not empty), each sentence is also checked to be about what it asks
    (``relevance``). ``threshold`` overrides ``settings.threshold``. Never raises on odd answer
    text; an empty answer gives an empty report.
    """
    settings_threshold = settings.threshold if threshold is None else float(threshold)
    source_map = _as_mapping(sources)
    refs = parse_citations(text, max_number=max(source_map, default=0) or None)
    citations, dangling = _citations(refs, source_map)
    spans = marker_spans(refs)
    sentences = read_sentences(text, spans, settings)

    evidence: dict[int, SourceEvidence] = {}
    if any(s.kind is None for s in sentences):
        evidence = {n: source_evidence(n, _units_of(s)) for n, s in sorted(source_map.items())}
    scorer = SupportScorer(settings, settings_threshold, SemanticMatcher(embedder, settings))
    checks = _check_sentences(sentences, evidence, scorer)
    relevance = settings.relevance and bool(question.text.strip())
    if relevance and any(c.factual for c in checks):
        subjects = {n: _subject_of(s) for n, s in source_map.items()}
        checks = judge_relevance(checks, text, question, subjects)
    if evidence:
        chunks = {n: _chunk_of(s) for n, s in source_map.items()}
        blocks = {n: b for n, s in source_map.items() if (b := _block_of(s))}
        checks = trace_checks(text, sentences, checks, spans, chunks, blocks, evidence)
    unsupported = sum(1 for c in checks if c.factual and not c.supported)
    uncited = sum(1 for c in checks if c.uncited)
    return CitationReport(
        citations=tuple(citations),
        sentences=tuple(checks),
        dangling=dangling,
        unsupported_count=unsupported,
        cited_sources=tuple(c.number for c in citations),
        uncited_count=uncited,
        relevance_checked=relevance,
        off_question_count=sum(1 for c in checks if c.off_question),
    )


def _subject_of(source: Any) -> SourceSubject:
    shown = "" if isinstance(source, (Chunk, Hit)) else str(getattr(source, "text", "") or "")
    return source_subject(_chunk_of(source), shown)


def _citations(
    refs: list[CitationRef], source_map: dict[int, Any]
) -> tuple[list[Citation], tuple[int, ...]]:
    """(the cited sources that exist, by number; the cited numbers that point to no source)."""
    positions: dict[int, list[int]] = {}
    for ref in refs:
        positions.setdefault(ref.number, []).append(ref.start)
    dangling = tuple(sorted(n for n in positions if n not in source_map))
    rows = []
    for number in sorted(n for n in positions if n in source_map):
        chunk = _chunk_of(source_map[number])
        rows.append(
            Citation(
                number=number,
                chunk_id=chunk.chunk_id,
                doc_id=chunk.doc_id,
                pages=tuple(chunk.pages),
                item_indices=tuple(chunk.item_indices),
                count=len(positions[number]),
                first_position=min(positions[number]),
            )
        )
    return rows, dangling


def _check_sentences(
    sentences: list[AnswerSentence], evidence: dict[int, SourceEvidence], scorer: SupportScorer
) -> list[SentenceCheck]:
    # Plan every factual sentence and embed what the plans need before any verdict, so the
    # embedder is called at most twice per answer.
    plans = [plan_sources(s, evidence, scorer) for s in sentences if s.kind is None and evidence]
    embed_plans(plans, scorer)
    planned = {id(p.sentence): p for p in plans}
    checks = []
    for sentence in sentences:
        if sentence.kind is not None:
            checks.append(not_factual_check(sentence))
        else:
            plan = planned.get(id(sentence), Plan(sentence, [], []))
            checks.append(verdict(plan, evidence, scorer))
    return checks
