"""Computed answers over tables a question names loosely (rag_app/answer/fact_lines.py with
rag_app/facts/rows.py): several rows of one column added up, a part over the whole its rows
add up to, a period's amount not its share, a sub-item named without its lead-in, a part of a
year's columns, and a change between year-less columns (本报告期 against 上年同期)."""

from __future__ import annotations

from rag_app.answer.fact_lines import fact_value_lines
from rag_app.answer.short import short_answer
from rag_app.models import Chunk
from rag_app.understand.analysis import analyse_query
from rag_app.understand.operations import Operation


def _as(question: str, operation: str):  # type: ignore[no-untyped-def]
    """The question read as asking ``operation`` (the model's reading fixed)."""
    query = analyse_query(question)
    query._lazy["operation"] = Operation(operation, 0.9)
    return query


def _table(html: str, caption: str = "") -> list[tuple[int, Chunk]]:
    return [(1, Chunk("t:1", "t", "table", "", "", (0,), table_html=html, caption=caption))]


_LOANS = _table(
    "<table><tr><th rowspan='2'>分类</th><th colspan='2'>2024年末</th><th colspan='2'>2023年末</th>"
    "</tr><tr><th>金额</th><th>占比（%）</th><th>金额</th><th>占比（%）</th></tr>"
    "<tr><td>甲类</td><td>10.00</td><td>50.00</td><td>8.00</td><td>40.00</td></tr>"
    "<tr><td>乙类</td><td>6.00</td><td>30.00</td><td>8.00</td><td>40.00</td></tr>"
    "<tr><td>丙类</td><td>4.00</td><td>20.00</td><td>4.00</td><td>20.00</td></tr></table>",
    "单位：亿元",
)


def _value(line: str, question: str, sources) -> object:  # type: ignore[no-untyped-def]
    return short_answer(f"(notice)\n\n{line}", sources, analyse_query(question)).value


def test_a_change_of_a_periods_amount_not_of_its_share() -> None:
    question = "甲类2024年末比2023年末增长了百分之几？"
    lines = fact_value_lines(_as(question, "change_ratio"), _LOANS)
    assert lines and "(10 - 8) / 8 = 25%" in lines[0]


def test_several_rows_named_are_added_up_in_the_years_amount_column() -> None:
    question = "2024年末乙类、丙类贷款一共多少亿元？"
    lines = fact_value_lines(_as(question, "sum"), _LOANS)
    assert lines and "6 + 4 = 10" in lines[0]
    assert _value(lines[0], question, _LOANS) == "10"
    average = fact_value_lines(_as("2024年末甲类和丙类平均是多少？", "average"), _LOANS)
    assert average and "(10 + 4) / 2 = 7" in average[0]


def test_rows_named_in_a_column_with_no_year_named_take_the_latest_year() -> None:
    lines = fact_value_lines(_as("甲类和乙类加起来是多少？", "sum"), _LOANS)
    assert lines and "10 + 6 = 16" in lines[0]


_PRODUCTS = _table(
    "<table><tr><td>产品</td><td>营业收入（百万元）</td><td>同比（%）</td></tr>"
    "<tr><td>调味料</td><td>1,500.00</td><td>26.3</td></tr>"
    "<tr><td>酱料</td><td>1,000.00</td><td>-3.8</td></tr>"
    "<tr><td>合计</td><td>2,500.00</td><td>9.7</td></tr></table>",
    "表1：2025年前三季度分产品收入",
)


def test_a_share_of_the_whole_its_table_adds_up_to() -> None:
    """The whole is named otherwise (总收入 of a 合计 row): the row the rows above add up to."""
    question = "前三季度调味料收入占总收入的比例是多少？"
    lines = fact_value_lines(_as(question, "share"), _PRODUCTS)
    assert lines and "1500 / 2500 = 60%" in lines[0]


def test_a_sum_of_rows_in_the_one_column_of_amounts() -> None:
    lines = fact_value_lines(_as("前三季度调味料和酱料收入加在一起是多少？", "sum"), _PRODUCTS)
    assert lines and "1500 + 1000 = 2500" in lines[0]


def test_a_sub_item_named_without_its_lead_in_in_the_order_named() -> None:
    sources = _table(
        "<table><tr><td>项目</td><td>2024年末</td></tr><tr><td>个人存款</td><td>30</td></tr>"
        "<tr><td>个人定期存款</td><td>24</td></tr><tr><td>其中：个人活期存款</td><td>6</td></tr>"
        "</table>"
    )
    question = "2024年末个人定期存款是个人活期存款的几倍？"
    lines = fact_value_lines(_as(question, "divide"), sources)
    assert lines and "24 / 6 = 4" in lines[0]


def test_a_part_of_a_year_reads_the_columns_of_that_part() -> None:
    sources = _table(
        "<table><tr><td>项目</td><td>2025年1-6月</td><td>2024年1-6月</td><td>2024年</td></tr>"
        "<tr><td>营业收入</td><td>120</td><td>100</td><td>210</td></tr></table>"
    )
    lines = fact_value_lines(_as("2025年上半年营业收入比上年同期增长了多少？", "diff"), sources)
    assert lines and "120 - 100 = 20" in lines[0]
    # a whole year's column does not answer a half: no line from a table without its columns
    annual = _table(
        "<table><tr><td>项目</td><td>2025年</td><td>2024年</td></tr>"
        "<tr><td>营业收入</td><td>120</td><td>100</td></tr></table>"
    )
    assert fact_value_lines(_as("2025年上半年营业收入比上年同期增长了多少？", "diff"), annual) == []


def test_a_change_between_year_less_columns_of_the_report_and_its_prior_period() -> None:
    sources = _table(
        "<table><tr><td>项目</td><td>本报告期</td><td>上年同期</td>"
        "<td>本报告期比上年同期增减(%)</td></tr>"
        "<tr><td>营业收入</td><td>1,250.00</td><td>1,000.00</td><td>25.00</td></tr></table>"
    )
    question = "上半年营业收入同比增长了百分之几？"
    lines = fact_value_lines(_as(question, "change_ratio"), sources)
    assert lines and "(1250 - 1000) / 1000 = 25%" in lines[0]
    assert "上年同期-本报告期" in lines[0]
    diff = fact_value_lines(_as("营业收入比上年同期增加了多少？", "diff"), sources)
    assert diff and "1250 - 1000 = 250" in diff[0]
