"""Saved conversations: each user's chats, kept beside the catalogue so they survive a reload and
a restart, and the user's remembered choices (language, modes, knowledge base, filters).

One SQLite file, ``conversations.sqlite`` in the data dir (its own file, like the audit log, so
a listing never waits on an ingestion). Every query names the user: one user never reads,
renames or deletes another's conversation, even knowing its id. A turn is stored as what it
takes to show it again without running retrieval again (``SavedTurn``: the question, its
options, the answer text, the sources it cites with an excerpt, the citation check); the
sources' chunks are looked up in the library again when shown, and the excerpt stands in when a
document has been deleted since. Each write is one transaction: a crash loses at most the turn
being written. ``rag_app.conversation_export`` writes a conversation as Markdown.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rag_app.models import Answer, AskOptions, Chunk, Reason
from rag_app.prompt.tables import merge_table_chunks

_SCHEMA = """
CREATE TABLE IF NOT EXISTS conversations (
    id TEXT PRIMARY KEY, user TEXT NOT NULL, title TEXT NOT NULL, kb TEXT NOT NULL,
    created_at TEXT NOT NULL, updated_at TEXT NOT NULL, n_turns INTEGER NOT NULL DEFAULT 0);
CREATE INDEX IF NOT EXISTS conversations_by_user ON conversations (user, updated_at);
CREATE TABLE IF NOT EXISTS turns (
    conversation_id TEXT NOT NULL, seq INTEGER NOT NULL, payload TEXT NOT NULL,
    PRIMARY KEY (conversation_id, seq));
CREATE TABLE IF NOT EXISTS preferences (
    user TEXT PRIMARY KEY, payload TEXT NOT NULL, updated_at TEXT NOT NULL);
"""
TITLE_CHARS = 120  # a title longer than this is cut (the sidebar shows fewer still)
EXCERPT_CHARS = 600  # of a source's text, kept for when its document is gone


@dataclass(frozen=True)
class SavedSource:
    """``[Source number]`` of a saved answer: where it came from and an excerpt of its text.
    ``pages`` are 0-based (``page_idx``), as in ``Chunk``."""

    number: int
    doc_id: str
    doc_name: str
    chunk_id: str
    type: str
    pages: tuple[int, ...] = ()
    title: str = ""  # the table's or figure's caption, or the section heading
    excerpt: str = ""
    status: str = "kept"  # "cut" when only its start fitted in the prompt
    part_ids: tuple[str, ...] = ()  # sub-tables the prompt merged into this one (chunk_id)


@dataclass(frozen=True)
class SavedCheck:
    """One answer sentence's citation verdict, as ``rag_app.cite.SentenceCheck`` gave it."""

    start: int
    end: int
    text: str
    cited: tuple[int, ...]
    supported: bool
    factual: bool = True
    reason: str = ""
    reasons: tuple[Reason, ...] = ()
    evidence: str = ""
    # about the question (``cite.relevance``), and why not
    relevant: bool = True
    off_reasons: tuple[Reason, ...] = ()

    @property
    def flagged(self) -> bool:
        return self.factual and (not self.supported or not self.cited)


@dataclass(frozen=True)
class SavedTurn:
    """One exchange as stored. ``failure`` is set (and ``answer`` empty) when the pipeline
    failed before answering; ``error`` is a provider error the answer still carries."""

    question: str
    options: AskOptions
    answer: str = ""
    answerer: str = ""
    error: str = ""
    error_kind: str = ""
    fallback_from: str = ""
    failure: str = ""
    sources: tuple[SavedSource, ...] = ()
    sentences: tuple[SavedCheck, ...] = ()
    dangling: tuple[int, ...] = ()
    timings: tuple[tuple[str, float], ...] = ()
    asked_at: str = ""

    @property
    def answered(self) -> bool:
        return not self.failure

    def source(self, number: int) -> SavedSource | None:
        return next((s for s in self.sources if s.number == number), None)


@dataclass(frozen=True)
class ConversationInfo:
    id: str
    user: str
    title: str
    kb: str
    created_at: str
    updated_at: str
    n_turns: int


@dataclass(frozen=True)
class Conversation:
    info: ConversationInfo
    turns: tuple[SavedTurn, ...]


