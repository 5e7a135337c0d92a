"""Seed 001's rewrites with a configured model: each a setting, off by default; their queries
retrieved and fused with the question's own, listed in the trace with what they added; a failed
rewrite is a note, never an error (the scripted LLM, and the real client against the local
OpenAI-style server)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from rag_app.answer import OpenAIChatLLM, ProviderSettings
from rag_app.answer.base import LLMError
from rag_app.answer.scripted import ScriptedLLM, ScriptedResponse
from rag_app.config import load_settings
from rag_app.index.library import Library
from rag_app.models import AskOptions
from rag_app.pipeline.ask import Pipeline
from rag_app.pipeline.expansions import expand
from rag_app.stage_settings import RewriteSettings
from tests.conftest import SAMPLE_CONTENT_LIST, hash_library
from tests.openai_stub_server import OpenAIStubServer, Reply

OPTIONS = AskOptions(kb="default", mode="hybrid", top_k=8)
TWO_PART = "中芯国际14nm FinFET在哪条产线？该产线的当前产能是多少？"


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory, counter) -> Library:  # type: ignore[no-untyped-def]
    return hash_library(tmp_path_factory.mktemp("expansions"), counter, [SAMPLE_CONTENT_LIST])


def with_rewrites(library: Library, **on: bool) -> Pipeline:
    settings = replace(library.settings, rewrites=RewriteSettings(**on))  # type: ignore[arg-type]
    return Pipeline(settings, library, ScriptedLLM(default="答案 [Source 1]。"))


def test_rewrites_are_off_by_default_and_cost_no_model_call(sample: Library) -> None:
    llm = ScriptedLLM(default="答案 [Source 1]。")
    answer = Pipeline(sample.settings, sample, llm).ask(TWO_PART, OPTIONS)
    assert len(llm.calls) == 1 and answer.retrieval.expansions == ()
    assert RewriteSettings() == RewriteSettings(multi_query=False, hyde=False, decompose=False)


def test_decomposition_retrieves_each_sub_question_and_fuses_what_they_add(sample: Library) -> None:
    pipeline = with_rewrites(sample, decompose=True)
    alone = Pipeline(sample.settings, sample).retrieve(TWO_PART, OPTIONS)
    second = "中芯国际2026年预测市盈率是多少？"  # what the two-part question alone misses
    pipeline.llm.enqueue(f"中芯国际14nm FinFET在哪条产线？\n{second}")  # type: ignore[attr-defined]
    events = list(pipeline.stream(TWO_PART, OPTIONS))
    trace = events[-1].answer.retrieval  # type: ignore[union-attr]
    assert [e.kind for e in trace.expansions] == ["decompose", "decompose"]
    assert trace.expansions[1].query == second
    assert len(trace.hits) <= 8 and [h.rank for h in trace.hits] == list(
        range(1, len(trace.hits) + 1)
    )
    added = {cid for e in trace.expansions for cid in e.added}
    own = {h.chunk.chunk_id for h in alone.hits}
    assert added and not added & own  # what a sub-question alone found
    best = Pipeline(sample.settings, sample).retrieve(second, OPTIONS).hits[0].chunk.chunk_id
    assert best in {h.chunk.chunk_id for h in trace.hits}
    for hit in trace.hits:
        if hit.chunk.chunk_id in added:
            assert hit.strategy == "decompose" and "rewrite" in hit.note
    assert any(e.kind == "stage" and e.stage == "expanded" for e in events)


def test_multi_query_and_hyde_add_their_queries(sample: Library) -> None:
    pipeline = with_rewrites(sample, multi_query=True, hyde=True)
    pipeline.llm.enqueue(  # type: ignore[attr-defined]
        "1. 中芯国际2026E市盈率\n2. SMIC P/E 2026\n- 中芯国际 2026年 PE 估值",
        "预计中芯国际2026年市盈率为106.2倍，对应每股收益0.81元。",
    )
    trace = pipeline.ask("中芯国际2026年预测市盈率是多少？", OPTIONS).retrieval
    assert [(e.kind, e.query) for e in trace.expansions] == [
        ("multi_query", "中芯国际2026E市盈率"),
        ("multi_query", "SMIC P/E 2026"),
        ("multi_query", "中芯国际 2026年 PE 估值"),
        ("hyde", "预计中芯国际2026年市盈率为106.2倍，对应每股收益0.81元。"),
    ]


def test_a_failed_rewrite_is_a_note_and_the_answer_goes_on(sample: Library) -> None:
    pipeline = with_rewrites(sample, multi_query=True)
    pipeline.llm.enqueue(ScriptedResponse(error=LLMError("timeout")))  # type: ignore[attr-defined]
    answer = pipeline.ask("中芯国际2026年预测市盈率是多少？", OPTIONS)
    assert answer.text and not answer.error and answer.retrieval.expansions == ()
    assert any(n.startswith("multi-query failed") for n in answer.retrieval.notes)
    assert answer.hits


def test_expand_keeps_the_questions_own_hits_and_their_provenance(sample: Library) -> None:
    own = Pipeline(sample.settings, sample).retrieve("中芯国际的产线", OPTIONS)
    llm = ScriptedLLM("中芯国际的产线")  # the same query again: nothing new
    trace = expand(own, llm, RewriteSettings(multi_query=True), lambda q: own, k=8)
    assert [h.chunk.chunk_id for h in trace.hits] == [h.chunk.chunk_id for h in own.hits][:8]
    assert [h.strategy for h in trace.hits] == [h.strategy for h in own.hits][:8]


def test_the_setting_reads_from_the_environment() -> None:
    settings = load_settings(env={"RAG_APP_REWRITES": "multi_query, hyde"})
    assert (
        settings.rewrites.multi_query and settings.rewrites.hyde and not settings.rewrites.decompose
    )
    with pytest.raises(ValueError, match="unknown"):
        load_settings(env={"RAG_APP_REWRITES": "rerank"})


def test_the_real_client_rewrites_through_an_openai_style_server(sample: Library) -> None:
    settings = replace(sample.settings, rewrites=RewriteSettings(decompose=True))
    with OpenAIStubServer() as server:
        server.enqueue(
            Reply(text="中芯国际14nm FinFET在哪条产线？\n中芯南方（SN1）的当前产能是多少？"),
            Reply(text="中芯南方（SN1），当前产能3.5万片/月 [Source 1]。"),
        )
        provider = ProviderSettings(
            base_url=server.base_url, model="stub-model", api_key="sk-test-2"
        )
        answer = Pipeline(settings, sample, OpenAIChatLLM(provider)).ask(TWO_PART, OPTIONS)
        assert [e.query for e in answer.retrieval.expansions][
            1
        ] == "中芯南方（SN1）的当前产能是多少？"
        assert server.requests[0].messages[-1]["content"] == TWO_PART
        assert answer.text.startswith("中芯南方（SN1）")
