"""Evaluation runs (rag_app.evals): question sets kept, runs of a set over a knowledge base in the
background (the server's one EvalRunner, the run's user the token's), their status, results
(JSON or CSV), cancel, resume, delete, and two runs compared.

With named tokens (permissions.py) a caller sees the runs of the knowledge bases it may see and
no others (another's answers as a 404, as an unknown run), starts a run on one it reads,
cancels, resumes or deletes its own runs or, as an editor of their knowledge base, anyone's;
it sees its own question sets and those made without a named token (the CLI's, the app's
local user's, the unnamed token's): a set's rows hold answers from someone's documents."""

from __future__ import annotations

from dataclasses import asdict
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Path, Query, Request
from fastapi.responses import JSONResponse, Response
from starlette.concurrency import run_in_threadpool

from rag_app.evals.compare import QuestionChange, compare_runs
from rag_app.evals.export import csv_bytes, run_json
from rag_app.evals.question_sets import (
    EvalQuestion,
    QuestionSetError,
    question_rows,
    questions_of,
)
from rag_app.evals.runner import unknown_documents
from rag_app.evals.scoring import QuestionResult
from rag_app.evals.store import EvalRun, RunSettings
from rag_app.server.auth import API_USER, Caller, CallerOf
from rag_app.server.contract_evals import (
    EvalComparison,
    EvalResults,
    EvalRunJson,
    EvalRunList,
    EvalSetJson,
    EvalSetList,
    EvalStarted,
    QuestionRow,
    RunBody,
    SetBody,
    eval_errors,
    json_body,
    read_json,
    success,
)
from rag_app.server.errors import ApiError
from rag_app.server.permissions import access_of, check, require_kb
from rag_app.server.state import ServerState

# Stored ids are SQLite integers: a larger number could not even be looked up.
RunId = Annotated[int, Path(ge=1, le=2**63 - 1, description="the run's id")]
SetId = Annotated[int, Path(ge=1, le=2**63 - 1, description="the set's id")]
RunQuery = Annotated[int, Query(ge=1, le=2**63 - 1, description="a run's id")]
_CSV = {"text/csv": {"schema": {"type": "string"}}}


