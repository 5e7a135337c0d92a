"""One exchange as a saved conversation keeps it (``SavedTurn``), and the answer rebuilt from it.

A turn keeps what its answer showed, so a reload or a restart draws it again as it was without
running retrieval again: the question and its options, the answer text, the question as it was
understood (理解为), the sources it cites with an excerpt, the citation check per sentence, the
retrieval (hits, routing, layers), the prompt (report and messages), the timings and usage. The
sources' chunks are looked up in the library again when shown, and the excerpt stands in when a
document has been deleted since. Stored as the JSON of ``dataclasses.asdict``; read back by type
hints, so a turn saved before a field existed loads with that field's default.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime

from rag_app.chat.saved_details import (
    SavedPrompt,
    SavedRetrieval,
    from_plain,
    light_chunk,
    restored_trace,
    saved_prompt,
    saved_retrieval,
    to_plain,
)
from rag_app.cite import CitationReport, SentenceCheck, TracedNumber
from rag_app.facts.series import Series
from rag_app.models import (
    Answer,
    AskOptions,
    Chunk,
    Hit,
    Reason,
    RevisionRound,
    Understood,
    Usage,
)
from rag_app.prompt.builder import PromptResult, Source
from rag_app.prompt.tables import merge_table_chunks

EXCERPT_CHARS = 600  # of a source's text, kept for when its document is gone


@dataclass(frozen=True)
class SavedSource:
    """``[Source number]`` of a saved answer: where it came from and an excerpt of its text,
    and what its card says of it besides (its section; which sub-tables of a table it showed).
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
    section: tuple[str, ...] = ()  # the chunk's heading path
    # the sub-tables of its table it stands for (1-based) and how many the table has; none
    # for a table not split
    subtables: tuple[int, ...] = ()
    subtable_count: int = 0


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
    support: float = 0.0
    best_source: int | None = None
    off_subject: str = ""
    # its numbers the check traced, and where (empty on turns saved before they were kept)
    traced: tuple[TracedNumber, ...] = ()

    @property
    def flagged(self) -> bool:
        return self.factual and (not self.supported or not self.cited)


@dataclass(frozen=True)
class SavedTurn:
    """One exchange as stored. ``failure`` is set (and ``answer`` empty) when the pipeline
    failed before answering; ``error`` is a provider error the answer still carries.
    ``checked`` is True when the whole citation report was kept (turns saved before it was
    have the sentences' verdicts only), ``retrieval`` and ``prompt`` None on such turns."""

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
    understood: Understood | None = None
    finding: str = ""
    declined: bool = False
    checked: bool = False
    relevance_checked: bool = False
    retrieval: SavedRetrieval | None = None
    prompt: SavedPrompt | None = None
    usage: Usage | None = None
    revisions: tuple[RevisionRound, ...] = ()
    # (doc id, name) of the documents its hits and sources came from, when it was asked
    doc_names: tuple[tuple[str, str], ...] = ()
    series: Series | None = None  # one metric over periods or companies, each point cited
    audit_id: int = 0  # the answer's audit record (feedback on it names it)

    @property
    def answered(self) -> bool:
        return not self.failure

    @property
    def has_details(self) -> bool:
        """Whether the retrieval details were kept (not on turns saved before they were)."""
        return self.retrieval is not None

    def source(self, number: int) -> SavedSource | None:
        return next((s for s in self.sources if s.number == number), None)


def saved_turn(
    question: str,
    options: AskOptions,
    answer: Answer | None,
    failure: str = "",
    doc_names: Mapping[str, str] | None = None,
) -> SavedTurn:
    """The stored form of one exchange: ``answer`` (None when the pipeline failed with
    ``failure``) reduced to what it showed: text, understood question, cited sources, citation
    check, retrieval, prompt and timings. ``doc_names`` names the documents as they were when
    it was asked."""
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
                section=tuple(chunk.heading_path),
                subtables=tuple(
                    sorted({p.chunk.subtable_index for p in source.parts if p.chunk.subtable_index})
                ),
                subtable_count=max((p.chunk.subtable_count for p in source.parts), default=0),
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
            support=float(getattr(s, "support", 0.0)),
            best_source=getattr(s, "best_source", None),
            off_subject=str(getattr(s, "off_subject", "") or ""),
            traced=tuple(getattr(s, "traced", ()) or ()),
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
        understood=answer.understood,
        series=answer.series,
        audit_id=answer.audit_id,
        finding=answer.finding,
        declined=answer.declined,
        checked=report is not None,
        relevance_checked=bool(getattr(report, "relevance_checked", False)),
        retrieval=saved_retrieval(answer),
        prompt=saved_prompt(answer),
        usage=answer.usage,
        revisions=tuple(answer.revisions),
        doc_names=tuple(sorted(names.items())),
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


