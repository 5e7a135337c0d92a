"""What the strategies judge a candidate on: dense similarity, BM25, BM25 with the finance
synonyms (expansion), and the structure of tables and figures, plus the tables a paragraph
introduces.

Features of the whole knowledge base (structure tokens, introductions) are gathered once per
generation (``per_generation``) from each document's, which the index computes once per document
(``rag_app.index.doc_features``); a query's signals once per query (``query_signals``), by
lookups (keyword postings, an inverted index of structure tokens) rather than passes over every
chunk.
"""

from __future__ import annotations

import math
import re
import threading
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

import numpy as np

from rag_app.index.library import Library, Snapshot
from rag_app.models import Chunk, SearchFilter
from rag_app.stage_settings import StrategyOptions
from rag_app.text.analyzer import QUESTION_STOPWORDS_EN, index_tokens
from rag_app.text.renderings import renderings
from rag_app.text.synonyms import FINANCE_SYNONYMS
from rag_app.understand.analysis import QueryAnalysis

# ------------------------------------------------------------------------------------------------
# Features of the knowledge base, computed once per generation.

T = TypeVar("T")
# Per library (held weakly: a library's entries go with it, and a new library never finds
# another's, as it could by an object id reused after the first was freed), per (feature, knowledge
# base, generation).
_feature_cache: weakref.WeakKeyDictionary[Library, dict[tuple[str, str, int], Any]] = (
    weakref.WeakKeyDictionary()
)
_feature_lock = threading.Lock()


def per_generation(
    name: str,
    library: Library,
    kb: str,
    build: Callable[[Snapshot], T],
    snap: Snapshot | None = None,
) -> T:
    """``build(snapshot)``, computed once per knowledge-base generation and feature ``name``
    (the entries of older generations are dropped when a newer one is built); of ``snap`` when
    given (a query's own snapshot), else of the current one."""
    snap = snap or library.snapshot(kb)
    key = (name, kb, snap.generation)
    with _feature_lock:
        held = _feature_cache.setdefault(library, {})
        if key in held:
            return cast(T, held[key])
    value = build(snap)
    with _feature_lock:
        held = _feature_cache.setdefault(library, {})
        for old in [k for k in held if k[:2] == key[:2]]:
            del held[old]
        held[key] = value
    return value


# Per library (weakly, as above), per (feature, knowledge base): document id -> (version, value).
_doc_cache: weakref.WeakKeyDictionary[
    Library, dict[tuple[str, str], dict[str, tuple[str, Any]]]
] = weakref.WeakKeyDictionary()


def per_document(
    name: str, library: Library, kb: str, build: Callable[[list[Chunk]], T]
) -> dict[str, T]:
    """``build(chunks of a document)`` for every document (id order), kept per document version
    across generations: after an upload only the new documents are built (their chunks read
    from the store), not the library."""

    def gather(snap: Snapshot) -> dict[str, T]:
        key = (name, kb)
        with _feature_lock:
            old = dict(_doc_cache.get(library, {}).get(key, {}))
        kept: dict[str, tuple[str, Any]] = {}
        for doc_id, version in snap.versions.items():
            found = old.get(doc_id)
            if found is None or found[0] != version:
                ids = snap.chunks.doc_chunk_ids(doc_id)
                chunks = snap.chunks.get_many(ids)
                found = (version, build([chunks[i] for i in ids if i in chunks]))
            kept[doc_id] = found
        with _feature_lock:
            _doc_cache.setdefault(library, {})[key] = kept
        return {d: cast(T, v) for d, (_, v) in kept.items()}

    return per_generation(f"documents:{name}", library, kb, gather)


@dataclass(frozen=True)
class StructureIndex:
    """Structure tokens of every table and figure (``words``: chunk id -> tokens, in catalogue
    order) and, per token, the places (in the snapshot's order) of the chunks holding it."""

    words: dict[str, frozenset[str]]
    postings: dict[str, np.ndarray]  # int64 places, ascending


