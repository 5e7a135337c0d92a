"""The library: knowledge bases of documents, each indexed twice (vectors and keywords).

``Library`` is the one entry point for ingestion, listing, deletion and the raw searches the
retrievers build on. Writes are serialised by a lock; reads share cached, immutable snapshots
(chunk maps and keyword indexes are rebuilt, never edited, when a knowledge base changes), so
several UI sessions can use one Library at once. What a snapshot is made from is kept per knowledge
base and brought up to date by difference (``kb_state``), so an upload costs its own chunks.
"""

from __future__ import annotations

import logging
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from rag_app.config import Settings
from rag_app.facts.stored import stored_facts
from rag_app.index.admission import Admitted, OnConflict, admit
from rag_app.index.assets import stored_asset, with_disk_assets
from rag_app.index.catalogue import Catalogue
from rag_app.index.chunk_map import ChunkMap
from rag_app.index.doc_features import DocFeatures, describe, features_to_json
from rag_app.index.exact import ExactVectors
from rag_app.index.journal import journalled, staged_assets
from rag_app.index.kb_state import Snapshots
from rag_app.index.library_facts import LibraryFacts  # profiles and their tables' facts
from rag_app.index.pg_replica import open_library_replica  # docs/SHARED_STORE.md
from rag_app.index.profile import profile_of, profile_to_json
from rag_app.index.replica import LocalOnly
from rag_app.index.store import collection_name, open_store
from rag_app.index.write_lock import WriteLock
from rag_app.ingest import ChunkingOptions, IngestError, LoadedDocument, chunk_document
from rag_app.ingest.loader import load_bytes, load_path
from rag_app.models import NO_FILTER, Chunk, DocumentInfo, IngestReport, Progress, SearchFilter
from rag_app.protocols import Embedder, KeywordIndex, TokenCounter, VectorStore
from rag_app.text.analyzer import TOKENIZER_VERSION, index_tokens

_log = logging.getLogger(__name__)
ProgressFn = Callable[[Progress], None]


def _no_progress(_: Progress) -> None:
    pass


@dataclass(frozen=True)
class Snapshot:
    """A knowledge base as of one generation: its chunks (ids, types and documents compact, the
    chunks read on demand), its keyword index (ids in the chunks' order) and, per document in
    id order, its features (``rag_app.index.doc_features``) and its version (what changes
    whenever its chunks do: a key for per-document caches)."""

    generation: int
    chunks: ChunkMap
    keywords: KeywordIndex
    features: dict[str, DocFeatures] = field(default_factory=dict)
    versions: dict[str, str] = field(default_factory=dict)


