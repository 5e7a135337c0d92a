"""The library catalogue: knowledge bases, documents and their chunks, in one SQLite file.

SQLite is the source of truth for chunks (their full typed form and keyword tokens); Chroma holds
their vectors. One transaction per document keeps the catalogue whole; a generation number per
knowledge base tells the keyword index when it must be rebuilt. The ``pending`` table is the
write journal: a change that touches Chroma or the asset folders is recorded (committed) before
it starts and removed when it is done, so a crash leaves a row naming what to clean up
(``rag_app.index.consistency``; docs/CONSISTENCY.md).
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

from rag_app.database.sqlite import add_column, open_sqlite
from rag_app.facts.stored import StoredFact
from rag_app.index.catalogue_reads import (
    FEATURES_SCHEMA,
    PROFILES_SCHEMA,
    IncrementalReads,
    doc_version,
)
from rag_app.index.facts_store import FACTS_SCHEMA, FactReads, insert_facts
from rag_app.models import Chunk, DocumentInfo

_SCHEMA = """
CREATE TABLE IF NOT EXISTS kbs (
    kb TEXT PRIMARY KEY, created_at TEXT NOT NULL, generation INTEGER NOT NULL DEFAULT 0,
    tokenizer TEXT NOT NULL DEFAULT '');
CREATE TABLE IF NOT EXISTS documents (
    kb TEXT NOT NULL, doc_id TEXT NOT NULL, name TEXT NOT NULL, source_format TEXT NOT NULL,
    n_items INTEGER NOT NULL, n_chunks INTEGER NOT NULL, type_counts TEXT NOT NULL,
    pages INTEGER NOT NULL, size_bytes INTEGER NOT NULL, content_hash TEXT NOT NULL,
    ingested_at TEXT NOT NULL, assets_dir TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (kb, doc_id));
CREATE TABLE IF NOT EXISTS chunks (
    kb TEXT NOT NULL, chunk_id TEXT NOT NULL, doc_id TEXT NOT NULL, seq INTEGER NOT NULL,
    payload TEXT NOT NULL, tokens TEXT NOT NULL,
    PRIMARY KEY (kb, chunk_id));
CREATE INDEX IF NOT EXISTS chunks_by_doc ON chunks (kb, doc_id, seq);
CREATE INDEX IF NOT EXISTS documents_by_hash ON documents (kb, content_hash);
CREATE TABLE IF NOT EXISTS pending (
    id INTEGER PRIMARY KEY AUTOINCREMENT, kb TEXT NOT NULL, op TEXT NOT NULL,
    doc_id TEXT NOT NULL DEFAULT '', new_ids TEXT NOT NULL DEFAULT '[]',
    old_ids TEXT NOT NULL DEFAULT '[]', folder TEXT NOT NULL DEFAULT '',
    pid INTEGER NOT NULL, started_at TEXT NOT NULL);
