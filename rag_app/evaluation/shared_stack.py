"""A shared deployment on loopback, for tests and benchmarks (issue 28): one PostgreSQL, one
`chroma run`, and any number of `rag-app serve` processes, each with a data dir of its own and the
same ``RAG_APP_DATABASE_URL``, ``RAG_APP_CHROMA_URL`` and tokens file (named users).

``postgres_cluster()`` starts Debian's PostgreSQL in a throwaway cluster of a temporary folder,
listening on a free loopback port only (as root, the cluster is the ``postgres`` user's: initdb
refuses root), and ``create_database(base)`` makes an empty database on it.
``shared_stack(root, database_url, apis=2)`` starts Chroma and the API processes, waits until
each answers ``/health`` (warm, the model loaded), and stops them all afterwards (SIGTERM, then
SIGKILL); a failure to start raises ``StackError`` with the processes' log tails. Every process
is started in its own session and only ever signalled by its own id.
"""

from __future__ import annotations

import glob
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator, Mapping
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from rag_app.config import PROVIDER_VARIABLES

BIN = Path(sys.executable).parent
USERS = ("a@example.com", "b@example.com")
PG_USER = "rag"


class StackError(RuntimeError):
    """A process of the stack did not come up; the message holds the logs' tails."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# PostgreSQL ---------------------------------------------------------------------------------------
def pg_bin(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return candidates[-1] if candidates else None


def postgres_available() -> bool:
    return pg_bin("initdb") is not None and pg_bin("pg_ctl") is not None


def _as_owner(cmd: list[str]) -> list[str]:
    return cmd if os.geteuid() != 0 else ["runuser", "-u", "postgres", "--", *cmd]


@contextmanager
def postgres_cluster() -> Iterator[str]:
    """A throwaway cluster on a free loopback port; yields ``postgresql://rag:…@127.0.0.1:port``
    (no database named). Raises StackError when PostgreSQL's programs are not installed."""
    if not postgres_available():
        raise StackError("PostgreSQL's server programs are not installed (make pg-deps)")
    folder = Path(tempfile.mkdtemp(prefix="rag_pg_"))
    data, pwfile, password = folder / "data", folder / "pw", secrets.token_hex(12)
    pwfile.write_text(password + "\n", encoding="utf-8")
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres", "postgres")
        shutil.chown(pwfile, "postgres", "postgres")
    initdb = [str(pg_bin("initdb")), "-D", str(data), "-U", PG_USER, f"--pwfile={pwfile}"]
    initdb += ["--auth=scram-sha-256", "-E", "UTF8", "--locale=C.UTF-8"]
    subprocess.run(_as_owner(initdb), check=True, capture_output=True, timeout=120)
    port = free_port()
    options = f"-c listen_addresses=127.0.0.1 -p {port} -k {folder} -c fsync=off"
    pg_ctl = str(pg_bin("pg_ctl"))
    start = [pg_ctl, "-D", str(data), "-o", options, "-l", str(folder / "log"), "-w", "start"]
    try:
        subprocess.run(_as_owner(start), check=True, capture_output=True, timeout=120)
        base = f"postgresql://{PG_USER}:{password}@127.0.0.1:{port}"
        _wait_postgres(base + "/postgres")
        yield base
    finally:
        stop = [pg_ctl, "-D", str(data), "-m", "immediate", "stop"]
        subprocess.run(_as_owner(stop), capture_output=True, timeout=60)
        shutil.rmtree(folder, ignore_errors=True)


def _wait_postgres(url: str, seconds: float = 30.0) -> None:
    import psycopg

    deadline = time.monotonic() + seconds
    while True:
        try:
            psycopg.connect(url, connect_timeout=2).close()
            return
        except psycopg.OperationalError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def create_database(base: str) -> str:
    """An empty database on the server at ``base``; its URL."""
    import psycopg

    name = "shared_" + uuid.uuid4().hex[:12]
    with psycopg.connect(base + "/postgres", autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return f"{base}/{name}"


# processes ----------------------------------------------------------------------------------------
@dataclass
class Proc:
    """One started process, its log file and (for a server) its base URL."""

    name: str
    process: subprocess.Popen[bytes]
    log_path: Path
    url: str = ""
    data_dir: Path | None = None

    def log(self, tail: int = 40) -> str:
        try:
            lines = self.log_path.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            return ""
        return "\n".join(lines[-tail:])

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def kill9(self) -> None:
        """SIGKILL this process (by its id), as a crash would."""
        if self.alive:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=30)

    def stop(self, seconds: float = 20.0) -> None:
        if not self.alive:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            self.kill9()


def launch(name: str, command: list[str], env: Mapping[str, str], log_path: Path) -> Proc:
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            command,
            env=dict(env),
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    return Proc(name, process, log_path)


def _get_json(url: str) -> dict[str, object] | None:
    try:
        with urllib.request.urlopen(url, timeout=2) as reply:
            return json.loads(reply.read() or b"{}") if reply.status == 200 else None
    except (urllib.error.URLError, OSError, ValueError):
        return None


