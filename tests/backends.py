"""The two places a store keeps its state, for tests run on both: a SQLite file of the data dir
(the default) and the shared PostgreSQL database (``RAG_APP_DATABASE_URL``; the session's
throwaway cluster, an empty database per test: tests/conftest.py's ``database_url``).

A test module parametrizes its store fixture with ``BACKENDS`` and asks ``backend_url`` for
the URL the store takes: "" for SQLite.
"""

from __future__ import annotations

from typing import Any

BACKENDS = ("sqlite", "postgres")


def backend_url(request: Any) -> str:
    """The URL for ``request.param``'s backend: "" (SQLite) or a new PostgreSQL database's."""
    if request.param == "postgres":
        return str(request.getfixturevalue("database_url"))
    return ""
