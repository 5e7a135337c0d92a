"""Computed answers over tables a question names loosely (rag_app/answer/fact_lines.py with
rag_app/facts/rows.py): several rows of one column added up, a part over the whole its rows
add up to, a period's amount not its share, a sub-item named without its lead-in, a part of a
year's columns, and a change between year-less columns (本报告期 against 上年同期)."""

from __future__ import annotations

from rag_app.answer.fact_lines import fact_value_lines
from rag_app.answer.short import short_answer
from rag_app.answer.values import asked_sources
from rag_app.facts.cells import table_facts
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
    assert "本报告期比上年同期" in lines[0]
    diff = fact_value_lines(_as("营业收入比上年同期增加了多少？", "diff"), sources)
    assert diff and "1250 - 1000 = 250" in diff[0]


_QUARTERS = _table(
    "<table><tr><td>项目</td><td>第一季度（1-3月份）</td><td>第二季度（4-6月份）</td>"
    "<td>第三季度（7-9月份）</td><td>第四季度（10-12月份）</td></tr>"
    "<tr><td>营业收入</td><td>600.00</td><td>800.00</td><td>900.00</td><td>1,080.00</td></tr>"
    "<tr><td>净利润</td><td>60.00</td><td>80.00</td><td>90.00</td><td>100.00</td></tr></table>",
    "单位：万元",
)
_OUTPUT = _table(
    "<table><tr><td>主要产品</td><td>单位</td><td>生产量</td><td>销售量</td><td>库存量</td></tr>"
    "<tr><td>甲型泵</td><td>台</td><td>2,311</td><td>2,058</td><td>395</td></tr>"
    "<tr><td>乙型泵</td><td>台</td><td>4,915</td><td>4,760</td><td>402</td></tr></table>"
)


def test_one_rows_cells_in_the_columns_named_in_the_order_named() -> None:
    # a year-less column named by its words, a bracketed span aside
    diff = fact_value_lines(_as("第四季度营业收入比第三季度多多少？", "diff"), _QUARTERS)
    assert diff and "1080 - 900 = 180" in diff[0] and "第四季度" in diff[0]
    rate = fact_value_lines(
        _as("第四季度营业收入比第三季度增长了百分之几？", "change_ratio"), _QUARTERS
    )
    assert rate and "(1080 - 900) / 900 = 20%" in rate[0]
    total = fact_value_lines(_as("第一季度和第二季度净利润合计是多少？", "sum"), _QUARTERS)
    assert total and "60 + 80 = 140" in total[0]
    # columns that are quantities of one product's row
    more = fact_value_lines(_as("甲型泵的生产量比销售量多多少台？", "diff"), _OUTPUT)
    assert more and "2311 - 2058 = 253" in more[0]


def test_rows_summed_in_the_column_named_when_the_table_states_no_year() -> None:
    # the year the question names is the report's: the table's columns name none
    lines = fact_value_lines(_as("2024年甲型泵和乙型泵的销售量一共多少台？", "sum"), _OUTPUT)
    assert lines and "2058 + 4760 = 6818" in lines[0]


def test_a_compound_annual_growth_rate_over_the_years_named() -> None:
    sources = _table(
        "<table><tr><td>项目</td><td>2024年</td><td>2023年</td><td>2022年</td></tr>"
        "<tr><td>营业收入</td><td>121.00</td><td>110.00</td><td>100.00</td></tr></table>"
    )
    question = "2022年到2024年营业收入的年均复合增长率是多少？"
    lines = fact_value_lines(_as(question, "cagr"), sources)
    assert lines and "(121 / 100)^(1/2) - 1 = 10%" in lines[0]
    assert "年均复合增长率" in lines[0]


