"""A real PostgreSQL server for tests: Debian's package (``make pg-deps`` installs it), a
throwaway cluster in a temporary folder, listening on a free loopback port only, stopped and
removed afterwards. ``initdb`` refuses to run as root, so as root the cluster belongs to the
``postgres`` user the package creates.

``postgres_server()`` yields the server's base URL; ``fresh_database(base)`` makes an
empty database on it and returns its URL (each test its own, so nothing leaks between them).
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

USER = "rag"
PASSWORD = "rag-test-pw"  # loopback only, a cluster that lives as long as the test session


def _bin(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return candidates[-1] if candidates else None


def available() -> bool:
    return _bin("initdb") is not None and _bin("pg_ctl") is not None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _as_owner(cmd: list[str]) -> list[str]:
    """``cmd`` run as the cluster's owner: the ``postgres`` user when we are root."""
    if os.geteuid() != 0:
        return cmd
    return ["runuser", "-u", "postgres", "--", *cmd]


@contextmanager
def postgres_server() -> Iterator[str]:
    """A cluster in a new folder of /tmp (pytest's own are closed to the ``postgres`` user) on
    a free loopback port; yields ``postgresql://rag:…@127.0.0.1:port``. Skips the test when
    the server's programs are not installed."""
    if not available():
        pytest.skip("PostgreSQL's server programs are not installed (make pg-deps)")
    folder = Path(tempfile.mkdtemp(prefix="rag_pg_"))
    data, pwfile = folder / "data", folder / "pw"
    pwfile.write_text(PASSWORD + "\n", encoding="utf-8")
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres", "postgres")
        shutil.chown(pwfile, "postgres", "postgres")
    subprocess.run(
        _as_owner(
            [
                str(_bin("initdb")),
                "-D",
                str(data),
                "-U",
                USER,
                f"--pwfile={pwfile}",
                "--auth=scram-sha-256",
                "-E",
                "UTF8",
                "--locale=C.UTF-8",
            ]
        ),
        check=True,
        capture_output=True,
        timeout=120,
    )
    port = _free_port()
    options = f"-c listen_addresses=127.0.0.1 -p {port} -k {folder} -c fsync=off"
    subprocess.run(
        _as_owner(
            [
                str(_bin("pg_ctl")),
                "-D",
                str(data),
                "-o",
                options,
                "-l",
                str(folder / "log"),
                "-w",
                "start",
            ]
        ),
        check=True,
        capture_output=True,
        timeout=120,
    )
    base = f"postgresql://{USER}:{PASSWORD}@127.0.0.1:{port}"
    try:
        _wait(base + "/postgres")
        yield base
    finally:
        subprocess.run(
            _as_owner([str(_bin("pg_ctl")), "-D", str(data), "-m", "immediate", "stop"]),
            capture_output=True,
            timeout=60,
        )
        shutil.rmtree(folder, ignore_errors=True)


def _wait(url: str, timeout_s: float = 30.0) -> None:
    import psycopg

    deadline = time.monotonic() + timeout_s
    while True:
        try:
            psycopg.connect(url, connect_timeout=2).close()
            return
        except psycopg.OperationalError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def fresh_database(base: str) -> str:
    """An empty database on the server at ``base``; its URL."""
    import psycopg

    name = "t_" + uuid.uuid4().hex[:12]
    with psycopg.connect(base + "/postgres", autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return f"{base}/{name}"
