"""Issue 24 item 7: the value-first line whenever the answer is a value: read from a table row's
cells (``values``) or, when no row gives it, from the quoted sentence stating it, in either
language of the question."""

from __future__ import annotations

import dataclasses

from rag_app.answer.offline import ExtractiveAnswerer
from rag_app.answer.stated_values import stated_value
from rag_app.models import Chunk
from rag_app.understand.analysis import analyse_query

TEXT = Chunk(
    chunk_id="smic:0003",
    doc_id="smic",
    type="text",
    text=(
        "2024年随着下游补库存及国产替代加速，营收同比增长27.7%。"
        "但由于新产能集中转固、折旧大幅增加，公司2024年毛利率降至18.6%，归母净利润为36.99亿元。"
    ),
    search_text="中芯国际（688981.SH）深度报告 > 投资要点\n营收同比增长27.7%",
    item_indices=(3,),
)
REVENUE = ("营业收入", "营收", "revenue")


def body(question: str, lang: str = "zh") -> list[str]:
    text = ExtractiveAnswerer().answer_text(analyse_query(question), [(1, TEXT)], lang)
    return text.split("\n\n")[1:]


def test_a_sentence_stating_the_value_gives_the_value_line_in_both_languages() -> None:
    assert body("中芯国际2024年的毛利率是多少？")[0] == "中芯国际 2024 毛利率：18.6% [Source 1]"
    assert body("What was SMIC's gross margin in 2024?", "en")[0] == (
        "中芯国际 2024 gross margin: 18.6% [Source 1]"
    )


def test_a_stated_value_is_the_asked_years_not_a_change_nor_one_of_several() -> None:
    assert stated_value(
        "公司2024年实现营业收入577.96亿元，同比增长27.7%", "2024", REVENUE, False
    ) == ("577.96亿元")
    # a growth rate is no revenue
    assert stated_value("2024年营收同比增长27.7%", "2024", REVENUE, False) is None
    # values for several years in order: not this year's alone
    text = "我们预计公司2025-2026年营业收入分别为9,254.00/10,628.00亿元"
    assert stated_value(text, "2026", REVENUE, False) is None
    # the year's own value in a run of years
    run = "2022年营收495.2亿元（同比+39.0%）、2023年营收452.5亿元（同比-8.6%）"
    assert stated_value(run, "2023", REVENUE, False) == "452.5亿元"


def test_no_value_line_for_a_quarter_or_a_share() -> None:
    assert not body("中芯国际2024年第一季度的毛利率是多少？")[0].startswith("中芯国际 2024")
    assert not body("中芯国际2024年毛利率占比是多少？")[0].startswith("中芯国际 2024")


OTHER = Chunk(
    chunk_id="hua:0001",
    doc_id="hua",
    type="text",
    text="华虹半导体2024年毛利率为10.2%。",
    search_text="华虹半导体（1347.HK）深度报告 > 投资要点\n华虹半导体2024年毛利率为10.2%",
    item_indices=(1,),
)
FORECAST = Chunk(
    chunk_id="smic:0004",
    doc_id="smic",
    type="table",
    text="",
    search_text="中芯国际（688981.SH）深度报告 > 盈利预测\n表1：盈利预测与估值",
    item_indices=(7,),
    table_html=(
        "<table><tr><th>项目</th><th>2024A</th><th>2025E</th></tr>"
        "<tr><td>毛利率（%）</td><td>18.6</td><td>21.8</td></tr></table>"
    ),
    caption="表1：盈利预测与估值",
    header_rows=1,
)


def test_a_latin_name_takes_the_one_company_in_view_and_no_other() -> None:
    answer = ExtractiveAnswerer().answer_text
    alone = answer(analyse_query("What was SMIC's gross margin in 2024?"), [(1, FORECAST)], "en")
    # an acronym the report never writes: the line names the report's company, not SMIC
    assert "中芯国际 2024A gross margin (毛利率): 18.6% [Source 1]" in alone
    # two companies in view: NAURA is not told to be either, and gets no value of theirs
    both = answer(
        analyse_query("What was NAURA's gross margin in 2024?"), [(1, FORECAST), (2, OTHER)], "en"
    )
    assert "18.6%" not in both and "gross margin: 10.2%" not in both


