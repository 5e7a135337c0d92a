"""The library catalogue: knowledge bases, documents and their chunks, in one SQLite file.

SQLite is the source of truth for chunks (their full typed form and keyword tokens); Chroma holds
their vectors. One transaction per document keeps the catalogue whole; a generation number per
knowledge base tells the keyword index when it must be rebuilt.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Sequence
from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path

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
"""


def chunk_to_json(chunk: Chunk) -> str:
    return json.dumps(asdict(chunk), ensure_ascii=False)


def chunk_from_json(payload: str) -> Chunk:
    data = json.loads(payload)
    for key in ("item_indices", "pages", "heading_path"):
        data[key] = tuple(data.get(key) or ())
    data["fields"] = tuple(tuple(pair) for pair in data.get("fields") or ())
    return Chunk(**data)


class Catalogue:
    """Thread-safe access to the catalogue file (one connection, serialised by a lock)."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._lock = threading.RLock()
        self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA busy_timeout=10000")
        self._db.executescript(_SCHEMA)
        columns = {row[1] for row in self._db.execute("PRAGMA table_info(kbs)")}
        if "tokenizer" not in columns:  # catalogues written before keyword-token versioning
            self._db.execute("ALTER TABLE kbs ADD COLUMN tokenizer TEXT NOT NULL DEFAULT ''")

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
            for table in ("chunks", "documents", "kbs"):
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
        return next((d for d in self.documents(kb) if d.doc_id == doc_id), None)

    def find_hash(self, kb: str, content_hash: str) -> DocumentInfo | None:
        return next((d for d in self.documents(kb) if d.content_hash == content_hash), None)

    def add_document(
        self, kb: str, info: DocumentInfo, chunks: Sequence[Chunk], tokens: Sequence[list[str]]
    ) -> None:
        """Replace any document of the same id with this one and its chunks, atomically."""
        with self._lock, self._tx():
            self._delete_doc(kb, info.doc_id)
            self._db.execute(
                "INSERT INTO documents VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
            self._bump(kb)

    def delete_document(self, kb: str, doc_id: str) -> bool:
        with self._lock, self._tx():
            found = self._delete_doc(kb, doc_id)
            if found:
                self._bump(kb)
        return found

    def _delete_doc(self, kb: str, doc_id: str) -> bool:
        cur = self._db.execute("DELETE FROM documents WHERE kb = ? AND doc_id = ?", (kb, doc_id))
        self._db.execute("DELETE FROM chunks WHERE kb = ? AND doc_id = ?", (kb, doc_id))
        return cur.rowcount > 0

    def _bump(self, kb: str) -> None:
        self._db.execute("INSERT OR IGNORE INTO kbs (kb, created_at) VALUES (?, ?)", (kb, _now()))
        self._db.execute("UPDATE kbs SET generation = generation + 1 WHERE kb = ?", (kb,))

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

    def chunk_tokens(self, kb: str) -> tuple[list[str], list[list[str]]]:
        with self._lock:
            rows = self._db.execute(
                "SELECT chunk_id, tokens FROM chunks WHERE kb = ? ORDER BY doc_id, seq", (kb,)
            ).fetchall()
        return [r[0] for r in rows], [json.loads(r[1]) for r in rows]

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

    # plumbing -----------------------------------------------------------------------------------
    def _tx(self) -> _Transaction:
        return _Transaction(self._db)


class _Transaction:
    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

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
