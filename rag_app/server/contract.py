"""What each route answers, for /openapi.json: the response models (documentation only: the
routes build their JSON in schemas.py and FastAPI does not filter it through these) and every
status code a route can return, with its content type. Schemathesis checks the running server
against this document (../shared/checks/api-contract, tests/server/test_contract.py)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

_OPEN = ConfigDict(extra="allow")


class ErrorDetail(BaseModel):
    model_config = _OPEN
    message: str
    type: str
    param: str | None = None
    code: str | None = None


class ErrorBody(BaseModel):
    """Every error, in the OpenAI API's shape so its clients raise it as their own."""

    model_config = _OPEN
    error: ErrorDetail


class Health(BaseModel):
    """``status`` and ``code`` for anyone; the rest only without a token or under it."""

    model_config = _OPEN
    status: Literal["ok", "starting", "degraded"]
    code: Literal["ready", "warming_up", "warm_up_failed"]
    warm: bool
    answerer: str | None = None
    active_answers: int | None = None
    max_answers: int | None = None
    warm_error: str | None = Field(default=None, description="why the warm-up failed")


Role = Literal["reader", "editor", "admin"]


class KbInfo(BaseModel):
    model_config = _OPEN
    name: str
    documents: int


class MemberJson(BaseModel):
    model_config = _OPEN
    name: str = Field(description="a user (an API token's or a sign-in's name) or a group")
    kind: Literal["user", "group"]
    role: Role


class MemberList(BaseModel):
    """Who may use a knowledge base: its owner (null: nobody's, shared) and its members."""

    model_config = _OPEN
    kb: str
    owner: str | None
    role: Role = Field(description="the caller's own role")
    data: list[MemberJson]


class KbList(BaseModel):
    model_config = _OPEN
    data: list[KbInfo]


class DocumentRow(BaseModel):
    model_config = _OPEN
    doc_id: str
    name: str
    source_format: str
    n_items: int
    n_chunks: int
    type_counts: dict[str, int]
    pages: int
    size_bytes: int
    ingested_at: str


class DocumentList(BaseModel):
    model_config = _OPEN
    kb: str
    data: list[DocumentRow]


class FactRow(BaseModel):
    model_config = _OPEN
    chunk_id: str
    row: int
    col: int
    subject: str
    metric: str
    column: str
    period: str
    value: str
    number: float | None
    unit: str
    scale: str
    exponent: int
    caption: str
    pages: list[int]


class FactList(BaseModel):
    model_config = _OPEN
    kb: str
    doc_id: str
    data: list[FactRow]


class FileReport(BaseModel):
    model_config = _OPEN
    name: str
    status: Literal["ingested", "duplicate", "rejected", "conflict"]
    doc_id: str
    message: str
    type_counts: dict[str, int]
    n_chunks: int
    warnings: list[str]
    options: list[str] | None = Field(default=None, description="a conflict's choices")


class UploadedFile(BaseModel):
    model_config = _OPEN
    name: str
    reports: list[FileReport]


class UploadResult(BaseModel):
    """A report per file; with an ``error`` naming the first file that did not go in."""

    model_config = _OPEN
    kb: str
    files: list[UploadedFile]
    error: ErrorDetail | None = None


class Deleted(BaseModel):
    model_config = _OPEN
    deleted: str
    kb: str


class HitJson(BaseModel):
    model_config = _OPEN
    rank: int
    score: float
    strategy: str
    chunk_id: str
    doc_id: str
    type: str
    pages: list[int]
    text: str


class SearchResult(BaseModel):
    model_config = _OPEN
    hits: list[HitJson]
    trace: dict[str, Any]


class ShortJson(BaseModel):
    """The answer in a few words: the value its first line gives (a list for several values),
    or its first quote; "" when it gives none."""

    model_config = _OPEN
    value: str | list[str]
    scale: Literal["", "thousand", "million", "billion", "percent"]
    source: int = Field(description="the N of the [Source N] it came from; 0 for none")


class PlaceJson(BaseModel):
    """Where a cited source holds a number (``rag_app.cite.Place``): a cell of its table (its
    grid's row and column from 0, header rows counted, spans expanded; its row's and column's
    labels) or a sentence of its text."""

    model_config = _OPEN
    source: int = Field(description="the N of the [Source N] holding it")
    kind: Literal["cell", "sentence"]
    text: str = Field(description="the cell as written, or the sentence")
    written: str = Field(description="the number as the source writes it")
    exponent: int = Field(description="power of ten of the scale the source states for it")
    row: int = Field(description="the cell's row in the table's grid; -1 for a sentence")
    col: int = Field(description="the cell's column in the table's grid; -1 for a sentence")
    row_label: str
    col_label: str
    part: str = Field(description="for a sentence: the part of the chunk (text, caption...)")


class TracedNumberJson(BaseModel):
    """A number of the answer traced to its source (``rag_app.cite.TracedNumber``): where it
    stands in the answer, where a cited source holds it, and for a number the answer works
    out, its working and its operands, each traced."""

    model_config = _OPEN
    raw: str = Field(description="the number as the answer writes it")
    start: int = Field(description="its offset in the answer's text")
    end: int = Field(description="the offset after it (a percent sign included)")
    place: PlaceJson | None
    working: str = Field(description="a computed number's working as written; else empty")
    operands: list[TracedNumberJson]


