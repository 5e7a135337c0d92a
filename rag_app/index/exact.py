"""Exact nearest neighbours for knowledge bases small enough to search whole.

Chroma's HNSW graph is approximate, and identical vectors break it: 656 identical chunks (one
hostile 2 MB file of a repeated character) left a canary out of the top 100 it ranked first at
k = 2000 (docs/HOSTILE.md). Below ``Settings.exact_search_max_chunks`` every stored vector is
kept in memory, normalised, and a query is one matrix product: exact, whatever the duplicates,
and faster than the graph at that size. The vectors are read from the store (embedded or the
shared server alike) by id, per snapshot generation, reusing those already held: an upload
costs its own chunks. Chunk ids name their content, so a held vector is never stale.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from rag_app.index.chunk_map import ChunkMap
from rag_app.models import SearchFilter
from rag_app.protocols import VectorStore

# Ids per store read (Chroma's get by ids; the store's own add batch).
_READ_BATCH = 1000


@dataclass(frozen=True)
class _Held:
    """One generation's vectors in the chunk map's order; ``present`` marks chunks with one."""

    generation: int
    ids: tuple[str, ...]
    rows: np.ndarray  # (n, dim) float32, unit length (zeros where absent)
    present: np.ndarray  # bool
    read_at: float


class ExactVectors:
    """Per knowledge base, every vector of the current generation, for exact cosine search;
    vectors the store lacked are asked for again after ``absent_retry_s`` seconds."""

    def __init__(self, max_chunks: int, absent_retry_s: float) -> None:
        self.max_chunks = max_chunks
        self.absent_retry_s = absent_retry_s
        self._held: dict[str, _Held] = {}
        self._lock = threading.Lock()

    def search(
        self,
        store: VectorStore,
        kb: str,
        generation: int,
        chunks: ChunkMap,
        vector: np.ndarray,
        k: int,
        search_filter: SearchFilter,
    ) -> list[tuple[str, float]] | None:
        """The top ``k`` (chunk id, cosine similarity) within the filter, best first (ties in
        the chunks' order); None when the knowledge base holds more than ``max_chunks`` chunks
        and the caller should ask the store's index instead."""
        if len(chunks) > self.max_chunks:
            with self._lock:
                self._held.pop(kb, None)  # grown past the limit: free the memory
            return None
        if k <= 0 or not len(chunks):
            return []
        held = self._vectors(store, kb, generation, chunks)
        query = np.asarray(vector, dtype=np.float32).reshape(-1)
        norm = float(np.linalg.norm(query))
        if held.rows.shape[1] != query.shape[0] or norm == 0.0:
            return []
        scores = held.rows @ (query / norm)
        allowed = held.present & chunks.mask(search_filter.types, search_filter.doc_ids)
        places = np.flatnonzero(allowed)
        if k < len(places):
            places = places[np.argpartition(-scores[places], k - 1)[:k]]
        places = places[np.lexsort((places, -scores[places]))]
        return [(held.ids[p], float(scores[p])) for p in places.tolist()]

    def _vectors(self, store: VectorStore, kb: str, generation: int, chunks: ChunkMap) -> _Held:
        with self._lock:
            held = self._held.get(kb)
            stale = held is None or held.generation != generation or len(held.ids) != len(chunks)
            retry = (
                held is not None
                and not held.present.all()
                and time.monotonic() - held.read_at > self.absent_retry_s
            )
            if stale or retry:
                held = _read(store, kb, generation, chunks.ids, held)
                self._held[kb] = held
            assert held is not None
            return held


def _read(
    store: VectorStore, kb: str, generation: int, ids: Sequence[str], before: _Held | None
) -> _Held:
    """The vectors of ``ids``: rows held for an earlier generation reused, the rest read."""
    known: dict[str, np.ndarray] = {}
    if before is not None:
        known = {i: before.rows[n] for n, i in enumerate(before.ids) if before.present[n]}
    missing = [i for i in ids if i not in known]
    for start in range(0, len(missing), _READ_BATCH):
        for chunk_id, row in store.vectors(kb, missing[start : start + _READ_BATCH]).items():
            norm = float(np.linalg.norm(row))
            known[chunk_id] = row / norm if norm else row
    dim = next((len(v) for v in known.values()), 0)
    rows = np.zeros((len(ids), dim), dtype=np.float32)
    present = np.zeros(len(ids), dtype=bool)
    for n, chunk_id in enumerate(ids):
        found = known.get(chunk_id)
        if found is not None and len(found) == dim:
            rows[n] = found
            present[n] = True
    return _Held(generation, tuple(ids), rows, present, time.monotonic())
