"""A process's local catalogue as a replica of the shared Chroma server (docs/SHARED_STORE.md).

With ``RAG_APP_CHROMA_URL`` set, the server holds everything a library is: chunk vectors with
their payloads and keyword tokens (``ChromaStore``), document rows, images and a version per
knowledge base (``Registry``). What a process keeps in its data dir (the SQLite catalogue, the
keyword index, image folders, snapshots) is a cache rebuilt from it:

- before a read (knowledge bases, documents, a search), at most once per ``sync_ms``, the
  knowledge base's version is read (one small get); when it differs from the one last synced,
  the server's document rows are compared with the catalogue's and the documents that differ
  are pulled (chunks and tokens from their vector records) or removed. The catalogue's
  generation moves, so the keyword index and the chunk snapshot are rebuilt as for a local
  change;
- a write goes to the server first (vectors and payloads, then the document row and a new
  version) and then to the catalogue, inside the same journalled change as before;
- a library opening syncs every knowledge base, so a process started after uploads (or the
  consistency check) begins from the server's state.

Embedded (no URL), ``LocalOnly`` does nothing and the library is exactly what it was.
"""

from __future__ import annotations

import json
import logging
import shutil
import threading
import time
from collections.abc import Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import replace
from pathlib import Path
from typing import Any

from rag_app.config import ChromaSettings
from rag_app.facts.stored import StoredFact, stored_facts
from rag_app.index.assets import write_assets
from rag_app.index.catalogue import PendingWrite, chunk_from_json
from rag_app.index.doc_features import describe, features_to_json
from rag_app.index.parts import LibraryParts
from rag_app.index.profile import profile_of, profile_to_json
from rag_app.index.remote import Registry, stamp
from rag_app.index.store import ChromaStore
from rag_app.models import Chunk, DocumentInfo
from rag_app.text.analyzer import TOKENIZER_VERSION, index_tokens

_log = logging.getLogger(__name__)
_ALL = "\0all"  # the rate-limit key of the knowledge-base list
Records = list[tuple[str, str, dict[str, Any]]]  # a document's chunks: (id, JSON, metadata)
# Documents' rows, their chunk records, and the facts the server stored of them (by document)
Fetched = tuple[dict[str, DocumentInfo], dict[str, Records], dict[str, list[StoredFact]]]


class LocalOnly:
    """The embedded library's replica: there is nothing to keep in step with. The journal's
    hooks (``hold``, ``settling``, ``begin``, ``end``, ``recover``, ``interrupted``) do nothing
    here and on a Chroma server alone; with PostgreSQL they lock and journal across processes
    (``rag_app.index.pg_replica``)."""

    locks = False  # whether writes to a knowledge base are serialised across processes

    def hold(self, kb: str) -> AbstractContextManager[None]:
        return nullcontext()

    def settling(self, kb: str) -> AbstractContextManager[None]:
        return nullcontext()

    def begin(
        self, kb: str, op: str, doc_id: str, new_ids: Sequence[str], old_ids: Sequence[str]
    ) -> int:
        return 0

    def end(self, row: int) -> None:
        pass

    def recover(self, kb: str | None = None, wait: bool = True) -> list[PendingWrite]:
        return []

    def interrupted(self, kb: str | None = None) -> list[PendingWrite]:
        return []

    def sync(self, kb: str, force: bool = False) -> None:
        pass

    def sync_kbs(self) -> None:
        pass

    def ensure_kb(self, kb: str) -> None:
        pass

    def publish(
        self,
        kb: str,
        info: DocumentInfo,
        assets: dict[str, bytes],
        chunks: Sequence[Chunk] = (),
        tokens: Sequence[list[str]] = (),
        facts: Sequence[StoredFact] | None = None,
    ) -> None:
        pass

    def unpublish(self, kb: str, doc_id: str) -> None:
        pass

    def drop_kb(self, kb: str) -> None:
        pass


