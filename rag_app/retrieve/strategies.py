"""Smart and hybrid retrieval over all content types, with layered recall (seeds 000, 003, 004).

How a query is answered:
1. Signals are computed once (``signals``): the query vector, BM25 over every chunk, and the
   synonym expansion (finance terms).
2. Per type (text / table / image / qa), in parallel, layered recall admits candidates
   (``recall``): text = semantic, then keyword, then expansion; tables and figures = structure
   (caption, headers, row labels, document title), then semantic, keyword, expansion. A layer
   runs only while the type has fewer candidates than its target, and thresholds fall back
   0.7 -> 0.6 -> 0.5 (seed 003) on *normalised* scores: e5 similarities sit in a narrow band
   (0.78-0.93 here), so a raw 0.7 would admit everything. Each score is rescaled per query to
   [0, 1] between the weakest and the best candidate of that signal over all types, which is
   model-independent.
3. Every admitted candidate is scored on all signals (exact dense similarity, BM25, structure,
   expansion), not only the one that found it, and the weighted sum ranks it (``scoring``):
   layers decide who is considered, the fused score decides the order.
4. Across types: per-type weights (seed 000: text 0.4, table 0.3, image 0.3) damp a type's
   score mildly, each type with a strong candidate keeps at least one place in the top k, and
   duplicates (same source items) are removed.
Smart mode takes the hybrid answer as a first look, decides the query's type from its cues, the
captions and the first look's types (``routing``), and at or above the threshold puts that
type's hits first, filling with other types when it finds too little. A query naming several reports is
retrieved once per report (``subjects``). The knobs are ``StrategyOptions`` (``options``).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace

import numpy as np

from rag_app.config import Settings
from rag_app.index.library import Library
from rag_app.models import (
    NO_FILTER,
    Hit,
    LayerStep,
    Reason,
    RetrievalTrace,
    Routing,
    SearchFilter,
    Signal,
)
from rag_app.retrieve.options import StrategyOptions, options_from
from rag_app.retrieve.recall import LAYERS, admit, layer_ranking, recall_layers
from rag_app.retrieve.router import router_input
from rag_app.retrieve.routing import detect_query_type, routing_features
from rag_app.retrieve.scoring import finalise, rank
from rag_app.retrieve.signals import (
    Search,
    dense_list,
    introduced_tables,
    query_signals,
    structure_tokens,
)
from rag_app.retrieve.subjects import (
    company_named,
    per_subject_trace,
    report_first,
    subjects_by_document,
    within_company_trace,
    without,
)
from rag_app.text.subjects import named_subjects
from rag_app.understand.analysis import QueryAnalysis, analyse_query

# The per-type store queries of every question run here (threads made once, not per question).
_POOL = ThreadPoolExecutor(max_workers=4, thread_name_prefix="dense")

__all__ = [
    "LAYERS",
    "StrategyOptions",
    "StrategyRetriever",
    "caption_matches",
    "hybrid_hits",
    "introduced_tables",
    "options_from",
    "per_subject_trace",
    "retrieve",
    "retrieve_query",
    "routing_inputs",
    "single_type_hits",
    "structure_tokens",
    "subjects_by_document",
]


class _Run:
    """One query's retrieval over one knowledge base: the search, its signals, and the recall
    steps taken (the trace's layers)."""

    def __init__(
        self,
        library: Library,
        kb: str,
        query: QueryAnalysis,
        search_filter: SearchFilter,
        options: StrategyOptions,
        types: Sequence[str],
    ) -> None:
        searched = tuple(t for t in types if not search_filter.types or t in search_filter.types)
        snap = library.snapshot(kb)
        self.search = Search(library, kb, query, search_filter, options, snap, searched)
        self.steps: list[LayerStep] = []
        self.signals = query_signals(self.search)
        self._dense: dict[str, list[tuple[str, float]]] = {}

    def dense_for(self, chunk_type: str) -> list[tuple[str, float]]:
        # Cached: smart mode's first look and its single-type search share the store queries.
        if chunk_type not in self._dense:
            self._dense[chunk_type] = dense_list(self.search, self.signals.vector, chunk_type)
        return self._dense[chunk_type]

    def layer_list(self, chunk_type: str, layer: str) -> list[tuple[str, float]]:
        """(chunk id, normalised layer score) of one layer for one type, best first."""
        return layer_ranking(self.search, self.signals, chunk_type, layer)

    def recall(self, chunk_type: str, target: int) -> dict[str, str]:
        """Admitted candidate ids of a type, each with the layer that first found it."""
        layers = recall_layers(chunk_type, self.search.options, self.signals)
        lists = {layer: self.layer_list(chunk_type, layer) for layer in layers}
        admitted, steps = admit(chunk_type, target, lists, self.search.options)
        self.steps.extend(steps)
        return admitted


def hybrid_hits(run: _Run, k: int, types: Sequence[str]) -> list[Hit]:
    """Hits of all ``types``, best first: each type's nearest chunks fetched in parallel, its
    candidates recalled layer by layer, then all of them ranked together."""
    target = max(10, int(k * run.search.options.recall_factor))
    dense_lists = dict(zip(types, _POOL.map(run.dense_for, types)))
    run.signals.dense_lists = dense_lists
    for lst in dense_lists.values():
        run.signals.dense.update(lst)
    admitted: dict[str, str] = {}
    for chunk_type in types:
        for chunk_id, layer in run.recall(chunk_type, target).items():
            admitted.setdefault(chunk_id, layer)
    return rank(run.search, run.signals, admitted, k, types)


def single_type_hits(run: _Run, k: int, chunk_type: str, types: Sequence[str]) -> list[Hit]:
    """Hits of one type, ranked with their document's evidence from every type.

    The answer is wanted from (say) a table, but which report's table is often told by its
    paragraphs: "the table" of a question names no report. Each hit of the type gains
    ``doc_weight_single`` times the best score any chunk of its document reached.
    """
    everything = hybrid_hits(run, max(k * 3, 30), types)
    best: dict[str, float] = {}
    for hit in everything:
        best[hit.chunk.doc_id] = max(best.get(hit.chunk.doc_id, 0.0), hit.score)
    weight = run.search.options.doc_weight_single
    ranked = [
        replace(
            h,
            score=round(h.score + weight * best[h.chunk.doc_id], 6),
            signals=h.signals + (("document", Signal(best[h.chunk.doc_id], 0)),),
        )
        for h in everything
        if h.chunk.type == chunk_type
    ]
    ranked.sort(key=lambda h: (-h.score, h.chunk.chunk_id))
    return ranked


def _types_present(library: Library, kb: str) -> tuple[str, ...]:
    present = library.snapshot(kb).chunks.types_present()
    return tuple(t for t in ("text", "table", "image", "qa") if t in present)


def caption_matches(run: _Run, minimum: float = 0.6) -> dict[str, list[str]]:
    """Captions (tables, figures) that cover most of the query's words: routing evidence."""
    out: dict[str, list[str]] = {}
    query_tokens = run.signals.query_tokens
    if len(query_tokens) < 2:
        return out
    # Best first; captions and their tokens come with each document's features (no chunk
    # read, no segmenting per question).
    snap = run.search.snap
    query_set = set(query_tokens)
    covering = [(i, share) for i, share in run.signals.structure.items() if share >= minimum]
    for chunk_id, _share in sorted(covering, key=lambda p: -p[1]):
        found = snap.features[snap.chunks.doc_of(chunk_id)].captions.get(chunk_id)
        if found is not None and len(found[1] & query_set) >= 2:
            out.setdefault(snap.chunks.type_of(chunk_id), []).append(found[0])
    return out


def routing_inputs(
    library: Library,
    kb: str,
    query: QueryAnalysis,
    search_filter: SearchFilter = NO_FILTER,
    options: StrategyOptions | None = None,
) -> tuple[dict[str, tuple[float, ...]], np.ndarray | None, tuple[str, ...]]:
    """What smart mode's router reads for ``query`` (its analysis): the evidence per type
    (``FEATURES`` order), the query's embedding and the types the library holds (the router's
    training rows, ``rag_app.evaluation.router_fit``)."""
    options = options or StrategyOptions()
    types = _types_present(library, kb)
    run = _Run(library, kb, query, search_filter, options, types)
    first = hybrid_hits(run, 10, types)
    look = [h.chunk.type for h in first[: options.routing_look]]
    features, _ = routing_features(query, options.cues, caption_matches(run), look)
    return features, run.signals.vector, types


def _smart_hits(
    run: _Run,
    k: int,
    routing: Routing,
    first: list[Hit],
    types: Sequence[str],
    company_first: bool = False,
) -> tuple[list[Hit], list[tuple[str, Reason]]]:
    """Smart mode's hits and notes (each in words and as a key): hybrid plus a preference, never
    a replacement.

    Unrouted: the first look (the hybrid answer). Routed: the first look's ranking and the
    routed type's own (its candidates recalled deeper, each ranked with its document's evidence)
    fused by reciprocal rank, the routed list weighted ``smart_preference`` x confidence. A hit of
    another type keeps its hybrid rank's share, so what hybrid finds can still be found; the
    routed type's hits move up."""
    if not routing.single_type:
        return first, []
    options = run.search.options
    preferred = routing.detected_type
    routed = single_type_hits(run, k, preferred, types)
    if company_first:  # the type's hits in the company's order first, then the others
        own = [h for h in first if h.chunk.type == preferred]
        mine = {h.chunk.chunk_id for h in own}
        routed = own + [h for h in routed if h.chunk.chunk_id not in mine]
    weight = options.smart_preference * routing.confidence
    c = options.smart_rrf_k
    fused: dict[str, float] = {}
    by_id: dict[str, Hit] = {}
    for place, hit in enumerate(first, start=1):
        fused[hit.chunk.chunk_id] = 1 / (c + place)
        by_id[hit.chunk.chunk_id] = hit
    for place, hit in enumerate(routed, start=1):
        cid = hit.chunk.chunk_id
        fused[cid] = fused.get(cid, 0.0) + weight / (c + place)
        by_id[cid] = hit  # with its document's evidence
    order = sorted(fused, key=lambda cid: (-fused[cid], cid))
    hits = [
        replace(
            by_id[cid],
            score=round(fused[cid], 6),
            signals=by_id[cid].signals + (("smart_fused", Signal(fused[cid], place)),),
        )
        for place, cid in enumerate(order[: max(k, len(first))], start=1)
    ]
    moved = sum(1 for a, b in zip(first, hits) if a.chunk.chunk_id != b.chunk.chunk_id)
    added = [h for h in hits[:k] if h.chunk.chunk_id not in {f.chunk.chunk_id for f in first}]
    note = (
        f"smart: {preferred} preferred ({routing.confidence:.2f}); {moved} of {len(first)} "
        f"places changed, {len(added)} {preferred} hits beyond hybrid's"
    )
    why = Reason.of(
        "note_smart",
        type=preferred,
        confidence=f"{routing.confidence:.2f}",
        moved=moved,
        total=len(first),
        added=len(added),
    )
    return hits, [(note, why)]


def retrieve(
    library: Library,
    kb: str,
    query: str,
    mode: str = "hybrid",
    k: int = 10,
    search_filter: SearchFilter = NO_FILTER,
    settings: Settings | None = None,
    options: StrategyOptions | None = None,
) -> RetrievalTrace:
    """Retrieve the top ``k`` hits of the question ``query`` (scripts and tests: the question is
    analysed here, then ``retrieve_query``). Raises ValueError for an unknown mode or an empty
    query."""
    if not query.strip():
        raise ValueError("the query is empty")
    return retrieve_query(
        library, kb, analyse_query(query), mode, k, search_filter, settings, options
    )


def retrieve_query(
    library: Library,
    kb: str,
    query: QueryAnalysis,
    mode: str = "hybrid",
    k: int = 10,
    search_filter: SearchFilter = NO_FILTER,
    settings: Settings | None = None,
    options: StrategyOptions | None = None,
    routed: Routing | None = None,
) -> RetrievalTrace:
    """Retrieve the top ``k`` hits of all types (hybrid) or of the detected type (smart) for a
    question's analysis (the pipeline analyses a question once for every stage); smart mode
    takes ``routed`` as its routing when given. Raises ValueError for an unknown mode or an
    empty query.
    """
    if not query.text.strip():
        raise ValueError("the query is empty")
    if mode not in ("smart", "hybrid"):
        raise ValueError(f"unknown mode {mode!r}; use smart or hybrid")
    analysis, text = query, query.text
    options = options or options_from(settings)
    if options.use_subjects:
        named = named_subjects(text, subjects_by_document(library, kb), search_filter.doc_ids)
        if len(named) >= 2:
            single = replace(options, use_subjects=False)  # each subject retrieved on its own

            def retrieve_one(sub_query: str, sub_filter: SearchFilter) -> RetrievalTrace:
                # the question with the other subjects taken out: a question of its own
                return retrieve(library, kb, sub_query, mode, k, sub_filter, settings, single)

            return per_subject_trace(text, mode, k, search_filter, named, retrieve_one)
        spellings, docs = company_named(text, analysis.name, library, kb, search_filter.doc_ids)
        unnamed_text = without(text, spellings) if spellings else ""
        if unnamed_text and unnamed_text != text:
            single = replace(options, use_subjects=False)
            if mode == "smart":  # hybrid's company-first ranking, with the preference on it
                base = retrieve_query(
                    library, kb, query, "hybrid", k, search_filter, settings, options
                )
                ranked = _ranked(library, kb, query, mode, k, search_filter, single, routed, base)
                if base.hits and base.hits[0].chunk.doc_id in docs:  # its report still first
                    return replace(ranked, hits=tuple(report_first(ranked.hits, docs)))
                return ranked
            whole = retrieve_query(library, kb, query, mode, k, search_filter, settings, single)
            unnamed = retrieve_query(
                library, kb, analyse_query(unnamed_text), mode, k,
                replace(search_filter, doc_ids=docs), settings, single,
            )  # fmt: skip
            return within_company_trace(whole, spellings[0], docs, unnamed, k)
    return _ranked(library, kb, query, mode, k, search_filter, options, routed)


def _ranked(
    library: Library,
    kb: str,
    analysis: QueryAnalysis,
    mode: str,
    k: int,
    search_filter: SearchFilter,
    options: StrategyOptions,
    routed: Routing | None,
    base: RetrievalTrace | None = None,
) -> RetrievalTrace:
    """``retrieve_query``'s ranking of one question: hybrid's, or smart's preference fused onto
    hybrid's (``base`` when hybrid's answer is already made, as for a company's report)."""
    text = analysis.text
    started = time.perf_counter()
    types = _types_present(library, kb)
    if search_filter.types:
        types = tuple(t for t in types if t in search_filter.types)
    if not types:
        return RetrievalTrace(
            query=text,
            mode=mode,
            hits=(),
            notes=("the knowledge base has no documents",),
            why=(Reason("note_no_documents"),),
        )
    run = _Run(library, kb, analysis, search_filter, options, types)
    routing: Routing | None = None
    notes: list[tuple[str, Reason]] = []
    if base is not None:
        notes = list(zip(base.notes, base.why, strict=False))
    if mode == "smart":
        first = list(base.hits) if base is not None else hybrid_hits(run, k, types)
        look = [h.chunk.type for h in first[: options.routing_look]]
        learned = (
            router_input(
                run.signals.vector, getattr(library.embedder, "name", ""), options.router_path
            )
            if options.learned_router
            else None
        )
        routing = routed or detect_query_type(
            analysis,
            None,  # the learned router's threshold, or the constants'
            options.cues,
            caption_matches(run),
            available=types,
            look=look,
            options=options,
            learned=learned,
        )
        hits, preferred = _smart_hits(run, k, routing, first, types, base is not None)
        notes += preferred
    else:
        hits = hybrid_hits(run, k, types)
    return RetrievalTrace(
        query=text,
        mode=mode,
        hits=finalise(hits, k),
        routing=routing,
        layers=tuple(run.steps),
        notes=tuple(note for note, _ in notes),
        why=tuple(why for _, why in notes),
        expanded_terms=tuple(run.signals.expanded_terms),
        ms=(time.perf_counter() - started) * 1000 + (base.ms if base is not None else 0.0),
    )


@dataclass
class StrategyRetriever:
    """Adapter giving smart/hybrid the Retriever interface used by search and eval."""

    library: Library
    kb: str
    mode: str
    settings: Settings | None = None
    options: StrategyOptions | None = None
    name: str = ""
    # The routing of the last query (smart mode), for the evaluation's per-question rows.
    last_routing: Routing | None = None

    def retrieve(
        self, query: QueryAnalysis, k: int, search_filter: SearchFilter = NO_FILTER
    ) -> list[Hit]:
        """The top ``k`` hits of ``query`` (see ``retrieve_query``); raises ValueError like it."""
        trace = retrieve_query(
            self.library, self.kb, query, self.mode, k, search_filter, self.settings, self.options
        )
        self.last_routing = trace.routing
        return list(trace.hits)
