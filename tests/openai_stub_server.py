"""A real HTTP server on 127.0.0.1 that speaks the OpenAI chat completions API, for tests.

Each request takes the next scripted ``Reply`` (or the default one): a normal streamed answer
(``data: {...}`` lines ending in ``data: [DONE]``, HTTP/1.1 chunked like the real API), a JSON
answer when ``stream`` is false, an error status, a delay before the first byte, a connection cut
after N chunks, or raw garbage. Every request is recorded.

    with OpenAIStubServer() as server:
        server.enqueue(Reply(text="你好"), ...)
        ProviderSettings(base_url=server.base_url, model="stub-model", api_key="sk-test...")
"""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

_PIECE = re.compile(r"\s*[A-Za-z0-9_.'%-]+\s*|\s*\S\s*|\s+")


@dataclass(frozen=True)
class Reply:
    """What the server answers to one request.

    - ``text`` is streamed in ``pieces`` (default: word by word, CJK character by character).
    - ``usage``: sent as a final chunk with empty choices when the request asked for it with
      ``stream_options.include_usage`` (or always if ``always_usage``; never if not
      ``send_usage``, like providers that ignore the option).
    - ``status`` other than 200 sends ``{"error": {"message": error_message}}`` with it.
    - ``delay_s``: wait before sending anything (client read timeouts); ``chunk_delay_s``: wait
      between content chunks (after the first).
    - ``break_after``: send this many content chunks, then cut the connection (no terminator).
    - ``raw_lines``: send these lines (each followed by a blank line) instead of real chunks.
    - ``raw_body``/``content_type``: send this whole body instead (an HTML error page ...).
    - ``reject_stream_options``: answer 400 if the request carries ``stream_options``, as some
      OpenAI-compatible servers do; the next request is then handled by the same reply.
    - ``finish_reason``: None sends no finish_reason at all.
    """

    text: str = "Hello from the stub."
    pieces: tuple[str, ...] | None = None
    usage: tuple[int, int] = (11, 7)
    always_usage: bool = False
    send_usage: bool = True
    status: int = 200
    error_message: str = "stub error"
    headers: tuple[tuple[str, str], ...] = ()
    delay_s: float = 0.0
    chunk_delay_s: float = 0.0
    break_after: int | None = None
    raw_lines: tuple[str, ...] | None = None
    raw_body: str | None = None
    content_type: str = "text/event-stream"
    reject_stream_options: bool = False
    finish_reason: str | None = "stop"

    def stream_pieces(self) -> list[str]:
        return list(self.pieces) if self.pieces is not None else _PIECE.findall(self.text)


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: dict[str, Any] | None

    @property
    def authorization(self) -> str:
        return self.headers.get("authorization", "")

    @property
    def messages(self) -> list[dict[str, Any]]:
        return list((self.body or {}).get("messages", []))