class Library(LibraryFacts):
    """Knowledge bases on disk under ``settings.data_dir``.

    ``embedder`` and ``counter`` may be given (tests); otherwise they are made from settings on
    first use, so listing documents never loads a model. The journal and the replica work on
    its parts (``rag_app.index.parts.LibraryParts``: catalogue, store, write lock, folders).
    """

    def __init__(
        self,
        settings: Settings,
        embedder: Embedder | None = None,
        counter: TokenCounter | None = None,
    ) -> None:
        self.settings = settings
        self.data_dir = settings.data_dir
        self.catalogue = Catalogue(settings.data_dir / "catalogue.sqlite")
        self.store: VectorStore = open_store(settings)  # embedded, or RAG_APP_CHROMA_URL
        self._embedder = embedder
        self._counter = counter
        # Writers in every process on this data dir take it (rag_app/index/journal.py).
        self.write_lock = WriteLock.for_dir(settings.data_dir)
        self._snapshots: Snapshots[Snapshot] = Snapshots(settings.index)
        self._snapshot_lock = threading.Lock()
        self._resource_lock = threading.Lock()
        # Small knowledge bases are searched exactly, not through the HNSW graph (exact.py).
        self._exact = ExactVectors.for_settings(settings, self.keyword_dir)
        # With a shared Chroma server (and PostgreSQL), the catalogue is a replica kept in step
        # (synced now and before reads); embedded, a no-op (replica.py, pg_replica.py). Changes
        # a killed process left half-done are settled (cheap: one query; skipped while another
        # process is writing, whose journal it or the next writer settles).
        self.replica: LocalOnly = LocalOnly()  # the journal's hooks while opening
        self.replica, self.recovered_at_open = open_library_replica(self, settings)

    # resources ----------------------------------------------------------------------------------
    @property
    def embedder(self) -> Embedder:
        with self._resource_lock:
            if self._embedder is None:
                from rag_app.index.embedder import load_embedder

                self._embedder = load_embedder(self.settings)
            embedder: Embedder = self._embedder
            return embedder

    @property
    def counter(self) -> TokenCounter:
        with self._resource_lock:
            if self._counter is None:
                from rag_app.text.tokens import get_token_counter

                self._counter = get_token_counter()
            return self._counter

    # knowledge bases ----------------------------------------------------------------------------
    def knowledge_bases(self) -> list[str]:
        self.replica.sync_kbs()  # shared server: its list (rate-limited)
        return self.catalogue.knowledge_bases()

    def create_kb(self, kb: str) -> None:
        kb = _check_kb_name(kb)
        if kb not in self.catalogue.knowledge_bases():
            self.replica.ensure_kb(kb)  # shared server: listed there first
            self.catalogue.ensure_kb(kb)
            self.catalogue.set_tokenizer_version(kb, TOKENIZER_VERSION)

    def delete_kb(self, kb: str) -> None:
        # The catalogue first: then the vectors, images and keywords (the journal's settling).
        with self.write_lock, self.replica.hold(kb), journalled(self, kb, "drop_kb"):
            self.replica.drop_kb(kb)  # shared server: unlisted there first
            self.catalogue.drop_kb(kb)

    # documents ----------------------------------------------------------------------------------
    def documents(self, kb: str) -> list[DocumentInfo]:
        self.replica.sync(kb)  # shared server: pull what changed (rate-limited)
        return self.catalogue.documents(kb)

    def chunks(self, kb: str, doc_id: str | None = None) -> list[Chunk]:
        self.replica.sync(kb)  # shared server: pull what changed (rate-limited)
        return self.catalogue.chunks(kb, doc_id)

    def delete_document(self, kb: str, doc_id: str) -> bool:
        """Remove a document from the catalogue, the vectors, the keywords and its images."""
        with self.write_lock, self.replica.hold(kb):  # PostgreSQL: one writer of kb at once
            self.replica.sync(kb, force=True)  # shared server: delete what it holds now
            ids = [c.chunk_id for c in self.catalogue.chunks(kb, doc_id)]
            # The catalogue first: then the vectors and images (the journal's settling).
            with journalled(self, kb, "delete", doc_id, old_ids=ids):
                if ids:
                    self.replica.unpublish(kb, doc_id)  # shared server: its row goes first
                found = self.catalogue.delete_document(kb, doc_id)
        return found

    def asset_path(self, kb: str, doc_id: str, relative: str) -> Path | None:
        """The stored image file of a document, if it came with one (never outside its folder).
        The folder is the one its catalogue row names (libraries written before folder names
        carried a hash keep theirs)."""
        info = self.catalogue.document(kb, doc_id)
        if info is None or not info.assets_dir:
            return None
        return stored_asset(self.assets_root(kb), info.assets_dir, relative)

    # ingestion ----------------------------------------------------------------------------------
    def ingest_paths(
        self,
        paths: Iterable[Path],
        kb: str | None = None,
        progress: ProgressFn = _no_progress,
        on_conflict: OnConflict = "ask",
    ) -> list[IngestReport]:
        """Ingest files from disk; images next to a content list or markdown file come along.
        ``on_conflict`` says what a different file under a taken document id does (admission)."""
        loaded: list[LoadedDocument | IngestReport] = []
        settings, limits = self.settings, self.settings.input_limits
        for path in paths:
            try:
                for doc in load_path(
                    Path(path), settings.max_file_bytes, settings.max_zip_bytes, limits
                ):
                    loaded.append(with_disk_assets(doc, Path(path).parent, limits.max_image_bytes))
            except IngestError as exc:
                loaded.append(exc.report(Path(path).name))
        return self._ingest(loaded, kb, progress, on_conflict)

    def ingest_bytes(
        self,
        files: Iterable[tuple[str, bytes]],
        kb: str | None = None,
        progress: ProgressFn = _no_progress,
        on_conflict: OnConflict = "ask",
    ) -> list[IngestReport]:
        """Ingest uploaded files given as (name, bytes); ``on_conflict`` as for ingest_paths."""
        loaded: list[LoadedDocument | IngestReport] = []
        for name, data in files:
            try:
                loaded.extend(
                    load_bytes(
                        data,
                        name,
                        self.settings.max_file_bytes,
                        self.settings.max_zip_bytes,
                        self.settings.input_limits,
                    )
                )
            except IngestError as exc:
                loaded.append(exc.report(name))
        return self._ingest(loaded, kb, progress, on_conflict)

    def _ingest(
        self,
        loaded: Sequence[LoadedDocument | IngestReport],
        kb: str | None,
        progress: ProgressFn,
        on_conflict: OnConflict = "ask",
    ) -> list[IngestReport]:
        kb = _check_kb_name(kb or self.settings.knowledge_base)
        self.create_kb(kb)
        self.replica.sync(kb, force=True)  # shared server: admit against what it holds now
        reports: list[IngestReport | None] = []
        todo: list[tuple[int, Admitted]] = []
        options = ChunkingOptions.from_settings(self.settings)
        decisions = admit(
            loaded,
            self.catalogue,
            kb,
            lambda doc: chunk_document(doc, self.counter, options),
            on_conflict,
        )
        for n, decision in enumerate(decisions):
            progress(Progress("chunk", n, len(decisions), _name_of(decision)))
            if isinstance(decision, IngestReport):
                reports.append(decision)
            else:
                reports.append(None)
                todo.append((len(reports) - 1, decision))
        progress(Progress("chunk", len(decisions), len(decisions)))
        if todo:
            all_chunks = [c for _, admitted in todo for c in admitted.chunks]
            vectors = self._embed(all_chunks, progress)
            offset = 0
            for position, admitted in todo:
                chunks = admitted.chunks
                part = vectors[offset : offset + len(chunks)]
                offset += len(chunks)
                progress(Progress("index", position, len(decisions), admitted.entry.document.name))
                report = self._write(kb, admitted.entry, chunks, part)
                if report.status == "ingested" and admitted.note:
                    report = replace(report, message=f"{report.message}; {admitted.note}")
                if admitted.file_name:  # kept beside: reported under the file the user gave
                    report = replace(report, name=admitted.file_name)
                reports[position] = report
            progress(Progress("index", len(decisions), len(decisions)))
        return [r for r in reports if r is not None]

    def _embed(self, chunks: Sequence[Chunk], progress: ProgressFn) -> np.ndarray:
        """Encode every chunk in length-sorted groups (little padding), reporting progress."""
        texts = [c.search_text for c in chunks]
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out: np.ndarray | None = None
        progress(Progress("embed", 0, len(texts)))
        size = self.settings.index.embed_group
        for start in range(0, len(order), size):
            group = order[start : start + size]
            vectors = self.embedder.embed_passages([texts[i] for i in group])
            if out is None:
                out = np.zeros((len(texts), vectors.shape[1]), dtype=np.float32)
            out[group] = vectors
            progress(Progress("embed", min(start + size, len(texts)), len(texts)))
        assert out is not None
        return out

    def _write(
        self, kb: str, entry: LoadedDocument, chunks: list[Chunk], vectors: np.ndarray
    ) -> IngestReport:
        doc = entry.document
        counts = Counter(c.type for c in chunks)
        pages = {p for item in doc.items if item.page is not None for p in (item.page,)}
        with self.write_lock, self.replica.hold(kb):  # PostgreSQL: one writer of kb at once
            self.replica.sync(kb, force=True)  # shared server: replace what it holds now
            old_ids = [c.chunk_id for c in self.catalogue.chunks(kb, doc.doc_id)]
            new_ids = [c.chunk_id for c in chunks]
            try:
                # Journalled: a crash anywhere in here leaves at worst vectors and images no
                # listed document owns (the next Library or writer removes them); the old
                # version's vectors go once the catalogue holds the new one.
                with journalled(self, kb, "write", doc.doc_id, new_ids, old_ids):
                    info = DocumentInfo(
                        doc_id=doc.doc_id,
                        name=doc.name,
                        source_format=doc.source_format,
                        n_items=len(doc.items),
                        n_chunks=len(chunks),
                        type_counts=tuple(sorted(counts.items())),
                        pages=(max(pages) + 1) if pages else 0,
                        size_bytes=doc.size_bytes,
                        content_hash=doc.content_hash,
                        ingested_at=datetime.now(UTC).isoformat(timespec="seconds"),
                        assets_dir=staged_assets(self, kb, doc.doc_id, entry.assets),
                    )
                    self.store.upsert(kb, chunks, vectors)
                    tokens = [index_tokens(c.search_text) for c in chunks]
                    features = describe(chunks)  # once, here: not again per upload
                    profile = profile_of(chunks)  # with its rows, atomically; and its facts:
                    facts = stored_facts(chunks, profile.subject)  # its tables' cells
                    # shared server: row, version (PostgreSQL: and chunks, tokens, facts; its commit)
                    self.replica.publish(kb, info, entry.assets, chunks, tokens, facts)
                    generation, version = self.catalogue.add_document(
                        kb, info, chunks, tokens, features_to_json(features),
                        profile_to_json(profile), facts,
                    )  # fmt: skip
            except Exception as exc:
                _log.exception("writing %s failed", doc.name)
                return IngestReport(
                    name=doc.name,
                    status="rejected",
                    doc_id=doc.doc_id,
                    message=f"could not be indexed: {exc}",
                )
            self.note_profile(kb, doc.doc_id, version, profile)
            self._exact.note_written(kb, [c.chunk_id for c in chunks], vectors)
            # the in-memory index and features: this document's cost only
            self._snapshots.note_written(
                self._snapshot_lock, kb, self.catalogue, self.keyword_dir(kb), generation,
                doc.doc_id, version, chunks, tokens, features,
            )  # fmt: skip
        replaced = " (replaced the earlier version)" if old_ids else ""
        return IngestReport(
            name=doc.name,
            status="ingested",
            doc_id=doc.doc_id,
            message=f"{len(chunks)} chunks{replaced}",
            type_counts=info.type_counts,
            n_chunks=len(chunks),
            warnings=entry.warnings,
        )

    def assets_root(self, kb: str) -> Path:
        return self.data_dir / "assets" / collection_name(kb)

    def keyword_dir(self, kb: str) -> Path:
        return self.data_dir / "keywords" / collection_name(kb)

    def forget_snapshot(self, kb: str) -> None:
        self._snapshots.pop(kb, None)  # rebuilt from the catalogue on the next read

    # searching ----------------------------------------------------------------------------------
    def snapshot(self, kb: str) -> Snapshot:
        """Chunks and keyword index of a knowledge base as of its current generation."""
        self.replica.sync(kb)  # shared server: pull what changed (rate-limited)
        if (
            self.catalogue.tokenizer_version(kb) != TOKENIZER_VERSION
            and kb in self.knowledge_bases()
        ):
            with self.write_lock:  # tokens from an older tokenizer: recompute them once
                chunks = self.catalogue.chunks(kb)
                self.catalogue.replace_tokens(
                    kb, {c.chunk_id: index_tokens(c.search_text) for c in chunks}, TOKENIZER_VERSION
                )
                with self._snapshot_lock:
                    self._snapshots.pop(kb, None)  # same documents, new tokens: start over
        generation = self.catalogue.generation(kb)
        with self._snapshot_lock:
            current = self._snapshots.get(kb)
            if current is not None and current.generation == generation:
                return current
            state, chunk_map, keywords = self._snapshots.refresh(
                kb, self.catalogue, self.keyword_dir(kb)
            )
            docs = chunk_map.doc_ids
            features = {d: state.features[d] for d in docs}
            versions = {d: state.versions[d] for d in docs}
            snap = Snapshot(state.generation, chunk_map, keywords, features, versions)
            self._snapshots[kb] = snap
            return snap

    def dense_search(
        self,
        kb: str,
        query: str,
        k: int,
        search_filter: SearchFilter = NO_FILTER,
        query_vector: np.ndarray | None = None,
    ) -> list[tuple[Chunk, float]]:
        """Top ``k`` chunks by cosine similarity of their embedding to the query's."""
        snap = self.snapshot(kb)
        if not snap.chunks:
            return []
        vector = (
            query_vector if query_vector is not None else self.embedder.embed_queries([query])[0]
        )
        found = self.nearest(kb, vector, k, search_filter, snap)
        chunks = snap.chunks.get_many([i for i, _ in found])
        return [(chunks[i], s) for i, s in found if i in chunks]

    def nearest(
        self,
        kb: str,
        vector: np.ndarray,
        k: int,
        search_filter: SearchFilter = NO_FILTER,
        snap: Snapshot | None = None,
    ) -> list[tuple[str, float]]:
        """Top ``k`` (chunk id, cosine similarity) to ``vector`` within the filter, best first:
        exact over ``snap`` (the current snapshot when None) for a small knowledge base, else
        from the store's approximate index."""
        snap = snap if snap is not None else self.snapshot(kb)
        found = self._exact.search(
            self.store, kb, snap.generation, snap.chunks, vector, k, search_filter
        )
        return found if found is not None else self.store.query(kb, vector, k, search_filter)

    def keyword_search(
        self, kb: str, query: str, k: int, search_filter: SearchFilter = NO_FILTER
    ) -> list[tuple[Chunk, float]]:
        """Top ``k`` chunks by BM25 over jieba tokens."""
        snap = self.snapshot(kb)
        tokens = index_tokens(query)
        if search_filter.types or search_filter.doc_ids:
            mask = snap.chunks.mask(search_filter.types, search_filter.doc_ids)
            if snap.keywords.ids is snap.chunks.ids and hasattr(snap.keywords, "search_mask"):
                found = snap.keywords.search_mask(tokens, k, mask)
            else:
                allowed = {i for i, m in zip(snap.chunks.ids, mask.tolist()) if m}
                found = snap.keywords.search(tokens, k, allowed)
        else:
            found = snap.keywords.search(tokens, k)
        chunks = snap.chunks.get_many([i for i, _ in found])
        return [(chunks[i], s) for i, s in found if i in chunks]


def _name_of(decision: Admitted | IngestReport) -> str:
    return decision.name if isinstance(decision, IngestReport) else decision.entry.document.name


def _check_kb_name(kb: str) -> str:
    kb = (kb or "").strip()
    if not kb:
        raise ValueError("a knowledge base needs a name")
    if len(kb) > 64 or any(ch in kb for ch in "/\\\0"):
        raise ValueError("a knowledge base name is at most 64 characters, without / or \\")
    return kb