def saved_turn(
    question: str,
    options: AskOptions,
    answer: Answer | None,
    failure: str = "",
    doc_names: Mapping[str, str] | None = None,
) -> SavedTurn:
    """The stored form of one exchange: ``answer`` (None when the pipeline failed with
    ``failure``) reduced to its text, cited sources and citation check. ``doc_names`` names
    the documents as they were when it was asked."""
    now = _now()
    if answer is None:
        return SavedTurn(question, options, failure=failure or "failed", asked_at=now)
    names = dict(doc_names or {})
    sources = []
    for source in getattr(answer.prompt, "sources", ()) or ():
        chunk = source.hit.chunk
        title = chunk.caption or (chunk.heading_path[-1] if chunk.heading_path else "")
        sources.append(
            SavedSource(
                number=int(source.number),
                doc_id=chunk.doc_id,
                doc_name=names.get(chunk.doc_id, chunk.doc_id),
                chunk_id=chunk.chunk_id,
                type=chunk.type,
                pages=tuple(chunk.pages),
                title=title,
                excerpt=_excerpt(chunk.description if chunk.type == "image" else chunk.text),
                status=str(source.status),
                part_ids=tuple(p.chunk.chunk_id for p in source.parts)
                if len(source.parts) > 1
                else (),
            )
        )
    report = answer.citations
    checks = tuple(
        SavedCheck(
            start=s.start,
            end=s.end,
            text=s.text,
            cited=tuple(s.cited),
            supported=bool(s.supported),
            factual=bool(s.factual),
            reason=s.reason,
            reasons=tuple(s.reasons),
            evidence=s.evidence,
            relevant=bool(getattr(s, "relevant", True)),
            off_reasons=tuple(getattr(s, "off_reasons", ()) or ()),
        )
        for s in (getattr(report, "sentences", ()) or ())
    )
    return SavedTurn(
        question=question,
        options=options,
        answer=answer.text,
        answerer=answer.answerer,
        error=answer.error,
        error_kind=answer.error_kind,
        fallback_from=answer.fallback_from,
        sources=tuple(sources),
        sentences=checks,
        dangling=tuple(getattr(report, "dangling", ()) or ()),
        timings=tuple(answer.timings),
        asked_at=now,
    )


def source_chunk(source: SavedSource, chunks: Mapping[str, Chunk]) -> Chunk | None:
    """A saved source's chunk as the library has it now (``chunks`` by id, its document's):
    the chunk itself, or the sub-tables it was merged from joined again; None when gone."""
    if source.chunk_id in chunks:
        return chunks[source.chunk_id]
    parts = [chunks.get(part) for part in source.part_ids]
    if not parts or None in parts:
        return None
    return merge_table_chunks([p for p in parts if p is not None])


def _excerpt(text: str) -> str:
    text = (text or "").strip()
    return text if len(text) <= EXCERPT_CHARS else text[: EXCERPT_CHARS - 1] + "…"


# JSON ----------------------------------------------------------------------------------------
def turn_to_json(turn: SavedTurn) -> str:
    return json.dumps(asdict(turn), ensure_ascii=False)


def _reasons(rows: object) -> tuple[Reason, ...]:
    return tuple(
        Reason(r["key"], tuple(tuple(v) for v in r.get("values") or ()))
        for r in rows or ()  # type: ignore[attr-defined]
    )


def turn_from_json(payload: str) -> SavedTurn:
    data = json.loads(payload)
    options = dict(data.pop("options"))
    options["doc_ids"] = tuple(options.get("doc_ids") or ())
    sources = tuple(
        SavedSource(
            **{
                **s,
                "pages": tuple(s.get("pages") or ()),
                "part_ids": tuple(s.get("part_ids") or ()),
            }
        )
        for s in data.pop("sources")
    )
    checks = tuple(
        SavedCheck(
            **{
                **c,
                "cited": tuple(c.get("cited") or ()),
                "reasons": _reasons(c.get("reasons")),
                "off_reasons": _reasons(c.get("off_reasons")),
            }
        )
        for c in data.pop("sentences")
    )
    data["dangling"] = tuple(data.get("dangling") or ())
    data["timings"] = tuple((str(k), float(v)) for k, v in data.get("timings") or ())
    return SavedTurn(**data, options=AskOptions(**options), sources=sources, sentences=checks)