def test_a_companys_own_rows_in_an_industry_reports_table_are_worked_out() -> None:
    # an industry report (its subject a topic, not the company): companies by a metric's years
    # under merged headers; the asked company's own rows, not a ranking's row of it
    title = "动力电池行业2026年展望：格局稳定，出海提速"
    ranking = Chunk(
        "i:1", "industry", "table", "", f"{title} > 表1", (0,),
        table_html="<table><tr><td>公司</td><td>2024年装车量（GWh）</td><td>2024年份额（%）</td></tr>"
        "<tr><td>锐驰电池</td><td>98.7</td><td>17.99</td></tr></table>",
        caption="表1：2024年装车量",
    )  # fmt: skip
    by_metric = Chunk(
        "i:2", "industry", "table", "", f"{title} > 表2", (1,),
        table_html="<table><tr><td rowspan='2'>公司</td><td colspan='3'>出货量（GWh）</td>"
        "<td colspan='3'>营业收入（亿元）</td></tr><tr><td>2022年</td><td>2023年</td>"
        "<td>2024年</td><td>2022年</td><td>2023年</td><td>2024年</td></tr>"
        "<tr><td>沧澜新能</td><td>186.4</td><td>241.7</td><td>298.5</td><td>1,682.35</td>"
        "<td>1,905.48</td><td>1,847.26</td></tr><tr><td>锐驰电池</td><td>62.8</td><td>88.3</td>"
        "<td>121.6</td><td>612.47</td><td>745.09</td><td>832.61</td></tr></table>",
        caption="表2：主要企业经营数据",
    )  # fmt: skip
    sources = [(1, ranking), (2, by_metric)]
    cagr = fact_value_lines(
        _as("锐驰电池2022-2024年出货量的年均复合增长率是多少？", "cagr"), sources
    )
    assert cagr and "(121.6 / 62.8)^(1/2) - 1 = 39.15%" in cagr[0] and "[Source 2]" in cagr[0]
    rate = fact_value_lines(
        _as("沧澜新能2024年营业收入同比变动了百分之几？", "change_ratio"), sources
    )
    assert rate and "(1847.26 - 1905.48) / 1905.48 = -3.06%" in rate[0]


def test_a_ratio_of_two_companies_rows_prefers_the_table_naming_the_asked_column() -> None:
    # two tables list both companies; the question names 装车量, a column of the second only
    title = "动力电池行业2026年展望：格局稳定"
    by_metric = Chunk(
        "i:2", "industry", "table", "", f"{title} > 表2", (1,),
        table_html="<table><tr><td>公司</td><td>2024年出货量（GWh）</td></tr>"
        "<tr><td>沧澜新能</td><td>298.5</td></tr><tr><td>锐驰电池</td><td>121.6</td></tr></table>",
    )  # fmt: skip
    installed = Chunk(
        "i:1", "industry", "table", "", f"{title} > 表1", (0,),
        table_html="<table><tr><td>公司</td><td>2024年装车量（GWh）</td></tr>"
        "<tr><td>沧澜新能</td><td>246.3</td></tr><tr><td>锐驰电池</td><td>98.7</td></tr></table>",
    )  # fmt: skip
    sources = [(1, by_metric), (2, installed)]
    lines = fact_value_lines(_as("2024年沧澜新能的装车量是锐驰电池的几倍？", "divide"), sources)
    assert lines and "246.3 / 98.7 = 2.5" in lines[0] and "[Source 2]" in lines[0]


def test_rows_of_a_column_and_months_of_a_row_counted_beyond_an_amount() -> None:
    lines_of = _table(
        "<table><tr><td rowspan='2'>险种</td><td colspan='2'>2024年</td><td colspan='2'>2023年</td>"
        "</tr><tr><td>保费收入</td><td>综合成本率（%）</td><td>保费收入</td><td>综合成本率（%）</td>"
        "</tr><tr><td>机动车辆保险</td><td>820</td><td>97.2</td><td>790</td><td>97.8</td></tr>"
        "<tr><td>健康险</td><td>120</td><td>99.0</td><td>110</td><td>101.2</td></tr>"
        "<tr><td>责任保险</td><td>90</td><td>103.1</td><td>85</td><td>100.9</td></tr>"
        "<tr><td>合计</td><td>1,030</td><td>97.9</td><td>985</td><td>98.6</td></tr></table>"
    )
    question = "2023年综合成本率超过100%的险种有几个？"
    lines = fact_value_lines(_as(question, "count"), lines_of)
    assert lines and "2023年 / 综合成本率" in lines[0] and "：2 [Source 1]" in lines[0]
    assert "合计" not in lines[0]  # the total row is no line of business
    months = _table(
        "<table><tr><td>月份</td><td>碳酸锂（万元/吨）</td></tr>"
        "<tr><td>2025年1月</td><td>7.62</td></tr><tr><td>2025年2月</td><td>7.48</td></tr>"
        "<tr><td>2025年3月</td><td>7.91</td></tr></table>"
    )
    lines = fact_value_lines(_as("2025年碳酸锂价格高于7.5万元/吨的有几个月？", "count"), months)
    assert lines and "2025年3月 7.91" in lines[0] and lines[0].endswith("：2 [Source 1]")