def _now() -> str:
    # Microseconds: two turns in one second still order.
    return datetime.now(UTC).isoformat(timespec="microseconds")


# the answer again ----------------------------------------------------------------------------
def restored_report(turn: SavedTurn) -> CitationReport:
    """The citation report as the saved verdicts give it (``citations`` left empty: the
    sources are the turn's own)."""
    sentences = tuple(
        SentenceCheck(
            start=s.start,
            end=s.end,
            text=s.text,
            cited=s.cited,
            support=s.support,
            supported=s.supported,
            best_source=s.best_source,
            reason=s.reason,
            factual=s.factual,
            evidence=s.evidence,
            reasons=s.reasons,
            relevant=s.relevant,
            off_subject=s.off_subject,
            off_reasons=s.off_reasons,
            traced=s.traced,
        )
        for s in turn.sentences
    )
    return CitationReport(
        citations=(),
        sentences=sentences,
        dangling=turn.dangling,
        unsupported_count=sum(1 for s in sentences if s.factual and s.cited and not s.supported),
        cited_sources=tuple(sorted({n for s in sentences for n in s.cited})),
        uncited_count=sum(1 for s in sentences if s.uncited),
        relevance_checked=turn.relevance_checked,
        off_question_count=sum(1 for s in sentences if s.factual and not s.relevant),
    )


def _restored_prompt(turn: SavedTurn) -> PromptResult | None:
    saved = turn.prompt
    if saved is None:
        return None
    sources = []
    for source in turn.sources:
        chunk = light_chunk(source.chunk_id, source.doc_id, source.type, source.pages, source.title)
        hit = Hit(chunk, 0.0)
        parts = tuple(
            Hit(light_chunk(p, source.doc_id, source.type, source.pages, source.title), 0.0)
            for p in source.part_ids
        )
        sources.append(Source(source.number, hit, parts or (hit,), source.status, ""))  # type: ignore[arg-type]
    return PromptResult(
        messages=tuple({"role": role, "content": content} for role, content in saved.messages),
        sources=tuple(sources),
        context="",
        question=turn.understood.text if turn.understood else turn.question,
        language=saved.language,  # type: ignore[arg-type]
        mode=saved.mode,  # type: ignore[arg-type]
        max_tokens=saved.max_tokens,
        report=saved.report,
    )


def restored_answer(turn: SavedTurn) -> Answer:
    """The ``Answer`` a saved turn shows, rebuilt from it for the same render functions as a
    live answer: text, understood question, citation report (None on a turn saved before it
    was kept whole), the retrieval trace with light chunks, the prompt, timings and usage."""
    return Answer(
        question=turn.question,
        text=turn.answer,
        retrieval=restored_trace(turn.retrieval, turn.question, turn.options.mode),
        prompt=_restored_prompt(turn),
        citations=restored_report(turn) if turn.checked or turn.sentences else None,
        answerer=turn.answerer,
        timings=turn.timings,
        usage=turn.usage,
        error=turn.error,
        error_kind=turn.error_kind,
        fallback_from=turn.fallback_from,
        understood=turn.understood,
        finding=turn.finding,
        declined=turn.declined,
        revisions=turn.revisions,
        series=turn.series,
        audit_id=turn.audit_id,
    )


# JSON ----------------------------------------------------------------------------------------
def turn_to_json(turn: SavedTurn) -> str:
    return json.dumps(to_plain(turn), ensure_ascii=False)


def turn_from_json(payload: str) -> SavedTurn:
    """A stored turn; fields it was saved without take their defaults."""
    turn: SavedTurn = from_plain(SavedTurn, json.loads(payload))
    return turn
