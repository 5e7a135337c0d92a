"""``/v1/evals``' contract: the request bodies (a question set's rows as ``question_rows`` writes
them, a run's settings) and the responses, for /openapi.json. As in contract.py the response
models document the JSON the routes build (rag_app.evals.export) and do not filter it.

The request bodies are read by the routes themselves (``read_json``), so that the document can
say what this server accepts: ``answerer: model`` only when it has a model."""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypeVar

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
    model_validator,
)

from rag_app.evals.question_sets import MAX_SET_ROWS
from rag_app.evals.scoring import RunMetrics
from rag_app.evals.store import RunSettings
from rag_app.ingest.content_list import MAX_PAGE
from rag_app.server.contract import _MESSAGES, ErrorBody
from rag_app.server.errors import ApiError
from rag_app.server.schemas import (
    _KB,
    _STRICT,
    MAX_BATCH,
    TEXT_PATTERN,
    AskMode,
    Name,
    PromptMode,
    Question,
)

_OPEN = ConfigDict(extra="allow")


def _whole(value: object) -> object:
    """A JSON number with no fraction (2.0), an integer to JSON Schema, as the int it is."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


# Integers as JSON Schema has them: 2 or 2.0, never "2" or true (the bounds before the
# validator, so that the document states them).
WHOLE = BeforeValidator(_whole)
# A stored set's or run's id: SQLite's integer (a larger one could not be bound).
StoredId = Annotated[int, Field(ge=1, le=2**63 - 1), WHOLE]
SetName = Annotated[str, StringConstraints(min_length=1, max_length=256, pattern=TEXT_PATTERN)]
RunStatus = Literal["queued", "running", "done", "cancelled", "failed", "interrupted"]
Model = TypeVar("Model", bound=BaseModel)


class HistoryMessage(BaseModel):
    model_config = _STRICT
    role: Literal["user", "assistant"]
    content: str = ""


class QuestionRow(BaseModel):
    """One question, as ``question_rows`` writes it (a file's other column names, such as
    ``expected`` or ``问题``, are for files: ``rag-app eval`` and the Evaluate page)."""

    model_config = _STRICT
    id: str = Field(default="", description="unique in the set; q1, q2... when empty")
    question: Question
    answer: str | list[str] = Field(
        default="", description="the expected answer; a list when every part must be in it"
    )
    document: str = Field(default="", description="the document holding the answer: its id or name")
    pages: list[Annotated[int, Field(ge=1, le=MAX_PAGE), WHOLE]] = Field(
        default_factory=list, description="1-based"
    )
    gold_item_indices: list[Annotated[int, Field(ge=0), WHOLE]] = Field(
        default_factory=list, description="content-list items holding it"
    )
    history: list[HistoryMessage] = Field(default_factory=list)
    answerable: bool = Field(default=True, description="false: the library cannot answer it")
    answer_type: str = Field(default="", description="TAT-QA's: span, arithmetic...")
    scale: str = Field(default="", description="TAT-QA's: thousand, million, percent...")


# The example row has no id (each row then gets its own: q1, q2...), so that many copies of it,
# as a client or a contract test may send, are a valid set.
_ROWS_EXAMPLE = [
    [{"question": "中芯国际2026年预测市盈率是多少？", "answer": "106.2", "document": "smic_report"}]
]


class SetBody(BaseModel):
    model_config = _STRICT
    name: SetName = Field(examples=["sample"])
    questions: list[QuestionRow] = Field(
        min_length=1, max_length=MAX_SET_ROWS, examples=_ROWS_EXAMPLE
    )


class RunBody(BaseModel):
    """A run: of a stored set (``set_id``) or of rows sent inline (``questions``, kept as a set
    named ``name``), one of the two."""

    model_config = ConfigDict(
        **_STRICT,
        json_schema_extra={
            "oneOf": [
                {"required": ["set_id"], "properties": {"set_id": {"type": "integer"}}},
                {"required": ["questions"], "properties": {"questions": {"type": "array"}}},
            ]
        },
    )
    set_id: StoredId | None = None
    # Inline rows are a batch (a larger set is kept first, then run by its id).
    questions: Annotated[list[QuestionRow], Field(min_length=1, max_length=MAX_BATCH)] | None = (
        Field(default=None, examples=_ROWS_EXAMPLE)
    )
    name: SetName = Field(default="inline", description="the inline rows' set")
    kb: Name = _KB
    mode: AskMode = "smart"
    prompt_mode: PromptMode = "advanced"
    top_k: Annotated[int, Field(ge=1, le=100), WHOLE] | None = Field(
        default=None, description="hits a question retrieves; null: the library's top_k"
    )
    scope: Literal["kb", "doc"] = Field(
        default="kb", description="doc: each question only its row's document"
    )
    answerer: Literal["offline", "model"] = Field(
        default="offline", description="model: the server's own model (RAG_APP_MODEL)"
    )

    @model_validator(mode="after")
    def _one_source(self) -> RunBody:
        if (self.set_id is None) == (self.questions is None):
            raise ValueError("give either set_id or questions")
        return self


async def read_json(request: Request, model: type[Model]) -> Model:
    """The request's JSON body as ``model``: a 415 for another content type, a 400 for JSON that
    cannot be read and a 422 naming the field, as FastAPI's own bodies."""
    content_type = request.headers.get("content-type", "application/json")
    if "json" not in content_type.split(";")[0]:
        raise ApiError(415, "send the body as application/json")
    try:
        return model.model_validate_json(await request.body())
    except ValidationError as exc:
        raise RequestValidationError(exc.errors(include_url=False)) from None