def structure_tokens(library: Library, kb: str) -> dict[str, frozenset[str]]:
    """Tokens of each table's caption, column headers and row labels, and each figure's caption,
    plus the document title: what a query naming a table or chart matches."""
    return structure_index(library, kb).words


def structure_index(library: Library, kb: str, snap: Snapshot | None = None) -> StructureIndex:
    return per_generation("structure", library, kb, _structure_index, snap)


def _structure_index(snap: Snapshot) -> StructureIndex:
    words: dict[str, frozenset[str]] = {}
    postings: dict[str, list[int]] = {}
    position = snap.chunks.position
    for features in snap.features.values():  # documents in id order, chunks in theirs
        words.update(features.structure)
        for chunk_id, tokens in features.structure.items():
            place = position.get(chunk_id)
            if place is not None:
                for token in tokens:
                    postings.setdefault(token, []).append(place)
    return StructureIndex(words, {t: np.asarray(p, dtype=np.int64) for t, p in postings.items()})


def introduced_tables(library: Library, kb: str) -> Mapping[str, tuple[str, ...]]:
    """For each text chunk, the tables it introduces: those whose context paragraph (the one
    just before the table, kept on the table chunk) is part of that text chunk."""
    return per_generation("introductions", library, kb, _introduced_tables)


def _introduced_tables(snap: Snapshot) -> dict[str, tuple[str, ...]]:
    out: dict[str, tuple[str, ...]] = {}
    for features in snap.features.values():
        out.update(features.introduced)
    return out


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

    def admitted(self) -> np.ndarray:
        """``admits`` for every chunk of the snapshot, as a mask in its order."""
        return self.snap.chunks.mask(self.types, self.filter.doc_ids)

    def allows_id(self, chunk_id: str) -> bool:
        """``allows`` by id (no chunk read)."""
        return not self.filter.doc_ids or self.snap.chunks.doc_of(chunk_id) in self.filter.doc_ids


class Scores(dict[str, float]):
    """chunk id -> score, with ``places``: each chunk's place in the snapshot, in key order
    (so per-type rankings need no lookup per chunk)."""

    places: np.ndarray | None = None