"""
# The schema's versions (``rag_app.database.sqlite``): the tables, then the columns added since.
MIGRATIONS = (
    _SCHEMA + FEATURES_SCHEMA,
    add_column("kbs", "tokenizer", "TEXT NOT NULL DEFAULT ''"),  # keyword-token versioning
    add_column("documents", "version", "INTEGER NOT NULL DEFAULT 0"),  # per-document versions
    PROFILES_SCHEMA,  # per-document profiles (rag_app.index.profile)
    FACTS_SCHEMA,  # each document's tables' cells as facts (rag_app.index.facts_store)
)
# Documents kept beside one of the same file name ("report (2)" beside "report") were listed
# under that file name too until admission named them by their id: named so when found.
_KEPT_BESIDE = """doc_id LIKE '% (%)' AND EXISTS (
    SELECT 1 FROM documents AS o WHERE o.kb = documents.kb AND o.name = documents.name
    AND substr(documents.doc_id, 1, length(o.doc_id) + 2) = o.doc_id || ' (')"""
# SQLite's default limit on bound variables is 999 in older builds: id lists go in parts.
_IN_BATCH = 500
# The tables of a document's rows besides its own (chunks first), deleted with it.
_PER_DOCUMENT = ("chunks", "features", "profiles", "facts", "fact_sets")


@dataclass(frozen=True)
class PendingWrite:
    """A journalled change that has not finished: ``op`` is ``write`` (a document's new
    version, chunk ids ``new_ids`` replacing ``old_ids``), ``delete`` (a document, its ids in
    ``old_ids``) or ``drop_kb``; ``folder`` is the name of the image folder the document had
    before the change ("" when none); ``pid`` wrote it, at ``started_at``."""

    id: int
    kb: str
    op: str
    doc_id: str
    new_ids: tuple[str, ...]
    old_ids: tuple[str, ...]
    folder: str
    pid: int
    started_at: str


def chunk_to_json(chunk: Chunk) -> str:
    return json.dumps(asdict(chunk), ensure_ascii=False)


def chunk_from_json(payload: str) -> Chunk:
    data = json.loads(payload)
    for key in ("item_indices", "pages", "heading_path"):
        data[key] = tuple(data.get(key) or ())
    data["fields"] = tuple(tuple(pair) for pair in data.get("fields") or ())
    return Chunk(**data)


class Catalogue(IncrementalReads, FactReads):
    """Thread-safe access to the catalogue file (one connection, serialised by a lock)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.RLock()
        self._db = open_sqlite(path, MIGRATIONS)
        if self._db.execute(f"SELECT 1 FROM documents WHERE {_KEPT_BESIDE}").fetchone():
            self._db.execute(f"UPDATE documents SET name = doc_id WHERE {_KEPT_BESIDE}")

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # knowledge bases ----------------------------------------------------------------------------
    def ensure_kb(self, kb: str) -> None:
        with self._lock:
            self._db.execute(
                "INSERT OR IGNORE INTO kbs (kb, created_at) VALUES (?, ?)", (kb, _now())
            )

    def knowledge_bases(self) -> list[str]:
        with self._lock:
            return [r[0] for r in self._db.execute("SELECT kb FROM kbs ORDER BY created_at, kb")]

    def generation(self, kb: str) -> int:
        with self._lock:
            row = self._db.execute("SELECT generation FROM kbs WHERE kb = ?", (kb,)).fetchone()
        return int(row[0]) if row else 0

    def drop_kb(self, kb: str) -> None:
        with self._lock, self._tx():
            for table in (*_PER_DOCUMENT, "documents", "kbs"):
                self._db.execute(f"DELETE FROM {table} WHERE kb = ?", (kb,))

    # documents ----------------------------------------------------------------------------------
    def documents(self, kb: str) -> list[DocumentInfo]:
        with self._lock:
            rows = self._db.execute(
                "SELECT doc_id, name, source_format, n_items, n_chunks, type_counts, pages, "
                "size_bytes, content_hash, ingested_at, assets_dir FROM documents WHERE kb = ? "
                "ORDER BY ingested_at, doc_id",
                (kb,),
            ).fetchall()
        return [_info(row) for row in rows]

    def document(self, kb: str, doc_id: str) -> DocumentInfo | None:
        with self._lock:
            row = self._db.execute(
                "SELECT doc_id, name, source_format, n_items, n_chunks, type_counts, pages, "
                "size_bytes, content_hash, ingested_at, assets_dir FROM documents "
                "WHERE kb = ? AND doc_id = ?",
                (kb, doc_id),
            ).fetchone()
        return _info(row) if row else None

    def find_hash(self, kb: str, content_hash: str) -> DocumentInfo | None:
        """The first listed document (in listing order) with this content hash, if any."""
        with self._lock:
            row = self._db.execute(
                "SELECT doc_id, name, source_format, n_items, n_chunks, type_counts, pages, "
                "size_bytes, content_hash, ingested_at, assets_dir FROM documents "
                "WHERE kb = ? AND content_hash = ? ORDER BY ingested_at, doc_id LIMIT 1",
                (kb, content_hash),
            ).fetchone()
        return _info(row) if row else None

    def add_document(
        self,
        kb: str,
        info: DocumentInfo,
        chunks: Sequence[Chunk],
        tokens: Sequence[list[str]],
        features: str = "",
        profile: str = "",
        facts: Sequence[StoredFact] | None = None,
    ) -> tuple[int, str]:
        """Replace any document of the same id with this one, its chunks, its features
        (``rag_app.index.doc_features``), its profile (``rag_app.index.profile``) and its tables'
        facts (``rag_app.facts.stored``; None: read on first use), atomically; returns the
        knowledge base's new generation and the document's version."""
        with self._lock, self._tx():
            self._delete_doc(kb, info.doc_id)
            generation = self._bump(kb)
            self._db.execute(
                "INSERT INTO documents (kb, doc_id, name, source_format, n_items, n_chunks, "
                "type_counts, pages, size_bytes, content_hash, ingested_at, assets_dir, version) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    kb,
                    info.doc_id,
                    info.name,
                    info.source_format,
                    info.n_items,
                    info.n_chunks,
                    json.dumps(dict(info.type_counts)),
                    info.pages,
                    info.size_bytes,
                    info.content_hash,
                    info.ingested_at,
                    info.assets_dir,
                    generation,
                ),
            )
            self._db.executemany(
                "INSERT INTO chunks VALUES (?, ?, ?, ?, ?, ?)",
                [
                    (
                        kb,
                        c.chunk_id,
                        c.doc_id,
                        n,
                        chunk_to_json(c),
                        json.dumps(t, ensure_ascii=False),
                    )
                    for n, (c, t) in enumerate(zip(chunks, tokens))
                ],
            )
            if features:
                self._db.execute(
                    "INSERT INTO features VALUES (?, ?, ?)", (kb, info.doc_id, features)
                )
            if profile:
                self._db.execute(
                    "INSERT INTO profiles VALUES (?, ?, ?)", (kb, info.doc_id, profile)
                )
            insert_facts(self._db, kb, info.doc_id, facts)
        return generation, doc_version(generation, info.content_hash, info.n_chunks)

    def delete_document(self, kb: str, doc_id: str) -> bool:
        with self._lock, self._tx():
            found = self._delete_doc(kb, doc_id)
            if found:
                self._bump(kb)
        return found

    def _delete_doc(self, kb: str, doc_id: str) -> bool:
        cur = self._db.execute("DELETE FROM documents WHERE kb = ? AND doc_id = ?", (kb, doc_id))
        for table in _PER_DOCUMENT:
            self._db.execute(f"DELETE FROM {table} WHERE kb = ? AND doc_id = ?", (kb, doc_id))
        return cur.rowcount > 0

    def _bump(self, kb: str) -> int:
        self._db.execute("INSERT OR IGNORE INTO kbs (kb, created_at) VALUES (?, ?)", (kb, _now()))
        self._db.execute("UPDATE kbs SET generation = generation + 1 WHERE kb = ?", (kb,))
        row = self._db.execute("SELECT generation FROM kbs WHERE kb = ?", (kb,)).fetchone()
        return int(row[0])

    # chunks -------------------------------------------------------------------------------------
    def chunks(self, kb: str, doc_id: str | None = None) -> list[Chunk]:
        query = "SELECT payload FROM chunks WHERE kb = ?"
        args: tuple[str, ...] = (kb,)
        if doc_id is not None:
            query += " AND doc_id = ?"
            args = (kb, doc_id)
        with self._lock:
            rows = self._db.execute(query + " ORDER BY doc_id, seq", args).fetchall()
        return [chunk_from_json(r[0]) for r in rows]

    def tokenizer_version(self, kb: str) -> str:
        with self._lock:
            row = self._db.execute("SELECT tokenizer FROM kbs WHERE kb = ?", (kb,)).fetchone()
        return str(row[0]) if row else ""

    def replace_tokens(self, kb: str, tokens: dict[str, list[str]], version: str) -> None:
        """Store re-computed keyword tokens (a new tokenizer version) and bump the generation."""
        with self._lock, self._tx():
            self._db.executemany(
                "UPDATE chunks SET tokens = ? WHERE kb = ? AND chunk_id = ?",
                [(json.dumps(t, ensure_ascii=False), kb, cid) for cid, t in tokens.items()],
            )
            self._db.execute("UPDATE kbs SET tokenizer = ? WHERE kb = ?", (version, kb))
            self._bump(kb)

    def set_tokenizer_version(self, kb: str, version: str) -> None:
        with self._lock:
            self._db.execute("UPDATE kbs SET tokenizer = ? WHERE kb = ?", (version, kb))

    def chunk_owners(self, kb: str) -> dict[str, str]:
        """Every chunk id of a knowledge base with its document id (no payload parsed)."""
        with self._lock:
            rows = self._db.execute(
                "SELECT chunk_id, doc_id FROM chunks WHERE kb = ?", (kb,)
            ).fetchall()
        return {r[0]: r[1] for r in rows}

    def owned_ids(self, kb: str, ids: Sequence[str]) -> set[str]:
        """Those of ``ids`` that are chunks of a listed document."""
        found: set[str] = set()
        with self._lock:
            for start in range(0, len(ids), _IN_BATCH):
                part = list(ids[start : start + _IN_BATCH])
                marks = ",".join("?" * len(part))
                rows = self._db.execute(
                    f"SELECT chunk_id FROM chunks WHERE kb = ? AND chunk_id IN ({marks})",
                    (kb, *part),
                ).fetchall()
                found.update(r[0] for r in rows)
        return found

    def chunks_by_id(self, kb: str, ids: Sequence[str]) -> list[Chunk]:
        """The chunks of ``ids`` that exist, by document and position. Sorted here, not in SQL:
        an ORDER BY makes SQLite walk every chunk of the knowledge base instead of looking
        each id up."""
        rows: list[tuple[str, str, int]] = []
        with self._lock:
            for start in range(0, len(ids), _IN_BATCH):
                part = list(ids[start : start + _IN_BATCH])
                marks = ",".join("?" * len(part))
                rows += self._db.execute(
                    f"SELECT doc_id, payload, seq FROM chunks WHERE kb = ? AND chunk_id IN ({marks})",
                    (kb, *part),
                ).fetchall()
        rows.sort(key=lambda r: (r[0], r[2]))
        return [chunk_from_json(r[1]) for r in rows]

    def folders_in_use(self, kb: str) -> set[str]:
        """The image folder names (under the knowledge base's assets) listed documents have."""
        with self._lock:
            rows = self._db.execute(
                "SELECT assets_dir FROM documents WHERE kb = ? AND assets_dir != ''", (kb,)
            ).fetchall()
        return {Path(r[0]).name for r in rows}

    # the write journal --------------------------------------------------------------------------
    def begin_write(
        self,
        kb: str,
        op: str,
        doc_id: str = "",
        new_ids: Sequence[str] = (),
        old_ids: Sequence[str] = (),
        folder: str = "",
    ) -> int:
        """Record (committed) a change about to touch vectors or files; returns its row id."""
        with self._lock:
            cur = self._db.execute(
                "INSERT INTO pending (kb, op, doc_id, new_ids, old_ids, folder, pid, started_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    kb,
                    op,
                    doc_id,
                    json.dumps(list(new_ids), ensure_ascii=False),
                    json.dumps(list(old_ids), ensure_ascii=False),
                    folder,
                    os.getpid(),
                    _now(),
                ),
            )
            return int(cur.lastrowid or 0)

    def end_write(self, row: int) -> None:
        with self._lock:
            self._db.execute("DELETE FROM pending WHERE id = ?", (row,))

    def pending_writes(self) -> list[PendingWrite]:
        with self._lock:
            rows = self._db.execute(
                "SELECT id, kb, op, doc_id, new_ids, old_ids, folder, pid, started_at FROM pending "
                "ORDER BY id"
            ).fetchall()
        return [
            PendingWrite(
                r[0], r[1], r[2], r[3], tuple(json.loads(r[4])), tuple(json.loads(r[5])), *r[6:]
            )
            for r in rows
        ]

    # integrity ----------------------------------------------------------------------------------
    def integrity_problems(self) -> list[str]:
        """What is wrong inside the catalogue itself: SQLite's quick check, chunk rows that no
        document row owns, documents whose chunk count disagrees with their rows."""
        with self._lock:
            problems = [
                f"sqlite: {r[0]}"
                for r in self._db.execute("PRAGMA quick_check").fetchall()
                if r[0] != "ok"
            ]
            for kb, doc_id, n in self._db.execute(
                "SELECT c.kb, c.doc_id, COUNT(*) FROM chunks c LEFT JOIN documents d "
                "ON d.kb = c.kb AND d.doc_id = c.doc_id WHERE d.doc_id IS NULL "
                "GROUP BY c.kb, c.doc_id"
            ).fetchall():
                problems.append(f"{kb}: {n} chunk rows of {doc_id}, which is not listed")
            for kb, doc_id, want, have in self._db.execute(
                "SELECT d.kb, d.doc_id, d.n_chunks, "
                "(SELECT COUNT(*) FROM chunks c WHERE c.kb = d.kb AND c.doc_id = d.doc_id) AS n "
                "FROM documents d WHERE d.n_chunks != n"
            ).fetchall():
                problems.append(f"{kb}: {doc_id} lists {want} chunks and has {have}")
            problems += self.fact_problems()
        return problems

    def delete_unlisted_chunks(self) -> int:
        """Remove chunk rows whose document is not listed; returns how many went."""
        unlisted = "NOT EXISTS (SELECT 1 FROM documents d WHERE d.kb = chunks.kb AND d.doc_id = chunks.doc_id)"
        with self._lock, self._tx():
            kbs = [
                r[0] for r in self._db.execute(f"SELECT DISTINCT kb FROM chunks WHERE {unlisted}")
            ]
            cur = self._db.execute(f"DELETE FROM chunks WHERE {unlisted}")
            for table in _PER_DOCUMENT[1:]:
                self._db.execute(
                    f"DELETE FROM {table} WHERE {unlisted.replace('chunks.', table + '.')}"
                )
            self.delete_orphan_facts()
            for kb in kbs:
                self._bump(kb)
            return int(cur.rowcount)

    # plumbing -----------------------------------------------------------------------------------
    def _tx(self) -> _Transaction:
        return _Transaction(self._db)


class _Transaction:
    def __init__(self, db: sqlite3.Connection, begin: str = "BEGIN IMMEDIATE") -> None:
        self.db = db
        self.begin = begin

    def __enter__(self) -> None:
        self.db.execute(self.begin)

    def __exit__(self, exc_type, exc, tb) -> None:  # type: ignore[no-untyped-def]
        self.db.execute("ROLLBACK" if exc_type else "COMMIT")


def _info(row: tuple) -> DocumentInfo:  # type: ignore[type-arg]
    counts = json.loads(row[5])
    return DocumentInfo(
        doc_id=row[0],
        name=row[1],
        source_format=row[2],
        n_items=row[3],
        n_chunks=row[4],
        type_counts=tuple(sorted(counts.items())),
        pages=row[6],
        size_bytes=row[7],
        content_hash=row[8],
        ingested_at=row[9],
        assets_dir=row[10],
    )


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
