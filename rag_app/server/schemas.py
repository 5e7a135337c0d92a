"""Request bodies (pydantic, so a wrong field is a 422 naming it) and the JSON of what the
pipeline returns: hits with their trace, ingest reports, and the whole Answer as the app shows it
(text, sources, citations with their checks, prompt report, timings, routing, the understood
follow-up, the library check)."""

from __future__ import annotations

import dataclasses
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator

from rag_app.chat.conversations import saved_turn
from rag_app.config import ServerSettings, Settings
from rag_app.models import Answer, AskOptions, Hit, IngestReport, RetrievalTrace

AskMode = Literal["smart", "hybrid"]
PromptMode = Literal["simple", "advanced", "precise"]
OnConflict = Literal["ask", "replace", "keep_both"]
# The pipeline's own limit (Settings.max_question_chars), checked here first for a 4xx.
MAX_QUESTION_CHARS = Settings.max_question_chars
# Questions one batch may hold (ServerSettings.max_batch's default; the schema states it).
MAX_BATCH = ServerSettings.max_batch
# A chat message's text parts: at most 4 of 1000 characters, so their text fits the question's
# limit whatever the client sends.
MAX_TEXT_PARTS = 4

# The models below are the API's contract: FastAPI validates every request against them and
# /openapi.json is made from them, so what the document accepts the server accepts. Patterns use
# Python's re. TEXT_PATTERN: the text holds a character that str.strip() keeps, in Python's
# sense and JavaScript's alike (\x1c-\x1f and \x85 are blanks to Python only, \ufeff to
# JavaScript only), so a client's validator and the server agree on every string.
# strict: a JSON value of the wrong type (0 for a boolean, "10" for a number) is refused, as
# the document says, not coerced.
_STRICT = ConfigDict(extra="forbid", regex_engine="python-re", strict=True)
TEXT_PATTERN = r"[^\s\x1c-\x1f\x85\ufeff]"
Question = Annotated[
    str, StringConstraints(min_length=1, max_length=MAX_QUESTION_CHARS, pattern=TEXT_PATTERN)
]
Name = Annotated[str, StringConstraints(min_length=1, max_length=256)]
# Examples on the bundled sample (the app imports it into the knowledge base 示例), so a reader
# of /openapi.json, and Schemathesis, can send a request that reaches an answer.
_KB = Field(default="default", examples=["示例"])
_QUESTION_EXAMPLES = ["中芯国际2026年预测市盈率是多少？", "What is SMIC's forecast P/E for 2026?"]


class HistoryTurn(BaseModel):
    """One earlier turn: the user's question and the answer given."""

    model_config = _STRICT
    user: str
    assistant: str = ""


class AskBody(BaseModel):
    model_config = _STRICT
    question: Question = Field(examples=_QUESTION_EXAMPLES)
    kb: Name = _KB
    mode: AskMode = "smart"
    history: list[HistoryTurn] = Field(default_factory=list, max_length=100)
    prompt_mode: PromptMode = "advanced"
    doc_ids: list[str] = Field(default_factory=list, max_length=1000)


class BatchBody(BaseModel):
    model_config = _STRICT
    questions: list[Question] = Field(
        min_length=1, max_length=MAX_BATCH, examples=[_QUESTION_EXAMPLES]
    )
    kb: Name = _KB
    mode: AskMode = "smart"
    prompt_mode: PromptMode = "advanced"
    doc_ids: list[str] = Field(default_factory=list, max_length=1000)


class SearchBody(BaseModel):
    model_config = _STRICT
    query: Question = Field(examples=["中芯南方的工艺节点"])
    kb: Name = _KB
    mode: Literal["smart", "hybrid", "dense", "bm25", "rrf", "fused"] = "smart"
    k: int = Field(default=10, ge=1, le=100)
    doc_ids: list[str] = Field(default_factory=list, max_length=1000)


class MemberBody(BaseModel):
    """A member of a knowledge base and its role (``PUT /v1/kbs/{kb}/members``)."""

    model_config = _STRICT
    name: Annotated[str, StringConstraints(min_length=1, max_length=256, pattern=TEXT_PATTERN)]
    kind: Literal["user", "group"] = "user"
    role: Literal["reader", "editor", "admin"]


class TextPart(BaseModel):
    """A text content part, as the OpenAI chat API sends them."""

    model_config = ConfigDict(extra="allow", regex_engine="python-re", strict=True)
    type: Literal["text"]
    text: str


class UserTextPart(TextPart):
    text: Annotated[str, StringConstraints(max_length=1000, pattern=TEXT_PATTERN)]


class UserMessage(BaseModel):
    """The question (the last user message) or an earlier one: text that is not blank."""

    model_config = ConfigDict(extra="allow", regex_engine="python-re", strict=True)
    role: Literal["user"]
    content: (
        Question | Annotated[list[UserTextPart], Field(min_length=1, max_length=MAX_TEXT_PARTS)]
    ) = Field(union_mode="left_to_right")


class OtherMessage(BaseModel):
    """A system, developer, assistant or tool message: context, never the question."""

    model_config = ConfigDict(extra="allow", strict=True)
    role: Literal["system", "developer", "assistant", "tool", "function"]
    content: str | list[TextPart] | None = ""


ChatMessage = Annotated[UserMessage | OtherMessage, Field(discriminator="role")]


class ChatBody(BaseModel):
    # The OpenAI API's other fields (temperature, n, stream_options...) are accepted and ignored.
    model_config = ConfigDict(extra="allow", strict=True)
    model: Name = Field(examples=["示例"], description="the knowledge base")
    messages: list[ChatMessage] = Field(
        examples=[[{"role": "user", "content": _QUESTION_EXAMPLES[0]}]],
        min_length=1,
        max_length=200,
        # at least one user message: the question (JSON Schema's "contains", checked below)
        json_schema_extra={
            "contains": {
                "type": "object",
                "properties": {"role": {"const": "user"}},
                "required": ["role"],
            }
        },
    )
    stream: bool = False

    @field_validator("messages")
    @classmethod
    def _has_question(cls, value: list[Any]) -> list[Any]:
        if not any(isinstance(m, UserMessage) for m in value):
            raise ValueError("'messages' holds no user message to answer")
        return value


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


def short_json(answer: Answer) -> dict[str, Any]:
    """The answer's short answer (``Answer.short``), a list for several values."""
    short = answer.short
    value = list(short.value) if isinstance(short.value, tuple) else short.value
    return {"value": value, "scale": short.scale, "source": short.source}


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
        "short": short_json(answer),
        "series": _plain(answer.series),
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
            "untraced_numbers": list(report.untraced_numbers),
            "traced_numbers": _plain(report.traced_numbers),
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
