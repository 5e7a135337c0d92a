"""The OpenAI-compatible client against a real local HTTP server, and the scripted LLM."""

from __future__ import annotations

import dataclasses
import logging
import socket
import time
from dataclasses import fields

import pytest

from rag_app.answer.base import (
    LLM,
    ChatMessage,
    GenerationRequest,
    LLMError,
    LLMEvent,
    ProviderSettings,
    Usage,
    collect,
    mask_key,
    split_stream_pieces,
)
from rag_app.answer.openai_client import OpenAIChatLLM
from rag_app.answer.scripted import ScriptedLLM, ScriptedResponse
from rag_app.understand.analysis import analyse_query
from tests.openai_stub_server import OpenAIStubServer, Reply

KEY = "sk-test-9f8e7d6c5b4a3210SECRETabcd"
MESSAGES = [
    ChatMessage("system", "只根据参考资料回答。"),
    ChatMessage("user", "中芯南方的产能是多少？"),
]
REQUEST = GenerationRequest.from_messages(MESSAGES)


@pytest.fixture
def stub():
    with OpenAIStubServer() as server:
        yield server


@pytest.fixture
def settings(stub: OpenAIStubServer) -> ProviderSettings:
    # A generous timeout so a busy machine never turns a normal answer into a retry; the
    # timeout tests use ``impatient`` instead.
    return ProviderSettings(
        base_url=stub.base_url,
        model="stub-model",
        api_key=KEY,
        timeout_s=5,
        max_retries=2,
        backoff_s=0.01,
    )


@pytest.fixture
def llm(settings: ProviderSettings) -> OpenAIChatLLM:
    return OpenAIChatLLM(settings)


@pytest.fixture
def impatient(settings: ProviderSettings) -> OpenAIChatLLM:
    return OpenAIChatLLM(dataclasses.replace(settings, timeout_s=0.3))


def kinds(events: list[LLMEvent]) -> list[str]:
    return [e.kind for e in events]


def text_of(events: list[LLMEvent]) -> str:
    return "".join(e.text for e in events if e.kind == "token")


def assert_no_key(obj: object) -> None:
    assert KEY not in repr(obj) and KEY not in str(obj)
    assert KEY[8:-4] not in repr(obj)  # not even the middle of it


# -- streaming ---------------------------------------------------------------------------------


def test_streams_tokens_in_order_then_usage_then_done(stub, llm):
    stub.enqueue(Reply(text="中芯南方产能为 3.5 万片/月。", usage=(21, 9)))
    events = list(llm.stream(REQUEST))

    tokens = [e.text for e in events if e.kind == "token"]
    assert len(tokens) > 5  # streamed in pieces, not one blob
    assert "".join(tokens) == "中芯南方产能为 3.5 万片/月。"
    assert kinds(events)[-2:] == ["usage", "done"]
    assert events[-2].usage == Usage(21, 9)
    assert events[-1].finish_reason == "stop"

    (request,) = stub.chat_requests
    assert request.body["model"] == "stub-model"
    assert request.body["stream"] is True
    assert request.body["stream_options"] == {"include_usage": True}
    assert request.body["temperature"] == 0.1 and request.body["max_tokens"] == 1024
    assert request.messages == [{"role": m.role, "content": m.content} for m in MESSAGES]
    assert request.authorization == f"Bearer {KEY}"


def test_usage_is_estimated_when_provider_sends_none(stub, llm):
    stub.enqueue(Reply(text="hello there", send_usage=False))
    completion = collect(llm.stream(REQUEST))
    assert completion.ok and completion.text == "hello there"
    # no token counter given: the process's (cl100k) counts, and 4 per message for the chat
    # format. Prompt: 12 + 4 (system) + 12 + 4 (user); answer: "hello", " there".
    assert completion.usage == Usage(32, 2, estimated=True)


def test_satisfies_llm_protocol(llm):
    assert isinstance(llm, LLM)
    assert isinstance(ScriptedLLM(), LLM)
    assert "stub-model" in llm.name


