"""The library's shared catalogue in PostgreSQL (``RAG_APP_DATABASE_URL`` with
``RAG_APP_CHROMA_URL``; docs/SHARED_STORE.md): what ``remote.Registry`` keeps in a Chroma
collection (knowledge bases with a version, document rows with a stamp, images), plus every
chunk's payload and keyword tokens and the write journal of changes under way, in the tables of
migration 0002, and its tables' facts (``rag_app.facts.stored``), in those of 0003. The vectors
stay on the Chroma server.

A document's row, its chunks, its facts, its images and the knowledge base's new version are
written in one transaction (``put_document``), so a reader sees a document whole or not at all,
and a replica pulls rows, chunks and facts from one snapshot (``pull``). Writers hold the
knowledge base's advisory lock (``rag_app.database.postgres.KbLock``) around all of this; the
registry itself takes none.
"""

from __future__ import annotations

import json
import os
import socket
import threading
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

from rag_app.database.postgres import open_postgres
from rag_app.facts.stored import FACTS_VERSION, StoredFact
from rag_app.index.catalogue import PendingWrite, chunk_to_json
from rag_app.index.facts_store import FACT_COLUMNS, fact_from_row, insert_facts
from rag_app.index.remote import info_from_json, info_to_json, stamp
from rag_app.index.replica import Fetched
from rag_app.models import Chunk, DocumentInfo
from rag_app.text.analyzer import TOKENIZER_VERSION

Record = tuple[str, str, dict[str, Any]]  # (chunk id, chunk JSON, {"seq", "tokens", "tokenizer"})
# The tables of a document's rows besides its own, deleted with it.
_PER_DOCUMENT = ("library_chunks", "library_assets", "library_facts", "library_fact_sets")


