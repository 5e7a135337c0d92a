"""The audit log: every answered question, what was retrieved, what answered it, the answer and
its citation check (seed 002).

One SQLite file beside the catalogue (``audit.sqlite``; its own file, so a long listing never
waits on an ingestion's write lock). The pipeline writes one record per answer, from the app, the
CLI or the API alike; a record never holds a key (error and answer texts are scrubbed of anything
shaped like one). Records older than the retention setting are pruned when the log is opened.
With ``RAG_APP_DATABASE_URL`` the records and their feedback are in the shared PostgreSQL
database instead (``rag_app.database``): every process writes to, and lists, one log.
"""

from __future__ import annotations

import json
import logging
import re
import threading
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from rag_app.chat.saved_details import from_plain
from rag_app.chat.saved_turns import SavedCheck, SavedTurn, restored_answer
from rag_app.database import open_database
from rag_app.models import Answer, AskOptions, Understood

_log = logging.getLogger(__name__)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS records (
    id INTEGER PRIMARY KEY AUTOINCREMENT, time TEXT NOT NULL, user TEXT NOT NULL,
    kb TEXT NOT NULL, client TEXT NOT NULL, payload TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS records_by_time ON records (time);
"""
# A reader's verdict on an answer (issue 27): +1 or -1, a note, who and when; one per record.
_FEEDBACK = """
CREATE TABLE IF NOT EXISTS feedback (
    record_id INTEGER PRIMARY KEY, rating INTEGER NOT NULL, note TEXT NOT NULL,
    user TEXT NOT NULL, time TEXT NOT NULL);
"""


@dataclass(frozen=True)
class Feedback:
    """A reader's 👍 (``rating`` 1) or 👎 (-1) on an answer, with an optional note."""

    rating: int
    note: str = ""
    user: str = ""
    time: str = ""


# Provider keys in error texts ("Incorrect API key provided: sk-abc…"), bearer tokens, and
# key=value pairs in URLs: replaced before anything is stored.
_SECRET = re.compile(
    r"(?i)\b(sk-[A-Za-z0-9_\-]{6,}|bearer\s+[A-Za-z0-9._\-]{6,}|"
    r"(?:api[_-]?key|token|secret|password)\s*[=:]\s*[^\s&,;]+)"
)


@dataclass(frozen=True)
class AuditHit:
    chunk_id: str
    doc_id: str
    type: str
    score: float
    strategy: str


@dataclass(frozen=True)
class AuditSource:
    """``[Source number]`` of the answer: the chunk the prompt gave that number."""

    number: int
    chunk_id: str
    # a table joined back from sub-tables: the ids of its parts (the hits the prompt joined)
    part_ids: tuple[str, ...] = ()


@dataclass(frozen=True)
class AuditRecord:
    """One answered question: the keys of ``rag-app audit --json``."""

    time: str
    user: str
    kb: str
    client: str  # app / cli / api / eval
    mode: str
    question: str
    standalone_question: str
    detected_type: str
    hits: tuple[AuditHit, ...]
    prompt_tokens: int
    answerer: str
    model: str
    timings: dict[str, float]
    error: str = ""
    error_kind: str = ""
    fallback_from: str = ""
    flagged: tuple[str, ...] = ()  # answer sentences the citation check flagged
    answer_chars: int = 0
    finding: str = ""  # what the library check found missing (rag_app.trust.answerability)
    declined: bool = False
    # cited sentences about another company, period or metric than asked ("claim: why")
    off_question: tuple[str, ...] = ()
    # Self-RAG rounds: per round, its queries and whether its revision replaced the answer
    revisions: tuple[dict[str, Any], ...] = ()
    # What the asker saw: the answer (scrubbed), the question as understood (理解为), the
    # prompt's numbered sources and the citation check of each sentence (supported, about the
    # question, and why not; ``checked`` when a check ran). Records written before these were
    # kept load without them, and the Audit page shows none.
    answer: str = ""
    understood: Understood | None = None
    sources: tuple[AuditSource, ...] = ()
    sentences: tuple[SavedCheck, ...] = ()
    checked: bool = False
    relevance_checked: bool = False
    dangling: tuple[int, ...] = ()
    id: int = 0
    feedback: Feedback | None = None  # read from its own table, never stored in the payload

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def doubtful(self) -> int:
        """How many answer sentences the Ask page marks ⚠️, each once: unsupported or uncited,
        or about another company, period or metric than the question's."""
        if self.sentences:
            return sum(1 for s in self.sentences if s.factual and (s.flagged or not s.relevant))
        # older records: the flagged texts, and the off-question ones as "text: why"
        off = [
            o for o in self.off_question if not any(o.startswith(f + ": ") for f in self.flagged)
        ]
        return len(self.flagged) + len(off)

    def restored_answer(self) -> Answer:
        """The ``Answer`` this record keeps (text, understood question, citation check, error,
        timings; hits and prompt left out), for the Ask page's render functions."""
        turn = SavedTurn(
            question=self.question,
            options=AskOptions(kb=self.kb, mode="hybrid" if self.mode == "hybrid" else "smart"),
            answer=self.answer,
            answerer=self.answerer,
            error=self.error,
            error_kind=self.error_kind,
            fallback_from=self.fallback_from,
            sentences=self.sentences,
            dangling=self.dangling,
            timings=tuple(self.timings.items()),
            understood=self.understood,
            finding=self.finding,
            declined=self.declined,
            checked=self.checked,
            relevance_checked=self.relevance_checked,
        )
        return restored_answer(turn)


def scrub(text: str) -> str:
    """``text`` with anything shaped like a key or token replaced by ``[redacted]``."""
    return _SECRET.sub("[redacted]", text or "")


def record_of(
    answer: Answer, options: AskOptions, *, user: str = "", client: str = "app", model: str = ""
) -> AuditRecord:
    """The audit record of one answer."""
    routing = answer.retrieval.routing
    report = getattr(answer.prompt, "report", None)
    flagged = getattr(answer.citations, "flagged", ()) if answer.citations is not None else ()
    return AuditRecord(
        time=datetime.now(UTC).isoformat(timespec="milliseconds"),
        user=user or "local",
        kb=options.kb,
        client=client,
        mode=answer.retrieval.mode or options.mode,
        question=answer.question,
        standalone_question=answer.standalone_question,
        detected_type=routing.detected_type if routing is not None else "",
        hits=tuple(
            AuditHit(h.chunk.chunk_id, h.chunk.doc_id, h.chunk.type, round(h.score, 4), h.strategy)
            for h in answer.hits
        ),
        prompt_tokens=int(getattr(report, "prompt_tokens", 0) or 0),
        answerer=answer.answerer,
        model=model or answer.fallback_from or answer.answerer,
        timings={name: round(ms, 1) for name, ms in answer.timings},
        error=scrub(answer.error),
        error_kind=answer.error_kind,
        fallback_from=answer.fallback_from,
        flagged=tuple(scrub(s.text) for s in flagged),
        answer_chars=len(answer.text),
        finding=answer.finding,
        declined=answer.declined,
        off_question=tuple(
            scrub(f"{s.text}: {s.off_subject}")
            for s in getattr(answer.citations, "off_question", ())
        ),
        revisions=tuple(
            {"round": r.number, "queries": list(r.queries), "kept": r.kept, "ms": round(r.ms, 1)}
            for r in getattr(answer, "revisions", ())
        ),
        answer=scrub(answer.text),
        understood=answer.understood,
        sources=tuple(
            AuditSource(
                int(s.number),
                s.hit.chunk.chunk_id,
                tuple(p.chunk.chunk_id for p in s.parts) if len(s.parts) > 1 else (),
            )
            for s in getattr(answer.prompt, "sources", ()) or ()
        ),
        sentences=tuple(_check_of(s) for s in getattr(answer.citations, "sentences", ()) or ()),
        checked=answer.citations is not None,
        relevance_checked=bool(getattr(answer.citations, "relevance_checked", False)),
        dangling=tuple(getattr(answer.citations, "dangling", ()) or ()),
    )


def _check_of(sentence: Any) -> SavedCheck:
    """A sentence's verdict as kept: its text scrubbed, its evidence left out (the record's
    hits name the chunks it came from), its numbers traced with where (beside the untraced
    ones its reasons name)."""
    return SavedCheck(
        start=sentence.start,
        end=sentence.end,
        text=scrub(sentence.text),
        cited=tuple(sentence.cited),
        supported=bool(sentence.supported),
        factual=bool(sentence.factual),
        reason=sentence.reason,
        reasons=tuple(sentence.reasons),
        relevant=bool(getattr(sentence, "relevant", True)),
        off_reasons=tuple(getattr(sentence, "off_reasons", ()) or ()),
        support=round(float(sentence.support), 4),
        best_source=sentence.best_source,
        off_subject=str(getattr(sentence, "off_subject", "") or ""),
        traced=tuple(getattr(sentence, "traced", ()) or ()),
    )


@dataclass
class AuditLog:
    """The audit records of a data dir; thread-safe, one connection."""

    path: Path
    retention_days: int = 90
    database_url: str = field(default="", repr=False)  # set: the shared database, not ``path``
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def __post_init__(self) -> None:
        self._db = open_database(self.path, (_SCHEMA, _FEEDBACK), self.database_url)
        if self.retention_days > 0:
            self.prune(datetime.now(UTC) - timedelta(days=self.retention_days))

    @classmethod
    def in_dir(cls, data_dir: Path, retention_days: int = 90, database_url: str = "") -> AuditLog:
        return cls(data_dir / "audit.sqlite", retention_days, database_url)

    def add(self, record: AuditRecord) -> int:
        """Store ``record``; its id (what feedback on its answer names)."""
        payload = record.to_json()
        payload.pop("id", None)
        payload.pop("feedback", None)
        with self._lock:
            row = self._db.execute(
                'INSERT INTO records (time, "user", kb, client, payload) VALUES (?, ?, ?, ?, ?)'
                " RETURNING id",
                (
                    record.time,
                    record.user,
                    record.kb,
                    record.client,
                    json.dumps(payload, ensure_ascii=False),
                ),
            ).fetchone()
        return int(row[0]) if row else 0

    def give_feedback(self, record_id: int, rating: int, note: str = "", user: str = "") -> bool:
        """A reader's 👍 (1) or 👎 (-1) and note on the answer of record ``record_id``,
        replacing any earlier one; False when there is no such record."""
        if rating not in (1, -1):
            raise ValueError("a rating is 1 (👍) or -1 (👎)")
        now = datetime.now(UTC).isoformat(timespec="milliseconds")
        with self._lock:
            if not self._db.execute("SELECT 1 FROM records WHERE id = ?", (record_id,)).fetchone():
                return False
            self._db.execute(
                'INSERT INTO feedback (record_id, rating, note, "user", time)'
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT (record_id) DO UPDATE SET"
                ' rating = excluded.rating, note = excluded.note, "user" = excluded."user",'
                " time = excluded.time",
                (record_id, rating, scrub(note.strip()), user, now),
            )
        return True

    def records(
        self,
        *,
        kb: str | None = None,
        since: str | None = None,
        user: str | None = None,
        contains: str = "",
        limit: int | None = None,
        rated: int | None = None,
    ) -> list[AuditRecord]:
        """Records newest first, each with its feedback, filtered by knowledge base, time (ISO,
        inclusive), user, a piece of the question and ``rated`` (1 👍, -1 👎, 0 any feedback);
        raises ValueError for a ``since`` that is not an ISO time."""
        query, args = (
            'SELECT records.id, payload, f.rating, f.note, f."user", f.time FROM records'
            " LEFT JOIN feedback f ON f.record_id = records.id WHERE 1=1",
            list[object](),
        )
        if rated is not None:
            query += " AND f.rating IS NOT NULL" if rated == 0 else " AND f.rating = ?"
            args += [] if rated == 0 else [rated]
        if kb:
            query, args = query + " AND records.kb = ?", [*args, kb]
        if since:
            query, args = query + " AND records.time >= ?", [*args, _iso(since)]
        if user:
            query, args = query + ' AND records."user" = ?', [*args, user]
        query += " ORDER BY records.time DESC, records.id DESC"
        with self._lock:
            rows = self._db.execute(query, args).fetchall()
        out = []
        for row_id, payload, rating, note, by, at in rows:
            record = _from_json(row_id, payload)
            if rating is not None:
                record = replace(record, feedback=Feedback(int(rating), note, by, at))
            if (
                contains
                and contains.lower()
                not in (record.question + " " + record.standalone_question).lower()
            ):
                continue
            out.append(record)
            if limit is not None and len(out) >= limit:
                break
        return out

    def prune(self, before: datetime) -> int:
        with self._lock:
            cur = self._db.execute(
                "DELETE FROM records WHERE time < ?", (before.isoformat(timespec="milliseconds"),)
            )
            self._db.execute("DELETE FROM feedback WHERE record_id NOT IN (SELECT id FROM records)")
        return cur.rowcount

    def close(self) -> None:
        with self._lock:
            self._db.close()


def _iso(since: str) -> str:
    """An ISO time as stored (UTC); a date alone means its midnight UTC."""
    try:
        when = datetime.fromisoformat(since.strip().replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(
            f"not an ISO time: {since!r} (e.g. 2026-11-26 or 2026-11-26T08:00)"
        ) from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return when.astimezone(UTC).isoformat(timespec="milliseconds")


def _from_json(row_id: int, payload: str) -> AuditRecord:
    """A stored record, read by the fields' types; fields it was written without default."""
    data = json.loads(payload)
    data["id"] = row_id
    record: AuditRecord = from_plain(AuditRecord, data)
    return record


def open_audit_log(
    data_dir: Path, retention_days: int = 90, database_url: str = ""
) -> AuditLog | None:
    """The data dir's audit log (the shared database's with ``database_url``); None (logged)
    when it cannot be opened, so that answering never fails for want of its log (a read-only
    data dir, an unreachable database)."""
    try:
        return AuditLog.in_dir(data_dir, retention_days, database_url)
    except Exception as exc:  # noqa: BLE001 - reported; the answer goes on
        _log.warning("the audit log cannot be opened: %s", exc)
        return None
