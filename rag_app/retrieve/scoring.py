"""Ranking the admitted candidates: every signal fused into one score, reranked on the query's
phrases and numbers, tables lifted to the paragraphs introducing them, duplicates removed and
each strong type given a place in the top k (seed 000's per-type weights order the quotas).

Layers decide who is considered (``recall``); the fused score decides the order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from rag_app.models import Chunk, Hit, Reason, Signal
from rag_app.retrieve.signals import (
    Search,
    Signals,
    introduced_tables,
    normalise,
)
from rag_app.stage_settings import StrategyOptions


def rank(
    search: Search, signals: Signals, admitted: dict[str, str], k: int, types: Sequence[str]
) -> list[Hit]:
    """The admitted candidates (id -> layer that found it) as hits, best first: scored, tables
    lifted to their introductions, deduplicated and, with ``use_quotas``, each strong type of
    ``types`` kept in the top ``k``."""
    hits = _dedupe(lift_introduced(search, signals, score(search, signals, admitted)))
    if search.options.use_quotas:
        hits = _apply_quotas(hits, k, types)
    return hits


def score(search: Search, signals: Signals, admitted: dict[str, str]) -> list[Hit]:
    """Hits for the admitted candidates (id -> layer that found it), best first, each scored on
    every signal, not only the one that found it. Candidates without a dense similarity get
    their exact one from the store, kept on ``signals`` for later scoring."""
    s = signals
    o = search.options
    low, high = s.dense_range()
    missing = [i for i in admitted if i not in s.dense]
    if missing and s.vector is not None:
        for chunk_id, vec in search.library.store.vectors(search.kb, missing).items():
            s.dense[chunk_id] = float(np.dot(vec, s.vector))
    dense_rank = {i: r for r, i in enumerate(sorted(s.dense, key=lambda i: -s.dense[i]), 1)}
    bm25_rank = s.bm25_rank()
    chunks = search.snap.chunks.get_many(admitted)  # one read for those not cached
    query_numbers = set(search.query.numbers)
    query_phrases = list(search.query.phrases)
    max_weight = max(w for _, w in o.type_weights)
    hits = []
    for chunk_id, layer in admitted.items():
        chunk = chunks[chunk_id]
        evidence: dict[str, Signal] = {}
        if chunk_id in s.dense:
            evidence["dense"] = Signal(s.dense[chunk_id], dense_rank.get(chunk_id, 0))
        if chunk_id in s.bm25:
            evidence["bm25"] = Signal(s.bm25[chunk_id], bm25_rank.get(chunk_id, 0))
        total, fused = _fused(chunk_id, s, o, (low, high))
        total, reranked = _reranked(total, chunk, o, query_numbers, query_phrases)
        weight = o.weight_of(chunk.type)
        if o.use_type_weights:
            total *= 1.0 - o.type_weight_strength * (1.0 - weight / max_weight)
        hits.append(
            Hit(
                chunk=chunk,
                score=round(total, 6),
                strategy=layer,
                signals=tuple(sorted({**evidence, **fused, **reranked}.items())),
                weight=weight,
                note=f"{chunk.type} · {layer}",
                why=(Reason.of("hit_layer", type=chunk.type, layer=layer),),
            )
        )
    hits.sort(key=lambda h: (-h.score, h.chunk.chunk_id))
    return hits


def _fused(
    chunk_id: str, s: Signals, o: StrategyOptions, dense_range: tuple[float, float]
) -> tuple[float, dict[str, Signal]]:
    """The weighted sum of dense, BM25, structure and expansion, with the signals it used
    beyond dense and BM25."""
    low, high = dense_range
    dense_n = normalise(s.dense.get(chunk_id, low), low, high)
    bm25_n = s.bm25.get(chunk_id, 0.0) / s.bm25_top if s.bm25_top else 0.0
    total = o.dense_weight * dense_n + o.bm25_weight * bm25_n
    evidence: dict[str, Signal] = {}
    if o.use_structure and chunk_id in s.structure:
        total += o.structure_weight * s.structure[chunk_id]
        evidence["structure"] = Signal(s.structure[chunk_id], 0)
    if s.expansion_top and chunk_id in s.expansion and o.use_expansion:
        exp_n = s.expansion[chunk_id] / s.expansion_top
        total += o.expansion_weight * max(0.0, exp_n - bm25_n)
        evidence["expansion"] = Signal(s.expansion[chunk_id], 0)
    return total, evidence


def _reranked(
    total: float, chunk: Chunk, o: StrategyOptions, numbers: set[str], phrases: list[str]
) -> tuple[float, dict[str, Signal]]:
    """``total`` plus the phrase and number evidence of the chunk (with ``use_rerank``)."""
    evidence: dict[str, Signal] = {}
    if o.use_rerank and o.phrase_weight and phrases:
        text = chunk.search_text.lower()
        share = sum(1 for p in phrases if p in text) / len(phrases)
        total += o.phrase_weight * share
        evidence["phrase"] = Signal(share, 0)
    if o.use_rerank and numbers:
        found = sum(1 for n in numbers if n in chunk.search_text)
        bonus = found / len(numbers)
        total += o.rerank_weight * bonus
        evidence["numbers"] = Signal(bonus, 0)
    return total, evidence


def lift_introduced(search: Search, signals: Signals, hits: list[Hit]) -> list[Hit]:
    """Each table scores at least ``intro_weight`` times the paragraph introducing it, and is
    brought in when that paragraph is a hit and the table is not (layer "introduced")."""
    weight = search.options.intro_weight
    if not weight or "table" not in search.types:
        return hits
    introduced = introduced_tables(search.library, search.kb)
    by_id = {h.chunk.chunk_id: h for h in hits}
    lifts: dict[str, tuple[float, Hit]] = {}
    for hit in hits:
        for table_id in introduced.get(hit.chunk.chunk_id, ()):
            lifted = round(weight * hit.score, 6)
            if lifted > lifts.get(table_id, (0.0, hit))[0]:
                lifts[table_id] = (lifted, hit)
    # A feature built from a newer generation may name a table this run's snapshot lacks.
    new = [i for i in lifts if i not in by_id and i in search.snap.chunks and search.allows_id(i)]
    scored = {h.chunk.chunk_id: h for h in score(search, signals, dict.fromkeys(new, "introduced"))}
    changed = False
    for table_id, (lifted, intro) in lifts.items():
        table = by_id.get(table_id) or scored.get(table_id)
        if table is None or table.score >= lifted:
            continue
        by_id[table_id] = replace(
            table,
            score=lifted,
            signals=(*table.signals, ("introduced_by", Signal(intro.score, 0))),
        ).noted(
            f"introduced by {intro.chunk.chunk_id}",
            Reason.of("hit_introduced", chunk=intro.chunk.chunk_id),
            " · ",
        )
        changed = True
    if not changed:
        return hits
    out = list(by_id.values())
    out.sort(key=lambda h: (-h.score, h.chunk.chunk_id))
    return out


def _dedupe(hits: Sequence[Hit]) -> list[Hit]:
    seen: set[tuple[str, tuple[int, ...], str]] = set()
    out = []
    for hit in hits:
        key = (
            hit.chunk.doc_id,
            hit.chunk.item_indices,
            hit.chunk.parent_table_id and str(hit.chunk.subtable_index),
        )
        if key in seen:
            continue
        seen.add(key)
        out.append(hit)
    return out


def _apply_quotas(hits: list[Hit], k: int, types: Sequence[str]) -> list[Hit]:
    """Each type whose best hit is strong (>= half the overall best) keeps a place in the top k."""
    if not hits:
        return hits
    best = hits[0].score
    top = hits[:k]
    rest = hits[k:]
    for chunk_type in types:
        if any(h.chunk.type == chunk_type for h in top):
            continue
        candidate = next((h for h in rest if h.chunk.type == chunk_type), None)
        if candidate is None or candidate.score < 0.5 * best or len(top) < k:
            continue
        # Replace the weakest hit of a type that has more than one place.
        counts: dict[str, int] = {}
        for h in top:
            counts[h.chunk.type] = counts.get(h.chunk.type, 0) + 1
        for i in range(len(top) - 1, -1, -1):
            if counts[top[i].chunk.type] > 1:
                dropped = top.pop(i)
                rest.remove(candidate)
                top.append(candidate.noted("quota", Reason("hit_quota"), " · "))
                rest.insert(0, dropped)
                break
    top.sort(key=lambda h: (-h.score, h.chunk.chunk_id))
    return top + rest


def finalise(hits: list[Hit], k: int) -> tuple[Hit, ...]:
    """The first ``k`` hits, ranked from 1."""
    return tuple(replace(h, rank=r) for r, h in enumerate(hits[:k], start=1))
