"""Issue 24 item 6: a question pointing at a figure ("图2", "Figure 3") is answered from that
figure, its description and the paragraph discussing it, not from rows sharing its number."""

from __future__ import annotations

from rag_app.answer.offline import ExtractiveAnswerer
from rag_app.models import Chunk
from rag_app.understand.analysis import analyse_query

TITLE = "中芯国际（688981.SH）深度报告"
FIGURE_2 = Chunk(
    chunk_id="smic:0017",
    doc_id="smic",
    type="image",
    text="图2：中芯国际季度毛利率与产能利用率",
    search_text=f"{TITLE} > 经营指标\n图2：中芯国际季度毛利率与产能利用率",
    item_indices=(39,),
    caption="图2：中芯国际季度毛利率与产能利用率",
    context=(
        "从经营指标看，公司产能利用率已自2023年一季度68.1%的低点持续回升。"
        "毛利率方面，2024年一季度毛利率一度降至13.7%，此后逐季改善，四季度毛利率回升至22.6%。"
        "公司获评年度最佳雇主。"
    ),
)
FIGURE_3 = Chunk(
    chunk_id="smic:0030",
    doc_id="smic",
    type="image",
    text="图3：中芯国际季度营收及增速",
    search_text=f"{TITLE} > 特色工艺\n图3：中芯国际季度营收及增速",
    item_indices=(61,),
    caption="图3：中芯国际季度营收及增速",
    description=(
        "柱状图为2023Q1至2024Q4中芯国际单季度营业收入（亿元，左轴）。"
        "2024Q4营收为样本期内单季最高，同比增速自2023Q4由负转正并持续扩大。"
    ),
    context="2024年公司车规级工艺平台通过多家头部车企供应链认证，份额快速提升。",
)
RANKING = Chunk(
    chunk_id="smic:0009",
    doc_id="smic",
    type="table",
    text="",
    search_text=f"{TITLE} > 行业格局\n表3：2024年全球晶圆代工厂营收排名",
    item_indices=(20,),
    table_html=(
        "<table><tr><th>排名</th><th>厂商</th><th>2024年营收（亿美元）</th></tr>"
        "<tr><td>2</td><td>三星</td><td>131.8</td></tr>"
        "<tr><td>3</td><td>中芯国际</td><td>80.3</td></tr></table>"
    ),
    caption="表3：2024年全球晶圆代工厂营收排名",
    header_rows=1,
)
SOURCES = [(1, RANKING), (2, FIGURE_2), (3, FIGURE_3)]


def quoted(question: str) -> list[str]:
    text = ExtractiveAnswerer().answer_text(analyse_query(question), SOURCES)
    return [line for line in text.splitlines() if line.startswith("- ")]


def test_a_figure_without_description_is_answered_from_the_paragraph_discussing_it() -> None:
    lines = quoted("图2是什么走势？")
    assert lines and all(line.endswith("[Source 2]") for line in lines)
    assert lines[0].startswith("- 图2：中芯国际季度毛利率与产能利用率：")
    assert any("回升至22.6%" in line for line in lines)
    assert not any("最佳雇主" in line for line in lines)  # names nothing the caption names
    assert "- 图2：中芯国际季度毛利率与产能利用率 [Source 2]" not in lines  # the caption alone


def test_figure_3_is_the_figure_numbered_3_not_rows_holding_a_3() -> None:
    lines = quoted("What does Figure 3 show?")
    assert lines and all(line.endswith("[Source 3]") for line in lines)
    assert "单季最高" in lines[0]
    assert not any(
        "车规级" in line for line in lines
    )  # the paragraph before it is on another topic


FORECAST = Chunk(
    chunk_id="smic:0004",
    doc_id="smic",
    type="table",
    text="",
    search_text=f"{TITLE} > 盈利预测\n表1：盈利预测与估值",
    item_indices=(7,),
    table_html=(
        "<table><tr><th>项目</th><th>2024A</th><th>2025E</th></tr>"
        "<tr><td>营业收入（百万元）</td><td>57,796</td><td>67,850</td></tr>"
        "<tr><td>毛利率（%）</td><td>18.6</td><td>21.8</td></tr></table>"
    ),
    caption="表1：盈利预测与估值",
    header_rows=1,
)
RISKS = Chunk(
    chunk_id="smic:0002",
    doc_id="smic",
    type="text",
    text="风险提示：下游需求复苏不及预期；先进制程研发及客户导入不及预期。",
    search_text=f"{TITLE} > 风险提示\n风险提示",
    item_indices=(2,),
)


