"""What the journal, the replica and the consistency check work on: the parts of a library on
disk, not the ``Library`` that composes them (``Library`` is one implementation; neither the
journal nor the replica imports it, so the library can import them)."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from rag_app.index.catalogue import Catalogue
from rag_app.index.write_lock import WriteLock
from rag_app.protocols import VectorStore


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
