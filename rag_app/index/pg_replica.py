"""A process's catalogue as a replica of the shared PostgreSQL catalogue, with the vectors on
a Chroma server (``RAG_APP_DATABASE_URL`` and ``RAG_APP_CHROMA_URL``; docs/SHARED_STORE.md).

What ``Replica`` does against the Chroma registry, ``PgReplica`` does against PostgreSQL
(``PgRegistry``): document rows, chunks and tokens, images and versions come from there, the
vectors stay on the server. And it takes the writes out of "last writer wins":

- every write to a knowledge base (a document written or deleted, the knowledge base dropped)
  holds the knowledge base's advisory lock (``KbLock``) for its whole length, inside the data
  dir's ``WriteLock`` (always in that order: the local lock, then one knowledge base's), so
  writers on every machine take turns per knowledge base, each starting from what the last one
  committed;
- the journal of a change is kept twice: the data dir's own row (its images, its catalogue)
  and a row in PostgreSQL naming the vectors it touches. The change commits when its
  PostgreSQL transaction does (row, chunks, images, version); settling a row first pulls the
  knowledge base from PostgreSQL under its lock, so it keeps exactly the vectors PostgreSQL's
  chunks own. A PostgreSQL row whose knowledge base's lock can be taken belongs to a writer
  that is gone (the server ends a dead client's session and its locks), so any process, on any
  machine, settles it: a ``kill -9`` leaves nothing for ``rag-app check`` to find, whichever
  data dir opens next.
"""

from __future__ import annotations

import logging
import threading
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from rag_app.config import Settings
from rag_app.database.postgres import KbLock
from rag_app.facts.stored import StoredFact
from rag_app.index.catalogue import PendingWrite
from rag_app.index.journal import recover_on_open
from rag_app.index.parts import LibraryParts
from rag_app.index.pg_registry import PgRegistry
from rag_app.index.replica import Fetched, LocalOnly, Replica, open_replica
from rag_app.index.store import ChromaStore
from rag_app.models import Chunk, DocumentInfo

_log = logging.getLogger(__name__)
_told: set[str] = set()  # data dirs already told why the library stays local


