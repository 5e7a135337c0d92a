"""The shared PostgreSQL database, for real (a throwaway cluster on loopback): the schema's
migrations, SQL written once for both databases, a dropped connection, the knowledge-base
write lock across processes."""

from __future__ import annotations

import subprocess
import sys
import threading
import time

import psycopg
import pytest

from rag_app.database import is_postgres, open_database
from rag_app.database.postgres import KbLock, PgConnection, open_postgres, translate


def test_placeholders_and_percent_signs_outside_quotes() -> None:
    assert translate("SELECT a FROM t WHERE b = ? AND c LIKE '%?%'", True) == (
        "SELECT a FROM t WHERE b = %s AND c LIKE '%%?%%'"
    )
    assert translate('SELECT "user" FROM t WHERE "x?" = ?', True) == (
        'SELECT "user" FROM t WHERE "x?" = %s'
    )
    assert translate("SELECT 1 WHERE 'a' LIKE '%'", False) == "SELECT 1 WHERE 'a' LIKE '%'"
    assert translate("BEGIN IMMEDIATE", False) == "BEGIN"


def test_the_schema_is_migrated_once_and_the_sql_runs(database_url: str, tmp_path) -> None:
    db = open_database(tmp_path / "unused.sqlite", (), database_url)
    assert is_postgres(db) and not (tmp_path / "unused.sqlite").exists()
    db.execute("BEGIN IMMEDIATE")
    row = db.execute(
        'INSERT INTO records (time, "user", kb, client, payload) VALUES (?, ?, ?, ?, ?)'
        " RETURNING id",
        ("2026-11-28T00:00:00", "a@x", "kb", "app", "{}"),
    ).fetchone()
    db.execute("COMMIT")
    assert row is not None and row[0] >= 1
    db.execute(
        "INSERT INTO owners (kb, owner, created) VALUES (?, ?, ?)"
        " ON CONFLICT (kb) DO UPDATE SET owner = excluded.owner",
        ("kb", "a@x", "now"),
    )
    db.execute(
        "INSERT INTO owners (kb, owner, created) VALUES (?, ?, ?)"
        " ON CONFLICT (kb) DO UPDATE SET owner = excluded.owner",
        ("kb", "b@x", "now"),
    )
    assert db.execute("SELECT owner FROM owners WHERE kb = ?", ("kb",)).fetchall() == [("b@x",)]
    versions = db.execute("SELECT version_num FROM rag_app_schema").fetchall()
    assert len(versions) == 1
    db.close()


def test_processes_starting_at_once_upgrade_the_schema_once(database_url: str) -> None:
    code = (
        "import sys; from rag_app.database.postgres import open_postgres;"
        "open_postgres(sys.argv[1]).close()"
    )
    procs = [subprocess.Popen([sys.executable, "-c", code, database_url]) for _ in range(3)]
    assert [p.wait(timeout=120) for p in procs] == [0, 0, 0]
    db = PgConnection(database_url)
    assert db.execute("SELECT count(*) FROM rag_app_schema").fetchone() == (1,)
    db.close()


def test_a_dropped_connection_is_opened_again_between_transactions(database_url: str) -> None:
    db = open_postgres(database_url)
    pid = db.execute("SELECT pg_backend_pid()").fetchone()[0]
    other = PgConnection(database_url)
    other.execute("SELECT pg_terminate_backend(?)", (pid,))
    time.sleep(0.2)
    assert db.execute("SELECT count(*) FROM owners").fetchone() == (0,)
    assert db.execute("SELECT pg_backend_pid()").fetchone()[0] != pid
    # inside a transaction the drop is an error, and the rollback starts anew
    db.execute("BEGIN")
    other.execute(
        "SELECT pg_terminate_backend(?)", (db.execute("SELECT pg_backend_pid()").fetchone()[0],)
    )
    time.sleep(0.2)
    with pytest.raises(psycopg.OperationalError):
        db.execute("INSERT INTO owners (kb, owner, created) VALUES (?, ?, ?)", ("k", "o", "t"))
    db.execute("ROLLBACK")
    assert db.execute("SELECT count(*) FROM owners").fetchone() == (0,)
    db.close(), other.close()


def test_writes_to_one_knowledge_base_wait_for_each_other(database_url: str) -> None:
    lock, order = KbLock(database_url), []

    def write(name: str, hold_s: float) -> None:
        with lock.hold("研报"):
            order.append(f"{name}+")
            time.sleep(hold_s)
            order.append(f"{name}-")

    first = threading.Thread(target=write, args=("a", 0.5))
    first.start()
    time.sleep(0.2)
    write("b", 0.0)
    first.join()
    assert order == ["a+", "a-", "b+", "b-"]
    with lock.hold("other"), lock.hold("研报"):  # other knowledge bases do not wait
        pass


def test_a_held_lock_is_not_waited_for_by_try_hold(database_url: str) -> None:
    lock = KbLock(database_url)
    with lock.hold("研报"):
        with lock.try_hold("研报") as got, lock.try_hold("other") as free:
            assert (got, free) == (False, True)
    with lock.try_hold("研报") as got:
        assert got
