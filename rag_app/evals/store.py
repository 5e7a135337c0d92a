"""The question sets and runs of a data dir (``evals.sqlite``), shared by the app, the API and the
CLI (``open_sqlite``: WAL, any thread, another process waited for); with
``RAG_APP_DATABASE_URL``, of the shared PostgreSQL database every process uses instead
(``rag_app.database``).

A run's status is ``queued``, ``running``, ``done``, ``cancelled`` or ``failed`` as its runner
wrote it. The runner beats a heartbeat while it holds the run; a queued or running run whose
heartbeat is older than ``STALE_S`` lost its process (a restart) and reads as ``interrupted``,
to be resumed from its last question. Each question's result and its answer as a saved turn
(everything the Ask page would draw) are kept by position, so a resumed run skips what is done.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from rag_app.chat.saved_details import from_plain
from rag_app.database import open_database
from rag_app.evals.question_sets import EvalQuestion, question_rows, questions_of
from rag_app.evals.scoring import QuestionResult, RunMetrics

# A run whose runner has not beaten for this long has lost its process; the runner beats
# every HEARTBEAT_S, so a busy machine is not taken for a dead one.
STALE_S = 30.0
HEARTBEAT_S = 5.0

_SCHEMA = """
CREATE TABLE IF NOT EXISTS sets (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL,
    created TEXT NOT NULL,
    user TEXT NOT NULL DEFAULT '',
    n INTEGER NOT NULL,
    questions TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    set_id INTEGER NOT NULL,
    kb TEXT NOT NULL,
    settings TEXT NOT NULL,
    status TEXT NOT NULL,
    created TEXT NOT NULL,
    finished TEXT NOT NULL DEFAULT '',
    n_total INTEGER NOT NULL,
    n_done INTEGER NOT NULL DEFAULT 0,
    heartbeat REAL NOT NULL DEFAULT 0,
    cancel INTEGER NOT NULL DEFAULT 0,
    error TEXT NOT NULL DEFAULT '',
    metrics TEXT NOT NULL DEFAULT '',
    user TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS results (
    run_id INTEGER NOT NULL,
    position INTEGER NOT NULL,
    result TEXT NOT NULL,
    turn TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (run_id, position)
);
CREATE INDEX IF NOT EXISTS runs_by_set ON runs (set_id)
"""

ACTIVE = ("queued", "running")


@dataclass(frozen=True)
class RunSettings:
    """How a run asks: the knowledge base, smart or hybrid retrieval, the prompt mode, the
    number of hits (None: the library's top_k), ``scope`` ``kb`` (the whole knowledge base) or
    ``doc`` (each question only its row's document), and the answerer's name."""

    kb: str
    mode: str = "smart"
    prompt_mode: str = "advanced"
    top_k: int | None = None
    scope: str = "kb"
    answerer: str = "offline"


@dataclass(frozen=True)
class QuestionSet:
    id: int
    name: str
    created: str
    questions: tuple[EvalQuestion, ...]
    user: str = ""


@dataclass(frozen=True)
class EvalRun:
    """A run as stored; ``metrics`` is set once it is done (or cancelled: over what it did)."""

    id: int
    set_id: int
    set_name: str
    settings: RunSettings
    status: str
    created: str
    n_total: int
    n_done: int = 0
    finished: str = ""
    error: str = ""
    metrics: RunMetrics | None = None
    user: str = ""

    @property
    def active(self) -> bool:
        return self.status in ACTIVE

    @property
    def kb(self) -> str:
        return self.settings.kb


@dataclass(frozen=True)
class StoredResult:
    position: int
    result: QuestionResult
    turn_json: str = ""  # the answer as a saved turn (rag_app.chat.saved_turns)


@dataclass
class EvalStore:
    """The sets and runs; thread-safe, one connection."""

    path: Path
    database_url: str = field(default="", repr=False)  # set: the shared database, not ``path``
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def __post_init__(self) -> None:
        self._db = open_database(self.path, (_SCHEMA,), self.database_url)

    @classmethod
    def in_dir(cls, data_dir: Path, database_url: str = "") -> EvalStore:
        return cls(data_dir / "evals.sqlite", database_url)

    @property
    def where(self) -> str:
        """Where the runs are kept, for a message: the SQLite file, or the shared database."""
        return "the shared database" if self.database_url else str(self.path)

    def close(self) -> None:
        self._db.close()

    # sets ---------------------------------------------------------------------------------------
    def add_set(self, name: str, questions: list[EvalQuestion], user: str = "") -> int:
        """Keep a question set; its id."""
        payload = json.dumps(question_rows(questions), ensure_ascii=False)
        with self._lock:
            row = self._db.execute(
                'INSERT INTO sets (name, created, "user", n, questions) VALUES (?, ?, ?, ?, ?)'
                " RETURNING id",
                (name, _now(), user, len(questions), payload),
            ).fetchone()
        return int(row[0]) if row else 0

    def question_set(self, set_id: int) -> QuestionSet | None:
        with self._lock:
            row = self._db.execute(
                'SELECT id, name, created, questions, "user" FROM sets WHERE id = ?', (set_id,)
            ).fetchone()
        if row is None:
            return None
        rows = json.loads(row[3])
        questions = questions_of(enumerate(rows, start=1))
        return QuestionSet(int(row[0]), row[1], row[2], tuple(questions), row[4])

    def sets(self, user: str | None = None) -> list[tuple[int, str, int, str]]:
        """(id, name, number of questions, created) of every set, newest first; with ``user``,
        only theirs and those nobody owns (kept by the one local user or the CLI)."""
        where, args = ("WHERE \"user\" IN (?, '')", (user,)) if user is not None else ("", ())
        with self._lock:
            rows = self._db.execute(
                f"SELECT id, name, n, created FROM sets {where} ORDER BY id DESC", args
            ).fetchall()
        return [(int(r[0]), r[1], int(r[2]), r[3]) for r in rows]

    # runs ---------------------------------------------------------------------------------------
    def add_run(self, set_id: int, settings: RunSettings, n_total: int, user: str = "") -> int:
        with self._lock:
            row = self._db.execute(
                "INSERT INTO runs (set_id, kb, settings, status, created, n_total, heartbeat,"
                " \"user\") VALUES (?, ?, ?, 'queued', ?, ?, ?, ?) RETURNING id",
                (
                    set_id,
                    settings.kb,
                    json.dumps(asdict(settings)),
                    _now(),
                    n_total,
                    time.time(),
                    user,
                ),
            ).fetchone()
        return int(row[0]) if row else 0

    def run(self, run_id: int) -> EvalRun | None:
        runs = self._runs("WHERE r.id = ?", (run_id,))
        return runs[0] if runs else None

    def runs(self, kb: str | None = None, limit: int = 200) -> list[EvalRun]:
        """Runs newest first, of one knowledge base or every one."""
        if kb is None:
            return self._runs("ORDER BY r.id DESC LIMIT ?", (limit,))
        return self._runs("WHERE r.kb = ? ORDER BY r.id DESC LIMIT ?", (kb, limit))

    def _runs(self, where: str, args: tuple[object, ...]) -> list[EvalRun]:
        with self._lock:
            rows = self._db.execute(
                "SELECT r.id, r.set_id, COALESCE(s.name, ''), r.settings, r.status, r.created,"
                ' r.n_total, r.n_done, r.finished, r.error, r.metrics, r."user", r.heartbeat'
                f" FROM runs r LEFT JOIN sets s ON s.id = r.set_id {where}",
                args,
            ).fetchall()
        now = time.time()
        out = []
        for row in rows:
            status = row[4]
            if status in ACTIVE and now - float(row[12]) > STALE_S:
                status = "interrupted"
            out.append(
                EvalRun(
                    id=int(row[0]),
                    set_id=int(row[1]),
                    set_name=row[2],
                    settings=from_plain(RunSettings, json.loads(row[3])),
                    status=status,
                    created=row[5],
                    n_total=int(row[6]),
                    n_done=int(row[7]),
                    finished=row[8],
                    error=row[9],
                    metrics=from_plain(RunMetrics, json.loads(row[10])) if row[10] else None,
                    user=row[11],
                )
            )
        return out

    def claim(self, run_id: int) -> bool:
        """Mark a queued run running; False when it is not queued (cancelled meanwhile, or
        another runner took it)."""
        with self._lock:
            cursor = self._db.execute(
                "UPDATE runs SET status = 'running', heartbeat = ? WHERE id = ?"
                " AND status = 'queued' AND cancel = 0",
                (time.time(), run_id),
            )
        return cursor.rowcount == 1

    def requeue(self, run_id: int) -> bool:
        """A stopped run (cancelled, failed or interrupted) queued again to resume; False when
        it is done, gone or still held by a live runner."""
        with self._lock:
            cursor = self._db.execute(
                "UPDATE runs SET status = 'queued', cancel = 0, error = '', heartbeat = ?,"
                " finished = '' WHERE id = ? AND (status IN ('cancelled', 'failed')"
                " OR (status IN ('queued', 'running') AND heartbeat <= ?))",
                (time.time(), run_id, time.time() - STALE_S),
            )
        return cursor.rowcount == 1

    def beat(self, run_ids: list[int]) -> None:
        if not run_ids:
            return
        marks = ",".join("?" * len(run_ids))
        with self._lock:
            self._db.execute(
                f"UPDATE runs SET heartbeat = ? WHERE id IN ({marks})", (time.time(), *run_ids)
            )

    def request_cancel(self, run_id: int) -> bool:
        """Ask the run's runner to stop after the question it is on; a queued or interrupted
        run stops at once. False when the run is not active."""
        with self._lock:
            cursor = self._db.execute(
                "UPDATE runs SET cancel = 1 WHERE id = ? AND status IN ('queued', 'running')",
                (run_id,),
            )
        run = self.run(run_id)
        if run is not None and run.status == "interrupted":
            self.finish(run_id, "cancelled")
        return cursor.rowcount == 1

    def cancel_requested(self, run_id: int) -> bool:
        with self._lock:
            row = self._db.execute("SELECT cancel FROM runs WHERE id = ?", (run_id,)).fetchone()
        return row is None or bool(row[0])

    def finish(
        self, run_id: int, status: str, metrics: RunMetrics | None = None, error: str = ""
    ) -> None:
        with self._lock:
            self._db.execute(
                "UPDATE runs SET status = ?, finished = ?, metrics = ?, error = ? WHERE id = ?",
                (
                    status,
                    _now(),
                    json.dumps(asdict(metrics)) if metrics is not None else "",
                    error,
                    run_id,
                ),
            )

    def delete_run(self, run_id: int) -> bool:
        """Forget a run that is not active, and its results."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                cursor = self._db.execute(
                    "DELETE FROM runs WHERE id = ? AND status NOT IN ('queued', 'running')"
                    " OR (id = ? AND heartbeat <= ?)",
                    (run_id, run_id, time.time() - STALE_S),
                )
                if cursor.rowcount:
                    self._db.execute("DELETE FROM results WHERE run_id = ?", (run_id,))
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")
        return cursor.rowcount == 1

    # results ------------------------------------------------------------------------------------
    def add_result(self, run_id: int, position: int, result: QuestionResult, turn: str) -> None:
        """Keep one question's result and count it done, in one transaction."""
        payload = json.dumps(asdict(result), ensure_ascii=False)
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.execute(
                    "INSERT INTO results (run_id, position, result, turn) VALUES (?, ?, ?, ?)"
                    " ON CONFLICT (run_id, position) DO UPDATE SET result = excluded.result,"
                    " turn = excluded.turn",
                    (run_id, position, payload, turn),
                )
                self._db.execute(
                    "UPDATE runs SET n_done = (SELECT COUNT(*) FROM results WHERE run_id = ?),"
                    " heartbeat = ? WHERE id = ?",
                    (run_id, time.time(), run_id),
                )
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def results(self, run_id: int, with_turns: bool = False) -> list[StoredResult]:
        """A run's results in the set's order; with ``with_turns``, each answer's saved turn."""
        column = "turn" if with_turns else "''"
        with self._lock:
            rows = self._db.execute(
                f"SELECT position, result, {column} FROM results WHERE run_id = ?"
                " ORDER BY position",
                (run_id,),
            ).fetchall()
        return [
            StoredResult(int(r[0]), from_plain(QuestionResult, json.loads(r[1])), r[2])
            for r in rows
        ]

    def turn(self, run_id: int, position: int) -> str:
        """One question's answer as a saved turn's JSON ("" when it has none)."""
        with self._lock:
            row = self._db.execute(
                "SELECT turn FROM results WHERE run_id = ? AND position = ?", (run_id, position)
            ).fetchone()
        return row[0] if row else ""

    def done_positions(self, run_id: int) -> set[int]:
        with self._lock:
            rows = self._db.execute(
                "SELECT position FROM results WHERE run_id = ?", (run_id,)
            ).fetchall()
        return {int(r[0]) for r in rows}


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
