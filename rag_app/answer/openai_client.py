"""Streaming chat through any OpenAI-compatible endpoint (OpenAI, DashScope compatible mode,
DeepSeek, vLLM, Ollama, llama.cpp server), using the official ``openai`` client.

Retry policy: timeouts, connection errors, 429 and 5xx are retried with exponential backoff, but
only before the first token. Once part of the answer has streamed, a failure ends the stream
with an ``error`` event and the caller keeps what it has: restarting would duplicate text on
screen. The openai client's own retries are switched off so these are the only ones.

The API key is only ever handed to the openai client; error messages and events are passed
through ``_redact`` so a provider that echoes the key cannot leak it into the UI or logs.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from rag_app.answer.base import (
    OPENAI_BASE_URL,
    GenerationRequest,
    LLMError,
    LLMEvent,
    ProviderSettings,
    Usage,
    mask_key,
)
from rag_app.text.tokens import get_token_counter

log = logging.getLogger(__name__)

# vLLM's documented placeholder; sent when no key is set so the openai client never falls back
# to an OPENAI_API_KEY from the environment (which would send a real key to a local server).
NO_KEY_PLACEHOLDER = "EMPTY"
# Provider error texts are shown to users; beyond this they are noise.
MAX_DETAIL_CHARS = 200

_RETRYABLE = frozenset({"timeout", "rate_limit", "server", "connection"})


@dataclass
class _AttemptState:
    tokens: int = 0
    text_parts: list[str] = field(default_factory=list)
    finish_reason: str = ""


class OpenAIChatLLM:
    """An ``LLM`` backed by an OpenAI-compatible ``/chat/completions`` endpoint.

    Thread-safe: the underlying openai client is shared and each ``stream`` call keeps its own
    state, so one instance can serve all Streamlit sessions (``st.cache_resource``).
    """

    def __init__(self, settings: ProviderSettings, *, token_counter: Any = None) -> None:
        """``token_counter`` (a ``TokenCounter``) counts usage when the provider sends none;
        without it the process's counter (``get_token_counter``) does."""
        self.settings = settings
        self.name = f"openai-compatible:{settings.model}"
        self._token_counter = token_counter
        self._client: Any = None
        self._lock = threading.Lock()
        # Cleared after a provider rejects ``stream_options``; later calls skip it.
        self._send_stream_options = True

    def __repr__(self) -> str:
        return (
            f"OpenAIChatLLM(model={self.settings.model!r}, base_url={self.base_url!r}, "
            f"api_key={self.settings.masked_key!r})"
        )

    @property
    def base_url(self) -> str:
        return self.settings.base_url or OPENAI_BASE_URL

    @property
    def client(self) -> Any:
        """The openai client, created on first use."""
        with self._lock:
            if self._client is None:
                import openai  # lazily: importing openai costs about half a second

                self._client = openai.OpenAI(
                    api_key=self.settings.api_key or NO_KEY_PLACEHOLDER,
                    base_url=self.base_url,
                    timeout=self.settings.timeout_s,
                    max_retries=0,
                )
            return self._client

    # -- public -----------------------------------------------------------------------------

    def stream(self, request: GenerationRequest) -> Iterator[LLMEvent]:
        """Stream the answer to ``request.messages`` (the prompt already holds the sources).

        Yields ``token`` events, at most one ``usage``, ``retry`` events for failed attempts
        before the first token, and ends with ``done`` or ``error``; provider failures become
        ``error`` events, never exceptions.
        """
        payload = [{"role": m.role, "content": m.content} for m in request.messages]
        settings = self.settings
        attempt = 1
        while True:
            state = _AttemptState()
            use_stream_options = self._send_stream_options
            try:
                yield from self._attempt(payload, state, use_stream_options)
            except _StreamOptionsRejected:
                self._send_stream_options = False
                log.info("%s rejected stream_options; retrying without it", self.name)
                continue
            except LLMError as err:
                if state.tokens:
                    err.partial = True
                    log.warning(
                        "%s: stream broke after %d tokens: %s", self.name, state.tokens, err
                    )
                    yield LLMEvent.failed(err)
                    return
                if err.kind not in _RETRYABLE or attempt > settings.max_retries:
                    log.warning("%s: giving up after %d attempt(s): %s", self.name, attempt, err)
                    yield LLMEvent.failed(err)
                    return
                delay = self._backoff(attempt, err)
                zh, en = err.summary
                wait, of = f"{round(delay, 2):g}", f"{attempt}/{settings.max_retries}"
                yield LLMEvent(
                    "retry",
                    text=f"{zh}，{wait} 秒后重试（{of}） / {en}; retrying in {wait} s ({of})",
                    error_kind=err.kind,
                    attempt=attempt + 1,
                    delay_s=delay,
                )
                time.sleep(delay)
                attempt += 1
                continue
            yield LLMEvent.done(state.finish_reason)
            return

    def list_models(self) -> list[str]:
        """The model ids the endpoint offers, sorted. Raises LLMError on failure."""
        try:
            return sorted(str(m.id) for m in self.client.models.list())
        except Exception as exc:  # noqa: BLE001 - every failure becomes a user-facing LLMError
            raise self._classify(exc) from None

    # -- internals ----------------------------------------------------------------------------

    def _attempt(
        self, payload: list[dict[str, str]], state: _AttemptState, use_stream_options: bool
    ) -> Iterator[LLMEvent]:
        settings = self.settings
        kwargs: dict[str, Any] = {
            "model": settings.model,
            "messages": payload,
            "stream": True,
            "temperature": settings.temperature,
            "max_tokens": settings.max_tokens,
        }
        if use_stream_options:
            kwargs["stream_options"] = {"include_usage": True}
        try:
            response = self.client.chat.completions.create(**kwargs)
        except Exception as exc:  # noqa: BLE001
            if use_stream_options and _mentions_stream_options(exc):
                raise _StreamOptionsRejected() from None
            raise self._classify(exc) from None

        usage: Usage | None = None
        finished = False
        chunks = 0
        iterator = iter(response)
        try:
            while True:
                try:
                    chunk = next(iterator)
                except StopIteration:
                    break
                except Exception as exc:  # noqa: BLE001
                    raise self._classify(exc) from None
                chunks += 1
                pieces, chunk_usage, finish = _read_chunk(chunk)
                if chunk_usage is not None:
                    usage = chunk_usage
                if finish:
                    finished = True
                    state.finish_reason = finish
                for piece in pieces:
                    state.tokens += 1
                    state.text_parts.append(piece)
                    yield LLMEvent.token(piece)
        finally:
            close = getattr(response, "close", None)
            if close is not None:
                close()

        if not finished and usage is None:
            # Every provider named above sends a finish_reason; a stream without one either was
            # not a chat stream at all (an HTML error page with status 200) or was cut short.
            if chunks == 0 or not state.tokens:
                raise LLMError("bad_response", "empty or unrecognised stream")
            raise LLMError("connection", "the stream ended without a finish reason")
        if usage is None:
            usage = self._estimate_usage(payload, "".join(state.text_parts))
        yield LLMEvent("usage", usage=usage)

    def _estimate_usage(self, payload: list[dict[str, str]], answer: str) -> Usage:
        count = (self._token_counter or get_token_counter()).count
        # About 4 tokens of role/separator overhead per message in OpenAI's chat format.
        prompt = sum(count(m["content"]) + 4 for m in payload)
        return Usage(prompt, count(answer), estimated=True)

    def _backoff(self, attempt: int, err: LLMError) -> float:
        delay = self.settings.backoff_s * (2 ** (attempt - 1))
        if err.retry_after:
            delay = max(delay, min(err.retry_after, self.settings.max_retry_after_s))
        return delay

    def _classify(self, exc: BaseException) -> LLMError:
        err = classify_error(exc)
        err.detail = _redact(err.detail, self.settings.api_key)
        return err