class PgReplica(Replica):
    """``Replica`` over PostgreSQL's catalogue at ``url``, writes serialised per knowledge
    base across processes, the journal shared."""

    locks = True

    def __init__(
        self, library: LibraryParts, store: ChromaStore, settings: Settings, url: str
    ) -> None:
        self.registry: PgRegistry
        super().__init__(library, store, settings.chroma, registry=PgRegistry(url))
        self.url = url
        self._held = threading.local()  # per thread: the knowledge bases it holds, and how often
        self._live: set[int] = set()  # this process's journal rows of changes under way

    # locks --------------------------------------------------------------------------------------
    @contextmanager
    def hold(self, kb: str) -> Iterator[None]:
        """The knowledge base's advisory lock, for this thread (reentrant)."""
        with self._try_hold(kb, wait=True):
            yield

    @contextmanager
    def settling(self, kb: str) -> Iterator[None]:
        """Under the knowledge base's lock, the catalogue as PostgreSQL has it now: what a
        journal row is settled against."""
        with self.hold(kb):
            self.sync(kb, force=True)
            yield

    @contextmanager
    def _try_hold(self, kb: str, wait: bool) -> Iterator[bool]:
        held: Counter[str] = self._held.__dict__.setdefault("kbs", Counter())
        if held[kb]:
            held[kb] += 1
            try:
                yield True
            finally:
                held[kb] -= 1
            return
        if wait:
            with KbLock(self.url).hold(kb):
                held[kb] = 1
                try:
                    yield True
                finally:
                    held[kb] = 0
            return
        with KbLock(self.url).try_hold(kb) as got:
            held[kb] = 1 if got else 0
            try:
                yield got
            finally:
                held[kb] = 0  # closing the session releases the lock

    # reads and writes ---------------------------------------------------------------------------
    def _fetch(self, kb: str, doc_ids: list[str]) -> Fetched:
        return self.registry.pull(kb, doc_ids)

    def publish(
        self,
        kb: str,
        info: DocumentInfo,
        assets: dict[str, bytes],
        chunks: Sequence[Chunk] = (),
        tokens: Sequence[list[str]] = (),
        facts: Sequence[StoredFact] | None = None,
    ) -> None:
        """The commit of a write: row, chunks, tokens, facts, images and a new version, at
        once."""
        self.registry.put_document(kb, info, assets, self._asset_limit, chunks, tokens, facts)
        self._forget(kb)

    # the shared journal -------------------------------------------------------------------------
    def begin(
        self, kb: str, op: str, doc_id: str, new_ids: Sequence[str], old_ids: Sequence[str]
    ) -> int:
        row = self.registry.begin_write(kb, op, doc_id, new_ids, old_ids)
        self._live.add(row)
        return row

    def end(self, row: int) -> None:
        if row:
            self.registry.end_write(row)
            self._live.discard(row)

    def recover(self, kb: str | None = None, wait: bool = True) -> list[PendingWrite]:
        """Settle the PostgreSQL journal rows (of ``kb``, or of every knowledge base) whose
        writers are gone: those of a knowledge base whose lock this thread holds or takes
        (without ``wait``, knowledge bases being written now are left to their writers)."""
        done: list[PendingWrite] = []
        for name in dict.fromkeys(r.kb for r in self.registry.pending(kb)):
            with self._try_hold(name, wait) as held:
                if not held:
                    continue
                for row in self.registry.pending(name):
                    if -row.id not in self._live:
                        self._settle(row)
                        done.append(row)
        return done

    def interrupted(self, kb: str | None = None) -> list[PendingWrite]:
        """The PostgreSQL journal rows of writers that are gone (their lock is free)."""
        rows = [r for r in self.registry.pending(kb) if -r.id not in self._live]
        out: list[PendingWrite] = []
        for name in dict.fromkeys(r.kb for r in rows):
            with self._try_hold(name, wait=False) as held:
                out += [r for r in rows if r.kb == name] if held else []
        return out

    def _settle(self, row: PendingWrite) -> None:
        """Keep exactly the vectors PostgreSQL's chunks own of those the row names (lock
        held); idempotent, then the row goes."""
        kb, store, registry = row.kb, self.store, self.registry
        if row.op == "drop_kb":
            if registry.version(kb) is None:
                store.drop(kb)
            else:  # dropped and made again: keep what it owns
                owned = registry.chunk_ids(kb)
                store.delete_ids(kb, [i for i in store.all_ids(kb) if i not in owned])
        else:
            ids = list(dict.fromkeys(row.new_ids + row.old_ids))
            owned = registry.owned_ids(kb, ids)
            store.delete_ids(kb, [i for i in ids if i not in owned])
            if row.doc_id and not registry.has_document(kb, row.doc_id):
                store.delete_document(kb, row.doc_id)
        registry.end_write(-row.id)
        _log.info("settled the interrupted %s of %s/%s (pid %s)", row.op, kb, row.doc_id, row.pid)


def open_library_replica(library: LibraryParts, settings: Settings) -> tuple[LocalOnly, list[Any]]:
    """The library's replica and the interrupted changes settled as it opened: with PostgreSQL
    and a Chroma server, ``PgReplica`` synced first (settling needs PostgreSQL's catalogue);
    otherwise as always, the data dir's journal settled first, then ``open_replica``. The
    library's ``replica`` must already be a ``LocalOnly`` (the journal's hooks, while opening)."""
    store = library.store
    shared = isinstance(store, ChromaStore) and store.shared
    if settings.database_url and shared:
        assert isinstance(store, ChromaStore)
        replica = PgReplica(library, store, settings, settings.database_url)
        replica.sync_all()
        library.replica = replica  # type: ignore[misc]
        return replica, recover_on_open(library)
    if settings.database_url and str(settings.data_dir) not in _told:
        _told.add(str(settings.data_dir))
        _log.info(
            "RAG_APP_DATABASE_URL without RAG_APP_CHROMA_URL: the library stays in the data dir "
            "(its vectors need a Chroma server to be shared); the rest of the state is shared"
        )
    recovered = recover_on_open(library)
    return open_replica(library, settings.chroma), recovered
