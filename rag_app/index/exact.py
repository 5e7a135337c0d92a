"""Exact nearest neighbours for knowledge bases small enough to search whole.

Chroma's HNSW graph is approximate, and identical vectors break it: 656 identical chunks (one
hostile 2 MB file of a repeated character) left a canary out of the top 100 it ranked first at
k = 2000 (docs/HOSTILE.md). Below ``Settings.exact_search_max_chunks`` every stored vector is
kept in memory, normalised, and a query is one matrix product: exact, whatever the duplicates,
and faster than the graph at that size. The vectors are read from the store (embedded or the
shared server alike) by id, per snapshot generation, reusing those already held: an upload
costs its own chunks. Chunk ids name their content, so a held vector is never stale.

Given a folder per knowledge base (an embedded store: the library's derived search state, beside
the keyword index), a generation's vectors once read are also saved there, and a restarted
process takes them from that file while the generation is the same: a first question after a
restart then needs neither chromadb's import nor the store (about a second on two cores).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from rag_app.config import Settings
from rag_app.index.chunk_map import ChunkMap
from rag_app.models import SearchFilter
from rag_app.protocols import VectorStore

_log = logging.getLogger(__name__)

# Ids per store read (Chroma's get by ids; the store's own add batch).
_READ_BATCH = 1000
# The file a knowledge base's vectors are saved in, in its folder.
SAVED_FILE = "exact_vectors.npz"


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

    def __init__(
        self,
        max_chunks: int,
        absent_retry_s: float,
        folder_of: Callable[[str], Path] | None = None,
    ) -> None:
        self.max_chunks = max_chunks
        self.absent_retry_s = absent_retry_s
        self.folder_of = folder_of  # where a knowledge base's vectors are saved; None: nowhere
        self._held: dict[str, _Held] = {}
        self._written: dict[str, dict[str, np.ndarray]] = {}  # per kb, rows not yet held
        self._lock = threading.Lock()

    @classmethod
    def for_settings(cls, settings: Settings, folder_of: Callable[[str], Path]) -> ExactVectors:
        """Vectors saved in ``folder_of(kb)`` with an embedded store; not with a shared server,
        whose vectors other instances change under their own catalogues' generations."""
        saved = None if settings.chroma.url else folder_of
        return cls(settings.exact_search_max_chunks, settings.index.absent_retry_s, saved)

    def note_written(self, kb: str, ids: Sequence[str], vectors: np.ndarray) -> None:
        """Keep the vectors just written with their chunks, unit length, for the next read of
        the knowledge base's vectors: an upload's are then not read back from the store (at
        100k chunks, a large upload's first question would wait seconds for them)."""
        rows = np.asarray(vectors, dtype=np.float32)
        norms = np.linalg.norm(rows, axis=1, keepdims=True)
        rows = (rows / np.where(norms == 0, 1, norms)).astype(np.float32)
        with self._lock:
            written = self._written.setdefault(kb, {})
            if len(written) + len(ids) > self.max_chunks:  # never searched whole: keep none
                written.clear()
                return
            written.update(zip(ids, rows))

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
                self._written.pop(kb, None)
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
            if stale and held is None and self.folder_of is not None:
                held = _load(self.folder_of(kb) / SAVED_FILE, generation, chunks.ids)
                stale = held is None
            if stale or retry:
                held = _read(store, kb, generation, chunks.ids, held, self._written.pop(kb, {}))
                if self.folder_of is not None and held.present.all():
                    _save(self.folder_of(kb) / SAVED_FILE, held)
            assert held is not None
            self._held[kb] = held
            return held


def _read(
    store: VectorStore,
    kb: str,
    generation: int,
    ids: Sequence[str],
    before: _Held | None,
    written: dict[str, np.ndarray],
) -> _Held:
    """The vectors of ``ids``: rows held for an earlier generation or ``written`` since (unit
    length already) reused, the rest read."""
    known: dict[str, np.ndarray] = dict(written)
    if before is not None:
        known.update((i, before.rows[n]) for n, i in enumerate(before.ids) if before.present[n])
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


def _load(path: Path, generation: int, ids: Sequence[str]) -> _Held | None:
    """The vectors saved for ``generation`` of exactly these ids; None when there are none (no
    file, another generation, a file that does not read)."""
    try:
        with np.load(path, allow_pickle=False) as saved:
            if int(saved["generation"]) != generation:
                return None
            saved_ids = saved["ids"].tolist()
            rows = saved["rows"].astype(np.float32, copy=False)
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, EOFError) as exc:
        _log.warning("ignoring the saved vectors %s: %s", path, exc)
        return None
    if saved_ids != list(ids) or rows.shape[0] != len(ids):
        return None
    return _Held(generation, tuple(ids), rows, np.ones(len(ids), dtype=bool), time.monotonic())


def _save(path: Path, held: _Held) -> None:
    """Save ``held`` whole or not at all (written beside, then renamed over)."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(tmp, "wb") as out:
            np.savez(out, generation=held.generation, ids=np.array(held.ids), rows=held.rows)
        os.replace(tmp, path)
    except OSError as exc:
        _log.warning("could not save the vectors %s: %s", path, exc)
        tmp.unlink(missing_ok=True)
