"""The OpenAI chat API over the pipeline, so any OpenAI client can ask: ``model`` names the
knowledge base, the last user message is the question and the earlier messages its history.
The answer keeps its ``[Source N]`` markers; the sources come back in the extra field
``sources`` (and the whole answer in ``rag``), on the response or on the last stream chunk."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import AsyncIterator
from typing import Any

from fastapi import APIRouter, Depends
from fastapi.responses import StreamingResponse

from rag_app.models import Answer, AskOptions, PipelineEvent
from rag_app.prompt import Turn
from rag_app.prompt.history import turns_from_messages
from rag_app.server.auth import CallerOf
from rag_app.server.contract import ChatCompletion, ModelList, errors, ok
from rag_app.server.errors import ApiError
from rag_app.server.permissions import require_kb, visible
from rag_app.server.routes_ask import check_question
from rag_app.server.schemas import ChatBody, OtherMessage, UserMessage, answer_json
from rag_app.server.state import ServerState


def _text(message: UserMessage | OtherMessage) -> str:
    """A message's text: a string, or its text parts joined."""
    if isinstance(message.content, list):
        return "".join(part.text for part in message.content)
    return message.content or ""


def split_messages(body: ChatBody) -> tuple[str, list[Turn]]:
    """(the question, the history): the last user message, and every message before it."""
    messages = [{"role": m.role, "content": _text(m)} for m in body.messages]
    last = max((i for i, m in enumerate(messages) if m["role"] == "user"), default=None)
    if last is None:
        raise ApiError(422, "'messages' holds no user message to answer", param="messages")
    question = check_question(messages[last]["content"], f"messages.{last}.content")
    return question, turns_from_messages(messages[:last])


def chat_router(state: ServerState, auth: Any) -> APIRouter:
    router = APIRouter(prefix="/v1", dependencies=[Depends(auth)])

    @router.get("/models", responses={**ok(ModelList, "the knowledge bases"), **errors(401)})
    def models(caller: CallerOf) -> dict[str, Any]:
        created = int(time.time())
        return {
            "object": "list",
            "data": [
                {"id": kb, "object": "model", "created": created, "owned_by": "rag-app"}
                for kb in visible(state, caller)
            ],
        }

    @router.post(
        "/chat/completions",
        responses={
            **ok(ChatCompletion, "the completion; chunks as SSE when stream is true", sse=True),
            **errors(400, 401, 404, 413, 422, 429, 503),
        },
    )
    async def chat(body: ChatBody, caller: CallerOf) -> Any:
        question, history = split_messages(body)
        require_kb(state, caller, body.model, "reader", "ask", param="model")
        options = AskOptions(kb=body.model, mode="smart", user=caller.user)
        ident = f"chatcmpl-{uuid.uuid4().hex[:24]}"
        names = state.doc_names(body.model)
        state.take_slot()
        if not body.stream:
            return await state.answer(
                question,
                options,
                history,
                lambda a: completion(ident, body.model, a, answer_json(a, options, names)),
                endpoint="chat",
            )

        def render(answer: Answer) -> str:
            state.metrics.observe_answer("chat_stream", answer)
            full = answer_json(answer, options, names)
            last = _chunk(ident, body.model, {}, "stop")
            last.update(usage=_usage(answer), sources=full["sources"], rag=full)
            return _line(last)

        events = state.answer_events(question, options, history, render=render)
        return StreamingResponse(
            chat_chunks(ident, body.model, events),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-cache"},
        )

    return router


def _usage(answer: Answer) -> dict[str, int] | None:
    if answer.usage is None:
        return None
    u = answer.usage
    return {
        "prompt_tokens": u.prompt_tokens,
        "completion_tokens": u.completion_tokens,
        "total_tokens": u.prompt_tokens + u.completion_tokens,
    }


def completion(ident: str, kb: str, answer: Answer, full: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": ident,
        "object": "chat.completion",
        "created": int(time.time()),
        "model": kb,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": answer.text},
                "finish_reason": "stop",
            }
        ],
        "usage": _usage(answer),
        "sources": full["sources"],
        "rag": full,
    }


def _chunk(ident: str, kb: str, delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": ident,
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": kb,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def _line(payload: dict[str, Any]) -> str:
    return f"data: {json.dumps(payload, ensure_ascii=False)}\n\n"


async def chat_chunks(
    ident: str, kb: str, events: AsyncIterator[PipelineEvent | BaseException]
) -> AsyncIterator[str]:
    """Chunk objects as the OpenAI API streams them: the role, the tokens, a last chunk with
    ``finish_reason`` and the sources (made on the worker: ``render``), then ``data: [DONE]``."""
    yield _line(_chunk(ident, kb, {"role": "assistant", "content": ""}))
    async for item in events:
        if isinstance(item, BaseException):
            yield _line({"error": {"message": "internal error", "type": "server_error"}})
            break
        if item.kind == "token" and item.text:
            yield _line(_chunk(ident, kb, {"content": item.text}))
        elif item.kind == "answer":
            yield item.data["rendered"]
    yield "data: [DONE]\n\n"
