"""What the strategies judge a candidate on: dense similarity, BM25, BM25 with the finance
synonyms (expansion), and the structure of tables and figures, plus the tables a paragraph
introduces.

Features of the whole knowledge base (structure tokens, introductions) are computed once per
generation (``per_generation``); a query's signals once per query (``query_signals``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

import numpy as np

from rag_app.index.library import Library, Snapshot
from rag_app.models import Chunk, SearchFilter
from rag_app.stage_settings import StrategyOptions
from rag_app.text.analyzer import index_tokens
from rag_app.text.phrasing import introduces_what_follows
from rag_app.text.query import QueryAnalysis
from rag_app.text.tables import column_labels, parse_table

# ------------------------------------------------------------------------------------------------
# Features of the knowledge base, computed once per generation.

T = TypeVar("T")
_feature_cache: dict[tuple[str, int, str, int], Any] = {}
_feature_lock = threading.Lock()


def per_generation(name: str, library: Library, kb: str, build: Callable[[Snapshot], T]) -> T:
    """``build(snapshot)``, computed once per knowledge-base generation and feature ``name``
    (the entries of older generations are dropped when a newer one is built)."""
    snap = library.snapshot(kb)
    key = (name, id(library), kb, snap.generation)
    with _feature_lock:
        if key in _feature_cache:
            return cast(T, _feature_cache[key])
    value = build(snap)
    with _feature_lock:
        for old in [k for k in _feature_cache if k[:3] == key[:3]]:
            del _feature_cache[old]
        _feature_cache[key] = value
    return value


def _doc_titles(chunks: dict[str, Chunk]) -> dict[str, str]:
    titles: dict[str, str] = {}
    for chunk in chunks.values():
        if chunk.doc_id not in titles and chunk.heading_path:
            titles[chunk.doc_id] = chunk.heading_path[0]
    return titles


def structure_tokens(library: Library, kb: str) -> dict[str, frozenset[str]]:
    """Tokens of each table's caption, column headers and row labels, and each figure's caption,
    plus the document title: what a query naming a table or chart matches."""
    return per_generation("structure", library, kb, _structure_tokens)


def _structure_tokens(snap: Snapshot) -> dict[str, frozenset[str]]:
    titles = _doc_titles(snap.chunks)
    out: dict[str, frozenset[str]] = {}
    for chunk_id, chunk in snap.chunks.items():
        if chunk.type == "table":
            parts = [chunk.caption]
            if chunk.table_html:
                grid = parse_table(chunk.table_html)
                parts.extend(column_labels(grid))
                parts.extend(row[0] for row in grid.data_rows if row)
        elif chunk.type == "image":
            parts = [chunk.caption, chunk.description[:200]]
        else:
            continue
        parts.append(titles.get(chunk.doc_id, ""))
        out[chunk_id] = frozenset(index_tokens(" ".join(p for p in parts if p)))
    return out


def introduced_tables(library: Library, kb: str) -> dict[str, tuple[str, ...]]:
    """For each text chunk, the tables it introduces: those whose context paragraph (the one
    just before the table, kept on the table chunk) is part of that text chunk."""
    return per_generation("introductions", library, kb, _introduced_tables)


def _introduced_tables(snap: Snapshot) -> dict[str, tuple[str, ...]]:
    texts: dict[str, list[Chunk]] = {}
    for chunk in snap.chunks.values():
        if chunk.type == "text":
            texts.setdefault(chunk.doc_id, []).append(chunk)
    found: dict[str, list[str]] = {}
    seen_tables: set[tuple[str, str]] = set()
    for chunk_id, chunk in sorted(snap.chunks.items(), key=lambda p: p[1].subtable_index):
        paragraph = chunk.context.strip() if chunk.type == "table" else ""
        if len(paragraph) < 8 or not introduces_what_follows(paragraph):
            continue
        if chunk.parent_table_id:
            # A table split by rows is introduced once: its first part carries the lift (the
            # prompt merges whatever parts come back into one table).
            if (chunk.doc_id, chunk.parent_table_id) in seen_tables:
                continue
            seen_tables.add((chunk.doc_id, chunk.parent_table_id))
        paragraph = paragraph.removesuffix("…").strip()
        for text in texts.get(chunk.doc_id, ()):
            if paragraph in text.text:
                found.setdefault(text.chunk_id, []).append(chunk_id)
                break
    return {text_id: tuple(tables) for text_id, tables in found.items()}


# ------------------------------------------------------------------------------------------------
# Per-query signals


@dataclass(frozen=True)
class Search:
    """One query over one knowledge base: its words, the snapshot searched, the filter and the
    types it is narrowed to, and the options every stage reads."""

    library: Library
    kb: str
    query: QueryAnalysis
    filter: SearchFilter
    options: StrategyOptions
    snap: Snapshot
    types: tuple[str, ...]

    def allows(self, chunk: Chunk) -> bool:
        """Whether the filter's documents (all when it names none) include the chunk's."""
        return not self.filter.doc_ids or chunk.doc_id in self.filter.doc_ids

    def admits(self, chunk: Chunk) -> bool:
        """Whether the chunk is searched at all: an allowed document and a searched type."""
        return self.allows(chunk) and chunk.type in self.types


@dataclass
class Signals:
    """A query's raw scores per chunk id. ``dense`` and ``dense_lists`` are filled in as the
    search runs: the nearest chunks per type first, then every candidate scored."""

    query: str
    query_tokens: list[str]
    vector: np.ndarray | None
    bm25: dict[str, float]
    bm25_top: float
    expanded_terms: list[str]
    expansion: dict[str, float] = field(default_factory=dict)
    expansion_top: float = 0.0
    dense: dict[str, float] = field(default_factory=dict)
    dense_lists: dict[str, list[tuple[str, float]]] = field(default_factory=dict)
    structure: dict[str, float] = field(default_factory=dict)

    def dense_range(self) -> tuple[float, float]:
        """The weakest and best similarity over the per-type nearest lists; (0, 1) when empty."""
        values = [s for lst in self.dense_lists.values() for _, s in lst]
        if not values:
            return 0.0, 1.0
        return min(values), max(values)


def normalise(value: float, low: float, high: float) -> float:
    """``value`` rescaled to [0, 1] between ``low`` and ``high`` (1 or 0 when they meet)."""
    if high <= low:
        return 1.0 if value >= high else 0.0
    return float(min(1.0, max(0.0, (value - low) / (high - low))))


def query_signals(search: Search) -> Signals:
    """The query's signals over the chunks ``search`` admits: BM25 of its tokens, BM25 with the
    finance synonyms added (when expansion is on and a synonym applies), its embedding (when the
    base has chunks) and structure overlaps (when structure is on). Dense similarities are added
    later: per type by ``dense_list``, per candidate when scored."""
    query = search.query
    tokens = list(query.index_tokens)
    bm25 = _keyword_scores(search, tokens)
    options = search.options
    expanded = list(query.synonyms) if options.use_expansion else []
    signals = Signals(
        query=query.text,
        query_tokens=tokens,
        vector=None,
        bm25=bm25,
        bm25_top=max(bm25.values(), default=0.0),
        expanded_terms=expanded,
    )
    if expanded:
        signals.expansion = _keyword_scores(search, tokens + list(query.synonym_tokens))
        signals.expansion_top = max(signals.expansion.values(), default=0.0)
    if search.snap.chunks:
        signals.vector = search.library.embedder.embed_queries([query.text])[0]
    if options.use_structure:
        signals.structure = _structure_overlaps(
            search, tokens, list(query.synonym_tokens) if expanded else []
        )
    return signals


def _keyword_scores(search: Search, tokens: list[str]) -> dict[str, float]:
    """BM25 of ``tokens`` for every admitted chunk that scores above 0, in index order."""
    keywords = search.snap.keywords
    out: dict[str, float] = {}
    for chunk_id, score in zip(keywords.ids, keywords.scores(tokens)):
        if score > 0:
            chunk = search.snap.chunks.get(chunk_id)
            if chunk is not None and search.admits(chunk):
                out[chunk_id] = float(score)
    return out


def _structure_overlaps(
    search: Search, tokens: list[str], synonym_tokens: list[str]
) -> dict[str, float]:
    """Share of the query's tokens each table or figure's structure tokens hold."""
    query_set = set(tokens)
    # Synonyms count half: they widen the match (a query in English meets Chinese
    # captions) but must not outrank the user's own words.
    synonym_set = set(synonym_tokens) - query_set
    out: dict[str, float] = {}
    if not query_set:
        return out
    for chunk_id, words in structure_tokens(search.library, search.kb).items():
        chunk = search.snap.chunks.get(chunk_id)
        if chunk is None or not search.admits(chunk):
            continue
        direct = len(query_set & words)
        unmatched = len(query_set) - direct
        via_synonyms = min(unmatched, len(synonym_set & words))
        overlap = direct + 0.5 * via_synonyms
        if overlap:
            out[chunk_id] = overlap / len(query_set)
    return out


def dense_list(
    search: Search, vector: np.ndarray | None, chunk_type: str
) -> list[tuple[str, float]]:
    """The ``candidates`` chunks of one type nearest to ``vector`` in the store, as (chunk id,
    similarity), best first; empty without a vector."""
    if vector is None:
        return []
    found = search.library.store.query(
        search.kb,
        vector,
        search.options.candidates,
        SearchFilter(types=(chunk_type,), doc_ids=search.filter.doc_ids),
    )
    return [(i, s) for i, s in found if i in search.snap.chunks]