# the store -----------------------------------------------------------------------------------
class ConversationStore:
    """Thread-safe access to the conversations file (one connection, serialised by a lock;
    other processes on the same file wait on SQLite's busy timeout)."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._lock = threading.RLock()
        self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA busy_timeout=10000")
        self._db.executescript(_SCHEMA)

    @classmethod
    def in_dir(cls, data_dir: Path) -> ConversationStore:
        return cls(data_dir / "conversations.sqlite")

    def close(self) -> None:
        with self._lock:
            self._db.close()

    @contextmanager
    def _tx(self) -> Iterator[None]:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    # conversations ------------------------------------------------------------------------------
    def create(self, user: str, title: str, kb: str) -> ConversationInfo:
        """A new, empty conversation of ``user`` titled ``title`` (cut to ``TITLE_CHARS``)."""
        now = _now()
        info = ConversationInfo(secrets.token_urlsafe(12), user, _title(title), kb, now, now, 0)
        with self._tx():
            self._db.execute(
                "INSERT INTO conversations VALUES (?, ?, ?, ?, ?, ?, 0)",
                (info.id, user, info.title, kb, now, now),
            )
        return info

    def list(self, user: str, limit: int | None = None) -> list[ConversationInfo]:
        """``user``'s conversations, the most recently active first."""
        query = (
            "SELECT id, user, title, kb, created_at, updated_at, n_turns FROM conversations "
            "WHERE user = ? ORDER BY updated_at DESC, created_at DESC, rowid DESC"
        )
        args: list[Any] = [user]
        if limit is not None:
            query, args = query + " LIMIT ?", [user, limit]
        with self._lock:
            rows = self._db.execute(query, args).fetchall()
        return [ConversationInfo(*row) for row in rows]

    def info(self, user: str, conversation_id: str) -> ConversationInfo | None:
        with self._lock:
            row = self._db.execute(
                "SELECT id, user, title, kb, created_at, updated_at, n_turns FROM conversations "
                "WHERE user = ? AND id = ?",
                (user, conversation_id),
            ).fetchone()
        return ConversationInfo(*row) if row else None

    def get(self, user: str, conversation_id: str) -> Conversation | None:
        """``user``'s conversation with its turns, oldest first; None when there is none with
        that id (or it is another user's)."""
        with self._lock:
            info = self.info(user, conversation_id)
            if info is None:
                return None
            rows = self._db.execute(
                "SELECT payload FROM turns WHERE conversation_id = ? ORDER BY seq",
                (conversation_id,),
            ).fetchall()
        return Conversation(info, tuple(turn_from_json(row[0]) for row in rows))

    def append(self, user: str, conversation_id: str, turn: SavedTurn) -> bool:
        """Add ``turn`` at the end of ``user``'s conversation, in one transaction; False when
        there is no such conversation (deleted meanwhile, or another user's)."""
        with self._tx():
            row = self._db.execute(
                "SELECT 1 FROM conversations WHERE user = ? AND id = ?", (user, conversation_id)
            ).fetchone()
            if row is None:
                return False
            (seq,) = self._db.execute(
                "SELECT COALESCE(MAX(seq), 0) + 1 FROM turns WHERE conversation_id = ?",
                (conversation_id,),
            ).fetchone()
            self._db.execute(
                "INSERT INTO turns VALUES (?, ?, ?)", (conversation_id, seq, turn_to_json(turn))
            )
            self._db.execute(
                "UPDATE conversations SET updated_at = ?, n_turns = n_turns + 1 WHERE id = ?",
                (_now(), conversation_id),
            )
        return True

    def rename(self, user: str, conversation_id: str, title: str) -> bool:
        """False when ``title`` is blank or the conversation is not ``user``'s."""
        if not title.strip():
            return False
        with self._tx():
            cur = self._db.execute(
                "UPDATE conversations SET title = ? WHERE user = ? AND id = ?",
                (_title(title), user, conversation_id),
            )
        return cur.rowcount > 0

    def delete(self, user: str, conversation_id: str) -> bool:
        with self._tx():
            cur = self._db.execute(
                "DELETE FROM conversations WHERE user = ? AND id = ?", (user, conversation_id)
            )
            if cur.rowcount:
                self._db.execute("DELETE FROM turns WHERE conversation_id = ?", (conversation_id,))
        return cur.rowcount > 0

    # preferences --------------------------------------------------------------------------------
    def preferences(self, user: str) -> dict[str, Any]:
        """What ``user`` last chose (``save_preferences``); {} before any choice."""
        with self._lock:
            row = self._db.execute(
                "SELECT payload FROM preferences WHERE user = ?", (user,)
            ).fetchone()
        try:
            value = json.loads(row[0]) if row else {}
        except ValueError:
            return {}
        return value if isinstance(value, dict) else {}

    def save_preferences(self, user: str, values: Mapping[str, Any]) -> None:
        """Replace ``user``'s remembered choices with ``values`` (JSON-serialisable)."""
        payload = json.dumps(dict(values), ensure_ascii=False, sort_keys=True)
        with self._tx():
            self._db.execute(
                "INSERT INTO preferences VALUES (?, ?, ?) ON CONFLICT (user) DO UPDATE "
                "SET payload = excluded.payload, updated_at = excluded.updated_at",
                (user, payload, _now()),
            )

    def forget_user(self, user: str) -> None:
        """Delete everything of ``user``: conversations, turns and preferences."""
        with self._tx():
            self._db.execute(
                "DELETE FROM turns WHERE conversation_id IN "
                "(SELECT id FROM conversations WHERE user = ?)",
                (user,),
            )
            self._db.execute("DELETE FROM conversations WHERE user = ?", (user,))
            self._db.execute("DELETE FROM preferences WHERE user = ?", (user,))


def _title(text: str) -> str:
    title = " ".join(text.split())
    return title if len(title) <= TITLE_CHARS else title[: TITLE_CHARS - 1] + "…"


def _now() -> str:
    # Microseconds: two turns in one second still order.
    return datetime.now(UTC).isoformat(timespec="microseconds")
