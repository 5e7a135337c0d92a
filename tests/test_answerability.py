"""What the library does not hold is said, not papered over with another company's, year's or
metric's numbers (the sample library with the hash embedder; the scripted LLM for the model)."""

from __future__ import annotations

import json

import pytest

from rag_app.answer.scripted import ScriptedLLM
from rag_app.index.library import Library
from rag_app.models import AskOptions
from rag_app.pipeline.ask import Pipeline
from rag_app.text.names import leading_name
from rag_app.trust.answerability import assess
from rag_app.understand.analysis import analyse_query
from tests.conftest import REPO_ROOT, SAMPLE_CONTENT_LIST, TEST_DATA, hash_library

OPTIONS = AskOptions(kb="default", mode="hybrid")


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory, counter) -> Library:  # type: ignore[no-untyped-def]
    return hash_library(tmp_path_factory.mktemp("answerability"), counter, [SAMPLE_CONTENT_LIST])


@pytest.mark.parametrize(
    ("question", "name"),
    [
        ("宁德时代2025年的营业收入预测是多少？", "宁德时代"),
        ("2023年第一季度中芯国际智能手机领域营收是多少？", "中芯国际智能手机领域"),
        ("中芯国际的毛利率是多少？", "中芯国际"),
        ("What is CATL's forecast revenue for 2025?", "CATL"),
        ("拳击比赛的收益将捐给哪个慈善机构？", ""),  # no company named before a period or metric
        ("哪家公司的毛利率最高？", ""),
        ("What was the revenue in 2019?", ""),
    ],
)
def test_the_name_a_question_asks_about(question: str, name: str) -> None:
    assert leading_name(question) == name


def test_a_company_the_library_holds_no_report_on_is_declined_naming_what_it_holds(
    sample: Library,
) -> None:
    finding = assess(analyse_query("宁德时代2025年的营业收入预测是多少？"), sample, "default")
    assert finding.declines and [g.kind for g in finding.gaps] == ["subject"]
    assert finding.note() == "库中没有宁德时代的报告；现有：中芯国际。"
    # a company the reports mention (the foundry ranking table) is not declined
    assert not assess(analyse_query("台积电2024年的营收是多少？"), sample, "default").declines
    # 营收 read as one word (posseg alone cut 营 / 收), and 营业收入 given by its synonym's label
    for asked in ("台积电2024年营收是多少？", "台积电2024年的营业收入是多少？"):
        assert not assess(analyse_query(asked), sample, "default").declines, asked


def test_a_year_outside_the_tables_and_an_absent_metric_are_declined(sample: Library) -> None:
    outside = assess(analyse_query("中芯国际2028年的营业收入预测是多少？"), sample, "default")
    assert outside.declines and outside.gaps[0].kind == "period"
    assert "2028" in outside.note() and "2026" in outside.note()
    absent = assess(analyse_query("中芯国际2024年的扣非净利润是多少？"), sample, "default")
    assert absent.declines and absent.gaps[0].kind == "metric" and "毛利率（%）" in absent.note()
    assert "The library's reports do not cover 2030" in assess(
        analyse_query("What is SMIC's P/E in 2030?"), sample, "default"
    ).note("en")


def test_one_year_of_two_outside_is_a_note_not_a_refusal(sample: Library) -> None:
    finding = assess(analyse_query("中芯国际2024年和2028年的毛利率分别是多少？"), sample, "default")
    assert [g.kind for g in finding.gaps] == ["period"] and not finding.declines


def test_every_sample_question_is_still_answered(sample: Library) -> None:
    rows = [json.loads(line) for line in (TEST_DATA / "sample_report_questions.jsonl").open()]
    examples = json.loads(
        (SAMPLE_CONTENT_LIST.parent / "questions.json").read_text(encoding="utf-8")
    )
    asked = [r["question"] for r in rows] + [e["question"] for e in examples]
    findings = {q: assess(analyse_query(q), sample, "default") for q in asked}
    # an English question's SMIC, which the report never writes, is presumed and said, no more
    assert asked and not [
        q for q, f in findings.items() if f.declines or {g.kind for g in f.gaps} - {"presumed"}
    ]


def test_the_offline_answer_says_so_and_quotes_nothing(sample: Library) -> None:
    answer = Pipeline(sample.settings, sample).ask("宁德时代2025年的营业收入预测是多少？", OPTIONS)
    assert answer.declined and answer.finding == "库中没有宁德时代的报告；现有：中芯国际。"
    assert "库中没有宁德时代的报告" in answer.text and "[Source" not in answer.text
    assert answer.citations is None  # nothing quoted: no check, no ✅


def test_a_model_is_told_what_is_missing_and_to_say_so(sample: Library) -> None:
    llm = ScriptedLLM("库中没有宁德时代的报告。")
    answer = Pipeline(sample.settings, sample, llm).ask(
        "宁德时代2025年的营业收入预测是多少？", OPTIONS
    )
    (request,) = llm.calls
    assert "检索核对：库中没有宁德时代的报告" in request.messages[-1].content
    assert answer.finding and answer.declined


def test_the_finding_is_its_own_instruction_and_never_picks_excerpts(sample: Library) -> None:
    # Inside the question, the note's years (2019至2026年) picked other excerpts of 4 sources.
    question = "中芯国际2029年的营业收入和市盈率是多少？"
    llm = ScriptedLLM("库中报告不含2029年的数据。")
    pipeline = Pipeline(sample.settings, sample, llm)
    answer = pipeline.ask(question, OPTIONS)
    assert answer.finding  # declined too: the model is still asked, and told
    without = pipeline.build(analyse_query(question), answer.retrieval, OPTIONS)
    assert answer.prompt is not None and len(answer.prompt.sources) > 1
    assert [s.text for s in answer.prompt.sources] == [s.text for s in without.sources]
    assert answer.prompt.question == question
    (request,) = llm.calls
    user = request.messages[-1].content
    assert f"问题：{question}\n\n检索核对：{answer.finding}\n\n回答要求：" in user
    assert "检索核对" not in without.messages[-1]["content"]