class _StreamOptionsRejected(Exception):
    pass


def _mentions_stream_options(exc: BaseException) -> bool:
    status = getattr(exc, "status_code", None)
    if status not in (400, 422):
        return False
    text = f"{getattr(exc, 'message', '')} {getattr(exc, 'body', '')}".lower()
    return "stream_options" in text or "include_usage" in text


def _read_chunk(chunk: Any) -> tuple[list[str], Usage | None, str]:
    """Pieces of text, usage and the finish_reason (or ""), from one stream chunk.

    Raises LLMError(bad_response) for a chunk that is not a chat completion chunk.
    """
    if not hasattr(chunk, "__dict__") and not isinstance(chunk, dict):
        raise LLMError("bad_response", f"unexpected chunk of type {type(chunk).__name__}")
    choices = _get(chunk, "choices")
    usage = _read_usage(_get(chunk, "usage"))
    if choices is None and usage is None:
        raise LLMError("bad_response", "a stream chunk had no 'choices'")
    if choices is not None and not isinstance(choices, list):
        raise LLMError("bad_response", "'choices' is not a list")
    pieces: list[str] = []
    finish = ""
    for choice in choices or []:
        if (_get(choice, "index") or 0) != 0:
            continue  # n > 1 is never requested; ignore stray choices
        delta = _get(choice, "delta")
        content = _get(delta, "content") if delta is not None else None
        # Reasoning models (DeepSeek-R1, Qwen thinking) stream ``reasoning_content`` first; it
        # is not the answer and is not shown.
        if content is not None and not isinstance(content, str):
            raise LLMError("bad_response", "'delta.content' is not text")
        if content:
            pieces.append(content)
        reason = _get(choice, "finish_reason")
        if reason:
            finish = str(reason)
    return pieces, usage, finish


