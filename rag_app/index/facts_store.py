"""The facts of each document's tables in the catalogue (``rag_app.facts.stored``): one row a
cell, written with the document's chunks in its one transaction and deleted with them, and a
row a document saying which version of the reader stored them and how many there are.

A mixin of ``Catalogue`` (its connection and lock), kept apart as ``catalogue_reads`` is. The
rows' columns and their reading are shared with the PostgreSQL catalogue
(``rag_app.index.pg_registry``, migration 0003), which stores the same rows.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Sequence
from typing import Any

from rag_app.facts.stored import FACTS_VERSION, StoredFact
from rag_app.index.catalogue_reads import IN_BATCH, doc_version

# One row a cell, in the document's order (``seq``), and one a document whose facts are stored
# (by reader ``version``; ``n`` of them): a document without that row, or of another version,
# has its facts read from its chunks on first read (``rag_app.index.library_facts``).
FACTS_SCHEMA = """
CREATE TABLE IF NOT EXISTS facts (
    kb TEXT NOT NULL, doc_id TEXT NOT NULL, seq INTEGER NOT NULL, chunk_id TEXT NOT NULL,
    row_index INTEGER NOT NULL, col_index INTEGER NOT NULL, subject TEXT NOT NULL,
    metric TEXT NOT NULL, column_label TEXT NOT NULL, period TEXT NOT NULL, value TEXT NOT NULL,
    number REAL, unit TEXT NOT NULL, scale TEXT NOT NULL, exponent INTEGER NOT NULL,
    caption TEXT NOT NULL, context TEXT NOT NULL, footnote TEXT NOT NULL,
    headings TEXT NOT NULL, pages TEXT NOT NULL,
    PRIMARY KEY (kb, doc_id, seq));
CREATE TABLE IF NOT EXISTS fact_sets (
    kb TEXT NOT NULL, doc_id TEXT NOT NULL, version INTEGER NOT NULL, n INTEGER NOT NULL,
    PRIMARY KEY (kb, doc_id));
"""
# The columns of a fact's row after its knowledge base, in both catalogues.
_COLUMNS = (
    "doc_id", "seq", "chunk_id", "row_index", "col_index", "subject", "metric", "column_label",
    "period", "value", "number", "unit", "scale", "exponent", "caption", "context", "footnote",
    "headings", "pages",
)  # fmt: skip
FACT_COLUMNS = ", ".join(_COLUMNS)


def fact_row(kb: str, seq: int, fact: StoredFact) -> tuple[Any, ...]:
    """``fact``'s row (kb, then ``FACT_COLUMNS``), ``seq`` its place in its document."""
    return (
        kb, fact.doc_id, seq, fact.chunk_id, fact.row, fact.col, fact.subject, fact.metric,
        fact.column, fact.period, fact.value, fact.number, fact.unit, fact.scale, fact.exponent,
        fact.caption, fact.context, fact.footnote, json.dumps(list(fact.headings), ensure_ascii=False),
        json.dumps(list(fact.pages)),
    )  # fmt: skip


def fact_from_row(row: Sequence[Any]) -> StoredFact:
    """The fact a row of ``FACT_COLUMNS`` holds."""
    (doc_id, _, chunk_id, r, c, subject, metric, column, period, value, number, unit, scale,
     exponent, caption, context, footnote, headings, pages) = row  # fmt: skip
    return StoredFact(
        chunk_id, int(r), int(c), metric, column, value,
        None if number is None else float(number), scale,
        doc_id=doc_id, subject=subject, period=period, unit=unit, exponent=int(exponent),
        caption=caption, context=context, footnote=footnote,
        headings=tuple(json.loads(headings)), pages=tuple(int(p) for p in json.loads(pages)),
    )  # fmt: skip


def insert_facts(
    db: Any, kb: str, doc_id: str, facts: Sequence[StoredFact] | None, prefix: str = ""
) -> None:
    """Write a document's facts and its set row into ``db`` (SQLite's catalogue, or with
    ``prefix`` "library_" PostgreSQL's), inside the caller's transaction, after its old rows
    went; None (not read) writes nothing, so they are read on first use."""
    if facts is None:
        return
    marks = ", ".join("?" * (len(_COLUMNS) + 1))
    if facts:
        db.executemany(
            f"INSERT INTO {prefix}facts (kb, {FACT_COLUMNS}) VALUES ({marks})",
            [fact_row(kb, n, f) for n, f in enumerate(facts)],
        )
    db.execute(
        f"INSERT INTO {prefix}fact_sets (kb, doc_id, version, n) VALUES (?, ?, ?, ?)",
        (kb, doc_id, FACTS_VERSION, len(facts)),
    )


