"""The catalogue's reads for keeping an index up to date by difference (``kb_state``): document
versions, the rows of chosen documents, and each document's stored features.

A mixin of ``Catalogue`` (its connection and lock), kept apart so the catalogue stays readable.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

FEATURES_SCHEMA = """
CREATE TABLE IF NOT EXISTS features (
    kb TEXT NOT NULL, doc_id TEXT NOT NULL, data TEXT NOT NULL, PRIMARY KEY (kb, doc_id));
"""
# Each document's profile (rag_app.index.profile), written with its rows, deleted with them.
PROFILES_SCHEMA = """
CREATE TABLE IF NOT EXISTS profiles (
    kb TEXT NOT NULL, doc_id TEXT NOT NULL, data TEXT NOT NULL, PRIMARY KEY (kb, doc_id));
"""
# SQLite's default limit on bound variables is 999 in older builds: id lists go in parts.
IN_BATCH = 500


def doc_version(generation: int, content_hash: str, n_chunks: int) -> str:
    return f"{generation}:{content_hash}:{n_chunks}"


class IncrementalReads:
    _db: sqlite3.Connection
    _lock: threading.RLock

    def doc_versions(self, kb: str) -> dict[str, str]:
        """Every listed document with its version: what changes whenever its chunks do (the
        generation that wrote it, its content hash and chunk count), in listing order."""
        with self._lock:
            rows = self._db.execute(
                "SELECT doc_id, version, content_hash, n_chunks FROM documents WHERE kb = ? "
                "ORDER BY ingested_at, doc_id",
                (kb,),
            ).fetchall()
        return {r[0]: doc_version(r[1], r[2], r[3]) for r in rows}

    @contextmanager
    def reading(self) -> Iterator[None]:
        """A read transaction: what is read inside it is of one moment (no writer between)."""
        with self._lock:
            self._db.execute("BEGIN")
            try:
                yield
            finally:
                self._db.execute("COMMIT")

    def _in_docs(self, select: str, kb: str, doc_ids: Sequence[str]) -> list[tuple[str, ...]]:
        out: list[tuple[str, ...]] = []
        with self._lock:
            for start in range(0, len(doc_ids), IN_BATCH):
                part = list(doc_ids[start : start + IN_BATCH])
                marks = ",".join("?" * len(part))
                out.extend(self._db.execute(select.format(marks=marks), (kb, *part)).fetchall())
        return out

    def chunk_rows(self, kb: str, doc_ids: Sequence[str]) -> list[tuple[str, ...]]:
        """(doc_id, chunk_id, type, payload, tokens JSON) of the chunks of ``doc_ids``, by
        document and position."""
        return self._in_docs(
            "SELECT doc_id, chunk_id, json_extract(payload, '$.type'), payload, tokens "
            "FROM chunks WHERE kb = ? AND doc_id IN ({marks}) ORDER BY doc_id, seq",
            kb,
            doc_ids,
        )

    def chunk_types(self, kb: str, doc_ids: Sequence[str]) -> list[tuple[str, ...]]:
        """(doc_id, chunk_id, type) of the chunks of ``doc_ids`` (no payload parsed here)."""
        return self._in_docs(
            "SELECT doc_id, chunk_id, json_extract(payload, '$.type') "
            "FROM chunks WHERE kb = ? AND doc_id IN ({marks}) ORDER BY doc_id, seq",
            kb,
            doc_ids,
        )

    def features(self, kb: str, doc_ids: Sequence[str]) -> dict[str, str]:
        """The stored features (JSON) of those of ``doc_ids`` that have them."""
        rows = self._in_docs(
            "SELECT doc_id, data FROM features WHERE kb = ? AND doc_id IN ({marks})", kb, doc_ids
        )
        return {r[0]: r[1] for r in rows}

    def store_features(self, kb: str, doc_id: str, version: str, data: str) -> None:
        """Keep features computed for a document written without them, if it is still at
        ``version`` (a document written since has its own)."""
        with self._lock:
            if self.doc_versions_of(kb, doc_id) == version:
                self._db.execute(
                    "INSERT OR REPLACE INTO features VALUES (?, ?, ?)", (kb, doc_id, data)
                )

    def doc_versions_of(self, kb: str, doc_id: str) -> str | None:
        with self._lock:
            row = self._db.execute(
                "SELECT version, content_hash, n_chunks FROM documents WHERE kb = ? AND doc_id = ?",
                (kb, doc_id),
            ).fetchone()
        return doc_version(*row) if row else None

    def profiles(self, kb: str, doc_ids: Sequence[str] | None = None) -> dict[str, str]:
        """The stored profiles (JSON) of the knowledge base's listed documents that have one
        (of ``doc_ids`` only, when given)."""
        query = (
            "SELECT p.doc_id, p.data FROM profiles p JOIN documents d "
            "ON d.kb = p.kb AND d.doc_id = p.doc_id WHERE p.kb = ?"
        )
        if doc_ids is None:
            with self._lock:
                return {r[0]: r[1] for r in self._db.execute(query, (kb,)).fetchall()}
        out: dict[str, str] = {}
        for start in range(0, len(doc_ids), 500):  # under SQLite's bound on parameters
            part = list(doc_ids[start : start + 500])
            marks = ",".join("?" * len(part))
            with self._lock:
                rows = self._db.execute(f"{query} AND p.doc_id IN ({marks})", (kb, *part))
                out.update((r[0], r[1]) for r in rows.fetchall())
        return out

    def store_profile(self, kb: str, doc_id: str, version: str, data: str) -> None:
        """Keep a profile computed for a document written without one (a library older than
        profiles), if it is still at ``version``."""
        with self._lock:
            if self.doc_versions_of(kb, doc_id) == version:
                self._db.execute(
                    "INSERT OR REPLACE INTO profiles VALUES (?, ?, ?)", (kb, doc_id, data)
                )