def test_consumer_may_stop_early_and_client_stays_usable(stub, llm):
    stub.enqueue(Reply(text="one two three four five six"), Reply(text="again"))
    stream = llm.stream(REQUEST)
    assert next(stream).kind == "token"
    stream.close()
    assert collect(llm.stream(REQUEST)).text == "again"


def test_rejects_malformed_messages():
    with pytest.raises(ValueError):
        GenerationRequest.from_messages([])
    with pytest.raises(ValueError):
        GenerationRequest(("hi",), analyse_query("hi"))  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        ChatMessage("robot", "hi")  # type: ignore[arg-type]


def test_request_from_messages_takes_the_last_user_message_as_the_question():
    assert REQUEST.question == "中芯南方的产能是多少？"
    assert REQUEST.messages == tuple(MESSAGES) and REQUEST.sources == ()
    assert REQUEST.language == "zh"
    english = GenerationRequest.from_messages(
        [ChatMessage("user", "What is SMIC's capacity?"), ChatMessage("assistant", "About 80k.")]
    )
    assert english.question == "What is SMIC's capacity?" and english.language == "en"


def test_list_models(stub, llm):
    assert llm.list_models() == ["stub-model", "stub-model-large"]
    assert stub.requests[-1].authorization == f"Bearer {KEY}"


# -- the key -----------------------------------------------------------------------------------


def test_key_never_in_repr_or_str(settings, llm):
    assert_no_key(settings)
    assert_no_key(llm)
    assert settings.masked_key == "sk-…abcd"
    assert "sk-…abcd" in repr(llm)
    assert not any(f.repr for f in fields(settings) if f.name == "api_key")


def test_mask_key():
    assert mask_key("") == ""
    assert mask_key("short") == "…"
    assert mask_key("sk-proj-abcdefghijklmnop1234") == "sk-…1234"
    assert mask_key("abcdefghijklmnop1234") == "…1234"


def test_key_echoed_by_provider_is_redacted_and_auth_is_not_retried(stub, llm, caplog):
    stub.enqueue(Reply(status=401, error_message=f"Incorrect API key provided: {KEY}."))
    with caplog.at_level(logging.DEBUG):
        events = list(llm.stream(REQUEST))
    assert kinds(events) == ["error"]
    assert events[0].error_kind == "auth"
    assert "API Key" in events[0].error and "API key" in events[0].error
    assert "sk-…abcd" in events[0].error  # the provider's message, masked
    for event in events:
        assert_no_key(event)
    assert KEY not in caplog.text
    assert len(stub.chat_requests) == 1


# -- retries -----------------------------------------------------------------------------------


@pytest.mark.timing  # 0.3 s timeouts: run alone, not beside a loaded worker
def test_timeout_is_retried_then_reported_without_the_key(stub, impatient, caplog):
    stub.set_default(Reply(delay_s=3))
    start = time.monotonic()
    with caplog.at_level(logging.DEBUG):
        events = list(impatient.stream(REQUEST))
    elapsed = time.monotonic() - start
    for event in events:
        assert_no_key(event)
    assert KEY not in caplog.text

    assert kinds(events) == ["retry", "retry", "error"]
    assert [e.attempt for e in events[:2]] == [2, 3]
    assert [e.delay_s for e in events[:2]] == [0.01, 0.02]  # exponential backoff
    assert all(e.error_kind == "timeout" for e in events)
    assert "超时" in events[-1].error and "timed out" in events[-1].error
    assert len(stub.chat_requests) == 3
    assert elapsed < 2.9  # three 0.3 s timeouts, not even one of the server's 3 s delays


def test_rate_limit_then_success(stub, llm):
    stub.enqueue(Reply(status=429, error_message="slow down"), Reply(text="好的"))
    events = list(llm.stream(REQUEST))
    assert kinds(events) == ["retry", "token", "token", "usage", "done"]
    assert events[0].error_kind == "rate_limit"
    assert "限流" in events[0].text and "retrying" in events[0].text
    assert text_of(events) == "好的"


