"""Questions naming several reports ("中芯国际和华虹半导体的毛利率"): retrieved once per named
report, within that report's documents, and the results interleaved so neither fills the top."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import replace

from rag_app.index.library import Library, Snapshot
from rag_app.models import Hit, RetrievalTrace, SearchFilter
from rag_app.retrieve.scoring import finalise
from rag_app.retrieve.signals import per_generation


def subjects_by_document(library: Library, kb: str) -> dict[str, frozenset[str]]:
    """What each document is about (the leading name of its title: 中芯国际 of
    "中芯国际（688981.SH）深度报告"), per knowledge-base generation; documents without one are
    left out."""

    def build(snap: Snapshot) -> dict[str, frozenset[str]]:
        # each document's, computed when it was written (rag_app.index.doc_features)
        return {d: f.subject for d, f in snap.features.items() if f.subject}

    return per_generation("subjects", library, kb, build)


def _interleave(per_subject: Sequence[tuple[str, Sequence[Hit]]], k: int) -> list[Hit]:
    """The subjects' hits taking turns (first of each, then second of each, ...), so neither
    named report fills the top. A turn is one source of the prompt: the other retrieved parts of
    a split table come with its first part (the prompt merges them back). Scores are each
    subject's scaled so its best equals the overall best, then capped to never rise down the
    list (the prompt takes sources by score). A chunk found for two subjects keeps its first
    place."""
    lists = [(subject, list(hits)) for subject, hits in per_subject if hits and hits[0].score > 0]
    if not lists:
        return []
    best = max(hits[0].score for _, hits in lists)
    out: list[Hit] = []
    seen: set[str] = set()
    ceiling = best
    cursors = [0] * len(lists)
    while any(cursors[i] < len(hits) for i, (_, hits) in enumerate(lists)):
        for i, (subject, hits) in enumerate(lists):
            while cursors[i] < len(hits) and hits[cursors[i]].chunk.chunk_id in seen:
                cursors[i] += 1
            if cursors[i] >= len(hits):
                continue
            first = hits[cursors[i]]
            table = (first.chunk.doc_id, first.chunk.parent_table_id)
            turn = [first]
            if first.chunk.parent_table_id:
                turn += [
                    h
                    for h in hits[cursors[i] + 1 :]
                    if (h.chunk.doc_id, h.chunk.parent_table_id) == table
                    and h.chunk.chunk_id not in seen
                ]
            for hit in turn:
                seen.add(hit.chunk.chunk_id)
                ceiling = min(ceiling, hit.score * best / hits[0].score)
                note = (f"{hit.note}; " if hit.note else "") + f"retrieved for {subject}"
                out.append(replace(hit, score=ceiling, note=note))
    return out[:k]


def per_subject_trace(
    query: str,
    mode: str,
    k: int,
    search_filter: SearchFilter,
    named: dict[str, tuple[str, ...]],
    retrieve_one: Callable[[str, SearchFilter], RetrievalTrace],
) -> RetrievalTrace:
    """Retrieval for a query naming several reports: once per named subject, within that
    subject's documents and without the other names (they only pull the search towards the
    other report), the results interleaved. ``named`` maps each subject to its documents;
    ``retrieve_one`` retrieves a query within a filter (the caller's retrieval, with subjects
    off: this module never imports it)."""
    started = time.perf_counter()
    traces = []
    for subject, doc_ids in named.items():
        sub_query = query
        for other in named:
            if other != subject:
                sub_query = sub_query.replace(other, " ")
        sub_filter = replace(search_filter, doc_ids=doc_ids)
        trace = retrieve_one(sub_query, sub_filter)
        traces.append((subject, trace))
    hits = _interleave([(subject, t.hits) for subject, t in traces], k)
    first = traces[0][1]
    note = f"named reports {', '.join(named)}: retrieved for each separately and interleaved"
    return RetrievalTrace(
        query=query,
        mode=mode,
        hits=finalise(hits, k),
        routing=first.routing,
        layers=tuple(step for _, t in traces for step in t.layers),
        notes=(note, *(n for _, t in traces for n in t.notes)),
        expanded_terms=first.expanded_terms,
        ms=(time.perf_counter() - started) * 1000,
    )