class Replica(LocalOnly):
    """Keeps ``library``'s catalogue in step with the shared server its store is on, as
    ``chroma`` says (how often to look, how large an image set the server keeps)."""

    def __init__(
        self,
        library: LibraryParts,
        store: ChromaStore,
        chroma: ChromaSettings,
        registry: Any = None,
    ) -> None:
        self.library = library
        self.registry = registry if registry is not None else Registry(store.client)
        self.store = store
        self._interval = max(0, chroma.sync_ms) / 1000.0
        self._asset_limit = chroma.asset_max_bytes
        self._pull_batch = max(1, chroma.pull_batch)
        self._checked: dict[str, float] = {}
        self._seen: dict[str, str | None] = {}
        self._state_lock = threading.Lock()
        # seconds the last full sync (at open) took, and documents it pulled (for SHARED_STORE.md)
        self.last_sync_seconds = 0.0
        self.pulled = 0

    # reads --------------------------------------------------------------------------------------
    def sync_all(self) -> None:
        """Bring every knowledge base in line with the server (as a library opens)."""
        start = time.perf_counter()
        versions = self.registry.versions()
        with self.library.write_lock:
            for kb in self.library.catalogue.knowledge_bases():
                if kb not in versions:
                    self._drop_local(kb)
            for kb, version in versions.items():
                self._apply(kb, version)
                self._mark(kb)
        self._mark(_ALL)
        self.last_sync_seconds = time.perf_counter() - start

    def sync_kbs(self) -> None:
        """The knowledge-base list as the server has it (their documents sync when read)."""
        if self._due(_ALL):
            versions = self.registry.versions()
            self._mark(_ALL)
            with self.library.write_lock:
                catalogue = self.library.catalogue
                local = set(catalogue.knowledge_bases())
                for kb in local - set(versions):
                    self._drop_local(kb)
                for kb in set(versions) - local:
                    catalogue.ensure_kb(kb)
                    catalogue.set_tokenizer_version(kb, TOKENIZER_VERSION)

    def sync(self, kb: str, force: bool = False) -> None:
        """Pull what changed in ``kb`` since this process last looked; ``force`` skips the rate
        limit (writers, which must start from the server's current document)."""
        if not force and not self._due(kb):
            return
        version = self.registry.version(kb)
        self._mark(kb)
        with self._state_lock:
            if kb in self._seen and self._seen[kb] == version:
                return
        with self.library.write_lock:
            self._apply(kb, version)

    # writes (the caller holds the write lock, inside the journalled change) ---------------------
    def ensure_kb(self, kb: str) -> None:
        self.registry.ensure_kb(kb)

    def publish(
        self,
        kb: str,
        info: DocumentInfo,
        assets: dict[str, bytes],
        chunks: Sequence[Chunk] = (),
        tokens: Sequence[list[str]] = (),
        facts: Sequence[StoredFact] | None = None,
    ) -> None:
        """After the vectors and payloads, before the catalogue: the document row (and images)
        on the server, and a new version of the knowledge base (each replica reads the facts
        from the chunks it pulls)."""
        self.registry.put_document(kb, info, assets, self._asset_limit)
        self._forget(kb)

    def unpublish(self, kb: str, doc_id: str) -> None:
        self.registry.delete_document(kb, doc_id)
        self._forget(kb)

    def drop_kb(self, kb: str) -> None:
        self.registry.drop_kb(kb)
        self._forget(kb)

    # plumbing -----------------------------------------------------------------------------------
    def _due(self, key: str) -> bool:
        with self._state_lock:
            last = self._checked.get(key)
        return last is None or time.monotonic() - last >= self._interval

    def _mark(self, key: str) -> None:
        with self._state_lock:
            self._checked[key] = time.monotonic()

    def _forget(self, kb: str) -> None:
        # This process's own write changed the version: the next read compares document rows
        # again (cheap when they agree) rather than trusting a version others may share.
        with self._state_lock:
            self._seen.pop(kb, None)

    def _apply(self, kb: str, version: str | None) -> None:
        """Make the catalogue hold exactly the server's documents of ``kb`` (write lock held)."""
        catalogue = self.library.catalogue
        if version is None:
            if kb in catalogue.knowledge_bases():
                self._drop_local(kb)
        else:
            remote = self.registry.stamps(kb)
            if kb not in catalogue.knowledge_bases():
                catalogue.ensure_kb(kb)
                catalogue.set_tokenizer_version(kb, TOKENIZER_VERSION)
            local = {d.doc_id: d for d in catalogue.documents(kb)}
            for doc_id in local.keys() - remote.keys():
                catalogue.delete_document(kb, doc_id)
                self._drop_assets(kb, local[doc_id])
            changed = [d for d, s in remote.items() if d not in local or stamp(local[d]) != s]
            for start in range(0, len(changed), self._pull_batch):
                rows, records, facts = self._fetch(kb, changed[start : start + self._pull_batch])
                for doc_id, info in rows.items():
                    self._pull(kb, info, records[doc_id], facts.get(doc_id))
        with self._state_lock:
            self._seen[kb] = version

    def _fetch(self, kb: str, doc_ids: list[str]) -> Fetched:
        """Those documents' rows and chunk records (their vector records on the server), and
        no facts (each replica reads them from the chunks)."""
        rows = self.registry.documents(kb, doc_ids)
        return rows, self.store.chunk_records(kb, list(rows)), {}

    def _pull(
        self,
        kb: str,
        info: DocumentInfo,
        records: Records,
        facts: Sequence[StoredFact] | None = None,
    ) -> None:
        """Write a document as the server has it into the catalogue; its ``facts`` as the
        server stored them, when it did (PostgreSQL), else read from its chunks here."""
        # Chunk ids carry the file's content hash (rag_app/ingest/chunking.py): when two
        # processes wrote versions of one document at once, the row's version keeps its own.
        own = f"{info.doc_id}:{info.content_hash[:8]}:"
        if any(chunk_id.startswith(own) for chunk_id, _, _ in records):
            records = [r for r in records if r[0].startswith(own)]
        if not records:  # a row whose vectors are gone: never list what cannot be found
            _log.warning("%s/%s is listed on the server without chunks", kb, info.doc_id)
            return
        chunks = [chunk_from_json(text) for _, text, _ in records]
        tokens = [
            json.loads(meta["tokens"])
            if meta.get("tokenizer") == TOKENIZER_VERSION and "tokens" in meta
            else index_tokens(chunk.search_text)
            for chunk, (_, _, meta) in zip(chunks, records)
        ]
        folder = ""
        if info.assets_dir:
            images = self.registry.assets(kb, info.doc_id)
            if images:
                folder = str(write_assets(self.library.assets_root(kb), info.doc_id, images))
        local = replace(info, n_chunks=len(chunks), assets_dir=folder)
        # the document's features, profile and facts, as a local write stores them
        features = features_to_json(describe(chunks))
        profile = profile_of(chunks)
        if facts is None:
            facts = stored_facts(chunks, profile.subject)
        else:  # those of the chunks kept (the row's version's)
            ids = {c.chunk_id for c in chunks}
            facts = [f for f in facts if f.chunk_id in ids]
        catalogue = self.library.catalogue
        catalogue.add_document(kb, local, chunks, tokens, features, profile_to_json(profile), facts)
        self.pulled += 1

    def _drop_assets(self, kb: str, info: DocumentInfo) -> None:
        if info.assets_dir:
            root = self.library.assets_root(kb)
            shutil.rmtree(root / Path(info.assets_dir).name, ignore_errors=True)

    def _drop_local(self, kb: str) -> None:
        """Forget a knowledge base the server no longer lists (never touching the server)."""
        library = self.library
        library.catalogue.drop_kb(kb)
        shutil.rmtree(library.keyword_dir(kb), ignore_errors=True)
        shutil.rmtree(library.assets_root(kb), ignore_errors=True)
        library.forget_snapshot(kb)
        with self._state_lock:
            self._seen[kb] = None


def open_replica(library: LibraryParts, chroma: ChromaSettings) -> LocalOnly:
    """``Replica`` synced with the server when the library's store is on one (raises what the
    server raises when it cannot be reached), else ``LocalOnly``."""
    store = library.store
    if not isinstance(store, ChromaStore) or not store.shared:
        return LocalOnly()
    replica = Replica(library, store, chroma)
    replica.sync_all()
    return replica
