"""Self-RAG (seed 001): a model's answer whose claims the citation check flags gets one more
retrieval for what is missing and a revised answer, bounded in rounds and time, every round in
the Answer; off by default, and never for the offline answerer."""

from __future__ import annotations

from dataclasses import replace

import pytest

from rag_app.answer.base import ProviderSettings
from rag_app.answer.openai_client import OpenAIChatLLM
from rag_app.answer.scripted import ScriptedLLM
from rag_app.config import SelfRagSettings, Settings, load_settings
from rag_app.index.library import Library
from rag_app.models import AskOptions
from rag_app.pipeline.ask import Pipeline
from rag_app.trust.self_rag import missing_queries, revise
from rag_app.understand.analysis import analyse_query
from tests.conftest import SAMPLE_CONTENT_LIST, hash_library
from tests.openai_stub_server import OpenAIStubServer, Reply

QUESTION = "中芯国际2026年预测市盈率是多少？"
OPTIONS = AskOptions(kb="default", mode="hybrid")
# A changed figure: no source holds 555.5, so the check flags it.
WRONG = "2026年预测市盈率为555.5倍 [Source 1]。"
# About another period and metric: supported by its source, but not what was asked.
OFF = "2024年营业收入为577.96亿元 [Source 3]。"
# The revision cites every source it may have, so it is supported whatever their numbers.
RIGHT = "2026年预测市盈率为106.2倍 " + "".join(f"[Source {n}]" for n in range(1, 13)) + "。"


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory, counter) -> Library:  # type: ignore[no-untyped-def]
    return hash_library(tmp_path_factory.mktemp("self_rag"), counter, [SAMPLE_CONTENT_LIST])


def on(library: Library, **changes: object) -> Settings:
    return replace(library.settings, self_rag=SelfRagSettings(enabled=True, **changes))  # type: ignore[arg-type]


def test_an_unsupported_claim_is_retrieved_for_and_the_answer_revised(sample):
    llm = ScriptedLLM(WRONG, RIGHT)
    answer = Pipeline(on(sample), sample, llm).ask(QUESTION, OPTIONS)

    assert len(llm.calls) == 2
    assert answer.text == RIGHT
    (round_,) = answer.revisions
    assert round_.kept and round_.draft == WRONG and round_.note == ""
    assert round_.flagged[0].startswith("2026年预测市盈率为555.5倍")
    assert round_.queries == ("2026年预测市盈率为555.5倍。",)
    # the revised prompt names the flagged claim; the round's retrieval is in the trace
    revised_prompt = llm.calls[1].messages[-1].content
    assert "555.5" in revised_prompt and "自查" in revised_prompt
    assert [e.kind for e in answer.retrieval.expansions] == ["self_rag"]
    assert answer.retrieval.expansions[0].added == round_.added
    assert answer.citations is not None and not answer.citations.flagged
    assert answer.timing("self_rag_ms") is not None


def test_an_off_question_claim_is_retrieved_for_by_what_the_question_asks(sample):
    llm = ScriptedLLM(OFF, RIGHT)
    answer = Pipeline(on(sample), sample, llm).ask(QUESTION, OPTIONS)

    (round_,) = answer.revisions
    assert round_.queries == ("中芯国际 2026年 市盈率",)
    assert "the question asks 2026年" in round_.flagged[0]
    assert round_.kept and answer.text == RIGHT
    assert answer.citations.relevance_checked and answer.citations.off_question_count == 0