def test_sub_rows_a_table_repeats_under_two_quantities_are_told_apart() -> None:
    traffic = _table(
        "<table><tr><td>指标</td><td>本月</td><td>上年同月</td></tr>"
        "<tr><td>旅客运输量（千人次）</td><td>3,200</td><td>3,000</td></tr>"
        "<tr><td>国内</td><td>2,900</td><td>2,750</td></tr><tr><td>国际</td><td>300</td><td>250</td></tr>"
        "<tr><td>货邮运输量（吨）</td><td>21,000</td><td>20,000</td></tr>"
        "<tr><td>国内</td><td>15,000</td><td>14,500</td></tr><tr><td>国际</td><td>6,000</td><td>5,500</td></tr>"
        "</table>"
    )
    lines = fact_value_lines(_as("国际货邮运输量本月比上年同月增加了多少吨？", "diff"), traffic)
    assert lines and "6000 - 5500 = 500" in lines[0]
    lines = fact_value_lines(_as("国际旅客运输量本月比上年同月增加了多少？", "diff"), traffic)
    assert lines and "300 - 250 = 50" in lines[0]


def test_a_blocks_lone_total_keeps_its_label() -> None:
    blocks = _table(
        "<table><tr><td></td><td>2019</td></tr><tr><td>Cash</td><td>10</td></tr>"
        "<tr><td>Total</td><td>10</td></tr><tr><td>Goodwill</td><td>5</td></tr>"
        "<tr><td>Total</td><td>5</td></tr></table>"
    )
    assert {f.metric for f in table_facts(blocks[0][1])} == {"Cash", "Total", "Goodwill"}


_MONTHLY = [
    (
        1,
        Chunk(
            "m:1", "m", "table", "", "", (0,), caption="表1：10月销售情况",
            table_html="<table><tr><td>项目</td><td>2025年10月</td><td>2025年9月</td>"
            "<td>2024年10月</td><td>2025年1-10月累计</td></tr>"
            "<tr><td>生猪销售量（万头）</td><td>161.5</td><td>149.7</td><td>139.4</td>"
            "<td>1484.8</td></tr></table>",
        ),
    ),
    (
        2,
        Chunk(
            "m:2", "m", "table", "", "", (1,), caption="表2：各月销售情况",
            table_html="<table><tr><td>月份</td><td>1月</td><td>2月</td><td>3月</td><td>4月</td>"
            "</tr><tr><td>生猪销售量（万头）</td><td>142.6</td><td>118.3</td><td>151.2</td>"
            "<td>155.4</td></tr></table>",
        ),
    ),
]  # fmt: skip


def test_months_of_a_monthly_table_by_month_alone() -> None:
    # 10月 against 9月: the columns of the latest year that give those months
    lines = fact_value_lines(_as("10月生猪销售量比9月增加了多少万头？", "diff"), _MONTHLY)
    assert lines and "161.5 - 149.7 = 11.8" in lines[0]
    # a run of months summed in the table of one column a month (not the 累计 column)
    total = fact_value_lines(_as("2025年1-3月生猪销售量合计多少万头？", "sum"), _MONTHLY)
    assert total and "142.6 + 118.3 + 151.2 = 412.1" in total[0]
    # the months of the row beyond an amount, counted in that table
    count = fact_value_lines(_as("有几个月生猪销售量超过150万头？", "count"), _MONTHLY)
    assert count and "月份" in count[0] and count[0].rstrip().split("：")[-1].startswith("2")


_MONTH_ROWS = _table(
    "<table><tr><td>月份</td><td>货运量（万吨）</td><td>装载率（%）</td></tr>"
    "<tr><td>1月</td><td>12.4</td><td>80.1</td></tr>"
    "<tr><td>2月</td><td>10.6</td><td>78.5</td></tr>"
    "<tr><td>3月</td><td>13.9</td><td>82.0</td></tr></table>"
)


def test_months_as_rows_in_the_column_named() -> None:
    lines = fact_value_lines(_as("3月货运量比2月多多少万吨？", "diff"), _MONTH_ROWS)
    assert lines and "13.9 - 10.6 = 3.3" in lines[0]
    total = fact_value_lines(_as("1-2月货运量合计多少万吨？", "sum"), _MONTH_ROWS)
    assert total and "12.4 + 10.6 = 23" in total[0]
    average = fact_value_lines(_as("2025年1-3月平均装载率是多少？", "average"), _MONTH_ROWS)
    assert average and "(80.1 + 78.5 + 82) / 3 = 80.2" in average[0]