def _section_table(doc_id: str, label: str, value: str) -> Chunk:
    """A table of an annual report titled by its section (no company in the title)."""
    html = (
        f"<table><tr><th>主要会计数据</th><th>2024年</th><th>2023年</th></tr>"
        f"<tr><td>{label}</td><td>{value}</td><td>1.0</td></tr></table>"
    )
    return Chunk(
        chunk_id=f"{doc_id}:0001",
        doc_id=doc_id,
        type="table",
        text=f"{label}: 2024年 {value}",
        search_text=f"第二节 公司简介和主要财务指标 > 主要会计数据\n{label} 2024年 {value}",
        item_indices=(1,),
        table_html=html,
    )


def test_a_value_line_is_read_off_the_asked_companys_report_when_titles_name_none() -> None:
    # both reports titled by a section (第二节…): the profile's company names tell them apart, so
    # 拓衡传感's 净利润 is not read off 澄远智能's 归属于上市公司股东的净利润 row
    other = _section_table("chengyuan", "归属于上市公司股东的净利润", "312,684,550.21")
    asked = _section_table("tuoheng", "净利润（万元）", "11,692.35")
    companies = {
        "chengyuan": ("江苏澄远智能装备股份有限公司", "澄远智能"),
        "tuoheng": ("杭州拓衡传感科技股份有限公司",),
    }
    query = analyse_query("拓衡传感2024年净利润是多少？", companies=companies)
    text = ExtractiveAnswerer().answer_text(query, [(1, other), (2, asked)], "zh")
    first = text.split("\n\n")[1]
    assert "11,692.35" in first and "[Source 2]" in first and "312,684,550.21" not in first


def test_a_subsidiary_is_read_off_its_groups_report_named_by_the_profile() -> None:
    # the report's company has several names (its profile's); a subsidiary sharing their coined
    # head (鹏屿人寿 of 鹏屿保险) is asked of it, and the line names it by its short Chinese name
    table = _section_table("pengyu", "核心资本", "241,735")
    companies = {"pengyu": ("鹏屿保险集团股份有限公司", "鹏屿保险", "Pengyu Insurance Group")}
    query = analyse_query("鹏屿人寿2024年核心资本是多少？", companies=companies)
    first = ExtractiveAnswerer().answer_text(query, [(1, table)], "zh").split("\n\n")[1]
    assert first.startswith("鹏屿保险 2024") and "241,735" in first


def test_a_question_of_two_companies_is_not_one_reports_row_over_two_years() -> None:
    from rag_app.answer.fact_lines import fact_value_lines
    from rag_app.text.subjects import writes_name
    from rag_app.understand.operations import Operation

    question = "澄远智能2024年和拓衡传感2023年的加权平均净资产收益率分别是多少？"
    assert writes_name(question, ["杭州拓衡传感科技股份有限公司"])
    assert not writes_name(question, ["比亚迪股份有限公司"])
    html = (
        "<table><tr><th>主要财务指标</th><th>2024年</th><th>2023年</th></tr>"
        "<tr><td>加权平均净资产收益率（%）</td><td>10.28</td><td>9.57</td></tr></table>"
    )
    one = dataclasses.replace(_section_table("chengyuan", "x", "1"), table_html=html)
    other = _section_table("tuoheng", "加权平均净资产收益率（%）", "23.61")
    companies = {
        "chengyuan": ("江苏澄远智能装备股份有限公司",),
        "tuoheng": ("杭州拓衡传感科技股份有限公司",),
    }
    query = analyse_query(question, companies=companies)
    query._lazy["operation"] = Operation("multi-span", 0.9)
    # not "2024年; 2023年：10.28; 9.57", 澄远智能's own two years
    assert fact_value_lines(query, [(1, one), (2, other)]) == []
    alone = analyse_query(
        "澄远智能2024年和2023年的加权平均净资产收益率分别是多少？", companies=companies
    )
    alone._lazy["operation"] = Operation("multi-span", 0.9)
    assert "10.28; 9.57" in fact_value_lines(alone, [(1, one), (2, other)])[0]