class PgRegistry:
    """Knowledge bases, documents, chunks, images and the journal in the shared database (one
    connection, serialised by a lock, as the other stores use theirs)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._db = open_postgres(url)
        self._lock = threading.RLock()

    def close(self) -> None:
        with self._lock:
            self._db.close()

    @contextmanager
    def _tx(self, begin: str = "BEGIN") -> Iterator[Any]:
        with self._lock:
            self._db.execute(begin)
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            return self._db.execute(sql, params).fetchall()

    # knowledge bases ----------------------------------------------------------------------------
    def versions(self) -> dict[str, str]:
        return {r[0]: r[1] for r in self._rows("SELECT kb, version FROM library_kbs")}

    def version(self, kb: str) -> str | None:
        rows = self._rows("SELECT version FROM library_kbs WHERE kb = ?", (kb,))
        return str(rows[0][0]) if rows else None

    def bump(self, kb: str) -> str:
        with self._lock:
            return _bump(self._db, kb)

    def ensure_kb(self, kb: str) -> None:
        with self._lock:
            self._db.execute(
                "INSERT INTO library_kbs (kb, version, created_at) VALUES (?, ?, ?) "
                "ON CONFLICT (kb) DO NOTHING",
                (kb, uuid.uuid4().hex, _now()),
            )

    def drop_kb(self, kb: str) -> None:
        """Forget the knowledge base, its rows, chunks and images (its vectors are the
        journal's to drop)."""
        with self._tx() as db:
            for table in (*_PER_DOCUMENT, "library_documents", "library_kbs"):
                db.execute(f"DELETE FROM {table} WHERE kb = ?", (kb,))

    # documents ----------------------------------------------------------------------------------
    def stamps(self, kb: str) -> dict[str, str]:
        rows = self._rows("SELECT doc_id, stamp FROM library_documents WHERE kb = ?", (kb,))
        return {r[0]: r[1] for r in rows}

    def documents(self, kb: str, doc_ids: list[str]) -> dict[str, DocumentInfo]:
        if not doc_ids:
            return {}
        rows = self._rows(
            "SELECT info FROM library_documents WHERE kb = ? AND doc_id = ANY(?)", (kb, doc_ids)
        )
        infos = [info_from_json(r[0]) for r in rows]
        return {i.doc_id: i for i in infos}

    def pull(self, kb: str, doc_ids: list[str]) -> Fetched:
        """Those documents' rows, their chunks (in document order) and the facts stored of
        them (of those whose facts this version of the reader stored), read in one snapshot."""
        with self._tx("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY") as db:
            infos = [
                info_from_json(r[0])
                for r in db.execute(
                    "SELECT info FROM library_documents WHERE kb = ? AND doc_id = ANY(?)",
                    (kb, doc_ids),
                ).fetchall()
            ]
            chunks = db.execute(
                "SELECT doc_id, chunk_id, seq, payload, tokens, tokenizer FROM library_chunks "
                "WHERE kb = ? AND doc_id = ANY(?) ORDER BY doc_id, seq",
                (kb, doc_ids),
            ).fetchall()
            read = db.execute(
                "SELECT doc_id FROM library_fact_sets WHERE kb = ? AND doc_id = ANY(?) "
                "AND version = ?",
                (kb, doc_ids, FACTS_VERSION),
            ).fetchall()
            rows = (
                db.execute(
                    f"SELECT {FACT_COLUMNS} FROM library_facts WHERE kb = ? AND doc_id = ANY(?) "
                    "ORDER BY doc_id, seq",
                    (kb, [r[0] for r in read]),
                ).fetchall()
                if read
                else []
            )
        records: dict[str, list[Record]] = {i.doc_id: [] for i in infos}
        for doc_id, chunk_id, seq, payload, tokens, tokenizer in chunks:
            if doc_id in records:
                meta = {"seq": seq, "tokens": tokens, "tokenizer": tokenizer}
                records[doc_id].append((chunk_id, payload, meta))
        facts: dict[str, list[StoredFact]] = {r[0]: [] for r in read}
        for row in rows:
            facts[row[0]].append(fact_from_row(row))
        return {i.doc_id: i for i in infos}, records, facts

    def put_document(
        self,
        kb: str,
        info: DocumentInfo,
        assets: dict[str, bytes],
        limit: int,
        chunks: Sequence[Chunk] = (),
        tokens: Sequence[list[str]] = (),
        facts: Sequence[StoredFact] | None = None,
    ) -> bool:
        """The document's row, its chunks and tokens, its tables' facts (None: not read), its
        images (when they fit ``limit`` bytes) and a new version of the knowledge base, in one
        transaction; returns whether the images went too."""
        shared = bool(assets) and sum(len(b) for b in assets.values()) <= limit
        with self._tx() as db:
            _delete_doc(db, kb, info.doc_id)
            db.execute(
                "INSERT INTO library_documents (kb, doc_id, stamp, info) VALUES (?, ?, ?, ?)",
                (kb, info.doc_id, stamp(info), info_to_json(info)),
            )
            if chunks:
                db.executemany(
                    "INSERT INTO library_chunks (kb, chunk_id, doc_id, seq, payload, tokens, "
                    "tokenizer) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    [
                        (kb, c.chunk_id, c.doc_id, n, chunk_to_json(c))
                        + (json.dumps(t, ensure_ascii=False), TOKENIZER_VERSION)
                        for n, (c, t) in enumerate(zip(chunks, tokens))
                    ],
                )
            insert_facts(db, kb, info.doc_id, facts, prefix="library_")
            if shared:
                db.executemany(
                    "INSERT INTO library_assets (kb, doc_id, path, data) VALUES (?, ?, ?, ?)",
                    [(kb, info.doc_id, path, data) for path, data in assets.items()],
                )
            _bump(db, kb)
        return shared

    def delete_document(self, kb: str, doc_id: str) -> None:
        with self._tx() as db:
            _delete_doc(db, kb, doc_id)
            _bump(db, kb)

    def assets(self, kb: str, doc_id: str) -> dict[str, bytes]:
        rows = self._rows(
            "SELECT path, data FROM library_assets WHERE kb = ? AND doc_id = ?", (kb, doc_id)
        )
        return {r[0]: bytes(r[1]) for r in rows}

    # chunks -------------------------------------------------------------------------------------
    def owned_ids(self, kb: str, ids: Sequence[str]) -> set[str]:
        """Those of ``ids`` that are chunks of a listed document."""
        if not ids:
            return set()
        rows = self._rows(
            "SELECT chunk_id FROM library_chunks WHERE kb = ? AND chunk_id = ANY(?)",
            (kb, list(ids)),
        )
        return {r[0] for r in rows}

    def chunk_ids(self, kb: str) -> set[str]:
        return {r[0] for r in self._rows("SELECT chunk_id FROM library_chunks WHERE kb = ?", (kb,))}

    def has_document(self, kb: str, doc_id: str) -> bool:
        sql = "SELECT 1 FROM library_documents WHERE kb = ? AND doc_id = ?"
        return bool(self._rows(sql, (kb, doc_id)))

    # the journal --------------------------------------------------------------------------------
    def begin_write(
        self, kb: str, op: str, doc_id: str, new_ids: Sequence[str], old_ids: Sequence[str]
    ) -> int:
        """Record (committed) a change about to touch the vectors; returns its row id."""
        rows = self._rows(
            "INSERT INTO library_pending (kb, op, doc_id, new_ids, old_ids, host, pid, "
            "started_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
            (
                kb,
                op,
                doc_id,
                json.dumps(list(new_ids), ensure_ascii=False),
                json.dumps(list(old_ids), ensure_ascii=False),
                socket.gethostname(),
                os.getpid(),
                _now(),
            ),
        )
        return int(rows[0][0])

    def end_write(self, row: int) -> None:
        with self._lock:
            self._db.execute("DELETE FROM library_pending WHERE id = ?", (row,))

    def pending(self, kb: str | None = None) -> list[PendingWrite]:
        """Journal rows (of ``kb``, or all), as ``PendingWrite`` with the id negated (so they
        are never taken for a data dir's own rows) and the writer's host in ``folder``."""
        sql = "SELECT id, kb, op, doc_id, new_ids, old_ids, host, pid, started_at "
        sql += "FROM library_pending" + (" WHERE kb = ?" if kb is not None else "")
        rows = self._rows(sql + " ORDER BY id", (kb,) if kb is not None else ())
        return [
            PendingWrite(
                -r[0], r[1], r[2], r[3], tuple(json.loads(r[4])), tuple(json.loads(r[5])), *r[6:]
            )
            for r in rows
        ]


def _bump(db: Any, kb: str) -> str:
    version = uuid.uuid4().hex
    db.execute(
        "INSERT INTO library_kbs (kb, version, created_at) VALUES (?, ?, ?) "
        "ON CONFLICT (kb) DO UPDATE SET version = excluded.version",
        (kb, version, _now()),
    )
    return version


def _delete_doc(db: Any, kb: str, doc_id: str) -> None:
    for table in (*_PER_DOCUMENT, "library_documents"):
        db.execute(f"DELETE FROM {table} WHERE kb = ? AND doc_id = ?", (kb, doc_id))


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
