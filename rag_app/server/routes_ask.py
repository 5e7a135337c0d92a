"""Search, ask (JSON, or SSE with ``Accept: text/event-stream``) and ask in batches."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator
from typing import Any

from fastapi import APIRouter, Depends, Request
from sse_starlette.sse import EventSourceResponse
from starlette.concurrency import run_in_threadpool

from rag_app.models import Answer, AskOptions, PipelineEvent, SearchFilter
from rag_app.prompt import Turn
from rag_app.server.auth import CallerOf
from rag_app.server.contract import AnswerJson, BatchResult, SearchResult, errors, ok
from rag_app.server.errors import ApiError
from rag_app.server.permissions import require_kb
from rag_app.server.schemas import (
    MAX_QUESTION_CHARS,
    AskBody,
    BatchBody,
    SearchBody,
    answer_json,
    hit_json,
    options_of,
    trace_json,
)
from rag_app.server.state import ServerState

_log = logging.getLogger("rag_app.server")


def check_question(text: str, field: str = "question") -> str:
    """The question stripped; a 422 naming ``field`` when empty or over the pipeline's limit."""
    text = (text or "").strip()
    if not text:
        raise ApiError(422, f"'{field}' is empty", param=field)
    if len(text) > MAX_QUESTION_CHARS:
        raise ApiError(
            422,
            f"'{field}' is {len(text)} characters, over the limit of {MAX_QUESTION_CHARS}",
            param=field,
        )
    return text


def wants_sse(request: Request) -> bool:
    return "text/event-stream" in request.headers.get("accept", "")


def event_json(event: PipelineEvent) -> dict[str, Any]:
    """One SSE event's payload: stages with their data, tokens, retries, errors."""
    if event.kind == "stage":
        return {"type": "stage", "stage": event.stage, **event.data}
    if event.kind == "token":
        return {"type": "token", "text": event.text}
    if event.kind in ("retry", "error"):
        return {"type": event.kind, "message": event.text, **event.data}
    return {"type": event.kind}


def ask_router(state: ServerState, auth: Any) -> APIRouter:
    router = APIRouter(prefix="/v1", dependencies=[Depends(auth)])

    @router.post(
        "/search",
        responses={
            **ok(SearchResult, "hits and the trace"),
            **errors(400, 401, 404, 413, 422, 503),
        },
    )
    async def search(body: SearchBody, caller: CallerOf) -> dict[str, Any]:
        query = check_question(body.query, "query")
        require_kb(state, caller, body.kb, "reader", "search")
        if body.mode in ("smart", "hybrid"):
            options = AskOptions(
                kb=body.kb, mode=body.mode, doc_ids=tuple(body.doc_ids), top_k=body.k
            )
            trace = await run_in_threadpool(state.pipeline.retrieve, query, options)
            return {"hits": [hit_json(h) for h in trace.hits], "trace": trace_json(trace)}
        from rag_app.retrieve import make_retriever
        from rag_app.understand.analysis import analyse_query

        retriever = make_retriever(body.mode, state.library, body.kb, state.settings)
        search_filter = SearchFilter(doc_ids=tuple(body.doc_ids))
        hits = await run_in_threadpool(
            lambda: retriever.retrieve(analyse_query(query), body.k, search_filter)
        )
        return {"hits": [hit_json(h) for h in hits], "trace": {"query": query, "mode": body.mode}}

    @router.post(
        "/ask",
        responses={
            **ok(AnswerJson, "the answer; SSE events with Accept: text/event-stream", sse=True),
            **errors(400, 401, 404, 413, 422, 429, 503),
        },
    )
    async def ask(body: AskBody, request: Request, caller: CallerOf) -> Any:
        question = check_question(body.question)
        require_kb(state, caller, body.kb, "reader", "ask")
        options = options_of(body, caller.user)
        history = [Turn(t.user, t.assistant) for t in body.history]
        names = state.doc_names(body.kb)
        state.take_slot()
        if not wants_sse(request):
            return await state.answer(
                question, options, history, lambda a: answer_json(a, options, names)
            )

        def render(answer: Answer) -> str:
            state.metrics.observe_answer("ask_sse", answer)
            return json.dumps(
                {"type": "answer", "answer": answer_json(answer, options, names)},
                ensure_ascii=False,
            )

        events = state.answer_events(question, options, history, render=render)
        return EventSourceResponse(
            sse_stream(events), ping=15, headers={"Cache-Control": "no-cache"}
        )

    @router.post(
        "/ask/batch",
        responses={
            **ok(BatchResult, "an answer per question"),
            **errors(400, 401, 404, 413, 422, 429, 503),
        },
    )
    async def ask_batch(body: BatchBody, caller: CallerOf) -> dict[str, Any]:
        limit = state.settings.server.max_batch
        if not body.questions:
            raise ApiError(422, "'questions' is empty", param="questions")
        if len(body.questions) > limit:
            raise ApiError(
                422,
                f"{len(body.questions)} questions, over the batch limit of {limit}",
                param="questions",
            )
        questions = [check_question(q, f"questions.{i}") for i, q in enumerate(body.questions)]
        require_kb(state, caller, body.kb, "reader", "ask")
        options = options_of(body, caller.user)
        names = state.doc_names(body.kb)
        # The batch holds one of the server's answer slots; its questions run a few at a time.
        state.take_slot()
        gate = asyncio.Semaphore(state.settings.server.batch_concurrency)

        async def one(question: str) -> dict[str, Any]:
            async with gate:
                try:
                    return await state.answer(
                        question,
                        options,
                        render=lambda a: answer_json(a, options, names),
                        endpoint="batch",
                        slot_taken=False,
                    )
                except Exception as exc:  # noqa: BLE001 - one failure is its own result
                    _log.error("a batch question failed", exc_info=exc)
                    return {"question": question, "error": "internal error"}

        try:
            results = await asyncio.gather(*(one(q) for q in questions))
        finally:
            state.slots.give_back()
        return {"kb": body.kb, "results": results}

    return router


async def sse_stream(
    events: AsyncIterator[PipelineEvent | BaseException],
) -> AsyncIterator[dict[str, str]]:
    """The pipeline's events as SSE ``data:`` lines of JSON, the last the whole answer (made on
    the worker: ``render``)."""
    async for item in events:
        if isinstance(item, BaseException):
            yield _data({"type": "error", "message": "internal error", "kind": "server"})
            return
        if item.kind == "answer":
            yield {"data": item.data["rendered"]}
        else:
            yield _data(event_json(item))


def _data(payload: dict[str, Any]) -> dict[str, str]:
    return {"data": json.dumps(payload, ensure_ascii=False)}