def _read_usage(raw: Any) -> Usage | None:
    if raw is None:
        return None
    prompt = _get(raw, "prompt_tokens")
    completion = _get(raw, "completion_tokens")
    if not isinstance(prompt, int) or not isinstance(completion, int):
        return None
    return Usage(prompt, completion)


def _get(obj: Any, name: str) -> Any:
    if isinstance(obj, dict):
        return obj.get(name)
    return getattr(obj, name, None)


def classify_error(exc: BaseException) -> LLMError:
    """Map an exception from the openai client (or from reading its stream) to an LLMError.

    The detail may still contain the key if the provider echoed it; callers redact.
    """
    if isinstance(exc, LLMError):
        return exc
    try:
        import openai
    except ImportError:  # pragma: no cover - openai is a dependency
        openai = None  # type: ignore[assignment]

    if openai is not None:
        if isinstance(exc, openai.APITimeoutError):
            return LLMError("timeout")
        if isinstance(exc, openai.APIConnectionError):
            cause = exc.__cause__
            detail = type(cause).__name__ if cause is not None else ""
            return LLMError("connection", detail)
        if isinstance(exc, openai.APIStatusError):
            status = exc.status_code
            detail = _status_detail(exc)
            if status == 429:
                return LLMError("rate_limit", detail, retry_after=_retry_after(exc))
            if status in (401, 403):
                return LLMError("auth", detail)
            if status == 408:
                return LLMError("timeout", detail)
            if status >= 500 or status == 409:
                return LLMError("server", detail)
            return LLMError("bad_request", detail)
        if isinstance(exc, openai.APIResponseValidationError):
            return LLMError("bad_response", _truncate(exc.message))
        if isinstance(exc, openai.APIError):
            # An error object sent inside the stream ({"error": {...}}).
            return LLMError("server", _truncate(exc.message))
    if isinstance(exc, json.JSONDecodeError):
        return LLMError("bad_response", "a stream line was not JSON")
    if isinstance(exc, (ValueError, TypeError, KeyError, AttributeError)):
        return LLMError("bad_response", type(exc).__name__)
    if isinstance(exc, TimeoutError):
        return LLMError("timeout")
    if isinstance(exc, OSError):
        return LLMError("connection", type(exc).__name__)
    return LLMError("bad_response", type(exc).__name__)


def _status_detail(exc: Any) -> str:
    body = getattr(exc, "body", None)
    message = ""
    if isinstance(body, dict):
        inner = body.get("error") if isinstance(body.get("error"), dict) else body
        raw = inner.get("message") if isinstance(inner, dict) else None
        message = str(raw) if raw else ""
    return _truncate(f"HTTP {exc.status_code}" + (f": {message}" if message else ""))


def _retry_after(exc: Any) -> float | None:
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    value = headers.get("retry-after")
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None  # an HTTP date; rare from LLM providers, fall back to our own backoff


def _truncate(text: str) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= MAX_DETAIL_CHARS else text[: MAX_DETAIL_CHARS - 1] + "…"


def _redact(text: str, key: str) -> str:
    if key and text and key in text:
        return text.replace(key, mask_key(key))
    return text