def test_a_month_against_the_same_month_a_year_before() -> None:
    lines = fact_value_lines(_as("10月生猪销售量比上年同月增加了多少万头？", "diff"), _MONTHLY)
    assert lines and "161.5 - 139.4 = 22.1" in lines[0]
    share = _table(
        "<table><tr><td>项目</td><td>2025年10月</td><td>2025年9月</td></tr>"
        "<tr><td>生猪销售量（万头）</td><td>161.5</td><td>149.7</td></tr>"
        "<tr><td>其中：商品猪（万头）</td><td>153.2</td><td>141.0</td></tr></table>"
    )
    # the rows named without their unit, in the column of the month named
    lines = fact_value_lines(_as("2025年10月商品猪占生猪销售量的比例是多少？", "share"), share)
    assert lines and "153.2 / 161.5 = 94.86%" in lines[0]


def test_rows_labelled_in_two_columns_under_one_header() -> None:
    # 指标 spans two columns: a quantity, then 合计 / 其中：外贸 / 内贸 under it
    html = (
        "<table><tr><td colspan='2'>指标</td><td>2025年10月</td><td>2025年9月</td></tr>"
        "<tr><td rowspan='3'>集装箱吞吐量（万标准箱）</td><td>合计</td><td>309.72</td>"
        "<td>296.38</td></tr><tr><td>其中：外贸</td><td>193.28</td><td>184.57</td></tr>"
        "<tr><td>内贸</td><td>116.44</td><td>111.81</td></tr></table>"
    )
    facts = table_facts(_table(html)[0][1])
    assert {f.metric for f in facts} == {
        "集装箱吞吐量（万标准箱） / 合计",
        "集装箱吞吐量（万标准箱） / 其中：外贸",
        "集装箱吞吐量（万标准箱） / 内贸",
    }
    # the quantity named alone is its total
    lines = fact_value_lines(_as("10月集装箱吞吐量比9月多多少万标准箱？", "diff"), _table(html))
    assert lines and "309.72 - 296.38 = 13.34" in lines[0]


_FORECAST = _table(
    "<table><tr><th>指标</th><th>2023A</th><th>2024A</th><th>2025E</th></tr>"
    "<tr><td>营业收入（百万元）</td><td>38,624</td><td>41,187</td><td>46,352</td></tr>"
    "<tr><td>同比（%）</td><td>-10.0</td><td>6.6</td><td>12.5</td></tr>"
    "<tr><td>归母净利润（百万元）</td><td>2,318</td><td>2,946</td><td>3,872</td></tr>"
    "<tr><td>同比（%）</td><td>-16.6</td><td>27.1</td><td>31.4</td></tr>"
    "<tr><td>毛利率（%）</td><td>24.6</td><td>26.3</td><td>27.5</td></tr></table>",
    "表1：盈利预测",
)


def test_a_rate_row_repeated_under_each_amount_is_named_with_its_amount() -> None:
    """同比（%） under 营业收入 and again under 归母净利润 (facts v6); 毛利率（%） under an
    amount, written once, keeps its own name."""
    metrics = {f.row: f.metric for f in table_facts(_FORECAST[0][1])}
    assert metrics[1] == "同比（%） 营业收入（百万元）"
    assert metrics[3] == "同比（%） 归母净利润（百万元）"
    assert metrics[4] == "毛利率（%）"


def test_a_change_of_one_year_is_the_rate_the_table_states() -> None:
    """A change asked of one year is read off the rate row, not worked out of the rates or of
    a year the table lacks; a change between two years named is still worked out."""
    first = fact_value_lines(_as("2023年归母净利润同比变化多少？", "change_ratio"), _FORECAST)
    assert first and "：-16.6 [Source 1]" in first[0] and "2023A" in first[0]
    rate = fact_value_lines(_as("2025年营业收入同比增长率是多少？", "change_ratio"), _FORECAST)
    assert rate and "：12.5 [Source 1]" in rate[0] and "=" not in rate[0]
    worked = fact_value_lines(_as("2025年营业收入比2024年增长了多少？", "diff"), _FORECAST)
    assert worked and "46352 - 41187 = 5165" in worked[0]