def test_an_english_question_gets_the_value_first_line_too() -> None:
    # item 7: "SMIC" over a report on 中芯国际 cannot be matched by name, and is not refused; the
    # line in the question's words, the table's label beside them, named by the report's company
    # (an acronym it never writes may be another's: "TSMC's")
    text = ExtractiveAnswerer().answer_text(
        analyse_query("What was SMIC's gross margin in 2024?"), [(1, FORECAST)], "en"
    )
    assert "中芯国际 2024A gross margin (毛利率): 18.6% [Source 1]" in text.split("\n\n")[1]


def test_quotes_that_answer_nothing_asked_are_said_to_be_the_closest() -> None:
    text = ExtractiveAnswerer().answer_text(
        analyse_query("中芯国际2024年的研发费用是多少？"), [(1, RISKS)]
    )
    assert text.split("\n\n")[1] == "参考资料中未找到直接回答该问题的内容；以下是最接近的句子："
    assert "研发" in text.split("\n\n")[2]


DISCUSSION = Chunk(
    chunk_id="smic:0016",
    doc_id="smic",
    type="text",
    text="如图2所示，公司盈利能力自低点逐季修复。公司获评年度最佳雇主。",
    search_text=f"{TITLE} > 经营指标\n如图2所示",
    item_indices=(38,),
)


def test_a_sentence_elsewhere_naming_the_figure_is_quoted_with_it() -> None:
    text = ExtractiveAnswerer().answer_text(
        analyse_query("图2是什么走势？"), [(1, RANKING), (2, FIGURE_2), (4, DISCUSSION)]
    )
    lines = [line for line in text.splitlines() if line.startswith("- ")]
    assert any("如图2所示" in line and line.endswith("[Source 4]") for line in lines), lines
    assert not any("最佳雇主" in line or "三星" in line for line in lines), lines


CAPEX = Chunk(
    chunk_id="smic:0012",
    doc_id="smic",
    type="table",
    text="",
    search_text=f"{TITLE} > 产能扩张\n表5：中芯国际资本开支及折旧预测",
    item_indices=(30,),
    table_html=(
        "<table><tr><th>项目</th><th>2024A</th><th>2025E</th></tr>"
        "<tr><td>资本开支（亿美元）</td><td>73.3</td><td>73.0</td></tr>"
        "<tr><td>折旧及摊销（亿美元）</td><td>38.9</td><td>44.6</td></tr></table>"
    ),
    caption="表5：中芯国际资本开支及折旧预测",
    header_rows=1,
)
LINES = Chunk(
    chunk_id="smic:0020",
    doc_id="smic",
    type="table",
    text="",
    search_text=f"{TITLE} > 产线\n表6：中芯国际产线一览",
    item_indices=(40,),
    table_html=(
        "<table><tr><th>序号</th><th>厂区</th><th>状态</th></tr>"
        "<tr><td>5</td><td>中芯北方（B2A）</td><td>量产</td></tr>"
        "<tr><td>3</td><td>中芯深圳</td><td>量产</td></tr></table>"
    ),
    caption="表6：中芯国际产线一览",
    header_rows=1,
)


def test_table_5_is_the_table_numbered_5_and_a_missing_one_is_said_so() -> None:
    answer = ExtractiveAnswerer().answer_text
    lines = [
        line
        for line in answer(
            analyse_query("What does Table 5 show?"), [(1, LINES), (2, CAPEX)]
        ).splitlines()
        if line.startswith("- ")
    ]
    assert lines and all(line.endswith("[Source 2]") for line in lines), lines
    # 表3 is not among the sources: the rows holding a 3 are at most the closest, said so
    text = answer(analyse_query("表3显示了什么？"), [(1, LINES), (2, CAPEX)])
    assert "未找到直接回答" in text
