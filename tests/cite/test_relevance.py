"""The relevance check: a cited sentence about another company, period or metric than the
question asks for is marked off-question even when it quotes its source exactly, and the cases
that must stay on-question (synonyms, plurals, ranges, the document's own company) do."""

from __future__ import annotations

from dataclasses import replace

from rag_app.cite import CiteSettings, check_answer
from rag_app.models import Chunk
from rag_app.understand.analysis import analyse_query

TITLE = "中芯国际（688981.SH）深度报告：产能扩张稳步推进"
FORECAST_HTML = (
    "<table>"
    "<tr><th>项目</th><th>2024A</th><th>2025E</th><th>2026E</th></tr>"
    "<tr><td>营业收入（百万元）</td><td>57,796</td><td>67,850</td><td>76,120</td></tr>"
    "<tr><td>毛利率（%）</td><td>18.6</td><td>21.2</td><td>23.5</td></tr>"
    "<tr><td>市盈率（倍）</td><td>120.5</td><td>98.1</td><td>80.3</td></tr>"
    "</table>"
)
FORECAST = Chunk(
    chunk_id="smic:0004",
    doc_id="smic",
    type="table",
    text="",
    search_text=f"{TITLE} > 盈利预测\n表1：盈利预测与估值",
    item_indices=(7,),
    pages=(2,),
    table_html=FORECAST_HTML,
    caption="表1：盈利预测与估值",
    header_rows=1,
)
TEXT = Chunk(
    chunk_id="smic:0001",
    doc_id="smic",
    type="text",
    text="公司2024年实现营业收入577.96亿元，创历史新高。2024年毛利率为18.6%。",
    search_text=f"{TITLE} > 投资要点\n公司2024年实现营业收入577.96亿元，创历史新高。",
    item_indices=(3,),
    pages=(1,),
)
ENGLISH = Chunk(
    chunk_id="acme:0001",
    doc_id="acme",
    type="text",
    text="Total revenues were 1,234.5 million in 2019, up 8% from 2018.",
    search_text="Acme annual report > Results\nTotal revenues were 1,234.5 million in 2019.",
    item_indices=(1,),
    pages=(1,),
)
SOURCES = {1: TEXT, 2: FORECAST, 3: ENGLISH}


def checked(answer: str, question: str, **settings: object):  # type: ignore[no-untyped-def]
    report = check_answer(
        answer, SOURCES, None, analyse_query(question), settings=replace(CiteSettings(), **settings)
    )
    return [s for s in report.sentences if s.factual], report


def test_a_quoted_row_about_another_company_is_supported_but_off_question():
    (sentence,), report = checked(
        "2025年营业收入预测为67,850百万元 [Source 2]。", "宁德时代2025年的营业收入预测是多少？"
    )
    assert sentence.supported and not sentence.relevant and sentence.off_question
    assert sentence.off_subject == "about 中芯国际, the question asks about 宁德时代"
    assert report.relevance_checked and report.off_question_count == 1
    assert report.summary() == (1, 1, 0)


def test_another_period_and_another_metric_are_off_question():
    (period,), _ = checked(
        "2025E营业收入为67,850百万元 [Source 2]。", "中芯国际2026年的营业收入预测是多少？"
    )
    assert period.supported and not period.relevant
    assert period.off_subject == "2025E, the question asks 2026年"
    (metric,), _ = checked("2024年毛利率为18.6% [Source 1]。", "中芯国际2024年的营业收入是多少？")
    assert metric.supported and metric.off_subject == "毛利率, the question asks 营业收入"


def test_synonyms_plurals_ranges_and_the_documents_own_company_stay_on_question():
    # 2026E 市盈率 answers 2026年预测市盈率; the row names no company, its document is 中芯国际.
    (pe,), report = checked("2026E市盈率为80.3倍 [Source 2]。", "中芯国际2026年预测市盈率是多少？")
    assert pe.supported and pe.relevant and report.summary() == (1, 1, 1)
    (revenue,), _ = checked(
        "Total revenues were 1,234.5 million in 2019 [Source 3].",
        "What was the revenue in 2019?",
    )
    assert revenue.relevant
    (ranged,), _ = checked(
        "2025E营业收入为67,850百万元 [Source 2]。", "中芯国际2024-2026年营业收入预测"
    )
    assert ranged.relevant
    # a question naming no company cannot be off-company
    (plain,), _ = checked(
        "2025E营业收入为67,850百万元 [Source 2]。", "2025年的营业收入预测是多少？"
    )
    assert plain.relevant


def test_a_row_read_out_clause_by_clause_is_judged_as_one_sentence():
    answer = "营业收入：2024A 57,796；2025E 67,850；2026E 76,120 [Source 2]。"
    sentences, report = checked(answer, "中芯国际2026年的营业收入预测是多少？")
    assert sentences and all(s.relevant for s in sentences)
    assert report.off_question_count == 0


def test_the_setting_and_an_empty_question_turn_the_check_off():
    answer = "2025年营业收入预测为67,850百万元 [Source 2]。"
    (off,), report = checked(answer, "宁德时代2025年的营业收入预测是多少？", relevance=False)
    assert off.relevant and not report.relevance_checked
    unasked = check_answer(answer, SOURCES, None, analyse_query(""))
    assert not unasked.relevance_checked and unasked.off_question_count == 0
    analysed = check_answer(answer, SOURCES, None, analyse_query("宁德时代2025年营收"))
    assert analysed.off_question_count == 1