def test_a_revision_no_better_is_not_kept_and_rounds_are_bounded(sample):
    llm = ScriptedLLM(WRONG, WRONG, WRONG, WRONG)
    answer = Pipeline(on(sample, max_rounds=3), sample, llm).ask(QUESTION, OPTIONS)
    (round_,) = answer.revisions  # no better: the rounds stop there
    assert not round_.kept and round_.note == "the revision was no better"
    assert answer.text == WRONG and len(llm.calls) == 2

    # each kept revision starts the next round, up to max_rounds
    llm = ScriptedLLM(WRONG, OFF, RIGHT, RIGHT)
    answer = Pipeline(on(sample, max_rounds=2), sample, llm).ask(QUESTION, OPTIONS)
    assert [r.kept for r in answer.revisions] == [False]  # OFF is as flagged as WRONG
    llm = ScriptedLLM(WRONG, RIGHT, RIGHT)
    answer = Pipeline(on(sample, max_rounds=2), sample, llm).ask(QUESTION, OPTIONS)
    assert len(answer.revisions) == 1 and len(llm.calls) == 2  # nothing left to revise


def test_the_time_limit_stops_a_round_and_drops_a_revision_still_streaming(sample):
    pipeline = Pipeline(on(sample, time_limit_s=5.0, max_rounds=2), sample, ScriptedLLM(RIGHT))
    analysis = analyse_query(QUESTION)
    trace = pipeline.retrieve_query(analysis, OPTIONS)
    prompt = pipeline.build(analysis, trace, OPTIONS)
    report = pipeline._check(WRONG, prompt, analysis)
    draft = (WRONG, trace, prompt, report)
    steps = pipeline.revision_steps(analysis, OPTIONS, ())
    bounds = pipeline.settings.self_rag

    def clock(*times: float):  # type: ignore[no-untyped-def]
        ticks = iter(times)
        return lambda: next(ticks, times[-1])

    # the first answer took the whole time: no round starts
    late = revise(steps, bounds, analysis, *draft, clock=clock(0, 6))
    (round_,) = late.rounds
    assert round_.note == "time limit reached" and late.text == WRONG
    # the time runs out while the revision streams: it is dropped
    slow = revise(steps, bounds, analysis, *draft, clock=clock(0, 1, 6))
    (round_,) = slow.rounds
    assert round_.note == "time limit reached while revising" and not round_.kept
    assert slow.text == WRONG and round_.queries


def test_off_by_default_never_offline_and_nothing_to_revise(sample, monkeypatch):
    llm = ScriptedLLM(WRONG)
    answer = Pipeline(sample.settings, sample, llm).ask(QUESTION, OPTIONS)
    assert answer.revisions == () and len(llm.calls) == 1
    offline = Pipeline(on(sample), sample).ask(QUESTION, OPTIONS)
    assert offline.revisions == ()
    llm = ScriptedLLM(RIGHT)
    answer = Pipeline(on(sample), sample, llm).ask(QUESTION, OPTIONS)
    assert answer.revisions == () and len(llm.calls) == 1

    monkeypatch.setenv("RAG_APP_SELF_RAG", "1")
    assert load_settings().self_rag.enabled
    monkeypatch.setenv("RAG_APP_SELF_RAG", "0")
    assert not load_settings().self_rag.enabled


def test_missing_queries_are_one_per_claim_without_repeats():
    claims = [("a", "x", True), ("b", "y", True), ("2025年毛利率为20%。", "z", False)]
    question = analyse_query("宁德时代2026年营业收入？")
    assert missing_queries(question, claims, 3) == [
        "宁德时代 2026年 营业收入",
        "2025年毛利率为20%。",
    ]
    assert missing_queries(question, claims, 1) == ["宁德时代 2026年 营业收入"]


def test_self_rag_through_a_real_openai_compatible_server(sample):
    with OpenAIStubServer() as stub:
        stub.enqueue(Reply(text=WRONG), Reply(text=RIGHT))
        llm = OpenAIChatLLM(
            ProviderSettings(base_url=stub.base_url, model="stub-model", api_key="k", max_retries=0)
        )
        answer = Pipeline(on(sample), sample, llm).ask(QUESTION, OPTIONS)
        chats = stub.chat_requests
    assert len(chats) == 2 and "555.5" in chats[1].messages[-1]["content"]
    (round_,) = answer.revisions
    assert round_.kept and answer.text == RIGHT and round_.usage is not None
