"""A scripted LLM for tests and demos: it answers with queued responses and records its calls."""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass

from rag_app.answer.base import (
    ChatMessage,
    GenerationRequest,
    LLMError,
    LLMEvent,
    Usage,
    split_stream_pieces,
)
from rag_app.text.tokens import get_token_counter


@dataclass(frozen=True)
class ScriptedResponse:
    """One queued answer: ``text`` streamed, then ``error`` (an LLMError becomes an ``error``
    event after the text, as from a real provider; any other exception is raised)."""

    text: str = ""
    error: BaseException | None = None
    usage: Usage | None = None
    finish_reason: str = "stop"


class ScriptedLLM:
    """An ``LLM`` that plays back queued responses in order.

    ``enqueue("answer")`` queues a text; ``enqueue(LLMError("timeout"))`` queues a failure before
    any token; ``enqueue(ScriptedResponse("half", error=LLMError("connection")))`` a break-off
    mid-answer. With the queue empty it answers ``default`` (or raises if that is None).
    ``calls`` holds the request of every call, in order.
    """

    def __init__(
        self,
        *responses: str | BaseException | ScriptedResponse,
        default: str | None = None,
        name: str = "scripted",
    ) -> None:
        self.name = name
        self.default = default
        self.calls: list[GenerationRequest] = []
        self._queue: deque[ScriptedResponse] = deque()
        self._lock = threading.Lock()
        self.enqueue(*responses)

    def enqueue(self, *responses: str | BaseException | ScriptedResponse) -> ScriptedLLM:
        with self._lock:
            for response in responses:
                if isinstance(response, str):
                    response = ScriptedResponse(text=response)
                elif isinstance(response, BaseException):
                    response = ScriptedResponse(error=response)
                self._queue.append(response)
        return self

    @property
    def last_request(self) -> GenerationRequest:
        if not self.calls:
            raise AssertionError("ScriptedLLM was never called")
        return self.calls[-1]

    @property
    def last_messages(self) -> tuple[ChatMessage, ...]:
        return self.last_request.messages

    def stream(self, request: GenerationRequest) -> Iterator[LLMEvent]:
        """Play the next queued response (see the class docstring)."""
        with self._lock:
            self.calls.append(request)
            if self._queue:
                response = self._queue.popleft()
            elif self.default is not None:
                response = ScriptedResponse(text=self.default)
            else:
                raise AssertionError("ScriptedLLM has no queued response left")
        return self._play(request.messages, response)

    def _play(
        self, messages: tuple[ChatMessage, ...], response: ScriptedResponse
    ) -> Iterator[LLMEvent]:
        for piece in split_stream_pieces(response.text):
            yield LLMEvent.token(piece)
        if response.error is not None:
            if isinstance(response.error, LLMError):
                err = response.error
                yield LLMEvent.failed(LLMError(err.kind, err.detail, partial=bool(response.text)))
                return
            raise response.error
        count = get_token_counter().count
        usage = response.usage or Usage(
            sum(count(m.content) + 4 for m in messages), count(response.text), estimated=True
        )
        yield LLMEvent("usage", usage=usage)
        yield LLMEvent.done(response.finish_reason)