def wait_up(proc: Proc, path: str, seconds: float, ready: str = "") -> dict[str, object]:
    """Poll ``proc.url + path`` until it answers 200 (and, with ``ready``, until that key of its
    JSON is no longer "starting"); StackError with the log when the process exits or time runs
    out."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not proc.alive:
            raise StackError(f"{proc.name} exited ({proc.process.returncode}):\n{proc.log()}")
        body = _get_json(proc.url + path)
        if body is not None and (not ready or body.get(ready) != "starting"):
            return body
        time.sleep(0.2)
    raise StackError(f"{proc.name} did not answer {path} in {seconds:.0f} s:\n{proc.log()}")


def start_chroma(folder: Path, env: Mapping[str, str]) -> Proc:
    command = str(BIN / "chroma") if (BIN / "chroma").exists() else shutil.which("chroma")
    if command is None:
        raise StackError("no `chroma` server command (chromadb's) in the venv or on PATH")
    port = free_port()
    args = [command, "run", "--path", str(folder / "db"), "--host", "127.0.0.1"]
    proc = launch("chroma", [*args, "--port", str(port)], env, folder / "chroma.log")
    proc.url = f"http://127.0.0.1:{port}"
    wait_up(proc, "/api/v2/heartbeat", 60)
    return proc


def base_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """This process's environment without a model provider (the offline answerer), a single
    token or a knowledge base of its own; offline for Hugging Face, no telemetry."""
    env = {k: v for k, v in os.environ.items() if k not in PROVIDER_VARIABLES}
    for name in ("RAG_APP_SERVER_TOKEN", "RAG_APP_KB", "RAG_APP_DATA_DIR"):
        env.pop(name, None)
    env.update({"HF_HUB_OFFLINE": "1", "ANONYMIZED_TELEMETRY": "False"})
    env.update(extra or {})
    return env


# the stack ----------------------------------------------------------------------------------------
@dataclass
class SharedStack:
    """The running deployment: ``apis`` (P1, P2...), ``chroma``, the shared env every process
    of it gets (``env_for(data_dir)`` for one more: the app, ``rag-app check``), the users'
    tokens."""

    root: Path
    database_url: str
    chroma: Proc
    env: dict[str, str]
    tokens: dict[str, str]
    apis: list[Proc] = field(default_factory=list)

    @property
    def urls(self) -> list[str]:
        return [p.url for p in self.apis]

    def headers(self, user: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[user]}"}

    def env_for(self, data_dir: Path) -> dict[str, str]:
        return {**self.env, "RAG_APP_DATA_DIR": str(data_dir)}

    def add_api(self, warm_s: float = 300.0) -> Proc:
        """One more `rag-app serve` over the shared stores, once its /health says it is up."""
        return self.add_apis(1, warm_s)[0]

    def add_apis(self, n: int, warm_s: float = 300.0) -> list[Proc]:
        """``n`` more at once (they warm up side by side)."""
        started = []
        for _ in range(n):
            name = f"P{len(self.apis) + 1}"
            data_dir = self.root / name / "data"
            port = free_port()
            cmd = [str(BIN / "rag-app"), "serve", "--host", "127.0.0.1", "--port", str(port)]
            proc = launch(name, cmd, self.env_for(data_dir), self.root / name / "serve.log")
            proc.url, proc.data_dir = f"http://127.0.0.1:{port}", data_dir
            self.apis.append(proc)
            started.append(proc)
        for proc in started:
            wait_up(proc, "/health", warm_s, ready="status")
        return started

    def rag_app(self, args: list[str], data_dir: Path, timeout: float = 600) -> tuple[int, str]:
        """A ``rag-app`` command over the shared stores from ``data_dir``: exit code, output."""
        done = subprocess.run(
            [str(BIN / "rag-app"), *args],
            env=self.env_for(data_dir),
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        return done.returncode, done.stdout + done.stderr

    def logs(self, tail: int = 40) -> str:
        parts = [f"--- {p.name} ({p.url}) ---\n{p.log(tail)}" for p in [self.chroma, *self.apis]]
        return "\n".join(parts)

    def stop(self) -> None:
        for proc in reversed(self.apis):
            proc.stop()
        self.chroma.stop()


def write_tokens(path: Path, users: tuple[str, ...]) -> dict[str, str]:
    """A tokens file naming ``users`` (one random token each); the tokens by user."""
    tokens = {user: secrets.token_urlsafe(24) for user in users}
    lines = ["# name token (rag_app/server/auth.py)"] + [f"{u} {t}" for u, t in tokens.items()]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    path.chmod(0o600)
    return tokens


@contextmanager
def shared_stack(
    root: Path,
    database_url: str,
    apis: int = 2,
    *,
    users: tuple[str, ...] = USERS,
    extra_env: Mapping[str, str] | None = None,
    warm_s: float = 300.0,
) -> Iterator[SharedStack]:
    """Chroma and ``apis`` API processes over ``database_url`` (an empty database, or one made
    by an earlier stack), each with its own data dir under ``root``; stopped on exit. The
    processes' logs stay under ``root``."""
    root.mkdir(parents=True, exist_ok=True)
    tokens = write_tokens(root / "tokens", users)
    with ExitStack() as stack:
        chroma = start_chroma(root / "chroma", base_env())
        stack.callback(chroma.stop)
        env = base_env(
            {
                "RAG_APP_DATABASE_URL": database_url,
                "RAG_APP_CHROMA_URL": chroma.url,
                "RAG_APP_SERVER_TOKENS_FILE": str(root / "tokens"),
                **(extra_env or {}),
            }
        )
        shared = SharedStack(root, database_url, chroma, env, tokens)
        stack.callback(shared.stop)
        shared.add_apis(apis, warm_s)
        yield shared