def evals_router(state: ServerState, auth: Any) -> APIRouter:
    router = APIRouter(prefix="/v1/evals", dependencies=[Depends(auth)])
    store = state.evals
    # What this server can answer with: the document says "model" only when it has one.
    answerers = ("offline", "model") if state.llm is not None else ("offline",)

    @router.get(
        "/sets",
        responses={**success(EvalSetList, "the question sets, newest first"), **eval_errors(401)},
    )
    def list_sets(caller: CallerOf) -> dict[str, Any]:
        return {
            "data": [
                {"id": i, "name": name, "n": n, "created": when}
                for i, name, n, when in store.sets()
                if not caller.enforced or _set_visible(state, i, caller)
            ]
        }

    @router.post(
        "/sets",
        status_code=201,
        openapi_extra=json_body(SetBody),
        responses={
            **success(EvalSetJson, "the set, kept", 201),
            **eval_errors(400, 401, 413, 415, 422),
        },
    )
    async def add_set(request: Request, caller: CallerOf) -> JSONResponse:
        """Keep a question set: ``{name, questions: [rows]}``. A row that is not a question is
        a 422 naming it (``error.code`` the reason: set_duplicate_id...)."""
        body = await read_json(request, SetBody)
        questions = _questions(body.questions)
        set_id = await run_in_threadpool(store.add_set, body.name, questions, caller.user)
        kept = await run_in_threadpool(_set_json, state, set_id, caller)
        return JSONResponse(kept, status_code=201)

    @router.get(
        "/sets/{set_id:int}",
        responses={**success(EvalSetJson, "the set and its rows"), **eval_errors(401, 404, 422)},
    )
    def get_set(set_id: SetId, caller: CallerOf) -> dict[str, Any]:
        return _set_json(state, set_id, caller)

    @router.get(
        "",
        responses={**success(EvalRunList, "the runs, newest first"), **eval_errors(401, 422)},
    )
    def list_runs(
        caller: CallerOf,
        kb: Annotated[str | None, Query(description="only this knowledge base's")] = None,
        limit: Annotated[int, Query(ge=1, le=1000)] = 200,
    ) -> dict[str, Any]:
        runs = store.runs(kb, limit)
        if caller.enforced:  # the runs of the knowledge bases the caller sees
            seen = set(access_of(state, caller).visible([r.kb for r in runs], caller.principal))
            runs = [r for r in runs if r.kb in seen]
        return {"data": [run_summary(r) for r in runs]}

    @router.post(
        "",
        status_code=202,
        openapi_extra=json_body(RunBody, answerers),
        responses={
            **success(EvalStarted, "the run, queued", 202),
            **eval_errors(400, 401, 404, 413, 415, 422),
        },
    )
    async def start(request: Request, caller: CallerOf) -> JSONResponse:
        """Queue a run of a stored set or of inline rows; it runs in the background (poll
        ``GET /v1/evals/{id}``). ``unknown_documents``: documents rows name that the knowledge
        base does not hold (their gold cannot be found)."""
        body = await read_json(request, RunBody)
        if body.answerer == "model" and state.llm is None:
            raise ApiError(
                400,
                "this server has no model (RAG_APP_MODEL): use answerer offline",
                param="answerer",
            )
        require_kb(state, caller, body.kb, "reader", "run evaluations")
        run = await run_in_threadpool(_start, state, body, caller)
        return JSONResponse(run, status_code=202)

    @router.get(
        "/compare",
        responses={
            **success(EvalComparison, "what changed from before to after"),
            **eval_errors(401, 404, 422),
        },
    )
    def compare(before: RunQuery, after: RunQuery, caller: CallerOf) -> dict[str, Any]:
        """Questions matched by id: regressed (passed before, not after), improved, changed (the
        rank or the answer), same; and each metric's delta."""
        runs = [_run(state, before, caller, "before"), _run(state, after, caller, "after")]
        comparison = compare_runs(store, before, after)
        return {
            "before": run_summary(runs[0]),
            "after": run_summary(runs[1]),
            "counts": {
                c: comparison.count(c) for c in ("regressed", "improved", "changed", "same")
            },
            "changes": [_change_json(c) for c in comparison.changes],
            "metrics": [asdict(m) for m in comparison.metrics],
            "only_before": list(comparison.only_before),
            "only_after": list(comparison.only_after),
        }

    @router.get(
        "/{run_id:int}",
        responses={
            **success(EvalRunJson, "the run: status, progress, metrics"),
            **eval_errors(401, 404, 422),
        },
    )
    def get_run(run_id: RunId, caller: CallerOf) -> dict[str, Any]:
        return run_summary(_run(state, run_id, caller))

    @router.get(
        "/{run_id:int}/results",
        response_model=None,
        responses={
            200: {
                "model": EvalResults,
                "description": "the run and every question's result; CSV with format=csv",
                "content": _CSV,
            },
            **eval_errors(401, 404, 422),
        },
    )
    def results(
        caller: CallerOf,
        run_id: RunId,
        format: Annotated[Literal["json", "csv"], Query()] = "json",
    ) -> Response:
        run = _run(state, run_id, caller)
        stored = store.results(run_id)
        if format == "csv":
            return Response(
                csv_bytes(stored),
                media_type="text/csv; charset=utf-8",
                headers={"Content-Disposition": f'attachment; filename="eval-run-{run_id}.csv"'},
            )
        return JSONResponse({**run_json(run, stored), "user": run.user})

    @router.post(
        "/{run_id:int}/cancel",
        responses={
            **success(EvalRunJson, "the run, stopping after its question at hand"),
            **eval_errors(401, 403, 404, 409, 422),
        },
    )
    def cancel(run_id: RunId, caller: CallerOf) -> dict[str, Any]:
        run = _own_run(state, run_id, caller, "cancel evaluations")
        if not state.eval_runner.cancel(run_id):
            raise ApiError(409, f"run {run_id} is {run.status}: there is nothing to cancel")
        return run_summary(_run(state, run_id))

    @router.post(
        "/{run_id:int}/resume",
        status_code=202,
        responses={
            **success(EvalRunJson, "the run, queued again", 202),
            **eval_errors(401, 403, 404, 409, 422),
        },
    )
    def resume(run_id: RunId, caller: CallerOf) -> JSONResponse:
        """Answer the questions a stopped run (cancelled, failed or interrupted) has not."""
        run = _own_run(state, run_id, caller, "resume evaluations")
        llm = None
        if run.settings.answerer != "offline":
            if state.llm is None:
                raise ApiError(409, f"run {run_id} used a model and this server has none")
            llm = state.llm
        if not state.eval_runner.resume(run_id, llm):
            raise ApiError(409, f"run {run_id} is {run.status}: only a stopped run resumes")
        return JSONResponse(run_summary(_run(state, run_id)), status_code=202)

    @router.delete(
        "/{run_id:int}",
        responses={
            **success(EvalRunJson, "the run, gone with its results"),
            **eval_errors(401, 403, 404, 409, 422),
        },
    )
    def delete(run_id: RunId, caller: CallerOf) -> dict[str, Any]:
        run = _own_run(state, run_id, caller, "delete evaluations")
        if not store.delete_run(run_id):
            raise ApiError(409, f"run {run_id} is {run.status}: cancel it first")
        return run_summary(run)

    return router