def test_a_compound_rate_compounds_the_amount_not_the_rate_row_its_words_name() -> None:
    """年均复合增长率 shares 增长率 with the rate row under 营业收入 (facts v6); what compounds is
    the amount."""
    rows = _table(
        "<table><tr><th>指标</th><th>2024A</th><th>2025E</th><th>2026E</th><th>2027E</th></tr>"
        "<tr><td>营业收入（百万元）</td><td>56,742.3</td><td>61,500.0</td><td>66,800.0</td>"
        "<td>72,440.2</td></tr>"
        "<tr><td>增长率（%）</td><td>8.5</td><td>8.4</td><td>8.6</td><td>8.4</td></tr>"
        "<tr><td>归母净利润（百万元）</td><td>4,800.0</td><td>5,318.4</td><td>5,900.0</td>"
        "<td>6,500.0</td></tr>"
        "<tr><td>增长率（%）</td><td>9.0</td><td>10.8</td><td>10.9</td><td>10.2</td></tr></table>"
    )
    question = "2024A到2027E，营业收入的年均复合增长率是多少？"
    lines = fact_value_lines(_as(question, "cagr"), rows)
    assert lines and "(72440.2 / 56742.3)^(1/3) - 1 = 8.48%" in lines[0]


_RANKING = _table(
    "<table><tr><th>排名</th><th>公司</th><th>10月业务量（亿票）</th><th>同比（%）</th></tr>"
    "<tr><td>1</td><td>远川快递</td><td>35.62</td><td>11.49</td></tr>"
    "<tr><td>2</td><td>韵峰物流</td><td>31.48</td><td>12.99</td></tr>"
    "<tr><td>3</td><td>星河速运</td><td>15.26</td><td>16.31</td></tr></table>"
)
_PEERS = _table(
    "<table><tr><th>公司名称</th><th>PE 2025E</th><th>PE 2026E</th></tr>"
    "<tr><td>甲芯科技</td><td>52.6</td><td>38.7</td></tr>"
    "<tr><td>乙微电子</td><td>68.1</td><td>47.2</td></tr>"
    "<tr><td>丙华半导体</td><td>75.3</td><td>55.0</td></tr></table>"
)


def test_two_rows_of_a_ranking_in_the_column_named_by_its_words() -> None:
    # the column's label adds its month and unit to 业务量, which the question names apart
    lines = fact_value_lines(_as("10月远川快递的业务量是星河速运的几倍？", "divide"), _RANKING)
    assert lines and "35.62 / 15.26 = 2.33" in lines[0]


def test_a_count_of_companies_counts_the_rows_of_the_column_named() -> None:
    lines = fact_value_lines(_as("可比公司中2025E PE高于60倍的有几家？", "count"), _PEERS)
    assert lines and lines[0].startswith("PE 2025E 高于60的行") and "：2" in lines[0]


def test_an_average_over_as_many_companies_as_the_question_says() -> None:
    forecast = (
        2,
        Chunk(
            "t:2",
            "t",
            "table",
            "",
            "",
            (0,),
            table_html="<table><tr><th>指标</th><th>2024A</th><th>2025E</th></tr>"
            "<tr><td>PE（倍）</td><td>62.0</td><td>52.6</td></tr></table>",
        ),
    )
    sources = [forecast, *[(1, chunk) for _, chunk in _PEERS]]
    question = "表中三家可比公司2025年PE的平均值是多少倍？"
    lines = fact_value_lines(_as(question, "average"), sources)
    # the three rows of the peers' PE 2025E, not the report's own PE row across its years
    assert lines and "(52.6 + 68.1 + 75.3) / 3 = 65.33" in lines[0]
    # a count that no table's rows match reads nothing of the peers
    other = fact_value_lines(_as("表中五家可比公司2025年PE的平均值是多少倍？", "average"), sources)
    assert not other or "68.1" not in other[0]


def test_a_name_cut_through_a_word_the_report_writes_whole_names_no_company() -> None:
    title = "青云电器2025年三季报点评 > 行业格局\n"
    ranking = (
        "<table><tr><th>排名</th><th>公司</th><th>内销量（万台）</th></tr>"
        "<tr><td>1</td><td>鸿澜电器</td><td>2,486.3</td></tr>"
        "<tr><td>2</td><td>北极星家电</td><td>2,102.8</td></tr>"
        "<tr><td>3</td><td>青云电器</td><td>1,126.5</td></tr>"
        "<tr><td>4</td><td>松川电器</td><td>702.4</td></tr></table>"
    )
    caption = "表4：2025年1-9月空调内销量前五"
    sources = [
        (
            1,
            Chunk(
                "q:1", "q", "text", "公司空调内销量位列行业第三。", title + "公司空调内销量", (0,)
            ),
        ),
        (2, Chunk("q:2", "q", "table", caption, title + caption, (1,), table_html=ranking)),
        (3, Chunk("q:3", "q", "text", "三季度收入环比回落。", title + "三季度收入环比回落", (2,))),
    ]
    query = _as("空调内销量排名前三的企业加起来卖了多少万台？", "sum")
    assert query.name == "空调内"  # the leading name, cut before 销量
    assert asked_sources(query, sources) == sources  # ... runs on into 空调内销量: no company
    lines = fact_value_lines(query, sources)
    assert lines and "2486.3 + 2102.8 + 1126.5 = 5715.6" in lines[0]
    other = _as("松川电器的内销量排名第几？", "value")  # a company's name stays one
    assert other.name == "松川电器" and asked_sources(other, sources) == []