class FactReads:
    _db: sqlite3.Connection
    _lock: threading.RLock

    def facts(
        self, kb: str, doc_ids: Sequence[str] | None = None, metric: str = ""
    ) -> list[StoredFact]:
        """The stored facts of the knowledge base's listed documents (those of ``doc_ids``
        when given) that this version of the reader stored, by document and place; only those
        whose row label holds ``metric`` when given."""
        select = (
            f"SELECT {', '.join('f.' + c for c in _COLUMNS)} FROM facts f "
            "JOIN documents d ON d.kb = f.kb AND d.doc_id = f.doc_id "
            "JOIN fact_sets s ON s.kb = f.kb AND s.doc_id = f.doc_id AND s.version = ? "
            "WHERE f.kb = ?"
        )
        args: list[Any] = [FACTS_VERSION, kb]
        if metric:
            select += " AND instr(f.metric, ?) > 0"
            args.append(metric)
        order = " ORDER BY f.doc_id, f.seq"
        with self._lock:
            if doc_ids is None:
                rows = self._db.execute(select + order, args).fetchall()
            else:
                rows = []
                for start in range(0, len(doc_ids), IN_BATCH):
                    part = list(doc_ids[start : start + IN_BATCH])
                    marks = ",".join("?" * len(part))
                    sql = f"{select} AND f.doc_id IN ({marks}){order}"
                    rows += self._db.execute(sql, (*args, *part)).fetchall()
        return [fact_from_row(r) for r in rows]

    def fact_counts(self, kb: str) -> dict[str, int]:
        """How many facts each listed document whose facts are stored has (0: tables without
        any, or no tables)."""
        with self._lock:
            rows = self._db.execute(
                "SELECT s.doc_id, s.n FROM fact_sets s JOIN documents d "
                "ON d.kb = s.kb AND d.doc_id = s.doc_id WHERE s.kb = ? AND s.version = ?",
                (kb, FACTS_VERSION),
            ).fetchall()
        return {r[0]: int(r[1]) for r in rows}

    def facts_unread(self, kb: str) -> dict[str, str]:
        """The listed documents whose facts are not stored, or by another version of the
        reader, with their versions (``doc_versions``)."""
        with self._lock:
            rows = self._db.execute(
                "SELECT d.doc_id, d.version, d.content_hash, d.n_chunks FROM documents d "
                "LEFT JOIN fact_sets s ON s.kb = d.kb AND s.doc_id = d.doc_id AND s.version = ? "
                "WHERE d.kb = ? AND s.doc_id IS NULL ORDER BY d.ingested_at, d.doc_id",
                (FACTS_VERSION, kb),
            ).fetchall()
        return {r[0]: doc_version(r[1], r[2], r[3]) for r in rows}

    def store_facts(self, kb: str, doc_id: str, version: str, facts: Sequence[StoredFact]) -> bool:
        """Keep facts read for a document stored without them (a catalogue older than facts,
        or of another reader), if it is still at ``version`` (a document written since has its
        own); returns whether they were kept."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                row = self._db.execute(
                    "SELECT version, content_hash, n_chunks FROM documents "
                    "WHERE kb = ? AND doc_id = ?",
                    (kb, doc_id),
                ).fetchone()
                kept = row is not None and doc_version(*row) == version
                if kept:
                    delete_facts(self._db, kb, doc_id)
                    insert_facts(self._db, kb, doc_id, facts)
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")
        return kept

    def fact_problems(self) -> list[str]:
        """Stored facts whose chunk the catalogue no longer holds (caller holds the lock)."""
        rows = self._db.execute(
            "SELECT f.kb, f.doc_id, COUNT(*) FROM facts f LEFT JOIN chunks c "
            "ON c.kb = f.kb AND c.chunk_id = f.chunk_id WHERE c.chunk_id IS NULL "
            "GROUP BY f.kb, f.doc_id"
        ).fetchall()
        return [
            f"{kb}: {n} facts of {doc_id} whose chunks are not listed" for kb, doc_id, n in rows
        ]

    def delete_orphan_facts(self) -> None:
        """Remove the facts of documents some of whose facts' chunks are gone, so they are read
        again from the chunks there are (caller holds the lock, in a transaction)."""
        gone = "NOT EXISTS (SELECT 1 FROM chunks c WHERE c.kb = f.kb AND c.chunk_id = f.chunk_id)"
        for kb, doc_id in self._db.execute(
            f"SELECT DISTINCT kb, doc_id FROM facts f WHERE {gone}"
        ).fetchall():
            delete_facts(self._db, kb, doc_id)


def delete_facts(db: Any, kb: str, doc_id: str, prefix: str = "") -> None:
    for table in ("facts", "fact_sets"):
        db.execute(f"DELETE FROM {prefix}{table} WHERE kb = ? AND doc_id = ?", (kb, doc_id))
