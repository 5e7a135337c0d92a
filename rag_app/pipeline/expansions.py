"""Seed 001's query rewrites with a configured model: more queries, their retrievals fused with
the question's own.

Multi-query (other phrasings), HyDE (a hypothetical answer passage as the query) and
decomposition (the sub-questions of a multi-part question), each a setting of
``Settings.rewrites``, off by default. Each added query is retrieved as the question is (same
mode, same filter); the lists are fused by reciprocal rank, every list weighing the same (as
RAG-Fusion does), and each added query's best chunk is kept in whatever the others agree on. The
question's own hits keep their strategy and note; a hit only a rewrite found says which; the
trace lists every added query with the chunks it brought.
A rewrite that fails is a note in the trace, never an error.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from rag_app.answer.base import LLM
from rag_app.answer.rewrite import (
    RewriteFailed,
    hypothetical_passage,
    other_phrasings,
    sub_questions,
)
from rag_app.models import Expansion, Hit, Reason, RetrievalTrace
from rag_app.stage_settings import RewriteSettings

Retrieve = Callable[[str], RetrievalTrace]


def added_queries(
    llm: LLM, question: str, settings: RewriteSettings
) -> tuple[list[tuple[str, str]], list[tuple[str, Reason]]]:
    """(kind, query) pairs the enabled rewrites give for ``question``, and a note per failure
    (in words, and as a key with the rewrite's kind and the error)."""
    queries: list[tuple[str, str]] = []
    notes: list[tuple[str, Reason]] = []

    def failed(kind: str, name: str, exc: RewriteFailed) -> None:
        notes.append(
            (f"{name} failed: {exc}", Reason.of("note_rewrite_failed", kind=kind, error=exc))
        )

    if settings.decompose:
        try:
            queries += [("decompose", q) for q in sub_questions(llm, question, settings.timeout_s)]
        except RewriteFailed as exc:
            failed("decompose", "decomposition", exc)
    if settings.multi_query:
        try:
            phrasings = other_phrasings(llm, question, settings.multi_query_n, settings.timeout_s)
            queries += [("multi_query", q) for q in phrasings]
        except RewriteFailed as exc:
            failed("multi_query", "multi-query", exc)
    if settings.hyde:
        try:
            queries.append(("hyde", hypothetical_passage(llm, question, settings.timeout_s)))
        except RewriteFailed as exc:
            failed("hyde", "HyDE", exc)
    return queries, notes


def expand(
    trace: RetrievalTrace,
    llm: LLM,
    settings: RewriteSettings,
    retrieve: Retrieve,
    k: int,
    rrf_k: int = 60,
) -> RetrievalTrace:
    """``trace`` with the retrievals of the enabled rewrites of its query fused in (top ``k``)."""
    queries, notes = added_queries(llm, trace.query, settings)
    if not queries:
        return _with_notes(trace, notes) if notes else trace
    extra = [(kind, query, retrieve(query).hits) for kind, query in queries]
    scores: dict[str, float] = {}
    best: dict[str, Hit] = {}
    found_by: dict[str, list[str]] = {}
    for rank, hit in enumerate(trace.hits, start=1):
        cid = hit.chunk.chunk_id
        scores[cid] = 1.0 / (rrf_k + rank)
        best[cid] = hit
    own = set(scores)
    for kind, _, hits in extra:
        for rank, hit in enumerate(hits, start=1):
            cid = hit.chunk.chunk_id
            scores[cid] = scores.get(cid, 0.0) + 1.0 / (rrf_k + rank)
            best.setdefault(cid, hit)
            found_by.setdefault(cid, []).append(kind)
    ranked = sorted(scores, key=lambda cid: (-scores[cid], cid))
    order = ranked[:k]
    # Lists that agree outvote one that does not, so each added query keeps its best chunk in
    # (a sub-question asks what the others do not): it takes the place of the lowest fused hit
    # that is not itself such a best chunk.
    firsts = [hits[0].chunk.chunk_id for _, _, hits in extra if hits]
    for cid in firsts:
        if cid not in order:
            spare = [c for c in reversed(order) if c not in firsts]
            if len(order) >= k and spare:
                order.remove(spare[0])
            order.append(cid)
    order.sort(key=lambda cid: (-scores[cid], cid))
    fused: list[Hit] = []
    for rank, cid in enumerate(order, start=1):
        hit = best[cid]
        if cid not in own:
            kinds = " + ".join(sorted(set(found_by[cid])))
            why = (Reason.of("hit_rewrite_only", kinds=kinds),)
            hit = replace(hit, strategy=kinds, note=f"found only by the rewrite ({kinds})", why=why)
        fused.append(replace(hit, rank=rank, score=scores[cid]))
    kept = set(order)
    expansions = tuple(
        Expansion(
            kind, query, tuple(h.chunk.chunk_id for h in found if h.chunk.chunk_id in kept - own)
        )
        for kind, query, found in extra
    )
    return replace(_with_notes(trace, notes), hits=tuple(fused), expansions=expansions)


def _with_notes(trace: RetrievalTrace, notes: list[tuple[str, Reason]]) -> RetrievalTrace:
    return replace(
        trace,
        notes=trace.notes + tuple(note for note, _ in notes),
        why=trace.why + tuple(why for _, why in notes),
    )