def test_retry_after_header_is_honoured(stub, llm):
    stub.enqueue(Reply(status=429, headers=(("Retry-After", "0.3"),)), Reply(text="ok"))
    start = time.monotonic()
    events = list(llm.stream(REQUEST))
    assert events[0].kind == "retry" and events[0].delay_s == pytest.approx(0.3)
    assert time.monotonic() - start >= 0.3
    assert text_of(events) == "ok"


def test_server_errors_exhaust_retries(stub, llm):
    stub.set_default(Reply(status=500, error_message="upstream exploded"))
    events = list(llm.stream(REQUEST))
    assert kinds(events) == ["retry", "retry", "error"]
    assert events[-1].error_kind == "server"
    assert "HTTP 500" in events[-1].error and "upstream exploded" in events[-1].error
    assert len(stub.chat_requests) == 3


def test_no_retries_when_max_retries_is_zero(stub, settings):
    stub.set_default(Reply(status=503))
    llm = OpenAIChatLLM(dataclasses.replace(settings, max_retries=0))
    assert kinds(list(llm.stream(REQUEST))) == ["error"]
    assert len(stub.chat_requests) == 1


def test_bad_request_is_not_retried(stub, llm):
    stub.enqueue(Reply(status=404, error_message="The model `stub-model` does not exist"))
    events = list(llm.stream(REQUEST))
    assert kinds(events) == ["error"]
    assert events[0].error_kind == "bad_request"
    assert "does not exist" in events[0].error
    assert len(stub.chat_requests) == 1


def test_connection_refused_is_retried_then_reported(settings):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    llm = OpenAIChatLLM(dataclasses.replace(settings, base_url=f"http://127.0.0.1:{port}/v1"))
    events = list(llm.stream(REQUEST))
    assert kinds(events) == ["retry", "retry", "error"]
    assert events[-1].error_kind == "connection"
    assert "无法连接" in events[-1].error


# -- broken streams ----------------------------------------------------------------------------


def test_mid_stream_break_keeps_partial_text_and_never_restarts(stub, llm):
    stub.enqueue(Reply(text="one two three four five", break_after=2), Reply(text="WRONG"))
    events = list(llm.stream(REQUEST))
    assert kinds(events) == ["token", "token", "error"]
    assert text_of(events) == "one two "
    assert events[-1].error_kind == "connection"
    assert "中断" in events[-1].error and "cut off" in events[-1].error
    assert len(stub.chat_requests) == 1  # no silent restart that would duplicate text

    completion = collect(events)
    assert completion.text == "one two " and not completion.ok


@pytest.mark.timing  # 0.3 s timeouts: run alone, not beside a loaded worker
def test_timeout_between_chunks_after_first_token_is_not_retried(stub, impatient):
    stub.enqueue(Reply(text="慢 慢 来", pieces=("慢", "慢", "来"), chunk_delay_s=1.0))
    events = list(impatient.stream(REQUEST))
    assert kinds(events) == ["token", "error"]
    assert text_of(events) == "慢"
    assert "retry" not in kinds(events)
    assert events[-1].error_kind == "timeout"
    assert len(stub.chat_requests) == 1


def test_stream_ending_without_finish_reason_is_reported_as_cut_off(stub, llm):
    stub.enqueue(Reply(text="half an answer", finish_reason=None, send_usage=False))
    events = list(llm.stream(REQUEST))
    assert text_of(events) == "half an answer"
    assert events[-1].kind == "error" and events[-1].error_kind == "connection"


