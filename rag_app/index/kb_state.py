"""What a Library keeps of each knowledge base between generations, brought up to date by
difference instead of rebuilt: per document its chunk ids and types (``DocBlock``), its features
(``DocFeatures``) and its postings in the keyword index, each tagged with the document's version.

A write in this process applies its own document (``Snapshots.note_written``: the catalogue
tells it the generation it made, so it knows nothing else changed); anything else (another
process's writes, deletions, a cold start) is found by comparing document versions with the
catalogue's (``catch_up``: one read of the document list, then only the changed documents' rows).
"""

from __future__ import annotations

import json
import logging
import threading
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Generic, TypeVar

from rag_app.index.catalogue import Catalogue, chunk_from_json
from rag_app.index.chunk_map import ChunkCache, ChunkMap, DocBlock, block_of
from rag_app.index.doc_features import (
    DocFeatures,
    describe,
    features_from_json,
    features_to_json,
)
from rag_app.index.keywords import BM25Index
from rag_app.models import Chunk
from rag_app.stage_settings import IndexSettings
from rag_app.text.analyzer import TOKENIZER_VERSION

_log = logging.getLogger(__name__)
S = TypeVar("S")


@dataclass
class KbState:
    """``versions``: the document versions ``blocks`` and ``features`` are of; ``kw_versions``:
    those the keyword index holds (they differ only between a cold load and its catch-up)."""

    generation: int = -1
    versions: dict[str, str] = field(default_factory=dict)
    blocks: dict[str, DocBlock] = field(default_factory=dict)
    features: dict[str, DocFeatures] = field(default_factory=dict)
    kw_versions: dict[str, str] = field(default_factory=dict)
    keywords: BM25Index = field(default_factory=BM25Index.empty)
    saved_generation: int = -1


def cold_state(keyword_dir: Path) -> KbState:
    """A state holding only the saved keyword index (when it is of this tokenizer)."""
    found = BM25Index.load_any(keyword_dir)
    if found is None:
        return KbState()
    index, meta = found
    docs = meta.get("docs")
    if meta.get("tokenizer") != TOKENIZER_VERSION or not isinstance(docs, dict):
        return KbState()
    return KbState(kw_versions=dict(docs), keywords=index)


def catch_up(state: KbState, catalogue: Catalogue, kb: str) -> None:
    """Bring ``state`` to the catalogue's current generation, reading only what changed: the
    chunk ids and types of changed documents, their stored features (computed and stored for
    documents written before features were), and tokens where the keyword index lacks them."""
    with catalogue.reading():
        generation = catalogue.generation(kb)
        now = catalogue.doc_versions(kb)
        stale = [d for d, v in sorted(now.items()) if state.versions.get(d) != v]
        kw_stale = {d for d, v in now.items() if state.kw_versions.get(d) != v}
        raw = catalogue.features(kb, stale) if stale else {}
        stored = {d: f for d, f in ((d, _stored(r)) for d, r in raw.items()) if f is not None}
        full = sorted(kw_stale | {d for d in stale if d not in stored})
        rows = catalogue.chunk_rows(kb, full) if full else []
        light = [d for d in stale if d not in set(full)]
        rows += catalogue.chunk_types(kb, light) if light else []
    by_doc: dict[str, list[tuple[str, ...]]] = defaultdict(list)
    for row in rows:
        by_doc[row[0]].append(row)
    for doc_id in [d for d, v in state.versions.items() if now.get(d) != v]:
        state.versions.pop(doc_id)
        state.blocks.pop(doc_id, None)
        state.features.pop(doc_id, None)
    for doc_id in stale:
        found = by_doc[doc_id]
        state.blocks[doc_id] = block_of([r[1] for r in found], [r[2] for r in found])
        features = stored.get(doc_id)
        if features is None:
            features = describe([chunk_from_json(r[3]) for r in found])
            catalogue.store_features(kb, doc_id, now[doc_id], features_to_json(features))
        state.features[doc_id] = features
        state.versions[doc_id] = now[doc_id]
    if kw_stale or any(d not in now for d in state.kw_versions):
        keep = {i for d in now if d not in kw_stale for i in state.blocks[d].ids}
        removed = [i for i in state.keywords.ids if i not in keep]
        added = [r for d in sorted(kw_stale) for r in by_doc[d]]
        state.keywords = state.keywords.updated(
            removed, [r[1] for r in added], [json.loads(r[4]) for r in added]
        )
        state.kw_versions = dict(now)
    state.generation = generation


