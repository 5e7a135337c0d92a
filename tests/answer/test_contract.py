"""The ``LLM`` contract, run against every implementation (haystack's ``DocumentStoreBaseTests``).

``LLMContract`` holds the tests every model must pass; each ``Test...`` subclass supplies the
model (the ``llm`` fixture) and says what it will answer (``will_answer``) and how it can fail
(``will_fail``), then adds the tests only its implementation needs.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from rag_app.answer.base import (
    LLM,
    ChatMessage,
    GenerationRequest,
    LLMError,
    LLMEvent,
    ProviderSettings,
    collect,
)
from rag_app.answer.offline import NOT_FOUND, NOTICE, ExtractiveAnswerer
from rag_app.answer.openai_client import OpenAIChatLLM
from rag_app.answer.scripted import ScriptedLLM, ScriptedResponse
from rag_app.models import Chunk
from rag_app.understand.analysis import analyse_query
from tests.openai_stub_server import OpenAIStubServer, Reply

TEXT = Chunk(
    "c-text",
    "smic",
    "text",
    "公司2023年营业收入为63.2亿美元，同比下降8.6%。毛利率为19.3%。",
    "",
    (3,),
)
TABLE = Chunk(
    "c-table",
    "smic",
    "table",
    "",
    "",
    (5,),
    caption="表2：主要晶圆厂产能",
    table_html=(
        "<table><tr><th>工厂</th><th>产能（万片/月）</th></tr>"
        "<tr><td>中芯南方</td><td>3.5</td></tr><tr><td>中芯北京</td><td>10</td></tr></table>"
    ),
    header_rows=1,
)
QUESTION = "中芯南方的产能是多少？"
WITH_SOURCES = GenerationRequest(
    messages=(
        ChatMessage("system", "只根据参考资料回答，并用 [Source N] 标注出处。"),
        ChatMessage("user", f"[Source 2] {TEXT.text}\n[Source 5] 中芯南方 3.5\n\n{QUESTION}"),
    ),
    analysis=analyse_query(QUESTION),
    sources=((2, TEXT), (5, TABLE)),
    language="zh",
)
WITHOUT_SOURCES = GenerationRequest.from_messages([ChatMessage("user", "What is the capacity?")])
# What the chat models are scripted to answer: CJK, a number and a marker, so pieces vary.
CHAT_ANSWER = "中芯南方的产能为3.5万片/月 [Source 5]。"

TERMINAL = ("done", "error")


def terminal_events(events: list[LLMEvent]) -> list[LLMEvent]:
    return [e for e in events if e.kind in TERMINAL]


class LLMContract:
    """The tests every ``LLM`` passes. Subclasses define the ``llm`` fixture and the hooks."""

    # Whether the model reports token usage (a chat model does, counted or estimated).
    reports_usage = True

    def will_answer(self, llm: LLM, request: GenerationRequest) -> str:
        """Arrange the model's answer to ``request``; return the text it will stream."""
        raise NotImplementedError

    def will_fail(self, llm: LLM) -> str | None:
        """Arrange for the next answer to break off after some text; return that text, or None
        when the model cannot fail."""
        return None

    def test_is_an_llm_with_a_name(self, llm: LLM) -> None:
        assert isinstance(llm, LLM)
        assert isinstance(llm.name, str) and llm.name.strip()

    def test_events_end_in_exactly_one_terminal_event(self, llm: LLM) -> None:
        self.will_answer(llm, WITH_SOURCES)
        events = list(llm.stream(WITH_SOURCES))
        assert [e.kind for e in terminal_events(events)] == ["done"]
        assert events[-1].kind == "done"
        assert {e.kind for e in events} <= {"token", "usage", "retry", "done"}

    def test_tokens_concatenate_to_the_answer(self, llm: LLM) -> None:
        expected = self.will_answer(llm, WITH_SOURCES)
        events = list(llm.stream(WITH_SOURCES))
        tokens = [e.text for e in events if e.kind == "token"]
        assert len(tokens) > 1, "the answer is streamed in pieces, not as one blob"
        assert all(tokens)
        assert "".join(tokens) == expected
        assert collect(events).text == expected

    def test_a_request_without_sources_is_answered(self, llm: LLM) -> None:
        expected = self.will_answer(llm, WITHOUT_SOURCES)
        completion = collect(llm.stream(WITHOUT_SOURCES))
        assert completion.ok, completion.error
        assert completion.text == expected and expected

    def test_usage_comes_at_most_once_before_the_end(self, llm: LLM) -> None:
        self.will_answer(llm, WITH_SOURCES)
        kinds = [e.kind for e in llm.stream(WITH_SOURCES)]
        assert kinds.count("usage") == (1 if self.reports_usage else 0)
        if self.reports_usage:  # after the last token, right before the end
            assert kinds[-2:] == ["usage", "done"] and "usage" not in kinds[:-2]

    def test_a_consumer_may_stop_early_and_the_model_stays_usable(self, llm: LLM) -> None:
        self.will_answer(llm, WITH_SOURCES)
        stream = llm.stream(WITH_SOURCES)
        assert next(iter(stream)).kind == "token"
        getattr(stream, "close", lambda: None)()
        expected = self.will_answer(llm, WITHOUT_SOURCES)
        assert collect(llm.stream(WITHOUT_SOURCES)).text == expected

    def test_a_failure_is_one_error_event_after_the_text_so_far(self, llm: LLM) -> None:
        partial = self.will_fail(llm)
        if partial is None:
            pytest.skip(f"{type(llm).__name__} cannot fail")
        events = list(llm.stream(WITH_SOURCES))
        assert [e.kind for e in terminal_events(events)] == ["error"]
        assert events[-1].kind == "error" and events[-1].error and events[-1].error_kind
        completion = collect(events)
        assert completion.text == partial and not completion.ok


