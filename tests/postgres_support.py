"""A real PostgreSQL server for tests: Debian's package (``make pg-deps`` installs it), a
throwaway cluster in a temporary folder, listening on a free loopback port only, stopped and
removed afterwards (``rag_app.evaluation.shared_stack.postgres_cluster``, which the shared-state
benchmark starts too).

``postgres_server()`` yields the server's base URL, skipping the test where the server's
programs are not installed; ``fresh_database(base)`` makes an empty database on it and returns
its URL (each test its own, so nothing leaks between them).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from rag_app.evaluation.shared_stack import create_database, postgres_available, postgres_cluster


@contextmanager
def postgres_server() -> Iterator[str]:
    if not postgres_available():
        pytest.skip("PostgreSQL's server programs are not installed (make pg-deps)")
    with postgres_cluster() as base:
        yield base


def fresh_database(base: str) -> str:
    return create_database(base)
