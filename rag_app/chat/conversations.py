"""Saved conversations: each user's chats, kept beside the catalogue so they survive a reload and
a restart, and the user's remembered choices (language, modes, knowledge base, filters).

One SQLite file, ``conversations.sqlite`` in the data dir (its own file, like the audit log, so
a listing never waits on an ingestion). Every query names the user: one user never reads,
renames or deletes another's conversation, even knowing its id. A turn is stored as what its
answer showed, as JSON (``rag_app.chat.saved_turns.SavedTurn``: the question, its options, the answer
text, the understood question, the sources it cites with an excerpt, the citation check, the
retrieval, the prompt, the timings), so it is drawn again without running retrieval again.
Each write is one transaction: a crash loses at most the turn being written. ``rag_app.chat.export`` writes a conversation as Markdown.
With ``RAG_APP_DATABASE_URL`` the same tables are in the shared PostgreSQL database instead
(``rag_app.database``), so a conversation begun behind one process goes on behind another.
"""

from __future__ import annotations

import json
import secrets
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rag_app.chat.saved_turns import (
    SavedCheck,
    SavedSource,
    SavedTurn,
    restored_answer,
    saved_turn,
    source_chunk,
    turn_from_json,
    turn_to_json,
)
from rag_app.database import is_postgres, open_database

__all__ = [
    "Conversation",
    "ConversationInfo",
    "ConversationStore",
    "SavedCheck",
    "SavedSource",
    "SavedTurn",
    "restored_answer",
    "saved_turn",
    "source_chunk",
    "turn_from_json",
    "turn_to_json",
]