class TestScriptedLLM(LLMContract):
    @pytest.fixture
    def llm(self) -> ScriptedLLM:
        return ScriptedLLM(name="scripted-test")

    def will_answer(self, llm: LLM, request: GenerationRequest) -> str:
        assert isinstance(llm, ScriptedLLM)
        llm.enqueue(CHAT_ANSWER)
        return CHAT_ANSWER

    def will_fail(self, llm: LLM) -> str | None:
        assert isinstance(llm, ScriptedLLM)
        llm.enqueue(ScriptedResponse("中芯南方的产能", error=LLMError("connection")))
        return "中芯南方的产能"

    def test_records_the_request_it_was_given(self, llm: ScriptedLLM) -> None:
        llm.enqueue("one", "two")
        collect(llm.stream(WITH_SOURCES))
        collect(llm.stream(WITHOUT_SOURCES))
        assert llm.calls == [WITH_SOURCES, WITHOUT_SOURCES]
        assert llm.last_messages == WITHOUT_SOURCES.messages


class TestExtractiveAnswerer(LLMContract):
    reports_usage = False  # it calls no model: nothing to count

    @pytest.fixture
    def llm(self) -> ExtractiveAnswerer:
        return ExtractiveAnswerer()

    def will_answer(self, llm: LLM, request: GenerationRequest) -> str:
        assert isinstance(llm, ExtractiveAnswerer)
        return llm.answer_text(request.analysis, request.sources, request.language)

    def test_quotes_the_row_the_question_names_with_its_source_number(
        self, llm: ExtractiveAnswerer
    ) -> None:
        text = collect(llm.stream(WITH_SOURCES)).text
        assert text.startswith(NOTICE["zh"])
        assert "- 工厂: 中芯南方; 产能（万片/月）: 3.5 [Source 5]" in text.splitlines()

    def test_without_sources_it_says_so_in_the_questions_language(
        self, llm: ExtractiveAnswerer
    ) -> None:
        text = collect(llm.stream(WITHOUT_SOURCES)).text
        assert text == f"{NOTICE['en']}\n\n{NOT_FOUND['en']}"


class TestOpenAIChatLLM(LLMContract):
    @pytest.fixture
    def llm(self) -> Iterator[OpenAIChatLLM]:
        with OpenAIStubServer() as server:
            self.stub = server
            settings = ProviderSettings(
                base_url=server.base_url,
                model="stub-model",
                api_key="sk-test-contract-0000",
                timeout_s=5,  # generous: a busy machine must not turn an answer into a retry
                max_retries=2,
                backoff_s=0.01,
            )
            yield OpenAIChatLLM(settings)

    def will_answer(self, llm: LLM, request: GenerationRequest) -> str:
        self.stub.enqueue(Reply(text=CHAT_ANSWER))
        return CHAT_ANSWER

    def will_fail(self, llm: LLM) -> str | None:
        self.stub.enqueue(Reply(text=CHAT_ANSWER, break_after=3))
        return "".join(Reply(text=CHAT_ANSWER).stream_pieces()[:3])

    def test_sends_the_requests_messages_and_nothing_of_its_sources(
        self, llm: OpenAIChatLLM
    ) -> None:
        self.stub.enqueue(Reply(text=CHAT_ANSWER))
        collect(llm.stream(WITH_SOURCES))
        (sent,) = self.stub.chat_requests
        assert sent.messages == [
            {"role": m.role, "content": m.content} for m in WITH_SOURCES.messages
        ]
        assert "c-table" not in str(sent.body)
