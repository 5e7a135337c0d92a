"""What the journal, the replica and the consistency check work on: the parts of a library on
disk, not the ``Library`` that composes them (``Library`` is one implementation; neither the
journal nor the replica imports it, so the library can import them)."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Protocol

from rag_app.index.catalogue import Catalogue, PendingWrite
from rag_app.index.write_lock import WriteLock
from rag_app.protocols import VectorStore


class SharedHooks(Protocol):
    """What the journal asks of a library's replica (``rag_app.index.replica.LocalOnly``: no-ops
    embedded and on a Chroma server alone; ``rag_app.index.pg_replica``: PostgreSQL's locks and
    journal)."""

    locks: bool  # whether writes to one knowledge base are serialised across processes

    def settling(self, kb: str) -> AbstractContextManager[None]:
        """The knowledge base's lock and its catalogue as the shared store has it now."""
        ...

    def begin(
        self, kb: str, op: str, doc_id: str, new_ids: Sequence[str], old_ids: Sequence[str]
    ) -> int:
        """The change's row in the shared journal (0 when there is none)."""
        ...

    def end(self, row: int) -> None: ...

    def recover(self, kb: str | None = None, wait: bool = True) -> list[PendingWrite]:
        """Settle the shared journal's rows of writers that are gone."""
        ...


class LibraryParts(Protocol):
    """A library's stores and folders: the catalogue, the vector store, the write lock held for
    a whole change, and per knowledge base its image and keyword folders and in-memory
    snapshot."""

    @property
    def data_dir(self) -> Path: ...

    @property
    def catalogue(self) -> Catalogue: ...

    @property
    def store(self) -> VectorStore: ...

    @property
    def write_lock(self) -> WriteLock: ...

    @property
    def replica(self) -> SharedHooks: ...

    def assets_root(self, kb: str) -> Path:
        """The folder of ``kb``'s documents' images (one folder per document inside)."""
        ...

    def keyword_dir(self, kb: str) -> Path:
        """The folder of ``kb``'s derived search state: its keyword index and, with an embedded
        store, its vectors for exact search (removed with the knowledge base)."""
        ...

    def forget_snapshot(self, kb: str) -> None:
        """Drop ``kb``'s in-memory snapshot and the state it was made from (rebuilt on the next
        read), as after the knowledge base was dropped or its keyword folder removed."""
        ...