def _scores(ids: list[str], places: np.ndarray, values: np.ndarray) -> Scores:
    out = Scores(zip([ids[p] for p in places.tolist()], values.tolist()))
    out.places = places
    return out


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
    # per layer, the layer's normalised ranking per type (recall), and the BM25 ranks (scoring)
    by_type: dict[str, dict[str, list[tuple[str, float]]]] = field(default_factory=dict)
    _bm25_rank: dict[str, int] | None = None

    def bm25_rank(self) -> dict[str, int]:
        """chunk id -> its rank by BM25 (1 = best; ties in index order), computed once."""
        if self._bm25_rank is None:
            ids = list(self.bm25)
            order = np.argsort(-np.fromiter(self.bm25.values(), float, len(ids)), kind="stable")
            self._bm25_rank = {ids[j]: r for r, j in enumerate(order.tolist(), 1)}
        return self._bm25_rank

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
    base has chunks; ``QueryAnalysis.embedding``, computed once per question) and structure
    overlaps (when structure is on). Dense similarities are added later: per type by
    ``dense_list``, per candidate when scored."""
    query = search.query
    tokens = list(query.index_tokens)
    # an English question's Chinese terms count as its words for BM25 alone (over English
    # text they match nothing; the other signals read the question as written)
    bm25 = _keyword_scores(search, tokens + list(query.bridged_tokens) + _rendered(search))
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
        # Kept on the analysis: the operation read reuses it (the question embedded once).
        signals.vector = query.embedding(search.library.embedder)
    if options.use_structure:
        signals.structure = _structure_overlaps(
            search, tokens, list(query.synonym_tokens) if expanded else []
        )
    return signals


def _rendered(search: Search) -> list[str]:
    """An English question's words as a Chinese library writes them: each lower-case content
    word's dictionary renderings (``text.renderings``) that the keyword index holds, as index
    tokens ("board meetings" -> 董事会, 会议); none over a library with no Chinese words."""
    query, keywords = search.query, search.snap.keywords
    if query.language != "en" or not keywords.holds_chinese:
        return []
    # the words of a term the finance lexicon names in Chinese (gross margin: 毛利率) aside
    known = {w for term in FINANCE_SYNONYMS.known_terms(query.text) for w in term.split()}
    held = [
        chinese
        for word in _LOWER_WORD.findall(query.text)
        if word not in QUESTION_STOPWORDS_EN and word not in known
        for chinese in sorted(renderings(word))
        if keywords.holds(chinese)
    ]
    return index_tokens(" ".join(dict.fromkeys(held))) if held else []


# A lower-case English word of three letters or more: a name's words are capitalised.
_LOWER_WORD = re.compile(r"(?<![A-Za-z])[a-z]{3,}(?![A-Za-z])")


def _keyword_scores(search: Search, tokens: list[str]) -> dict[str, float]:
    """BM25 of ``tokens`` for every admitted chunk that scores above 0, in index order."""
    keywords = search.snap.keywords
    chunks = search.snap.chunks
    scores = keywords.scores(tokens)
    if keywords.ids is chunks.ids:  # the snapshot's order: a mask, no per-chunk lookup
        places = np.flatnonzero((scores > 0) & search.admitted())
        return _scores(chunks.ids, places, scores[places].astype(float))
    out: dict[str, float] = {}
    for chunk_id, score in zip(keywords.ids, scores):
        if score > 0 and chunk_id in chunks and _admits_id(search, chunk_id):
            out[chunk_id] = float(score)
    return out


def _admits_id(search: Search, chunk_id: str) -> bool:
    return search.snap.chunks.type_of(chunk_id) in search.types and search.allows_id(chunk_id)


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
    index = structure_index(search.library, search.kb, search.snap)
    ids = search.snap.chunks.ids
    # Only chunks holding a word of the query (or a synonym) can overlap: counted from the
    # postings (a place once per token it holds), in the snapshot's order (the order ties keep).
    direct = _counts(index, query_set, len(ids))
    synonyms = _counts(index, synonym_set, len(ids))
    unmatched = len(query_set) - direct
    overlap = direct + 0.5 * np.minimum(unmatched, synonyms)
    places = np.flatnonzero((overlap > 0) & search.admitted())
    return _scores(ids, places, overlap[places] / len(query_set))


def _counts(index: StructureIndex, tokens: set[str], size: int) -> np.ndarray:
    """How many of ``tokens`` each chunk's structure holds (by place)."""
    found = [index.postings[t] for t in tokens if t in index.postings]
    if not found:
        return np.zeros(size, dtype=np.int64)
    return np.bincount(np.concatenate(found), minlength=size)[:size]


def dense_list(
    search: Search, vector: np.ndarray | None, chunk_type: str
) -> list[tuple[str, float]]:
    """The ``candidates`` chunks of one type nearest to ``vector`` in the store, as (chunk id,
    similarity), best first; empty without a vector."""
    if vector is None:
        return []
    k, chunks, options = search.options.candidates, search.snap.chunks, search.options
    if len(chunks) >= options.overfetch_from_chunks:
        docs = search.filter.doc_ids
        share = chunks.mask((chunk_type,), docs).sum() / max(1, chunks.mask((), docs).sum())
        if share > 0 and share >= options.overfetch_min_share:
            wide = search.library.nearest(
                search.kb,
                vector,
                math.ceil(k / share * options.overfetch_margin),
                SearchFilter(doc_ids=search.filter.doc_ids),
                search.snap,
            )
            own = [(i, s) for i, s in wide if i in chunks and chunks.type_of(i) == chunk_type]
            if len(own) >= k:
                return own[:k]
    found = search.library.nearest(
        search.kb,
        vector,
        k,
        SearchFilter(types=(chunk_type,), doc_ids=search.filter.doc_ids),
        search.snap,
    )
    return [(i, s) for i, s in found if i in chunks]