def _stored(data: str | None) -> DocFeatures | None:
    if data is None:
        return None
    try:
        return features_from_json(data)
    except (ValueError, KeyError, TypeError):
        return None


def save_keywords(state: KbState, index: BM25Index, folder: Path) -> None:
    """Save the (ordered) keyword index of the state's generation, once per generation."""
    if state.saved_generation == state.generation:
        return
    try:
        extra = {"docs": state.kw_versions, "tokenizer": TOKENIZER_VERSION}
        index.save(folder, state.generation, extra)
        state.saved_generation = state.generation
    except OSError as exc:
        _log.warning("could not save the keyword index: %s", exc)


class Snapshots(dict[str, S], Generic[S]):
    """A Library's snapshots by knowledge base, with the states they are made from and a cache
    of parsed chunks per knowledge base; callers hold the Library's snapshot lock. Popping a
    snapshot (the journal and the consistency repair do, to have it rebuilt) forgets its state
    too. ``settings`` say how many chunks each cache keeps and how BM25 scores."""

    def __init__(self, settings: IndexSettings) -> None:
        super().__init__()
        self.settings = settings
        self.states: dict[str, KbState] = {}
        self.caches: dict[str, ChunkCache] = {}

    def pop(self, kb: str, *default: object) -> object:  # type: ignore[override]
        self.states.pop(kb, None)
        return super().pop(kb, *default)

    def state(self, kb: str, keyword_dir: Path) -> KbState:
        """What snapshots of ``kb`` are made from (the saved keyword index on a cold start)."""
        state = self.states.get(kb)
        if state is None:
            state = self.states[kb] = cold_state(keyword_dir)
        return state

    def refresh(
        self, kb: str, catalogue: Catalogue, keyword_dir: Path
    ) -> tuple[KbState, ChunkMap, BM25Index]:
        """The state brought to the catalogue's generation, its chunk map and its keyword index
        in the chunk map's order (saved once per generation)."""
        state = self.state(kb, keyword_dir)
        if state.generation != catalogue.generation(kb):
            catch_up(state, catalogue, kb)
        cache = self.caches.setdefault(kb, ChunkCache(self.settings.cached_chunks))
        k1, b = self.settings.bm25_k1, self.settings.bm25_b
        chunks = ChunkMap(state.blocks, lambda ids: catalogue.chunks_by_id(kb, ids), cache)
        try:
            keywords = state.keywords.ordered(chunks.ids, k1, b)
        except ValueError as exc:  # never expected: start again from the catalogue
            _log.warning("keyword index of %s out of step (%s); rebuilding", kb, exc)
            self.states[kb] = state = KbState()
            catch_up(state, catalogue, kb)
            chunks = ChunkMap(state.blocks, lambda ids: catalogue.chunks_by_id(kb, ids), cache)
            keywords = state.keywords.ordered(chunks.ids, k1, b)
        save_keywords(state, keywords, keyword_dir)
        return state, chunks, keywords

    def note_written(
        self,
        lock: threading.Lock,
        kb: str,
        catalogue: Catalogue,
        keyword_dir: Path,
        generation: int,
        doc_id: str,
        version: str,
        chunks: Sequence[Chunk],
        tokens: Sequence[list[str]],
        features: DocFeatures,
    ) -> None:
        """Add a document this process wrote (cost: its own chunks) when the state was of the
        generation just before; else catch up (a read of what changed). The keyword update
        (a merge of segments, now and then) runs outside ``lock``, so searches on the current
        snapshot never wait for it. Never raises: the write is done, and a state that failed is
        dropped (the next search rebuilds it)."""
        try:
            with lock:
                state = self.state(kb, keyword_dir)
                base = state.keywords
                # (a state of some generation has been caught up: its keyword index holds what
                # its blocks do; comparing the version maps would cost every document)
                ready = state.generation == generation - 1
                old = state.blocks.get(doc_id)
            ids = [c.chunk_id for c in chunks]
            index = base.updated(old.ids if old else (), ids, tokens) if ready else base
            with lock:
                current = self.state(kb, keyword_dir)
                if ready and current is state and state.keywords is base:
                    state.keywords = index
                    state.blocks[doc_id] = block_of(ids, [c.type for c in chunks])
                    state.features[doc_id] = features
                    state.versions[doc_id] = state.kw_versions[doc_id] = version
                    state.generation = generation
                elif current.generation != catalogue.generation(kb):
                    catch_up(current, catalogue, kb)
        except Exception:  # noqa: BLE001
            _log.exception("could not index %s in memory; rebuilding on the next search", doc_id)
            with lock:
                self.pop(kb, None)