@pytest.mark.parametrize(
    "reply",
    [
        Reply(raw_lines=("data: this is not json",)),
        Reply(raw_lines=('data: {"id": "x", "object": "chat.completion.chunk"}', "data: [DONE]")),
        Reply(raw_lines=("data: [1, 2, 3]",)),
        Reply(raw_lines=('data: {"choices": "nope"}',)),
        Reply(raw_lines=('data: {"choices": [{"index": 0, "delta": {"content": 42}}]}',)),
        Reply(raw_body="<html><body>Bad gateway, but 200</body></html>", content_type="text/html"),
        Reply(raw_lines=("data: [DONE]",)),
    ],
    ids=[
        "not-json",
        "no-choices",
        "json-list",
        "choices-not-list",
        "content-not-text",
        "html",
        "empty",
    ],
)
def test_garbage_is_a_bad_response(stub, llm, reply):
    stub.enqueue(reply)
    events = list(llm.stream(REQUEST))
    assert kinds(events) == ["error"]
    assert events[0].error_kind == "bad_response"
    assert "无法解析" in events[0].error and "could not be read" in events[0].error
    assert len(stub.chat_requests) == 1


def test_error_object_inside_stream_is_a_retryable_server_error(stub, llm):
    stub.set_default(Reply(raw_lines=('data: {"error": {"message": "model overloaded"}}',)))
    events = list(llm.stream(REQUEST))
    assert kinds(events) == ["retry", "retry", "error"]
    assert events[-1].error_kind == "server" and "model overloaded" in events[-1].error


def test_stream_options_rejection_falls_back_and_is_remembered(stub, llm):
    stub.enqueue(Reply(text="fallback ok", reject_stream_options=True), Reply(text="second"))
    first = list(llm.stream(REQUEST))
    assert kinds(first)[-1] == "done" and "retry" not in kinds(first)
    assert text_of(first) == "fallback ok"
    usage = next(e.usage for e in first if e.kind == "usage")
    assert usage is not None and usage.estimated

    assert collect(llm.stream(REQUEST)).text == "second"
    sent = [r.body.get("stream_options") for r in stub.chat_requests]
    assert sent == [{"include_usage": True}, None, None]


# -- errors and events -------------------------------------------------------------------------


def test_llm_error_messages_are_bilingual():
    err = LLMError("rate_limit", "HTTP 429")
    assert "限流" in str(err) and "rate limiting" in str(err) and "HTTP 429" in str(err)
    partial = LLMError("connection", partial=True)
    assert "中断" in partial.user_message and "cut off" in partial.user_message


def test_split_stream_pieces_round_trips_and_keeps_markers_whole():
    text = "产能为3.5万片/月 [Source 2]，revenue grew 12% [Source 10]."
    pieces = split_stream_pieces(text, 4)
    assert "".join(pieces) == text
    assert "[Source 2]" in pieces and "[Source 10]" in pieces


# -- ScriptedLLM --------------------------------------------------------------------------------


def test_scripted_llm_records_calls_and_plays_in_order():
    llm = ScriptedLLM("第一个回答 first", "second")
    first = list(llm.stream(REQUEST))
    assert text_of(first) == "第一个回答 first"
    assert len([e for e in first if e.kind == "token"]) > 3
    assert kinds(first)[-2:] == ["usage", "done"]
    again = GenerationRequest.from_messages([ChatMessage("user", "again?")])
    assert collect(llm.stream(again)).text == "second"
    assert llm.calls == [REQUEST, again]
    assert llm.last_messages == (ChatMessage("user", "again?"),)
    with pytest.raises(AssertionError):
        list(llm.stream(REQUEST))  # nothing queued, no default


def test_scripted_llm_errors():
    llm = ScriptedLLM(default="fine")
    llm.enqueue(
        LLMError("timeout"),
        ScriptedResponse("half", error=LLMError("connection")),
        RuntimeError("boom"),
    )
    events = list(llm.stream(REQUEST))
    assert kinds(events) == ["error"] and events[0].error_kind == "timeout"

    events = list(llm.stream(REQUEST))
    assert text_of(events) == "half" and events[-1].kind == "error"
    assert "cut off" in events[-1].error

    with pytest.raises(RuntimeError, match="boom"):
        list(llm.stream(REQUEST))
    assert collect(llm.stream(REQUEST)).text == "fine"
    assert len(llm.calls) == 4