def json_body(model: type[BaseModel], answerers: tuple[str, ...] = ()) -> dict[str, Any]:
    """``openapi_extra`` documenting ``model`` as the JSON request body (its $defs inlined);
    ``answerers`` narrows the answerer to the ones the server has."""
    schema = model.model_json_schema()
    defs = schema.pop("$defs", {})

    def inline(node: Any) -> Any:
        if isinstance(node, dict):
            if "$ref" in node:
                rest = {k: v for k, v in node.items() if k != "$ref"}
                return inline({**defs[node["$ref"].rsplit("/", 1)[1]], **rest})
            return {k: inline(v) for k, v in node.items()}
        if isinstance(node, list):
            return [inline(v) for v in node]
        return node

    schema = inline(schema)
    if answerers:
        schema["properties"]["answerer"]["enum"] = list(answerers)
    return {"requestBody": {"required": True, "content": {"application/json": {"schema": schema}}}}


# responses ----------------------------------------------------------------------------------------
class EvalSetInfo(BaseModel):
    model_config = _OPEN
    id: int
    name: str
    n: int = Field(description="questions")
    created: str


class EvalSetList(BaseModel):
    model_config = _OPEN
    data: list[EvalSetInfo]


class EvalSetJson(EvalSetInfo):
    user: str
    questions: list[dict[str, Any]] = Field(description="the rows, as POST /v1/evals/sets takes")


class SetRef(BaseModel):
    model_config = _OPEN
    id: int
    name: str


class EvalRunJson(BaseModel):
    """A run as stored: its status and progress, and its metrics once it has stopped."""

    model_config = _OPEN
    id: int
    set: SetRef
    settings: RunSettings
    status: RunStatus
    created: str
    finished: str
    n_total: int
    n_done: int
    error: str
    metrics: RunMetrics | None
    user: str


class EvalStarted(EvalRunJson):
    unknown_documents: list[str] = Field(
        description="documents rows name that the knowledge base does not hold"
    )


class EvalRunList(BaseModel):
    model_config = _OPEN
    data: list[EvalRunJson]


class ResultRow(BaseModel):
    """One question's result (rag_app.evals.scoring.QuestionResult)."""

    model_config = _OPEN
    position: int
    passed: bool
    id: str
    question: str
    expected: list[str]
    answerable: bool
    answer: str
    short: str
    declined: bool
    has_gold: bool
    rank: int | None = Field(description="1-based rank of the first hit on the gold")
    holds: bool | None = Field(description="the answer holds every expected part")
    em: float | None
    f1: float | None
    routing: str
    gold_types: list[str]
    routing_right: bool | None
    unsupported: int
    latency_ms: float
    error: str


class EvalResults(EvalRunJson):
    questions: list[ResultRow]


class MetricChange(BaseModel):
    model_config = _OPEN
    name: str
    before: float | None
    after: float | None
    delta: float | None
    better: bool | None = Field(description="the second run's is better; null: equal")


class QuestionChangeJson(BaseModel):
    model_config = _OPEN
    id: str
    question: str
    change: Literal["regressed", "improved", "changed", "same"]
    before: ResultRow
    after: ResultRow


class EvalComparison(BaseModel):
    """Per question what changed, regressions first, and each metric's delta."""

    model_config = _OPEN
    before: EvalRunJson
    after: EvalRunJson
    counts: dict[str, int]
    changes: list[QuestionChangeJson]
    metrics: list[MetricChange]
    only_before: list[str]
    only_after: list[str]


_EVAL_MESSAGES = {
    **_MESSAGES,
    400: "the body is not valid JSON",
    404: "no such run, question set or knowledge base",
    409: "the run is in a state that does not allow it (named in the message)",
    415: "not application/json",
    422: "a field is missing or wrong (named in error.param); a question set's row names its row",
}


def eval_errors(*codes: int) -> dict[int | str, dict[str, Any]]:
    """The error responses ``codes`` of /v1/evals, and 500."""
    return {
        code: {
            "model": ErrorBody,
            "description": _EVAL_MESSAGES.get(
                code, "internal error; the server log has the details"
            ),
        }
        for code in (*codes, 500)
    }


def success(model: type[BaseModel], description: str, status: int = 200) -> dict[int | str, Any]:
    """The success response ``status``: ``model`` as JSON."""
    return {status: {"model": model, "description": description}}
