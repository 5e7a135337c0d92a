"""The LLM contract: a ``GenerationRequest`` in, a stream of typed events out.

Every implementation (the OpenAI-compatible client, the scripted test model, the offline
extractive answerer) streams ``LLMEvent``s and ends with exactly one terminal event: ``done`` on
success or ``error`` on failure. Provider failures are reported as ``error`` events, not raised,
so a caller that has already shown half an answer keeps it and can show the error under it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol, runtime_checkable

from rag_app.config import read_provider_env
from rag_app.models import Chunk, Usage
from rag_app.text.language import Language
from rag_app.understand.analysis import QueryAnalysis, analyse_query

Role = Literal["system", "user", "assistant"]
ROLES: tuple[Role, ...] = ("system", "user", "assistant")

EventKind = Literal["token", "usage", "retry", "error", "done"]

ErrorKind = Literal[
    "timeout",
    "rate_limit",
    "server",
    "auth",
    "bad_request",  # 400/404/422: wrong model name, unsupported parameter, bad base URL path
    "bad_response",
    "connection",
]


@dataclass(frozen=True)
class ChatMessage:
    role: Role
    content: str

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise ValueError(f"unknown role {self.role!r}; expected one of {ROLES}")


def mask_key(key: str) -> str:
    """``sk-…abcd``: the key's prefix (up to its first dash) and last four characters only.

    Keys shorter than 12 characters show no characters at all.
    """
    if not key:
        return ""
    if len(key) < 12:
        return "…"
    prefix = key.split("-", 1)[0] + "-" if "-" in key[:8] else ""
    return f"{prefix}…{key[-4:]}"


# The endpoint when none is configured: OpenAI's own.
OPENAI_BASE_URL = "https://api.openai.com/v1"


@dataclass(frozen=True)
class ProviderSettings:
    """How to reach one OpenAI-compatible chat endpoint (OpenAI's own, ``OPENAI_BASE_URL``, when
    ``base_url`` is empty).

    ``api_key`` is excluded from ``repr``/``str`` (use ``masked_key`` for display). Local servers
    (Ollama, vLLM) accept any non-empty key. Retries apply only before the first token:
    ``max_retries`` extra attempts, waiting ``backoff_s * 2**(n-1)`` seconds before the n-th.
    """

    base_url: str
    model: str
    api_key: str = field(default="", repr=False)
    # 0.1: answers should stay close to the sources; a little above 0 avoids repetition loops
    # some small local models fall into at temperature 0.
    temperature: float = 0.1
    max_tokens: int = 1024
    # Applies to connecting and to each read: the wait for the first token and any gap
    # between two chunks, not the whole answer.
    timeout_s: float = 60.0
    max_retries: int = 2
    backoff_s: float = 1.0
    # A provider's Retry-After is honoured up to this many seconds; longer waits are the user's
    # call.
    max_retry_after_s: float = 30.0

    def __post_init__(self) -> None:
        if not self.model:
            raise ValueError("ProviderSettings.model must be set")
        if self.timeout_s <= 0:
            raise ValueError("ProviderSettings.timeout_s must be positive")
        if self.max_retries < 0 or self.backoff_s < 0:
            raise ValueError("ProviderSettings.max_retries and backoff_s must be >= 0")

    @property
    def masked_key(self) -> str:
        return mask_key(self.api_key)


_ERROR_MESSAGES: dict[str, tuple[str, str]] = {
    "timeout": ("大模型服务响应超时", "The language model service timed out"),
    "rate_limit": ("大模型服务限流（请求过多）", "The language model service is rate limiting"),
    "server": ("大模型服务内部错误", "The language model service returned a server error"),
    "auth": (
        "API Key 无效或无权限，请在设置页检查",
        "The API key was rejected; check it on the settings page",
    ),
    "bad_request": (
        "请求被拒绝，请检查模型名称与 Base URL",
        "The request was rejected; check the model name and base URL",
    ),
    "bad_response": (
        "大模型服务返回了无法解析的内容",
        "The language model service sent a response that could not be read",
    ),
    "connection": ("无法连接大模型服务", "Could not connect to the language model service"),
}


class LLMError(Exception):
    """A provider failure, with a message fit to show a user (Chinese and English).

    ``kind`` is one of ``ErrorKind``; ``detail`` is an optional technical note (never the key).
    ``str(err)`` is the full user-facing message.
    """

    def __init__(
        self,
        kind: ErrorKind,
        detail: str = "",
        *,
        partial: bool = False,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(kind, detail)
        self.kind: ErrorKind = kind
        self.detail = detail
        self.partial = partial  # the failure happened after some of the answer had streamed
        self.retry_after = retry_after  # seconds, from a 429's Retry-After header

    def __str__(self) -> str:
        return self.user_message

    @property
    def summary(self) -> tuple[str, str]:
        """The message without the detail, as (Chinese, English)."""
        zh, en = _ERROR_MESSAGES.get(
            self.kind, ("大模型调用失败", "The language model call failed")
        )
        if self.partial:
            zh, en = f"回答中途中断：{zh}", f"The answer was cut off: {en}"
        return zh, en

    @property
    def user_message(self) -> str:
        zh, en = self.summary
        text = f"{zh} / {en}"
        return f"{text} ({self.detail})" if self.detail else text


@dataclass(frozen=True)
class LLMEvent:
    """One step of a streamed answer.

    - ``token``: ``text`` is the next piece of the answer.
    - ``usage``: ``usage`` holds the token counts (sent once, before ``done``).
    - ``retry``: an attempt failed before any token; ``text`` says why and when the next one
      starts, ``attempt`` is the number of the next attempt (2 for the first retry),
      ``delay_s`` the wait.
    - ``error``: terminal failure; ``error`` is the user-facing message, ``error_kind`` its kind.
      Tokens streamed before it remain valid (the answer is partial).
    - ``done``: terminal success; ``finish_reason`` is ``length`` when ``max_tokens`` cut the
      answer short.
    """

    kind: EventKind
    text: str = ""
    usage: Usage | None = None
    error: str = ""
    error_kind: str = ""
    attempt: int = 0
    delay_s: float = 0.0
    finish_reason: str = ""  # on ``done``: the provider's reason (``stop``, ``length`` ...)

    @classmethod
    def token(cls, text: str) -> LLMEvent:
        return cls("token", text=text)

    @classmethod
    def done(cls, finish_reason: str = "") -> LLMEvent:
        return cls("done", finish_reason=finish_reason)

    @classmethod
    def failed(cls, err: LLMError) -> LLMEvent:
        return cls("error", error=err.user_message, error_kind=err.kind)


@dataclass(frozen=True)
class GenerationRequest:
    """What an answer is generated from: the rendered prompt and what it was rendered from.

    A chat model reads ``messages``; the offline extractive answerer reads the question's
    ``analysis`` (``question`` is its text), ``sources`` (``(N, chunk)`` pairs, N being the
    number cited as ``[Source N]``) and ``language`` (of its notice: the pipeline gives the
    question's). Raises ValueError unless ``messages`` is a non-empty sequence of
    ``ChatMessage``.
    """

    messages: tuple[ChatMessage, ...]
    analysis: QueryAnalysis
    sources: tuple[tuple[int, Chunk], ...] = ()
    language: Language = "zh"
    # What the library check found missing (rag_app.trust.answerability), in words, and whether that
    # leaves nothing to answer: the offline answerer then says so instead of quoting.
    finding: str = ""
    declined: bool = False

    def __post_init__(self) -> None:
        # Callers may pass lists; the request keeps tuples so it cannot change under a model.
        object.__setattr__(self, "messages", tuple(self.messages))
        object.__setattr__(self, "sources", tuple(self.sources))
        validate_messages(self.messages)

    @property
    def question(self) -> str:
        """The question answered (a follow-up as made standalone)."""
        return self.analysis.text

    @classmethod
    def from_messages(
        cls, messages: Sequence[ChatMessage], language: Language | None = None
    ) -> GenerationRequest:
        """A request with no sources, for callers that only have messages (the settings page's
        connection test, a question's rewrite): the question is the last user message, analysed
        here, the language that question's unless given."""
        validate_messages(messages)
        analysis = analyse_query(
            next((m.content for m in reversed(messages) if m.role == "user"), "")
        )
        return cls(tuple(messages), analysis, (), language or analysis.language)


@runtime_checkable
class LLM(Protocol):
    """A model that answers a ``GenerationRequest``: ``stream`` yields ``LLMEvent``s ending in
    exactly one ``done`` or ``error``."""

    name: str

    def stream(self, request: GenerationRequest) -> Iterator[LLMEvent]: ...


@dataclass(frozen=True)
class Completion:
    """A whole streamed answer, gathered by ``collect``."""

    text: str
    usage: Usage | None = None
    error: str = ""
    error_kind: str = ""
    retries: int = 0
    finish_reason: str = ""

    @property
    def ok(self) -> bool:
        return not self.error


def collect(events: Iterable[LLMEvent]) -> Completion:
    """Drain a stream into one ``Completion`` (the CLI and evaluation use this)."""
    parts: list[str] = []
    usage: Usage | None = None
    error = error_kind = finish_reason = ""
    retries = 0
    for event in events:
        if event.kind == "token":
            parts.append(event.text)
        elif event.kind == "usage":
            usage = event.usage
        elif event.kind == "retry":
            retries += 1
        elif event.kind == "error":
            error, error_kind = event.error, event.error_kind
        elif event.kind == "done":
            finish_reason = event.finish_reason
    return Completion("".join(parts), usage, error, error_kind, retries, finish_reason)


def validate_messages(messages: Sequence[ChatMessage]) -> None:
    """Raise ValueError unless ``messages`` is a non-empty sequence of ChatMessage."""
    if not messages:
        raise ValueError("at least one message is required")
    for message in messages:
        if not isinstance(message, ChatMessage):
            raise ValueError(f"expected ChatMessage, got {type(message).__name__}")


# A citation marker stays one piece so a UI that turns markers into links never sees half of one;
# otherwise words with their trailing space, or single CJK characters and punctuation.
_PIECE = re.compile(r"\[Source \d+\]|\s*[A-Za-z0-9_.'%-]+\s*|\s*\S\s*|\s+")


def split_stream_pieces(text: str, max_chars: int = 1) -> list[str]:
    """Split ``text`` into stream pieces; ``"".join`` gives ``text`` back.

    Pieces are words or single characters, merged up to ``max_chars`` characters; a
    ``[Source N]`` marker is never split.
    """
    pieces: list[str] = []
    mergeable = False  # whether the last piece may grow (it is not a marker)
    for piece in _PIECE.findall(text):
        is_marker = piece.startswith("[Source ")
        if mergeable and not is_marker and len(pieces[-1]) + len(piece) <= max_chars:
            pieces[-1] += piece
        else:
            pieces.append(piece)
            mergeable = not is_marker
    return pieces


def provider_from_env(env: Mapping[str, str] | None = None) -> ProviderSettings | None:
    """Provider settings from ``RAG_APP_BASE_URL``/``OPENAI_BASE_URL``, ``RAG_APP_MODEL`` and
    ``RAG_APP_API_KEY``/``OPENAI_API_KEY`` (read by ``rag_app.config.read_provider_env``); None
    (the offline answerer) without a model."""
    found = read_provider_env(env)
    if not found.model:
        return None
    base_url = found.base_url or OPENAI_BASE_URL
    return ProviderSettings(base_url=base_url, model=found.model, api_key=found.api_key)