def test_a_product_named_with_the_companys_coined_word_is_read_in_its_report() -> None:
    title = "岳泉酒业深度报告 > 分产品\n"
    products = (
        "<table><tr><th rowspan='2'>产品</th><th colspan='2'>营业收入（百万元）</th>"
        "<th colspan='2'>毛利率（%）</th></tr><tr><th>2023A</th><th>2024A</th><th>2023A</th>"
        "<th>2024A</th></tr><tr><td>窖龄系列</td><td>3,984</td><td>4,612</td><td>74.3</td>"
        "<td>75.8</td></tr><tr><td>岳泉大曲</td><td>2,215</td><td>2,241</td><td>52.7</td>"
        "<td>53.4</td></tr></table>"
    )
    sources = [
        (1, Chunk("y:1", "y", "text", "大曲稳健。", title + "大曲稳健", (0,))),
        (2, Chunk("y:2", "y", "table", "表2", title + "表2", (1,), table_html=products)),
    ]
    query = _as("2024年岳泉大曲的毛利率比窖龄系列低几个百分点？", "diff")
    assert query.name == "岳泉大曲" and asked_sources(query, sources) == sources  # 岳泉酒业's
    lines = fact_value_lines(query, sources)
    assert lines and "53.4 - 75.8 = -22.4" in lines[0]
    other = _as("2024年中芯国际的毛利率是多少？", "value")  # another company is not
    assert asked_sources(other, sources) == []


def test_a_share_of_two_columns_of_the_one_row_named() -> None:
    lines_of = (
        "<table><tr><th>险种</th><th>保险服务收入</th><th>承保利润</th><th>综合成本率（%）</th></tr>"
        "<tr><td>机动车辆保险</td><td>56,208</td><td>1,574</td><td>97.2</td></tr>"
        "<tr><td>农业保险</td><td>8,934</td><td>286</td><td>96.8</td></tr>"
        "<tr><td>合计</td><td>65,142</td><td>1,860</td><td>97.1</td></tr></table>"
    )
    question = "2024年机动车辆保险的承保利润占其保险服务收入的比例是多少？"
    lines = fact_value_lines(_as(question, "share"), _table(lines_of))
    assert lines and "1574 / 56208 = 2.8%" in lines[0]  # not the row against the 合计 row


def test_rows_named_with_a_total_read_as_a_value_first_are_added_up() -> None:
    """The model reads "次级、可疑、损失类贷款合计多少" as a value (0.72, a sum next): the rows it
    names are added up, not answered with the table's 合计 row, which its 合计 matches; a value
    whose runner-up is no aggregate, or that names one row, is left to the value lines."""
    from rag_app.answer.fact_lines import worked_lines

    loans = _table(
        "<table><tr><th>五级分类</th><th>2024年末金额</th><th>2023年末金额</th></tr>"
        "<tr><td>正常</td><td>3,300.00</td><td>3,000.00</td></tr>"
        "<tr><td>次级</td><td>21.37</td><td>19.86</td></tr>"
        "<tr><td>可疑</td><td>11.85</td><td>10.92</td></tr>"
        "<tr><td>损失</td><td>6.72</td><td>6.65</td></tr>"
        "<tr><td>合计</td><td>3,339.94</td><td>3,037.43</td></tr></table>",
        "单位：亿元",
    )
    question = "2024年末次级、可疑、损失类贷款合计多少亿元？"
    query = analyse_query(question)
    query._lazy["operation"] = Operation("value", 0.72, "sum")
    (line,) = worked_lines(query, loans)
    assert "21.37 + 11.85 + 6.72 = 39.94" in line
    query = analyse_query(question)
    query._lazy["operation"] = Operation("value", 0.72, "multi-span")
    assert worked_lines(query, loans) == []
    one = analyse_query("2024年末次级类贷款合计多少亿元？")
    one._lazy["operation"] = Operation("value", 0.72, "sum")
    assert worked_lines(one, loans) == []
