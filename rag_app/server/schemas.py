"""Request bodies (pydantic, so a wrong field is a 422 naming it) and the JSON of what the
pipeline returns: hits with their trace, ingest reports, and the whole Answer as the app shows it
(text, sources, citations with their checks, prompt report, timings, routing, the understood
follow-up, the library check)."""

from __future__ import annotations

import dataclasses
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from rag_app.conversations import saved_turn
from rag_app.models import Answer, AskOptions, Hit, IngestReport, RetrievalTrace

AskMode = Literal["smart", "hybrid"]
PromptMode = Literal["simple", "advanced", "precise"]
# The pipeline's own limit (rag_app.pipeline._check_question), checked here first for a 4xx.
MAX_QUESTION_CHARS = 4000


class HistoryTurn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    user: str
    assistant: str = ""


class AskBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    question: str
    kb: str = "default"
    mode: AskMode = "smart"
    history: list[HistoryTurn] = Field(default_factory=list)
    prompt_mode: PromptMode = "advanced"
    doc_ids: list[str] = Field(default_factory=list)


class BatchBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    questions: list[str]
    kb: str = "default"
    mode: AskMode = "smart"
    prompt_mode: PromptMode = "advanced"
    doc_ids: list[str] = Field(default_factory=list)


class SearchBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    query: str
    kb: str = "default"
    mode: Literal["smart", "hybrid", "dense", "bm25", "rrf", "fused"] = "smart"
    k: int = Field(default=10, ge=1, le=100)
    doc_ids: list[str] = Field(default_factory=list)


class ChatMessageBody(BaseModel):
    model_config = ConfigDict(extra="allow")
    role: str
    content: str | list[dict[str, Any]] | None = ""


class ChatBody(BaseModel):
    # The OpenAI API's other fields (temperature, n, stream_options...) are accepted and ignored.
    model_config = ConfigDict(extra="allow")
    model: str
    messages: list[ChatMessageBody]
    stream: bool = False


def options_of(body: AskBody | BatchBody, user: str) -> AskOptions:
    return AskOptions(
        kb=body.kb,
        mode=body.mode,
        doc_ids=tuple(body.doc_ids),
        prompt_mode=body.prompt_mode,
        user=user,
    )


def _plain(value: Any) -> Any:
    """Dataclasses, tuples and dicts as JSON values."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return str(value)


def hit_json(h: Hit) -> dict[str, Any]:
    """A hit as ``rag-app search --json`` prints it (``Hit.to_json``)."""
    return h.to_json()


def trace_json(trace: RetrievalTrace) -> dict[str, Any]:
    """The retrieval trace without its hits: routing, layers, notes, expansions, time."""
    return {
        "query": trace.query,
        "mode": trace.mode,
        "routing": _plain(trace.routing),
        "layers": _plain(trace.layers),
        "notes": list(trace.notes),
        "expanded_terms": list(trace.expanded_terms),
        "expansions": _plain(trace.expansions),
        "ms": trace.ms,
    }


def report_json(r: IngestReport) -> dict[str, Any]:
    data = _plain(r)
    data["type_counts"] = dict(r.type_counts)
    if r.status == "conflict":
        data["options"] = ["replace", "keep_both"]
    return data


def answer_json(answer: Answer, options: AskOptions, doc_names: dict[str, str]) -> dict[str, Any]:
    """The whole answer: what the app's Ask page shows, as JSON."""
    turn = saved_turn(answer.question, options, answer, doc_names=doc_names)
    report = answer.citations
    prompt = answer.prompt
    return {
        "question": answer.question,
        "standalone_question": answer.standalone_question,
        "understood": _plain(answer.understood),
        "text": answer.text,
        "answerer": answer.answerer,
        "fallback_from": answer.fallback_from,
        "error": answer.error,
        "error_kind": answer.error_kind,
        "finding": answer.finding,
        "declined": answer.declined,
        "routing": _plain(answer.retrieval.routing),
        "retrieval": trace_json(answer.retrieval),
        "hits": [hit_json(h) for h in answer.hits],
        "sources": _plain(turn.sources),
        "citations": None
        if report is None
        else {
            "cited_sources": list(report.cited_sources),
            "dangling": list(report.dangling),
            "unsupported_count": report.unsupported_count,
            "uncited_count": report.uncited_count,
            "citations": _plain(report.citations),
            "sentences": [{**_plain(s), "flagged": s.flagged} for s in report.sentences],
        },
        "prompt": None
        if prompt is None
        else {
            "mode": prompt.mode,
            "language": prompt.language,
            "report": _plain(prompt.report),
        },
        "timings": {name: round(ms, 1) for name, ms in answer.timings},
        "usage": _plain(answer.usage),
        "options": {"kb": options.kb, "mode": options.mode, "prompt_mode": options.prompt_mode},
    }
