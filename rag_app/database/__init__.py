"""Where shared state lives: by default a SQLite file per store in the data dir
(``rag_app.database.sqlite``), or, with ``RAG_APP_DATABASE_URL``, one PostgreSQL database every
process shares (``rag_app.database.postgres``). A store opens its connection with
``open_database`` and writes SQL both run (the rules in ``postgres``'s docstring)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rag_app.database.sqlite import Migration, open_sqlite


def open_database(sqlite_path: Path, migrations: Sequence[Migration], url: str = "") -> Any:
    """The store's connection: to the shared database at ``url`` when one is given (its schema
    is Alembic's, ``migrations`` are the SQLite file's), else to the SQLite file."""
    if url:
        from rag_app.database.postgres import open_postgres

        return open_postgres(url)
    return open_sqlite(sqlite_path, migrations)


def is_postgres(db: Any) -> bool:
    """Whether ``db`` (a store's connection) is the shared PostgreSQL database."""
    return getattr(db, "dialect", "sqlite") == "postgresql"


__all__ = ["Migration", "is_postgres", "open_database", "open_sqlite"]
