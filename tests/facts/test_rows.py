"""Rows and columns told apart when a question names them loosely (rag_app/facts/rows.py): a
sub-item's lead-in, a period's amount beside its share, the whole a table's rows add up to, a
column naming a part of a year, and year-less columns placed against the report's period."""

from __future__ import annotations

import pytest

from rag_app.facts.cells import table_facts
from rag_app.facts.lookup import asked_facts, asked_rows
from rag_app.facts.rows import (
    amount_columns,
    coined_words,
    is_percent_column,
    label_core,
    labelled_total,
    month_columns,
    most_specific,
    period_role,
    shared_lead,
    whole_of,
)
from rag_app.models import Chunk
from rag_app.text.periods import names_part_of_year
from rag_app.understand.analysis import analyse_query


def _facts(html: str):  # type: ignore[no-untyped-def]
    return table_facts(Chunk("t:1", "t", "table", "", "", (0,), table_html=html))


_PRODUCTS = (
    "<table><tr><td>产品</td><td>收入</td><td>同比（%）</td></tr>"
    "<tr><td>甲</td><td>10.25</td><td>3.1</td></tr>"
    "<tr><td>乙</td><td>20.50</td><td>-1.2</td></tr>"
    "<tr><td>丙</td><td>5.00</td><td>8.0</td></tr>"
    "<tr><td>全部</td><td>35.75</td><td>2.0</td></tr></table>"
)


@pytest.mark.parametrize(
    ("label", "core"),
    [("其中：个人活期存款", "个人活期存款"), ("减:营业成本", "营业成本"), ("营业收入", "营业收入")],
)
def test_a_sub_items_lead_in_is_not_its_name(label: str, core: str) -> None:
    assert label_core(label) == core


def test_the_whole_is_the_row_the_rows_above_add_up_to_whatever_its_label() -> None:
    facts = _facts(_PRODUCTS)
    part = next(f for f in facts if f.metric == "乙" and f.col == 1)
    whole = whole_of(part, facts)
    assert whole is not None and whole.metric == "全部" and whole.number == 35.75
    # the last row is the whole: no row below it
    assert whole_of(whole, facts) is None


def test_a_row_labelled_total_is_the_whole_when_sums_do_not_tell() -> None:
    html = (
        "<table><tr><td>项目</td><td>2024年</td></tr><tr><td>A</td><td>7</td></tr>"
        "<tr><td>其中：B</td><td>3</td></tr><tr><td>营业收入合计</td><td>9</td></tr></table>"
    )
    facts = _facts(html)
    part = next(f for f in facts if f.metric == "A")
    whole = whole_of(part, facts)
    assert whole is not None and whole.metric == "营业收入合计"
    assert labelled_total("合计") and labelled_total("Total revenue") and not labelled_total("A")


def test_a_periods_amount_not_its_share() -> None:
    html = (
        "<table><tr><th rowspan='2'>项目</th><th colspan='2'>2024年末</th></tr>"
        "<tr><th>金额</th><th>占比（%）</th></tr><tr><td>A</td><td>5.0</td><td>50.0</td></tr>"
        "</table>"
    )
    facts = _facts(html)
    assert is_percent_column("2024年末 / 占比（%）", []) and not is_percent_column("金额", [])
    assert amount_columns({1, 2}, facts, set()) == {1}
    assert amount_columns({1, 2}, facts, {2}) == {2}  # the column the question names


@pytest.mark.parametrize(
    ("text", "part"),
    [
        ("2025年1-6月", True),
        ("前三季度", True),
        ("Q4 2019", True),
        ("2024年", False),
        ("金额", False),
    ],
)
def test_a_part_of_a_year(text: str, part: bool) -> None:
    assert names_part_of_year(text) is part


@pytest.mark.parametrize(
    ("label", "role"),
    [
        ("本报告期", "current"),
        ("上年同期", "prior"),
        ("期末余额", "current"),
        ("期初余额", "prior"),
        ("年初至报告期末", "current"),
        ("本报告期比上年同期增减(%)", ""),
        ("金额", ""),
    ],
)
def test_a_year_less_columns_period(label: str, role: str) -> None:
    assert period_role(label) == role


