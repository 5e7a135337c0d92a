"""Prometheus metrics in the server's own registry (never the process-global one, so two apps in
one process, as in the tests, never collide), and the ASGI middleware that counts requests and
bounds request bodies."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

# Seconds: answers take from well under a second (offline, warm) to a minute (a slow provider).
_BUCKETS = (0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 40, 80)


class ServerMetrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.requests = Counter(
            "rag_api_requests", "HTTP requests", ["method", "route", "status"], registry=r
        )
        self.latency = Histogram(
            "rag_api_request_seconds",
            "request latency to the end of the response",
            ["route"],
            buckets=_BUCKETS,
            registry=r,
        )
        self.stage = Histogram(
            "rag_api_stage_seconds",
            "pipeline stage time per answer (the Answer's timings)",
            ["stage"],
            buckets=_BUCKETS,
            registry=r,
        )
        self.errors = Counter(
            "rag_api_errors",
            "errors by kind (http_4xx, http_5xx, provider kinds)",
            ["kind"],
            registry=r,
        )
        self.ingested = Counter(
            "rag_api_documents", "uploaded documents by outcome", ["kb", "status"], registry=r
        )
        self.answers = Counter(
            "rag_api_answers",
            "answers by endpoint and answerer",
            ["endpoint", "answerer"],
            registry=r,
        )
        self.active_streams = Gauge(
            "rag_api_active_answers", "answers being generated now", registry=r
        )
        self.refused = Counter(
            "rag_api_refused", "requests refused for a limit", ["limit"], registry=r
        )

    def observe_answer(self, endpoint: str, answer: Any) -> None:
        self.answers.labels(endpoint, answer.answerer).inc()
        for name, ms in answer.timings:
            self.stage.labels(name.removesuffix("_ms")).observe(ms / 1000)
        if answer.error:
            self.errors.labels(answer.error_kind or "provider").inc()

    def render(self) -> bytes:
        return generate_latest(self.registry)


class BodyTooLarge(Exception):
    def __init__(self, limit: int) -> None:
        super().__init__(limit)
        self.limit = limit


def _json(status: int, body: bytes, headers: list[tuple[bytes, bytes]] | None = None) -> list:  # type: ignore[type-arg]
    return [
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json"), *(headers or [])],
        },
        {"type": "http.response.body", "body": body},
    ]


class ServeMiddleware:
    """Counts every request by route template and status, times it to the end of its body
    (an SSE stream's whole length), and refuses bodies over ``limit_for(path)`` bytes with a
    413 whether or not they declare a Content-Length."""

    def __init__(self, app: ASGIApp, metrics: ServerMetrics, limit_for: Callable[[str], int]):
        self.app = app
        self.metrics = metrics
        self.limit_for = limit_for

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        limit = self.limit_for(scope["path"])
        status = 500
        declared = dict(scope.get("headers") or ()).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            status = 413
            for message in _json(413, _too_large(limit)):
                await send(message)
            self._count(scope, status, started)
            return
        seen = 0
        exceeded = False

        async def counted_receive() -> Message:
            nonlocal seen, exceeded
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    exceeded = True
                    raise BodyTooLarge(limit)
            return message

        replaced = False

        async def watched_send(message: Message) -> None:
            # A body cut off mid-way surfaces as whatever the parser made of it (FastAPI says
            # 400): the client is told the real reason instead.
            nonlocal status, replaced
            if exceeded:
                if not replaced:
                    replaced = True
                    status = 413
                    for own in _json(413, _too_large(limit)):
                        await send(own)
                return
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        try:
            await self.app(scope, counted_receive, watched_send)
        except BodyTooLarge:
            if not replaced:
                await watched_send({"type": "http.response.start", "status": 413})
        finally:
            self._count(scope, status, started)

    def _count(self, scope: Scope, status: int, started: float) -> None:
        route = scope.get("route")
        path = getattr(route, "path", None) or "unmatched"
        self.metrics.requests.labels(scope.get("method", ""), path, str(status)).inc()
        self.metrics.latency.labels(path).observe(time.perf_counter() - started)
        if status >= 400:
            self.metrics.errors.labels(f"http_{status // 100}xx").inc()


def _too_large(limit: int) -> bytes:
    import json

    message = f"the request body is over the limit of {limit // 1024} KB"
    return json.dumps(
        {"error": {"message": message, "type": "request_too_large", "param": None, "code": None}}
    ).encode()