_SCHEMA = """
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
# a ConversationInfo's columns, in order ("user" quoted: a reserved word in PostgreSQL)
_COLUMNS = 'SELECT id, "user", title, kb, created_at, updated_at, n_turns FROM conversations'
TITLE_CHARS = 120  # a title longer than this is cut (the sidebar shows fewer still)


@dataclass(frozen=True)
class ConversationInfo:
    id: str
    user: str
    title: str
    kb: str
    created_at: str
    updated_at: str
    n_turns: int


@dataclass(frozen=True)
class Conversation:
    info: ConversationInfo
    turns: tuple[SavedTurn, ...]


# the store -----------------------------------------------------------------------------------
class ConversationStore:
    """Thread-safe access to the conversations file or the shared database (one connection,
    serialised by a lock; other processes on the same file wait on SQLite's busy timeout, on
    the same conversation for PostgreSQL's row lock)."""

    def __init__(self, path: Path, database_url: str = "") -> None:
        self.path = path
        self.database_url = database_url  # set: the shared database, not ``path``
        self._lock = threading.RLock()
        self._db = open_database(path, (_SCHEMA,), database_url)
        # the order conversations were created in: SQLite's rowid, PostgreSQL's identity column
        self._created_order = "seq" if is_postgres(self._db) else "rowid"

    @classmethod
    def in_dir(cls, data_dir: Path, database_url: str = "") -> ConversationStore:
        return cls(data_dir / "conversations.sqlite", database_url)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    @contextmanager
    def _tx(self) -> Iterator[None]:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    # conversations ------------------------------------------------------------------------------
    def create(self, user: str, title: str, kb: str) -> ConversationInfo:
        """A new, empty conversation of ``user`` titled ``title`` (cut to ``TITLE_CHARS``)."""
        now = _now()
        info = ConversationInfo(secrets.token_urlsafe(12), user, _title(title), kb, now, now, 0)
        with self._tx():
            self._db.execute(
                'INSERT INTO conversations (id, "user", title, kb, created_at, updated_at, n_turns)'
                " VALUES (?, ?, ?, ?, ?, ?, 0)",
                (info.id, user, info.title, kb, now, now),
            )
        return info

    def list(self, user: str, limit: int | None = None) -> list[ConversationInfo]:
        """``user``'s conversations, the most recently active first."""
        query = (
            f'{_COLUMNS} WHERE "user" = ?'
            f" ORDER BY updated_at DESC, created_at DESC, {self._created_order} DESC"
        )
        args: list[Any] = [user]
        if limit is not None:
            query, args = query + " LIMIT ?", [user, limit]
        with self._lock:
            rows = self._db.execute(query, args).fetchall()
        return [ConversationInfo(*row) for row in rows]

    def info(self, user: str, conversation_id: str) -> ConversationInfo | None:
        with self._lock:
            row = self._db.execute(
                f'{_COLUMNS} WHERE "user" = ? AND id = ?', (user, conversation_id)
            ).fetchone()
        return ConversationInfo(*row) if row else None

    def get(self, user: str, conversation_id: str) -> Conversation | None:
        """``user``'s conversation with its turns, oldest first; None when there is none with
        that id (or it is another user's)."""
        with self._lock:
            info = self.info(user, conversation_id)
            if info is None:
                return None
            rows = self._db.execute(
                "SELECT payload FROM turns WHERE conversation_id = ? ORDER BY seq",
                (conversation_id,),
            ).fetchall()
        return Conversation(info, tuple(turn_from_json(row[0]) for row in rows))

    def append(self, user: str, conversation_id: str, turn: SavedTurn) -> bool:
        """Add ``turn`` at the end of ``user``'s conversation, in one transaction; False when
        there is no such conversation (deleted meanwhile, or another user's)."""
        with self._tx():
            # PostgreSQL: the row locked, so two processes appending number their turns in turn
            # (SQLite's BEGIN IMMEDIATE already holds the whole file)
            lock = " FOR UPDATE" if is_postgres(self._db) else ""
            row = self._db.execute(
                f'SELECT 1 FROM conversations WHERE "user" = ? AND id = ?{lock}',
                (user, conversation_id),
            ).fetchone()
            if row is None:
                return False
            (seq,) = self._db.execute(
                "SELECT COALESCE(MAX(seq), 0) + 1 FROM turns WHERE conversation_id = ?",
                (conversation_id,),
            ).fetchone()
            self._db.execute(
                "INSERT INTO turns VALUES (?, ?, ?)", (conversation_id, seq, turn_to_json(turn))
            )
            self._db.execute(
                "UPDATE conversations SET updated_at = ?, n_turns = n_turns + 1 WHERE id = ?",
                (_now(), conversation_id),
            )
        return True

    def rename(self, user: str, conversation_id: str, title: str) -> bool:
        """False when ``title`` is blank or the conversation is not ``user``'s."""
        if not title.strip():
            return False
        with self._tx():
            cur = self._db.execute(
                'UPDATE conversations SET title = ? WHERE "user" = ? AND id = ?',
                (_title(title), user, conversation_id),
            )
        return cur.rowcount > 0

    def delete(self, user: str, conversation_id: str) -> bool:
        with self._tx():
            cur = self._db.execute(
                'DELETE FROM conversations WHERE "user" = ? AND id = ?', (user, conversation_id)
            )
            if cur.rowcount:
                self._db.execute("DELETE FROM turns WHERE conversation_id = ?", (conversation_id,))
        return cur.rowcount > 0

    # preferences --------------------------------------------------------------------------------
    def preferences(self, user: str) -> dict[str, Any]:
        """What ``user`` last chose (``save_preferences``); {} before any choice."""
        with self._lock:
            row = self._db.execute(
                'SELECT payload FROM preferences WHERE "user" = ?', (user,)
            ).fetchone()
        try:
            value = json.loads(row[0]) if row else {}
        except ValueError:
            return {}
        return value if isinstance(value, dict) else {}

    def save_preferences(self, user: str, values: Mapping[str, Any]) -> None:
        """Replace ``user``'s remembered choices with ``values`` (JSON-serialisable)."""
        payload = json.dumps(dict(values), ensure_ascii=False, sort_keys=True)
        with self._tx():
            self._db.execute(
                'INSERT INTO preferences ("user", payload, updated_at) VALUES (?, ?, ?)'
                ' ON CONFLICT ("user") DO UPDATE'
                " SET payload = excluded.payload, updated_at = excluded.updated_at",
                (user, payload, _now()),
            )

    def forget_user(self, user: str) -> None:
        """Delete everything of ``user``: conversations, turns and preferences."""
        with self._tx():
            self._db.execute(
                "DELETE FROM turns WHERE conversation_id IN "
                '(SELECT id FROM conversations WHERE "user" = ?)',
                (user,),
            )
            self._db.execute('DELETE FROM conversations WHERE "user" = ?', (user,))
            self._db.execute('DELETE FROM preferences WHERE "user" = ?', (user,))


def _title(text: str) -> str:
    title = " ".join(text.split())
    return title if len(title) <= TITLE_CHARS else title[: TITLE_CHARS - 1] + "…"


def _now() -> str:
    # Microseconds: two turns in one second still order.
    return datetime.now(UTC).isoformat(timespec="microseconds")
