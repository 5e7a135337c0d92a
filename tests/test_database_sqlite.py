"""The one SQLite opener: WAL, the busy timeout, migrations by ``user_version``; and the files the
catalogue, the conversations and the audit log wrote before it open unchanged, data kept."""

from __future__ import annotations

import json
import sqlite3
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from rag_app.chat.audit import AuditLog, AuditRecord
from rag_app.chat.conversations import ConversationStore, SavedTurn, turn_to_json
from rag_app.database.sqlite import BUSY_TIMEOUT_MS, add_column, open_sqlite, schema_version
from rag_app.index.catalogue import MIGRATIONS, Catalogue, chunk_to_json
from rag_app.models import AskOptions, Chunk

# The statements the three stores ran on every open before the opener (the catalogue's kbs
# table as first written, before its tokenizer column and the documents' version column).
OLD_CATALOGUE = """
CREATE TABLE IF NOT EXISTS kbs (
    kb TEXT PRIMARY KEY, created_at TEXT NOT NULL, generation INTEGER NOT NULL DEFAULT 0);
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
# Tables and indexes added to the catalogue's script later (it ran them on every open).
CATALOGUE_ADDED_LATER = """
CREATE INDEX IF NOT EXISTS documents_by_hash ON documents (kb, content_hash);
CREATE TABLE IF NOT EXISTS pending (
    id INTEGER PRIMARY KEY AUTOINCREMENT, kb TEXT NOT NULL, op TEXT NOT NULL,
    doc_id TEXT NOT NULL DEFAULT '', new_ids TEXT NOT NULL DEFAULT '[]',
    old_ids TEXT NOT NULL DEFAULT '[]', folder TEXT NOT NULL DEFAULT '',
    pid INTEGER NOT NULL, started_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS features (
    kb TEXT NOT NULL, doc_id TEXT NOT NULL, data TEXT NOT NULL, PRIMARY KEY (kb, doc_id));
"""
# The columns the catalogue added when it found them missing.
OLD_CATALOGUE_COLUMNS = (
    "ALTER TABLE kbs ADD COLUMN tokenizer TEXT NOT NULL DEFAULT ''",
    "ALTER TABLE documents ADD COLUMN version INTEGER NOT NULL DEFAULT 0",
)
OLD_CONVERSATIONS = """
CREATE TABLE IF NOT EXISTS conversations (
    id TEXT PRIMARY KEY, user TEXT NOT NULL, title TEXT NOT NULL, kb TEXT NOT NULL,
    created_at TEXT NOT NULL, updated_at TEXT NOT NULL, n_turns INTEGER NOT NULL DEFAULT 0);
CREATE INDEX IF NOT EXISTS conversations_by_user ON conversations (user, updated_at);
CREATE TABLE IF NOT EXISTS turns (
    conversation_id TEXT NOT NULL, seq INTEGER NOT NULL, payload TEXT NOT NULL,
    PRIMARY KEY (conversation_id, seq));
CREATE TABLE IF NOT EXISTS preferences (
    user TEXT PRIMARY KEY, payload TEXT NOT NULL, updated_at TEXT NOT NULL);
"""
OLD_AUDIT = """
CREATE TABLE IF NOT EXISTS records (
    id INTEGER PRIMARY KEY AUTOINCREMENT, time TEXT NOT NULL, user TEXT NOT NULL,
    kb TEXT NOT NULL, client TEXT NOT NULL, payload TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS records_by_time ON records (time);
"""
CHUNK = Chunk("r#0", "r", "text", "毛利率为21.8%。", "r > 毛利率为21.8%。", (0,))


def _old_file(path: Path, script: str, *statements: str) -> None:
    """A file as the code before the opener wrote it (``user_version`` never set)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(path) as db:
        db.executescript(script)
        for statement in statements:
            db.execute(statement)
    db.close()


def _schema(path: Path) -> list[tuple[str, str, str]]:
    with sqlite3.connect(path) as db:
        rows = db.execute("SELECT type, name, sql FROM sqlite_master ORDER BY name").fetchall()
    db.close()
    return rows


def _columns(path: Path) -> dict[str, list[tuple[object, ...]]]:
    with sqlite3.connect(path) as db:
        names = [r[0] for r in db.execute("SELECT name FROM sqlite_master ORDER BY name")]
        out = {n: [r[1:] for r in db.execute(f"PRAGMA table_info('{n}')")] for n in names}
    db.close()
    return out


def _version(path: Path) -> int:
    with sqlite3.connect(path) as db:
        version = schema_version(db)
    db.close()
    return version


def _insert_document(path: Path) -> None:
    with sqlite3.connect(path) as db:
        db.execute("INSERT INTO kbs (kb, created_at, generation) VALUES ('kb', 't0', 3)")
        db.execute(
            "INSERT INTO documents (kb, doc_id, name, source_format, n_items, n_chunks, "
            "type_counts, pages, size_bytes, content_hash, ingested_at) VALUES "
            "('kb', 'r', 'r.json', 'content_list', 1, 1, '{\"text\": 1}', 1, 10, 'h', 't1')"
        )
        db.execute(
            "INSERT INTO chunks VALUES ('kb', 'r#0', 'r', 0, ?, '[\"毛利率\"]')",
            (chunk_to_json(CHUNK),),
        )
    db.close()


def test_a_new_file_is_opened_in_wal_with_the_busy_timeout_and_every_migration(
    tmp_path: Path,
) -> None:
    path = tmp_path / "new" / "store.sqlite"
    db = open_sqlite(path, ("CREATE TABLE t (a TEXT);", add_column("t", "b", "INTEGER")))
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute("PRAGMA busy_timeout").fetchone()[0] == BUSY_TIMEOUT_MS
    assert db.execute("PRAGMA foreign_keys").fetchone()[0] == 0  # as the stores always had
    assert schema_version(db) == 2
    assert [r[1] for r in db.execute("PRAGMA table_info(t)")] == ["a", "b"]
    db.close()


def test_each_migration_runs_once_and_a_new_one_runs_on_the_next_open(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite"
    runs: list[int] = []
    first = ("CREATE TABLE t (a TEXT);", lambda db: runs.append(1))
    open_sqlite(path, first).close()
    open_sqlite(path, first).close()
    assert runs == [1]
    db = open_sqlite(path, (*first, lambda db: runs.append(2)))
    assert runs == [1, 2] and schema_version(db) == 3
    db.close()


def test_connections_opening_a_new_file_at_once_migrate_it_once(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite"
    runs: list[int] = []
    steps = ("CREATE TABLE t (a TEXT);", lambda db: runs.append(1))
    with ThreadPoolExecutor(4) as pool:
        connections = list(pool.map(lambda _: open_sqlite(path, steps), range(4)))
    assert runs == [1]
    assert all(schema_version(db) == 2 for db in connections)
    for db in connections:
        db.close()


def test_a_failed_migration_leaves_the_file_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite"
    open_sqlite(path, ("CREATE TABLE t (a TEXT);",)).close()

    def broken(db: sqlite3.Connection) -> None:
        db.execute("CREATE TABLE u (a TEXT)")
        raise sqlite3.OperationalError("broken step")

    with pytest.raises(sqlite3.OperationalError, match="broken step"):
        open_sqlite(path, ("CREATE TABLE t (a TEXT);", broken))
    db = open_sqlite(path, ("CREATE TABLE t (a TEXT);",))
    assert schema_version(db) == 1
    assert [r[0] for r in db.execute("SELECT name FROM sqlite_master")] == ["t"]
    db.close()


def test_a_file_from_a_newer_program_is_left_as_it_is(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite"
    open_sqlite(path, ("CREATE TABLE t (a TEXT);", "CREATE TABLE u (a TEXT);")).close()
    db = open_sqlite(path, ("CREATE TABLE t (a TEXT);",))
    assert schema_version(db) == 2
    db.close()


def test_a_catalogue_from_before_its_added_columns_migrates_and_keeps_its_rows(
    tmp_path: Path,
) -> None:
    path = tmp_path / "catalogue.sqlite"
    _old_file(path, OLD_CATALOGUE)
    _insert_document(path)
    catalogue = Catalogue(path)
    assert [d.doc_id for d in catalogue.documents("kb")] == ["r"]
    assert catalogue.chunks("kb") == [CHUNK]
    assert catalogue.generation("kb") == 3 and catalogue.tokenizer_version("kb") == ""
    assert catalogue.doc_versions("kb") == {"r": "0:h:1"}
    catalogue.close()
    new = tmp_path / "new.sqlite"
    Catalogue(new).close()
    assert _columns(path) == _columns(new)  # the tables, indexes and columns of a new one
    assert _version(path) == len(MIGRATIONS)


def test_a_catalogue_the_code_before_the_opener_wrote_opens_unchanged(tmp_path: Path) -> None:
    """Every table and column already there (the old code added them on its opens): the
    migrations leave the schema as it was, add only what came after the opener (the profiles
    table, the facts tables) and record its version."""
    path = tmp_path / "catalogue.sqlite"
    _old_file(path, OLD_CATALOGUE + CATALOGUE_ADDED_LATER, *OLD_CATALOGUE_COLUMNS)
    _insert_document(path)
    before = _schema(path)
    catalogue = Catalogue(path)
    assert [d.doc_id for d in catalogue.documents("kb")] == ["r"]
    catalogue.close()
    after = _schema(path)
    added = ("profiles", "facts", "fact_sets")
    assert [row for row in after if not any(name in row[1] for name in added)] == before
    assert {("table", name) for name in added} <= {row[:2] for row in after}
    assert _version(path) == len(MIGRATIONS)


def test_an_old_conversations_file_opens_unchanged_with_its_turns(tmp_path: Path) -> None:
    path = tmp_path / "conversations.sqlite"
    _old_file(path, OLD_CONVERSATIONS)
    turn = SavedTurn("毛利率是多少？", AskOptions(kb="default"), answer="21.8% [Source 1]")
    with sqlite3.connect(path) as db:
        db.execute("INSERT INTO conversations VALUES ('c1', 'u', '毛利率', 'default', 't', 't', 1)")
        db.execute("INSERT INTO turns VALUES ('c1', 0, ?)", (turn_to_json(turn),))
        db.execute("INSERT INTO preferences VALUES ('u', '{\"lang\": \"en\"}', 't')")
    db.close()
    before = _schema(path)
    store = ConversationStore(path)
    conversation = store.get("u", "c1")
    assert conversation is not None and conversation.info.title == "毛利率"
    assert [t.answer for t in conversation.turns] == ["21.8% [Source 1]"]
    assert store.preferences("u") == {"lang": "en"}
    store.close()
    assert _schema(path) == before


def test_an_old_audit_log_opens_unchanged_with_its_records(tmp_path: Path) -> None:
    path = tmp_path / "audit.sqlite"
    _old_file(path, OLD_AUDIT)
    record = AuditRecord(
        "2026-01-01T00:00:00", "u", "kb", "cli", "hybrid", "毛利率？", "", "", (), 10, "x", "x", {}
    )
    payload = record.to_json()
    payload.pop("id")
    with sqlite3.connect(path) as db:
        db.execute(
            "INSERT INTO records (time, user, kb, client, payload) VALUES (?, ?, ?, ?, ?)",
            (record.time, "u", "kb", "cli", json.dumps(payload, ensure_ascii=False)),
        )
    db.close()
    before = _schema(path)
    log = AuditLog(path, retention_days=0)
    assert [(r.question, r.id) for r in log.records()] == [("毛利率？", 1)]
    assert log.give_feedback(1, -1, "wrong year")  # the feedback table, added as a migration
    assert log.records(rated=-1)[0].feedback.note == "wrong year"  # type: ignore[union-attr]
    log.close()
    after = _schema(path)
    assert [t for t in after if t[1] != "feedback"] == before  # records kept as they were
    assert any(t[1] == "feedback" for t in after)