class SentenceJson(BaseModel):
    """One sentence of the answer and its verdict (``rag_app.cite.SentenceCheck``)."""

    model_config = _OPEN
    start: int
    end: int
    text: str
    cited: list[int]
    support: float
    supported: bool
    flagged: bool
    best_source: int | None
    factual: bool
    reasons: list[dict[str, Any]] = Field(description="why, as keys and values")
    traced: list[TracedNumberJson] = Field(
        default_factory=list, description="its numbers traced to a cited source, with where"
    )


class CitationsJson(BaseModel):
    """The citation check (``rag_app.cite.CitationReport``): what the answer cites, each
    sentence's verdict, the numbers no cited source holds and where the others were found."""

    model_config = _OPEN
    cited_sources: list[int]
    dangling: list[int]
    unsupported_count: int
    uncited_count: int
    untraced_numbers: list[str] = Field(
        description="the answer's numbers, as written, that no cited source holds"
    )
    traced_numbers: list[TracedNumberJson] = Field(
        default_factory=list,
        description="the answer's numbers a cited source holds (or its working gives), each "
        "with where: the cell or sentence, as in each sentence's traced",
    )
    citations: list[dict[str, Any]]
    sentences: list[SentenceJson]


class AnswerJson(BaseModel):
    """The whole answer, as the Ask page shows it (docs/API.md "The answer")."""

    model_config = _OPEN
    question: str
    text: str
    answerer: str
    declined: bool
    short: ShortJson
    hits: list[HitJson]
    sources: list[dict[str, Any]]
    citations: CitationsJson | None
    timings: dict[str, float]


class BatchResult(BaseModel):
    model_config = _OPEN
    kb: str
    results: list[dict[str, Any]] = Field(description="an answer, or {question, error}")


class ModelCard(BaseModel):
    model_config = _OPEN
    id: str
    object: Literal["model"]
    created: int
    owned_by: str


class ModelList(BaseModel):
    model_config = _OPEN
    object: Literal["list"]
    data: list[ModelCard]


class ChatCompletion(BaseModel):
    """The OpenAI chat completion, with the sources in ``sources`` and the answer in ``rag``."""

    model_config = _OPEN
    id: str
    object: Literal["chat.completion"]
    created: int
    model: str
    choices: list[dict[str, Any]]
    usage: dict[str, int] | None
    sources: list[dict[str, Any]]


_MESSAGES = {
    400: "the body is not valid JSON, or a multipart body that cannot be read",
    401: "no bearer token, or not a valid one",
    403: "the caller's role on the knowledge base is too low for this (error.code access_denied)",
    404: "no such knowledge base or document, or a knowledge base the caller may not see",
    409: "every file that did not go in is a conflict: choose with on_conflict",
    413: "the request body is over the limit",
    415: "not multipart/form-data",
    422: "a field is missing or wrong (named in error.param)",
    429: "the server is at its limit: retry after Retry-After seconds",
    503: "the embedding model is not ready",
}
_RETRY_AFTER = {"Retry-After": {"description": "seconds to wait", "schema": {"type": "string"}}}
# Open API 3.1 without itemSchema: the schema describes each event; its data is one JSON value
# (docs/API.md "SSE events"; chat's last is the literal [DONE], as OpenAI's stream ends).
_SSE = {
    "text/event-stream": {
        "schema": {
            "type": "object",
            "required": ["data"],
            "properties": {
                "data": {"type": "string", "contentMediaType": "application/json"},
                "event": {"type": "string"},
                "id": {"type": "string"},
                "retry": {"type": "integer"},
            },
        }
    }
}


def errors(*codes: int) -> dict[int | str, dict[str, Any]]:
    """The error responses ``codes``, each with the error body and, for 429, Retry-After; 500
    (anything unexpected) always."""
    out: dict[int | str, dict[str, Any]] = {}
    for code in (*codes, 500):
        entry: dict[str, Any] = {
            "model": ErrorBody,
            "description": _MESSAGES.get(code, "internal error; the server log has the details"),
        }
        if code == 429:
            entry["headers"] = _RETRY_AFTER
        out[code] = entry
    return out


def ok(model: type[BaseModel], description: str, sse: bool = False) -> dict[int | str, Any]:
    """The 200 response: ``model`` as JSON, and as ``text/event-stream`` when ``sse``."""
    entry: dict[str, Any] = {"model": model, "description": description}
    if sse:
        entry["content"] = dict(_SSE)
    return {200: entry}


UPLOAD_BODY = {
    "requestBody": {
        "required": True,
        "content": {
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "additionalProperties": False,
                    "required": ["files"],
                    "properties": {
                        "files": {
                            "type": "array",
                            "minItems": 1,
                            "maxItems": 100,
                            "items": {"type": "string", "format": "binary"},
                            "description": "content lists, MinerU zips, markdown or sheets",
                        },
                        "on_conflict": {"type": "string", "enum": ["ask", "replace", "keep_both"]},
                    },
                }
            }
        },
    }
}
UPLOAD_RESPONSES: dict[int | str, Any] = {
    200: {"model": UploadResult, "description": "every file went in or was already there"},
    207: {
        "model": UploadResult,
        "description": "some files did not go in (rejected for their content, or a conflict): "
        "each file's report says why, error names the first",
    },
    409: {"model": UploadResult, "description": _MESSAGES[409]},
    **errors(400, 401, 403, 404, 413, 415, 422, 429),
}
