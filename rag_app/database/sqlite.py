"""The one way a SQLite file of the data dir is opened: the catalogue, the conversations and the
audit log alike.

``open_sqlite`` connects in autocommit mode (callers open their own ``BEGIN IMMEDIATE``
transactions), shared across threads (each store serialises its calls with a lock), in WAL mode
(readers never wait on a writer) with a busy timeout (another process writing the same file is
waited for, not failed on); foreign keys stay off, SQLite's default, as the stores have always
had them. Then it brings the schema up to date.

A store's schema is a list of migrations, applied in order; the file's ``PRAGMA user_version``
records how many it has had. Files written before the list existed are at version 0 and get
every step, so each step must be safe on a file that already has what it adds: tables and
indexes are created ``IF NOT EXISTS`` and columns added by ``add_column``, which leaves a column
that is already there. A step is SQL (statements separated by ``;``) or a function of the
connection; all pending steps and the new version are one transaction, so two processes opening
a new file at once apply them once.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Sequence
from pathlib import Path

# How long a statement waits for another connection's write lock before failing: long enough
# for an ingestion's per-document transaction, short enough that a stuck writer is reported.
BUSY_TIMEOUT_MS = 10_000

Migration = str | Callable[[sqlite3.Connection], None]


def open_sqlite(path: Path, migrations: Sequence[Migration]) -> sqlite3.Connection:
    """The connection to the SQLite file at ``path`` (created with its folder when missing),
    its schema brought up to ``migrations``. Raises ``sqlite3.Error`` when the file cannot be
    opened or a migration fails (the file is then left as it was)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
    try:
        db.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        _wal(db)
        migrate(db, migrations)
    except BaseException:
        db.close()
        raise
    return db


def _wal(db: sqlite3.Connection) -> None:
    """WAL mode. Several connections opening a new file at once: switching its journal takes a
    lock SQLite does not wait for with the busy handler (it could deadlock), so the switch is
    tried again until the busy timeout has passed."""
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            db.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def schema_version(db: sqlite3.Connection) -> int:
    return int(db.execute("PRAGMA user_version").fetchone()[0])


def migrate(db: sqlite3.Connection, migrations: Sequence[Migration]) -> None:
    """Apply the steps of ``migrations`` the file has not had, in one transaction. A file at
    the last version is only read; one from a newer program (a higher version) is left as it
    is."""
    if schema_version(db) >= len(migrations):
        return
    db.execute("BEGIN IMMEDIATE")
    try:
        done = schema_version(db)  # another process may have migrated while this one waited
        for step in migrations[done:]:
            if isinstance(step, str):
                for statement in _statements(step):
                    db.execute(statement)
            else:
                step(db)
        if done < len(migrations):
            db.execute(f"PRAGMA user_version={len(migrations)}")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def add_column(table: str, column: str, definition: str) -> Migration:
    """A step adding ``column`` (``definition``: its type and default) to ``table`` unless the
    table already has it."""

    def step(db: sqlite3.Connection) -> None:
        columns = {row[1] for row in db.execute(f"PRAGMA table_info({table})")}
        if column not in columns:
            db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {definition}")

    return step


def _statements(script: str) -> list[str]:
    """The statements of ``script``, split where ``sqlite3.complete_statement`` says one ends
    (at a line's end: one statement per line or more)."""
    statements, pending = [], ""
    for line in script.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            statements.append(pending.strip())
            pending = ""
    if pending.strip():
        statements.append(pending.strip())
    return statements