def run_summary(run: EvalRun) -> dict[str, Any]:
    """A run without its questions' results: what the run lists and GET /v1/evals/{id} say."""
    data = run_json(run, ())
    del data["questions"]
    return {**data, "user": run.user}


def _questions(rows: list[QuestionRow]) -> list[EvalQuestion]:
    """The rows as questions; a 422 with the set's reason when one is not."""
    plain = [row.model_dump(exclude_unset=True) for row in rows]
    try:
        return questions_of(enumerate(plain, start=1))
    except QuestionSetError as exc:
        raise ApiError(422, str(exc), param="questions", code=exc.reason.key) from None


def _own_set(caller: Caller, user: str) -> bool:
    """Whether the caller may see a set ``user`` kept: its own, or one kept without a named
    token (the CLI's and the app's local user's, "", or the unnamed token's)."""
    return not caller.enforced or user in (caller.user, "", API_USER)


def _set_visible(state: ServerState, set_id: int, caller: Caller) -> bool:
    found = state.evals.question_set(set_id)
    return found is not None and _own_set(caller, found.user)


def _set_json(state: ServerState, set_id: int, caller: Caller) -> dict[str, Any]:
    found = state.evals.question_set(set_id)
    if found is None or not _own_set(caller, found.user):
        raise ApiError(404, f"no question set {set_id}", "not_found_error", "set_id")
    return {
        "id": found.id,
        "name": found.name,
        "n": len(found.questions),
        "created": found.created,
        "user": found.user,
        "questions": question_rows(found.questions),
    }


def _run(
    state: ServerState, run_id: int, caller: Caller | None = None, param: str = "run_id"
) -> EvalRun:
    """The run; a 404 for none, or (with ``caller``) for one of a knowledge base it cannot see."""
    run = state.evals.run(run_id)
    missing = ApiError(404, f"no evaluation run {run_id}", "not_found_error", param)
    if run is None:
        raise missing
    if caller is not None:
        check(state, caller, run.kb, "reader", "read evaluations", missing)
    return run


def _own_run(state: ServerState, run_id: int, caller: Caller, action: str) -> EvalRun:
    """A run the caller may change: its own, or any of a knowledge base it edits (a 403)."""
    run = _run(state, run_id, caller)
    if caller.enforced and run.user != caller.user:
        missing = ApiError(404, f"no evaluation run {run_id}", "not_found_error", "run_id")
        check(state, caller, run.kb, "editor", action, missing, "run_id")
    return run


def _start(state: ServerState, body: RunBody, caller: Caller) -> dict[str, Any]:
    """Keep the inline rows as a set (or find the stored one), queue the run; its summary."""
    if body.questions is not None:
        limit = state.settings.server.max_batch
        if len(body.questions) > limit:
            raise ApiError(
                422,
                f"{len(body.questions)} inline questions, over the batch limit of {limit}: "
                "keep the set first (POST /v1/evals/sets), then run it by its set_id",
                param="questions",
            )
        questions = _questions(body.questions)
        set_id = state.evals.add_set(body.name, questions, caller.user)
    else:
        set_id = body.set_id or 0
        stored = state.evals.question_set(set_id)
        if stored is None or not _own_set(caller, stored.user):
            raise ApiError(404, f"no question set {set_id}", "not_found_error", "set_id")
        questions = list(stored.questions)
    llm = state.llm if body.answerer == "model" else None
    settings = RunSettings(
        kb=body.kb,
        mode=body.mode,
        prompt_mode=body.prompt_mode,
        top_k=body.top_k,
        scope=body.scope,
        answerer=llm.name if llm is not None else "offline",
    )
    run_id = state.eval_runner.start(set_id, settings, llm, caller.user)
    run = _run(state, run_id)
    unknown = unknown_documents(questions, state.library, body.kb)
    return {**run_summary(run), "unknown_documents": unknown}


def _result_json(result: QuestionResult, position: int) -> dict[str, Any]:
    return {"position": position, "passed": result.passed, **asdict(result)}


def _change_json(change: QuestionChange) -> dict[str, Any]:
    return {
        "id": change.id,
        "question": change.question,
        "change": change.change,
        "before": _result_json(change.before, change.before_position),
        "after": _result_json(change.after, change.after_position),
    }
