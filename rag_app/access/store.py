"""The owners and members of the knowledge bases of a data dir (``access.sqlite``, opened as
every store is: WAL, any thread, another process waited for), or of the shared PostgreSQL
database every process uses (``RAG_APP_DATABASE_URL``: ``rag_app.database``)."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from rag_app.access.roles import ROLES, Member
from rag_app.database import open_database

_SCHEMA = """
CREATE TABLE IF NOT EXISTS owners (
    kb TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    created TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS members (
    kb TEXT NOT NULL,
    kind TEXT NOT NULL,
    name TEXT NOT NULL,
    role TEXT NOT NULL,
    granted_by TEXT NOT NULL DEFAULT '',
    time TEXT NOT NULL,
    PRIMARY KEY (kb, kind, name)
)
"""
KINDS = ("user", "group")


@dataclass
class AccessStore:
    """Owners and members; thread-safe, one connection."""

    path: Path
    database_url: str = field(default="", repr=False)  # set: the shared database, not ``path``
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def __post_init__(self) -> None:
        self._db = open_database(self.path, (_SCHEMA,), self.database_url)

    @classmethod
    def in_dir(cls, data_dir: Path, database_url: str = "") -> AccessStore:
        return cls(data_dir / "access.sqlite", database_url)

    def close(self) -> None:
        self._db.close()

    def owner(self, kb: str) -> str | None:
        """The knowledge base's owner; None for one nobody owns (shared with everyone)."""
        with self._lock:
            row = self._db.execute("SELECT owner FROM owners WHERE kb = ?", (kb,)).fetchone()
        return None if row is None else str(row[0])

    def owners(self) -> dict[str, str]:
        with self._lock:
            rows = self._db.execute("SELECT kb, owner FROM owners").fetchall()
        return {str(kb): str(owner) for kb, owner in rows}

    def set_owner(self, kb: str, owner: str) -> None:
        with self._lock:
            self._db.execute(
                "INSERT INTO owners (kb, owner, created) VALUES (?, ?, ?) ON CONFLICT (kb)"
                " DO UPDATE SET owner = excluded.owner, created = excluded.created",
                (kb, owner, _now()),
            )

    def members(self, kb: str | None = None) -> list[Member]:
        """The members of ``kb`` (of every knowledge base when None), users before groups."""
        query = "SELECT kb, kind, name, role FROM members"
        args: tuple[str, ...] = ()
        if kb is not None:
            query += " WHERE kb = ?"
            args = (kb,)
        with self._lock:
            rows = self._db.execute(query + " ORDER BY kb, kind DESC, name", args).fetchall()
        return [Member(str(r[0]), str(r[2]), str(r[1]), str(r[3])) for r in rows]  # type: ignore[arg-type]

    def grant(self, kb: str, name: str, role: str, kind: str = "user", by: str = "") -> None:
        """Make ``name`` (a user, an API token's name, or a group) a member with ``role``,
        replacing the role it had. Raises ValueError for an unknown role or kind, or no name."""
        if role not in ROLES or kind not in KINDS or not name.strip():
            raise ValueError(f"a member needs a name, a kind of {KINDS} and a role of {ROLES}")
        with self._lock:
            self._db.execute(
                "INSERT INTO members (kb, kind, name, role, granted_by, time)"
                " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (kb, kind, name) DO UPDATE SET"
                " role = excluded.role, granted_by = excluded.granted_by, time = excluded.time",
                (kb, kind, name.strip(), role, by, _now()),
            )

    def revoke(self, kb: str, name: str, kind: str = "user") -> bool:
        with self._lock:
            cursor = self._db.execute(
                "DELETE FROM members WHERE kb = ? AND kind = ? AND name = ?", (kb, kind, name)
            )
        return cursor.rowcount > 0

    def forget(self, kb: str) -> None:
        """A deleted knowledge base's owner and members (a new one of its name starts anew)."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.execute("DELETE FROM owners WHERE kb = ?", (kb,))
                self._db.execute("DELETE FROM members WHERE kb = ?", (kb,))
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