def test_a_table_asked_for_by_its_number_is_shown_whatever_it_is_called(sample: Library) -> None:
    """ "请给出表6 产线一览表": the sample's 表6 is captioned "中芯国际产线一览", so the noun
    "一览表" is written nowhere, yet showing 表6 answers the question (a new user's try,
    session 12). A number the report does not have is still read as before."""
    for question in ("请给出表6 产线一览表", "图3显示了什么？", "What does Figure 3 show?"):
        assert not assess(analyse_query(question), sample, "default").declines, question
    # the noun check itself stays: without a number, an absent metric is declined
    assert assess(analyse_query("中芯国际2024年的扣非净利润是多少？"), sample, "default").declines


def test_an_english_statement_term_the_reports_do_not_give_is_declined(sample: Library) -> None:
    # the glossary's English names read as the Chinese terms they bridge: the sample (a
    # Chinese broker note on 中芯国际) gives 资产负债率 and 每股净资产, not 流动性覆盖率 or 存货
    for absent in (
        "What is SMIC's liquidity coverage ratio in 2024?",
        "How much inventory did SMIC hold at the end of 2024?",
    ):
        finding = assess(analyse_query(absent), sample, "default")
        assert finding.declines and finding.gaps[0].kind == "metric", absent
    for held in (
        "What is SMIC's debt-to-asset ratio in 2024?",
        "What is SMIC's net assets per share?",
    ):
        assert not assess(analyse_query(held), sample, "default").declines, held


def test_what_a_worked_question_works_out_is_no_missing_metric(sample: Library) -> None:
    # CAGR is a glossary term the sample never writes: asked of a held metric it is what is
    # worked out; of a metric the sample does not give (存货), the question is still declined
    cagr = analyse_query("中芯国际2023-2026年营业收入的CAGR是多少？")
    assert cagr.operation.name == "cagr"
    assert not assess(cagr, sample, "default").declines
    absent = assess(analyse_query("中芯国际2023-2026年存货的CAGR是多少？"), sample, "default")
    assert absent.declines and absent.gaps[0].asked == "存货"


def test_a_shares_whole_named_in_general_words_is_no_missing_metric(
    tmp_path_factory: pytest.TempPathFactory,
    counter,  # type: ignore[no-untyped-def]
) -> None:
    note = REPO_ROOT / "assets" / "third_eval" / "docs" / "muxi_foods_2025q3_note_content_list.json"
    library = hash_library(tmp_path_factory.mktemp("share"), counter, [note])
    # the note's table writes 合计, not 总收入: the operation read says a share is asked
    share = "沐溪食品前三季度复合调味料收入占总收入的比例是多少？"
    assert not assess(analyse_query(share), library, "default").declines
    # a peer the valuation table lists: its forecast EPS is held (预测 says the column, 2025E),
    # its revenue is not (only mentioned)
    peer = assess(analyse_query("鼎味股份2025年预测EPS是多少？"), library, "default")
    assert not peer.declines
    only_mentioned = assess(analyse_query("鼎味股份2024年营业收入是多少？"), library, "default")
    assert only_mentioned.declines and only_mentioned.gaps[0].kind == "mentioned"
    # a statement term the note never writes is still declined, in Chinese as in English
    assert assess(analyse_query("沐溪食品2025年前三季度存货是多少？"), library, "default").declines


def test_a_company_asked_beside_the_subject_is_said_not_refused(sample: Library) -> None:
    absent = assess(analyse_query("中芯国际和宁德时代2024年的营收分别是多少？"), sample, "default")
    assert not absent.declines and [g.kind for g in absent.gaps] == ["subject"]
    assert absent.note() == "库中没有宁德时代的报告；现有：中芯国际。"
    # only a row of the report's ranking, which gives no 产能利用率
    ranked = "中芯国际和华虹集团2024年的产能利用率分别是多少？"
    mentioned = assess(analyse_query(ranked), sample, "default")
    assert not mentioned.declines and [g.kind for g in mentioned.gaps] == ["mentioned"]
    # the ranking gives 台积电's 2024年营收: nothing missing
    assert not assess(
        analyse_query("中芯国际和台积电2024年的营收分别是多少？"), sample, "default"
    ).gaps
    # a place the report does not write, asked of the subject, still leaves nothing to answer
    assert assess(analyse_query("中芯国际在越南的营收是多少？"), sample, "default").declines


def test_an_acronym_no_report_writes_is_presumed_the_one_company_and_said(sample: Library) -> None:
    # TSMC's is not 中芯国际's; with one company in the library the answer is its, and says so
    finding = assess(analyse_query("What was TSMC's revenue in 2024?"), sample, "default")
    assert not finding.declines and [g.kind for g in finding.gaps] == ["presumed"]
    assert finding.note("en") == (
        "The library's reports do not mention TSMC, so this answers for 中芯国际, the one "
        "company they cover."
    )
    answer = Pipeline(sample.settings, sample).ask("What was TSMC's revenue in 2024?", OPTIONS)
    assert "TSMC 2024A" not in answer.text and "中芯国际 2024A revenue" in answer.text