@dataclass
class _State:
    replies: deque[Reply] = field(default_factory=deque)
    default: Reply = field(default_factory=Reply)
    requests: list[RecordedRequest] = field(default_factory=list)
    models: tuple[str, ...] = ("stub-model", "stub-model-large")
    lock: threading.Lock = field(default_factory=threading.Lock)
    stopping: threading.Event = field(default_factory=threading.Event)
    hurry: threading.Event = field(default_factory=threading.Event)  # chunk delays end


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        pass  # keep test output clean

    # -- routing ------------------------------------------------------------------------------

    def do_GET(self) -> None:  # noqa: N802 - stdlib naming
        self._record(None)
        if self.path.rstrip("/").endswith("/models"):
            data = [
                {"id": m, "object": "model", "owned_by": "stub"} for m in self.server.state.models
            ]
            self._send_json(200, {"object": "list", "data": data})
        else:
            self._send_json(404, {"error": {"message": f"no route {self.path}"}})

    def do_POST(self) -> None:  # noqa: N802
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = None
        self._record(body)
        if not self.path.rstrip("/").endswith("/chat/completions") or not isinstance(body, dict):
            self._send_json(404, {"error": {"message": "unknown route or body"}})
            return
        state = self.server.state
        with state.lock:
            reply = state.replies[0] if state.replies else state.default
            keep = reply.reject_stream_options and "stream_options" in body
            if state.replies and not keep:
                state.replies.popleft()
        try:
            self._answer(reply, body)
        except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError):
            self.close_connection = True  # the client gave up (timeout): nothing to do

    # -- replies ------------------------------------------------------------------------------

    def _answer(self, reply: Reply, body: dict[str, Any]) -> None:
        if reply.delay_s and self.server.state.stopping.wait(reply.delay_s):
            return
        if reply.reject_stream_options and "stream_options" in body:
            self._send_json(
                400,
                {
                    "error": {
                        "message": "Unrecognized request argument supplied: stream_options",
                        "type": "invalid_request_error",
                    }
                },
            )
            return
        if reply.status != 200:
            self._send_json(
                reply.status,
                {"error": {"message": reply.error_message, "type": "stub_error"}},
                reply.headers,
            )
            return
        if reply.raw_body is not None:
            self._send_bytes(200, reply.raw_body.encode(), reply.content_type, reply.headers)
            return
        if not body.get("stream"):
            self._send_json(200, _completion(reply, body), reply.headers)
            return
        self._stream(reply, body)

    def _stream(self, reply: Reply, body: dict[str, Any]) -> None:
        self.send_response(200)
        self.send_header("Content-Type", reply.content_type)
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Cache-Control", "no-cache")
        for name, value in reply.headers:
            self.send_header(name, value)
        self.end_headers()

        if reply.raw_lines is not None:
            for line in reply.raw_lines:
                self._chunk(line + "\n\n")
            self._end()
            return

        model = body.get("model", "stub-model")
        created = int(time.time())
        sent = 0

        def event(delta: dict[str, Any], finish: str | None = None) -> None:
            chunk = {
                "id": "chatcmpl-stub",
                "object": "chat.completion.chunk",
                "created": created,
                "model": model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            }
            self._chunk("data: " + json.dumps(chunk, ensure_ascii=False) + "\n\n")

        event({"role": "assistant", "content": ""})
        for piece in reply.stream_pieces():
            if reply.break_after is not None and sent >= reply.break_after:
                self._cut()
                return
            if sent and reply.chunk_delay_s and self._pause(reply.chunk_delay_s):
                return
            event({"content": piece})
            sent += 1
        if reply.break_after is not None and sent >= reply.break_after:
            self._cut()
            return
        if reply.finish_reason is not None:
            event({}, reply.finish_reason)
        options = body.get("stream_options") or {}
        if reply.send_usage and (reply.always_usage or options.get("include_usage")):
            prompt, completion = reply.usage
            usage_chunk = {
                "id": "chatcmpl-stub",
                "object": "chat.completion.chunk",
                "created": created,
                "model": model,
                "choices": [],
                "usage": {
                    "prompt_tokens": prompt,
                    "completion_tokens": completion,
                    "total_tokens": prompt + completion,
                },
            }
            self._chunk("data: " + json.dumps(usage_chunk) + "\n\n")
        self._chunk("data: [DONE]\n\n")
        self._end()

    def _pause(self, seconds: float) -> bool:
        """Wait ``seconds`` between two chunks, or less once ``hurry()`` was called; True when
        the server is stopping (the stream is given up)."""
        state = self.server.state
        deadline = time.monotonic() + seconds
        while not state.hurry.is_set():
            left = deadline - time.monotonic()
            if left <= 0:
                break
            if state.stopping.wait(min(left, 0.05)):
                return True
        return state.stopping.is_set()

    # -- wire ---------------------------------------------------------------------------------

    def _record(self, body: dict[str, Any] | None) -> None:
        headers = {k.lower(): v for k, v in self.headers.items()}
        with self.server.state.lock:
            self.server.state.requests.append(
                RecordedRequest(self.command, self.path, headers, body)
            )

    def _chunk(self, text: str) -> None:
        data = text.encode()
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def _end(self) -> None:
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _cut(self) -> None:
        """Drop the connection mid-body, as a crashed upstream or a proxy would."""
        self.wfile.flush()
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def _send_json(
        self, status: int, payload: Any, headers: tuple[tuple[str, str], ...] = ()
    ) -> None:
        self._send_bytes(status, json.dumps(payload).encode(), "application/json", headers)

    def _send_bytes(
        self, status: int, data: bytes, content_type: str, headers: tuple[tuple[str, str], ...] = ()
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()


def _completion(reply: Reply, body: dict[str, Any]) -> dict[str, Any]:
    prompt, completion = reply.usage
    return {
        "id": "chatcmpl-stub",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", "stub-model"),
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": reply.text},
                "finish_reason": reply.finish_reason or "stop",
            }
        ],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        },
    }


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    state: _State

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that hung up mid-answer is what several tests do on purpose


class OpenAIStubServer:
    """The server; a context manager that starts it on a free loopback port and stops it."""

    def __init__(self) -> None:
        self.state = _State()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    def __enter__(self) -> OpenAIStubServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> OpenAIStubServer:
        server = _Server(("127.0.0.1", 0), _Handler)
        server.state = self.state
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="openai-stub",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self.state.stopping.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._server = self._thread = None

    @property
    def port(self) -> int:
        assert self._server is not None, "server not started"
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def enqueue(self, *replies: Reply) -> OpenAIStubServer:
        with self.state.lock:
            self.state.replies.extend(replies)
        return self

    def set_default(self, reply: Reply) -> None:
        self.state.default = reply

    def hurry(self) -> None:
        """From now on, streams (also those under way) send their pieces without the replies'
        ``chunk_delay_s``: a test that needed a slow answer only until something happened."""
        self.state.hurry.set()

    @property
    def requests(self) -> list[RecordedRequest]:
        with self.state.lock:
            return list(self.state.requests)

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path.rstrip("/").endswith("/chat/completions")]
