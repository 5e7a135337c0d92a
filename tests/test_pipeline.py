"""The pipeline driven by the scripted LLM: what the model is given, what the Answer carries."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable

import pytest

from rag_app.answer.base import ChatMessage, LLMError, Usage
from rag_app.answer.offline import FALLBACK_NOTICE, NOTICE, ExtractiveAnswerer
from rag_app.answer.scripted import ScriptedLLM, ScriptedResponse
from rag_app.config import Settings
from rag_app.index.library import Library
from rag_app.models import Answer, AskOptions, PipelineEvent
from rag_app.pipeline.ask import Pipeline
from rag_app.prompt import Turn
from rag_app.retrieve.subjects import without
from rag_app.text import language
from rag_app.understand import analysis
from rag_app.understand.analysis import analyse_query
from tests.conftest import SAMPLE_CONTENT_LIST, hash_library

QUESTION = "中芯国际2026年预测市盈率是多少？"
# Cites a source the prompt has and one it does not, so the citation check has both to report.
SCRIPTED = "2026年预测市盈率为106.2倍 [Source 1]。另见 [Source 99]。"
OPTIONS = AskOptions(kb="default", mode="hybrid")


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory, counter) -> Library:  # type: ignore[no-untyped-def]
    return hash_library(tmp_path_factory.mktemp("pipeline"), counter, [SAMPLE_CONTENT_LIST])


@pytest.fixture
def settings(sample: Library) -> Settings:
    return sample.settings


def final(events: list[PipelineEvent]) -> Answer:
    assert events[-1].kind == "answer" and events[-1].answer is not None
    return events[-1].answer


def test_the_model_is_given_the_prompts_messages_and_its_numbered_sources(settings, sample):
    llm = ScriptedLLM(ScriptedResponse(SCRIPTED, usage=Usage(900, 21)), name="scripted-test")
    answer = Pipeline(settings, sample, llm).ask(QUESTION, OPTIONS)

    assert answer.prompt is not None and len(answer.prompt.sources) >= 2
    (request,) = llm.calls
    assert request.messages == tuple(
        ChatMessage(m["role"], m["content"])  # type: ignore[arg-type]
        for m in answer.prompt.messages
    )
    assert request.messages[0].role == "system" and request.messages[-1].role == "user"
    assert QUESTION in request.messages[-1].content
    assert request.question == QUESTION and request.language == "zh"
    assert request.sources == tuple((s.number, s.hit.chunk) for s in answer.prompt.sources)
    assert [n for n, _ in request.sources] == list(range(1, len(request.sources) + 1))

    assert answer.text == SCRIPTED
    assert answer.answerer == "scripted-test"
    assert answer.usage == Usage(900, 21)
    assert answer.citations is not None
    assert answer.citations.cited_sources == (1,) and answer.citations.dangling == (99,)
    assert answer.error == "" and answer.error_kind == ""


def test_events_arrive_stage_by_stage_and_tokens_make_the_text(settings, sample):
    llm = ScriptedLLM(SCRIPTED)
    events = list(Pipeline(settings, sample, llm).stream(QUESTION, OPTIONS))
    stages = [e.stage for e in events if e.kind == "stage"]
    assert stages == [
        "retrieving",
        "retrieved",
        "building_prompt",
        "prompt_built",
        "generating",
        "first_token",
        "done",
    ]
    tokens = [e.text for e in events if e.kind == "token"]
    assert len(tokens) > 5 and "".join(tokens) == SCRIPTED == final(events).text
    kinds = [e.kind for e in events]
    assert kinds.index("token") > kinds.index("stage") and kinds.count("answer") == 1
    timings = dict(final(events).timings)
    assert {"retrieve_ms", "prompt_ms", "first_token_ms", "generate_ms", "total_ms"} <= set(timings)


def test_a_provider_failure_keeps_the_text_and_reports_the_error(settings, sample):
    llm = ScriptedLLM(ScriptedResponse("2026年预测", error=LLMError("connection")))
    events = list(Pipeline(settings, sample, llm).stream(QUESTION, OPTIONS))
    errors = [e for e in events if e.kind == "error"]
    assert len(errors) == 1 and errors[0].data == {"kind": "connection"}
    answer = final(events)
    assert answer.text == "2026年预测"
    assert answer.error_kind == "connection" and "cut off" in answer.error


@pytest.mark.parametrize(
    ("question", "lang"),
    [(QUESTION, "zh"), ("What is SMIC's forecast P/E for 2026?", "en")],
)
def test_without_a_model_the_offline_answerer_quotes_the_prompts_sources(
    settings, sample, question, lang
):
    pipe = Pipeline(settings, sample)
    assert isinstance(pipe.llm, ExtractiveAnswerer)
    answer = pipe.ask(question, OPTIONS)
    assert answer.answerer == ExtractiveAnswerer.name == pipe.answerer_name
    assert answer.prompt is not None
    sources = [(s.number, s.hit.chunk) for s in answer.prompt.sources]
    expected = ExtractiveAnswerer().answer_text(analyse_query(question), sources, lang)
    if answer.finding:  # what the library check noted ("…do not write SMIC…"), after the notice
        notice, _, body = expected.partition("\n\n")
        expected = f"{notice}\n\n{answer.finding}\n\n{body}"
    assert answer.text == expected
    assert answer.text.startswith(NOTICE[lang])
    quoted = {int(n) for n in re.findall(r"\[Source (\d+)\]", answer.text)}
    assert quoted and quoted <= {n for n, _ in sources}
    assert answer.usage is None and answer.citations is not None
    # the answer's citations are checked: every quote cites a source it was taken from
    assert answer.citations.cited_sources == tuple(sorted(quoted))
    assert answer.citations.dangling == () and answer.citations.flagged == ()


def test_an_empty_question_is_refused_before_the_model_is_asked(settings, sample):
    llm = ScriptedLLM(SCRIPTED)
    with pytest.raises(ValueError, match="empty"):
        list(Pipeline(settings, sample, llm).stream("   ", OPTIONS))
    assert llm.calls == []


def test_a_model_that_fails_before_writing_is_replaced_by_the_offline_answer(settings, sample):
    llm = ScriptedLLM(ScriptedResponse(error=LLMError("connection")), name="scripted-test")
    events = list(Pipeline(settings, sample, llm).stream(QUESTION, OPTIONS))
    stages = [e.stage for e in events if e.kind == "stage"]
    assert stages.index("fallback") < stages.index("first_token") < stages.index("done")
    answer = final(events)
    sources = [(s.number, s.hit.chunk) for s in answer.prompt.sources]
    # the offline answer from the same retrieval and prompt, marked as a stand-in ...
    fallback = ExtractiveAnswerer(notice=FALLBACK_NOTICE)
    assert answer.text == fallback.answer_text(analyse_query(QUESTION), sources, "zh")
    assert answer.text.startswith(FALLBACK_NOTICE["zh"])
    assert answer.answerer == ExtractiveAnswerer.name and answer.fallback_from == "scripted-test"
    # ... with the model's failure kept for the user to see, and its quotes checked
    assert answer.error_kind == "connection" and answer.error
    assert answer.citations is not None and answer.citations.flagged == ()
    assert "".join(e.text for e in events if e.kind == "token") == answer.text


def test_a_model_that_wrote_something_keeps_its_text_and_no_fallback(settings, sample):
    llm = ScriptedLLM(ScriptedResponse("2026年预测", error=LLMError("connection")))
    answer = Pipeline(settings, sample, llm).ask(QUESTION, OPTIONS)
    assert answer.text == "2026年预测" and answer.fallback_from == ""
    assert answer.answerer == llm.name


def calls_of(monkeypatch: pytest.MonkeyPatch, function: Callable[..., object]) -> list[object]:
    """The first argument of every call of ``function`` from now on, wherever rag_app imported
    it (each module holds its own name for it)."""
    calls: list[object] = []

    def counted(*args: object, **kwargs: object) -> object:
        calls.append(args[0])
        return function(*args, **kwargs)

    for module in list(sys.modules.values()):
        if module.__name__.startswith("rag_app") and getattr(module, function.__name__, None) is (
            function
        ):
            monkeypatch.setattr(module, function.__name__, counted)
    return calls


@pytest.mark.parametrize("model", [False, True])
def test_a_question_asked_as_the_ask_page_asks_it_is_analysed_once(
    settings, sample, monkeypatch, model
):
    pipe = Pipeline(settings, sample, ScriptedLLM(SCRIPTED, SCRIPTED) if model else None)
    pipe.ask(QUESTION, OPTIONS)  # every stage's module imported, as in a running app
    analysed = calls_of(monkeypatch, analysis.analyse_query)
    detected = calls_of(monkeypatch, language.detect_language)
    # ui/render_stream.py streams the answer of the question and the conversation so far
    events = list(pipe.stream(QUESTION, OPTIONS, ()))
    answer = final(events)
    assert answer.citations is not None and answer.prompt is not None
    # retrieval, answerability, prompt, answer, check: one analysis (and retrieval's of the
    # question without the company's name, to rank within its report: rag_app.retrieve.subjects)
    assert analysed == [QUESTION, without(QUESTION, ("中芯国际",))]
    # its language too, once (the citation check reads the answer's sentences' own)
    assert [text for text in detected if QUESTION in str(text)] == [QUESTION]


def test_a_follow_up_is_analysed_once_as_the_conversation_means_it(settings, sample, monkeypatch):
    pipe = Pipeline(settings, sample)
    first = "中芯国际2025年的毛利率预测是多少？"
    pipe.ask(first, OPTIONS)
    analysed = calls_of(monkeypatch, analysis.analyse_query)
    answer = final(list(pipe.stream("那2026年呢？", OPTIONS, [Turn(first, "21.8% [Source 1]")])))
    # as asked, with how it was made standalone (and without the company's name, for retrieval)
    assert analysed == ["那2026年呢？", "2026年的毛利率预测是多少？"]
    assert answer.understood is not None and answer.understood.how == "carried"
    assert answer.retrieval.query == answer.understood.text == "中芯国际2026年的毛利率预测是多少？"


def test_a_metric_over_years_comes_with_its_series_each_point_cited(settings, sample):
    from rag_app.chat.saved_turns import saved_turn, turn_from_json, turn_to_json

    answer = Pipeline(settings, sample).ask("中芯国际2022-2026年毛利率", OPTIONS)
    assert answer.series is not None
    values = {p.period: p.value for p in answer.series.points}
    assert values == {
        "2022": "38.3",
        "2023": "19.3",
        "2024": "18.6",
        "2025": "21.8",
        "2026": "23.5",
    }
    assert all(p.chunk_id and p.doc_id for p in answer.series.points)  # each where it is
    turn = turn_from_json(turn_to_json(saved_turn("q", OPTIONS, answer)))
    assert turn.series == answer.series  # kept across a reload
    assert Pipeline(settings, sample).ask(QUESTION, OPTIONS).series is None  # one value asked


def test_a_model_is_given_the_cells_asked_about_as_a_small_cited_table(settings, sample):
    llm = ScriptedLLM(ScriptedResponse("营业收入为57,796百万元 [Source 1]。"), name="scripted-test")
    answer = Pipeline(settings, sample, llm).ask("中芯国际2024年的营业收入是多少？", OPTIONS)
    (request,) = llm.calls
    user = request.messages[-1].content
    assert answer.prompt is not None
    table = next(
        s.number for s in answer.prompt.sources if "57,796" in (s.hit.chunk.table_html or "")
    )
    assert f"| 营业收入（百万元） | 实际值 / 2024A | 57,796 | [Source {table}] |" in user
    # the offline answerer is given no such note: it reads the cells itself
    offline = Pipeline(settings, sample).ask("中芯国际2024年的营业收入是多少？", OPTIONS)
    assert (
        offline.prompt is not None
        and "| 指标 | 列 | 数值 | 来源 |" not in offline.prompt.messages[-1]["content"]
    )
