"""Fusion of ranked lists: pure functions returning new Hits (inputs are never edited)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from rag_app.models import Hit, Reason, Signal


def _merge_signals(hits: Sequence[Hit]) -> tuple[tuple[str, Signal], ...]:
    merged: dict[str, Signal] = {}
    for hit in hits:
        for name, signal in hit.signals:
            merged.setdefault(name, signal)
    return tuple(sorted(merged.items()))


def _finish(
    scored: dict[str, float],
    members: dict[str, list[tuple[str, Hit]]],
    strategy: str,
    weights: Mapping[str, float],
) -> list[Hit]:
    ordered = sorted(scored, key=lambda cid: (-scored[cid], cid))
    out = []
    for rank, chunk_id in enumerate(ordered, start=1):
        first = members[chunk_id][0][1]
        found_by = sorted({name for name, _ in members[chunk_id]})
        out.append(
            replace(
                first,
                score=scored[chunk_id],
                rank=rank,
                strategy=strategy,
                signals=_merge_signals([h for _, h in members[chunk_id]]),
                weight=max(weights.get(s, 1.0) for s in found_by),
                note="found by " + " + ".join(found_by),
                why=(Reason.of("hit_found_by", by=" + ".join(found_by)),),
            )
        )
    return out


def fuse_rrf(
    ranked: Mapping[str, Sequence[Hit]],
    k: int = 60,
    weights: Mapping[str, float] | None = None,
    strategy: str = "rrf",
) -> list[Hit]:
    """Reciprocal rank fusion: score = sum over lists of weight / (k + rank).

    ``ranked`` maps a list's name to its hits in rank order. k=60 is Cormack et al.'s constant:
    it damps the head so one list's first place cannot outvote agreement between lists.
    """
    weights = dict(weights or {})
    scored: dict[str, float] = {}
    members: dict[str, list[tuple[str, Hit]]] = {}
    for name, hits in ranked.items():
        weight = weights.get(name, 1.0)
        for rank, hit in enumerate(hits, start=1):
            cid = hit.chunk.chunk_id
            scored[cid] = scored.get(cid, 0.0) + weight / (k + rank)
            members.setdefault(cid, []).append((name, hit))
    return _finish(scored, members, strategy, weights)


def fuse_scores(
    ranked: Mapping[str, Sequence[Hit]],
    weights: Mapping[str, float] | None = None,
    strategy: str = "fused",
) -> list[Hit]:
    """Weighted sum of per-list normalised scores (each list's best = 1, its floor = 0).

    A chunk missing from a list scores 0 there. Unlike RRF this keeps how far ahead a list's top
    hit is, which matters when one signal is sure (a rare keyword) and the other is flat (e5's
    similarities sit in a narrow band).
    """
    weights = dict(weights or {})
    scored: dict[str, float] = {}
    members: dict[str, list[tuple[str, Hit]]] = {}
    for name, hits in ranked.items():
        if not hits:
            continue
        weight = weights.get(name, 1.0)
        values = [h.score for h in hits]
        top, floor = max(values), min(values)
        span = top - floor
        for hit in hits:
            norm = (hit.score - floor) / span if span > 0 else 1.0
            cid = hit.chunk.chunk_id
            scored[cid] = scored.get(cid, 0.0) + weight * norm
            members.setdefault(cid, []).append((name, hit))
    return _finish(scored, members, strategy, weights)