def test_a_month_named_without_its_year_is_the_latest_years_or_the_one_before() -> None:
    labels = {
        1: "2025年10月",
        2: "2025年9月",
        3: "环比（%）",
        4: "2024年10月",
        5: "2025年1-10月累计",
    }
    assert month_columns(labels, "10月单票收入是多少？") == {1}
    assert month_columns(labels, "去年10月单票收入是多少？") == {4}
    assert month_columns(labels, "2024年10月单票收入是多少？") is None  # its year named
    assert month_columns(labels, "1-10月累计单票收入是多少？") is None  # a run, not a month
    monthly = {1: "9月", 2: "10月"}  # the report's own year's months
    assert month_columns(monthly, "10月单票收入是多少？") == {2}
    assert month_columns(monthly, "去年10月单票收入是多少？") == set()  # not this year's


def test_the_words_every_row_label_starts_with_qualify_the_table() -> None:
    labels = ["速运物流业务量", "速运物流单票收入", "速运物流业务收入"]
    assert shared_lead(labels) == "速运物流"
    assert shared_lead(["营业收入", "营业成本"]) == ""  # 营业 is no whole word of both
    assert shared_lead(["速运物流业务量"]) == ""  # one row: nothing shared
    assert shared_lead(["归母净利润", "归母净利润率"]) == ""  # a label with nothing after


def test_a_row_is_named_without_the_qualifier_every_row_shares() -> None:
    chunk = Chunk(
        "t:1",
        "t",
        "table",
        "",
        "",
        (0,),
        table_html="<table><tr><th>指标</th><th>2025年10月</th><th>2024年10月</th></tr>"
        "<tr><td>速运物流业务量（亿票）</td><td>15.26</td><td>13.12</td></tr>"
        "<tr><td>速运物流单票收入（元）</td><td>14.86</td><td>15.31</td></tr></table>",
    )
    query = analyse_query("去年10月公司的单票收入是多少元？")
    assert [(a.fact.column, a.fact.value) for a in asked_facts(query, [(1, chunk)])] == [
        ("2024年10月", "15.31")
    ]


def test_a_coined_names_own_word_must_be_written_to_name_its_row() -> None:
    assert coined_words("桩工机械", {"机械"}) == ["桩工"]
    assert coined_words("营业收入", {"营业收入"}) == []
    # 臻藏系列 shares its term 系列 with 窖龄系列, but is not less specific than it
    assert most_specific({"臻藏系列", "窖龄系列"}) == {"臻藏系列", "窖龄系列"}
    assert most_specific({"营业收入", "营业收入合计"}) == {"营业收入合计"}


def test_two_coined_rows_named_in_one_column_of_a_merged_header() -> None:
    chunk = Chunk(
        "t:2",
        "t",
        "table",
        "",
        "",
        (0,),
        table_html="<table><tr><th rowspan='2'>产品</th><th colspan='2'>营业收入（百万元）</th>"
        "<th colspan='2'>毛利率（%）</th></tr><tr><th>2023A</th><th>2024A</th><th>2023A</th>"
        "<th>2024A</th></tr><tr><td>臻藏系列</td><td>8,126</td><td>9,487</td><td>88.6</td>"
        "<td>89.2</td></tr><tr><td>窖龄系列</td><td>3,984</td><td>4,612</td><td>74.3</td>"
        "<td>75.8</td></tr><tr><td>桩工机械</td><td>3,105</td><td>3,387</td><td>25.3</td>"
        "<td>26.8</td></tr></table>",
    )
    query = analyse_query("臻藏系列和窖龄系列2024年收入加在一起是多少百万元？")
    cells = asked_rows(query, [(1, chunk)])
    assert [(a.fact.metric, a.fact.value) for a in cells] == [
        ("臻藏系列", "9,487"),
        ("窖龄系列", "4,612"),
    ]
    machine = analyse_query("2024年挖掘机械的毛利率是多少？")  # 桩工机械 is not named by 机械
    assert asked_facts(machine, [(1, chunk)]) == []
