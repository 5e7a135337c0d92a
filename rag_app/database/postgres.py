"""One PostgreSQL database every process shares (``RAG_APP_DATABASE_URL``), spoken to as the
stores speak to their SQLite files.

The stores write their SQL once, in the part of the language both databases run: ``?``
placeholders, ``INSERT … ON CONFLICT (…) DO UPDATE SET … = excluded.…`` or ``DO NOTHING``
instead of SQLite's ``INSERT OR REPLACE`` / ``OR IGNORE``, ``RETURNING id`` instead of
``lastrowid``, a column named ``user`` quoted (``"user"``: a reserved word in PostgreSQL).
``PgConnection`` turns the placeholders into psycopg's and ``BEGIN IMMEDIATE`` (SQLite's
write transaction) into ``BEGIN``; everything else goes as written.

Like a store's SQLite connection, a ``PgConnection`` is one connection in autocommit mode,
used by one store under that store's lock (the stores open their own transactions). A
connection the server dropped (a restart, an idle timeout) is opened again at the next
statement outside a transaction.

The schema is Alembic's (``rag_app/database/migrations``): brought to its head once per
process and URL, the first time a store opens; two processes starting at once wait for each
other on an advisory lock, so the steps run once.

``KbLock`` serialises the writes to one knowledge base across processes and machines with a
session advisory lock held on a connection of its own for the length of the write.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"
# The advisory lock the schema's upgrade holds (any number no other lock here uses).
SCHEMA_LOCK = 0x7261675F  # "rag_"
_migrated: set[str] = set()
_migrate_lock = threading.Lock()


def translate(sql: str, with_params: bool) -> str:
    """``sql`` as psycopg takes it: ``?`` outside quotes becomes ``%s`` and, when parameters
    go with it, a literal ``%`` becomes ``%%``; SQLite's ``BEGIN IMMEDIATE`` is ``BEGIN``."""
    if sql.lstrip().upper().startswith("BEGIN IMMEDIATE"):
        return "BEGIN"
    if not with_params:
        return sql
    out: list[str] = []
    quote = ""
    for ch in sql:
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch == "?":
            out.append("%s")
            continue
        out.append("%%" if ch == "%" else ch)
    return "".join(out)


class PgCursor:
    """The part of a ``sqlite3.Cursor`` the stores read: rows, ``rowcount``, iteration."""

    def __init__(self, cursor: Any) -> None:
        self._cursor = cursor
        self.rowcount = cursor.rowcount

    def fetchone(self) -> tuple[Any, ...] | None:
        return self._cursor.fetchone() if self._cursor.description else None

    def fetchall(self) -> list[tuple[Any, ...]]:
        return list(self._cursor.fetchall()) if self._cursor.description else []

    def __iter__(self) -> Iterator[tuple[Any, ...]]:
        return iter(self.fetchall())


class PgConnection:
    """One connection to the shared database, in autocommit mode, as a store uses its SQLite
    connection: ``execute``, ``executemany``, ``close``."""

    dialect = "postgresql"

    def __init__(self, url: str) -> None:
        self.url = url
        self._conn = _connect(url)
        self._in_transaction = False

    def execute(self, sql: str, params: Sequence[Any] = ()) -> PgCursor:
        import psycopg

        query = translate(sql, bool(params))
        args = tuple(params) if params else None
        word = query.lstrip()[:8].upper()
        if self._conn.broken and (not self._in_transaction or word.startswith("ROLLBACK")):
            # between transactions, or rolling back one the dropped session already lost
            self._conn, self._in_transaction = _connect(self.url), False
        try:
            cursor = self._conn.execute(query, args)
        except psycopg.OperationalError:
            if self._in_transaction or not self._conn.broken:
                raise
            self._conn = _connect(self.url)  # dropped while idle: once more on a new one
            cursor = self._conn.execute(query, args)
        if word.startswith("BEGIN"):
            self._in_transaction = True
        elif word.startswith(("COMMIT", "ROLLBACK")):
            self._in_transaction = False
        return PgCursor(cursor)

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        with self._conn.cursor() as cursor:
            cursor.executemany(translate(sql, True), [tuple(r) for r in rows])

    def close(self) -> None:
        self._conn.close()


def _connect(url: str) -> Any:
    import psycopg

    return psycopg.connect(url, autocommit=True)


def open_postgres(url: str) -> PgConnection:
    """A connection to the database at ``url``, its schema brought to the head first (once per
    process). Raises ``psycopg.Error`` when the server cannot be reached or a step fails."""
    migrate(url)
    return PgConnection(url)


def migrate(url: str) -> None:
    """Bring the database at ``url`` to the schema's head (Alembic), once per process."""
    with _migrate_lock:
        if url in _migrated:
            return
        from alembic import command
        from alembic.config import Config

        config = Config()
        config.set_main_option("script_location", str(MIGRATIONS_DIR))
        config.attributes["url"] = sqlalchemy_url(url)
        command.upgrade(config, "head")
        _migrated.add(url)


def sqlalchemy_url(url: str) -> str:
    """``url`` (libpq's ``postgresql://…`` or ``postgres://…``) named for SQLAlchemy's psycopg
    dialect, which Alembic connects with."""
    for scheme in ("postgresql+psycopg://", "postgresql://", "postgres://"):
        if url.startswith(scheme):
            return "postgresql+psycopg://" + url[len(scheme) :]
    raise ValueError("RAG_APP_DATABASE_URL must start with postgresql:// (or postgres://)")


class KbLock:
    """Writes to one knowledge base, one at a time across every process on the database: a
    session advisory lock on the knowledge base's name, held on a connection of its own."""

    def __init__(self, url: str) -> None:
        self.url = url

    @contextmanager
    def hold(self, kb: str) -> Iterator[None]:
        """The lock, waited for as long as another process holds it."""
        with self._session(kb, "pg_advisory_lock"):
            yield

    @contextmanager
    def try_hold(self, kb: str) -> Iterator[bool]:
        """The lock if it is free (True), else at once False: nobody waits."""
        with self._session(kb, "pg_try_advisory_lock") as got:
            yield got

    @contextmanager
    def _session(self, kb: str, function: str) -> Iterator[bool]:
        conn = _connect(self.url)
        try:
            row = conn.execute(f"SELECT {function}(hashtextextended(%s, 0))", (f"kb:{kb}",))
            found = row.fetchone()
            yield bool(found[0]) if found and found[0] is not None else True
        finally:
            conn.close()  # ending the session releases the lock, also after an error
