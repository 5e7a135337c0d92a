"""Computed answers over an operating-data announcement's and a fund report's tables
(rag_app/answer/fact_lines.py with rag_app/facts/rows.py and columns.py): a month's and the
year to date's columns each against their prior (本月 / 上年同月, 本年累计 / 上年累计), a part
over its own quantity's total, a month against the one before it in a table split by rows, and
share classes as columns (混合A, 混合C)."""

from __future__ import annotations

from rag_app.answer.fact_lines import fact_value_lines
from rag_app.facts.cells import table_facts
from rag_app.facts.rows import classes_named, label_core, period_pairs
from rag_app.models import Chunk
from rag_app.text.periods import month_before, part_months, quarter_before
from rag_app.understand.analysis import analyse_query
from rag_app.understand.operations import Operation


def _as(question: str, operation: str):  # type: ignore[no-untyped-def]
    """The question read as asking ``operation`` (the model's reading fixed)."""
    query = analyse_query(question)
    query._lazy["operation"] = Operation(operation, 0.9)
    return query


def _chunk(html: str, n: int = 1, parent: str = "") -> Chunk:
    return Chunk(f"t:{n}", "t", "table", "", "", (0,), table_html=html, parent_table_id=parent)


_HEAD = (
    "<tr><th colspan='2'>指标</th><th>本月</th><th>上年同月</th><th>同比增减（%）</th>"
    "<th>本年累计</th><th>上年累计</th><th>累计同比（%）</th></tr>"
)
_THROUGHPUT = [
    (
        1,
        _chunk(
            f"<table>{_HEAD}"
            "<tr><td rowspan='3'>集装箱吞吐量（万标准箱）</td><td>合计</td><td>309.72</td>"
            "<td>286.15</td><td>8.24</td><td>2,962.75</td><td>2,836.47</td><td>4.45</td></tr>"
            "<tr><td>其中：外贸</td><td>193.28</td><td>174.82</td><td>10.56</td>"
            "<td>1,848.13</td><td>1,742.16</td><td>6.08</td></tr>"
            "<tr><td>内贸</td><td>116.44</td><td>111.33</td><td>4.59</td>"
            "<td>1,114.62</td><td>1,094.31</td><td>1.86</td></tr>"
            "<tr><td rowspan='2'>货物吞吐量（万吨）</td><td>合计</td><td>11,105.82</td>"
            "<td>10,683.54</td><td>3.95</td><td>107,323.03</td><td>104,926.35</td><td>2.28</td>"
            "</tr><tr><td>其中：金属矿石</td><td>3,462.18</td><td>3,391.62</td><td>2.08</td>"
            "<td>33,815.46</td><td>32,947.18</td><td>2.64</td></tr></table>"
        ),
    )
]
_DISTRICTS = [
    (
        1,
        _chunk(
            "<table><tr><th>港区</th><th>本月</th><th>上年同月</th><th>本年累计</th></tr>"
            "<tr><td>东屿港区</td><td>128.46</td><td>121.07</td><td>1,237.62</td></tr>"
            "<tr><td>金沙港区</td><td>52.18</td><td>46.24</td><td>494.57</td></tr>"
            "<tr><td>其他港区</td><td>129.08</td><td>118.84</td><td>1,230.56</td></tr>"
            "<tr><td>合计</td><td>309.72</td><td>286.15</td><td>2,962.75</td></tr></table>"
        ),
    )
]


def test_a_months_and_the_year_to_dates_columns_are_each_read_against_their_prior() -> None:
    facts = table_facts(_THROUGHPUT[0][1])
    assert [p[:2] for p in period_pairs(facts)] == [(2, 3), (5, 6)]
    month = fact_value_lines(
        _as("10月集装箱吞吐量比去年同月多了多少万标准箱？", "diff"), _THROUGHPUT
    )
    assert month and "309.72 - 286.15 = 23.57" in month[0]
    to_date = fact_value_lines(
        _as("今年1-10月货物吞吐量比上年同期增加了多少万吨？", "diff"), _THROUGHPUT
    )
    assert to_date and "107323.03 - 104926.35 = 2396.68" in to_date[0]
    district = fact_value_lines(
        _as("金沙港区本月集装箱吞吐量同比增长了多少？", "change_ratio"), _DISTRICTS
    )
    assert district and "(52.18 - 46.24) / 46.24 = 12.85%" in district[0]


def test_a_part_is_a_share_of_its_own_quantitys_total_in_the_months_column() -> None:
    question = "本月外贸集装箱占集装箱吞吐量的比重是多少？"
    lines = fact_value_lines(_as(question, "share"), _THROUGHPUT)
    assert lines and "193.28 / 309.72 = 62.4%" in lines[0]  # not 货物吞吐量's 合计
    district = fact_value_lines(
        _as("当月东屿港区集装箱吞吐量占全港的比例是多少？", "share"), _DISTRICTS
    )
    assert district and "128.46 / 309.72" in district[0]  # 当月: the 本月 column


_MONTHS_HEAD = (
    "<tr><th>月份</th><th>集装箱吞吐量（万标准箱）</th><th>其中：外贸（万标准箱）</th></tr>"
)
_MONTHS = [
    (
        1,
        _chunk(
            f"<table>{_MONTHS_HEAD}<tr><td>7月</td><td>312.56</td><td>196.02</td></tr>"
            "<tr><td>8月</td><td>318.47</td><td>200.84</td></tr></table>",
            1,
            "t:m",
        ),
    ),
    (
        2,
        _chunk(
            f"<table>{_MONTHS_HEAD}<tr><td>9月</td><td>296.38</td><td>184.57</td></tr>"
            "<tr><td>10月</td><td>309.72</td><td>193.28</td></tr></table>",
            2,
            "t:m",
        ),
    ),
]


def test_a_month_against_the_one_before_it_across_a_table_split_by_rows() -> None:
    assert month_before("10月集装箱吞吐量环比增长了多少？") == (10, 9)
    assert month_before("10月集装箱吞吐量同比增长了多少？") is None
    rise = fact_value_lines(_as("10月集装箱吞吐量环比增长了多少？", "change_ratio"), _MONTHS)
    assert rise and "(309.72 - 296.38) / 296.38 = 4.5%" in rise[0]
    fall = fact_value_lines(_as("9月外贸集装箱量环比下降了多少？", "diff"), _MONTHS)
    assert fall and "184.57 - 200.84 = -16.27" in fall[0]  # 8月 in the other sub-table
    assert (part_months("上半年"), part_months("前三季度"), part_months("2025年")) == (
        (1, 6),
        (1, 9),
        None,
    )
    average = fact_value_lines(_as("三季度平均每月集装箱吞吐量是多少？", "average"), _MONTHS)
    assert average and "(312.56 + 318.47 + 296.38) / 3 = 309.14" in average[0]


_FUND = [
    (
        1,
        _chunk(
            "<table><tr><th rowspan='2'>主要财务指标</th>"
            "<th colspan='2'>报告期（2025年7月1日-2025年9月30日）</th></tr>"
            "<tr><th>汀岚景和混合A</th><th>汀岚景和混合C</th></tr>"
            "<tr><td>1.本期已实现收益</td><td>58,317,462.09</td><td>15,826,093.71</td></tr>"
            "<tr><td>2.本期利润</td><td>396,284,713.58</td><td>109,472,186.35</td></tr>"
            "<tr><td>4.期末基金资产净值</td><td>2,558,098,015.85</td><td>780,989,267.55</td></tr>"
            "</table>"
        ),
    )
]


def test_share_classes_are_columns_named_by_their_letters() -> None:
    labels = {1: "报告期 / 汀岚景和混合A", 2: "报告期 / 汀岚景和混合C"}
    assert classes_named(labels, "A类和C类合计") == {1: "A", 2: "C"}
    assert classes_named(labels, "What is a fund's net asset value?") == {}  # an article
    assert label_core("1.本期已实现收益") == "本期已实现收益"
    assert label_core("（3）投资收益") == "投资收益"
    total = fact_value_lines(_as("A类和C类期末基金资产净值合计多少元？", "sum"), _FUND)
    assert total and "2558098015.85 + 780989267.55 = 3339087283.4" in total[0]
    ratio = fact_value_lines(_as("A类份额的本期利润是C类的多少倍？", "divide"), _FUND)
    assert ratio and "396284713.58 / 109472186.35 = 3.62" in ratio[0]
    more = fact_value_lines(_as("本报告期A类的本期利润比本期已实现收益多多少元？", "diff"), _FUND)
    assert more and "396284713.58 - 58317462.09 = 337967251.49" in more[0]


def test_rows_labelled_in_two_columns_a_class_then_its_periods() -> None:
    """份额类别 repeated down runs of rows, 阶段 beside it: each row is named by both."""
    chunk = _chunk(
        "<table><tr><th>份额类别</th><th>阶段</th><th>份额净值增长率（%）</th></tr>"
        "<tr><td rowspan='2'>混合A</td><td>过去六个月</td><td>21.43</td></tr>"
        "<tr><td>过去一年</td><td>32.57</td></tr>"
        "<tr><td rowspan='2'>混合C</td><td>过去六个月</td><td>21.19</td></tr>"
        "<tr><td>过去一年</td><td>32.04</td></tr></table>"
    )
    metrics = [f.metric for f in table_facts(chunk)]
    assert metrics == [
        "混合A / 过去六个月",
        "混合A / 过去一年",
        "混合C / 过去六个月",
        "混合C / 过去一年",
    ]
    ranking = _chunk(  # a label column that does not repeat is the only label
        "<table><tr><th>公司</th><th>评级</th><th>PE</th></tr>"
        "<tr><td>甲公司</td><td>买入</td><td>21.4</td></tr>"
        "<tr><td>乙公司</td><td>增持</td><td>18.2</td></tr></table>"
    )
    assert {f.metric for f in table_facts(ranking)} == {"甲公司", "乙公司"}


def test_a_volume_is_named_by_its_verb_in_either_order() -> None:
    """销售生猪 names the row 生猪销售量: its 量 aside, the words are the label's."""
    sales = [
        (
            1,
            _chunk(
                "<table><tr><th>指标</th><th>9月</th><th>10月</th></tr>"
                "<tr><td>生猪销售量（万头）</td><td>149.7</td><td>161.5</td></tr>"
                "<tr><td>生猪销售收入（亿元）</td><td>25.1</td><td>27.8</td></tr></table>"
            ),
        )
    ]
    lines = fact_value_lines(_as("9-10月平均每月销售生猪多少万头？", "average"), sales)
    assert lines and "(149.7 + 161.5) / 2 = 155.6" in lines[0]


def test_of_several_years_asked_the_table_giving_most_of_them_is_read() -> None:
    quarters = _chunk(
        "<table><tr><th>项目</th><th>2024Q4</th><th>2025Q1</th><th>2025Q2</th></tr>"
        "<tr><td>毛利率（%）</td><td>14.5</td><td>13.6</td><td>14.8</td></tr></table>",
        1,
    )
    forecast = _chunk(
        "<table><tr><th>会计年度</th><th>2024A</th><th>2025E</th><th>2026E</th><th>2027E</th>"
        "</tr><tr><td>毛利率（%）</td><td>13.9</td><td>14.2</td><td>14.6</td><td>14.9</td></tr>"
        "</table>",
        2,
    )
    sources = [(1, quarters), (2, forecast)]
    lines = fact_value_lines(_as("公司2025-2027年预测毛利率的均值是多少？", "average"), sources)
    assert lines and "(14.9 + 14.6 + 14.2) / 3 = 14.57" in lines[0] and "[Source 2]" in lines[0]


def test_a_compound_rate_compounds_the_amount_not_a_rate_row_its_words_name_more() -> None:
    forecast = _chunk(
        "<table><tr><th>会计年度</th><th>2024A</th><th>2025E</th><th>2026E</th><th>2027E</th>"
        "</tr><tr><td>净利润增长率（%）</td><td>46.0</td><td>43.5</td><td>36.0</td><td>30.3</td>"
        "</tr><tr><td>归母净利润（百万元）</td><td>1,186.3</td><td>1,702.5</td><td>2,315.8</td>"
        "<td>3,018.4</td></tr></table>"
    )
    lines = fact_value_lines(
        _as("公司2024-2027年归母净利润的CAGR是多少？", "cagr"), [(1, forecast)]
    )
    assert lines and "(3018.4 / 1186.3)^(1/3) - 1 = 36.52%" in lines[0]


def test_a_share_of_two_rows_in_the_quarter_asked() -> None:
    quarters = _chunk(
        "<table><tr><th>项目</th><th>2025Q1</th><th>2025Q2</th><th>2025Q3</th></tr>"
        "<tr><td>营业收入（百万元）</td><td>100</td><td>110</td><td>120</td></tr>"
        "<tr><td>归母净利润（百万元）</td><td>10</td><td>11</td><td>12</td></tr></table>"
    )
    question = "2025年三季度单季归母净利润占当季营业收入的百分之几？"
    lines = fact_value_lines(_as(question, "share"), [(1, quarters)])
    assert lines and "2025Q3：12 / 120 = 10%" in lines[0]


def test_a_quarter_against_the_one_before_it_in_columns_or_down_a_split_table() -> None:
    assert quarter_before("2025年三季度归母净利润环比增长了多少？") == (("2025", 3), ("2025", 2))
    assert quarter_before("一季度营收较上季度增长了多少？") == (("", 1), ("", 4))
    assert quarter_before("2025Q1营收环比") == (("2025", 1), ("2024", 4))
    for other in ("前三季度营收环比", "10月营收环比", "三季度营收同比增长了多少？"):
        assert quarter_before(other) is None, other
    across = _chunk(
        "<table><tr><th>项目</th><th>2024Q4</th><th>2025Q1</th><th>2025Q2</th><th>2025Q3</th>"
        "</tr><tr><td>营业收入（百万元）</td><td>12,784.6</td><td>15,402.6</td><td>17,286.9</td>"
        "<td>15,091.3</td></tr><tr><td>毛利率（%）</td><td>25.1</td><td>25.8</td><td>26.4</td>"
        "<td>26.2</td></tr></table>"
    )
    fall = fact_value_lines(
        _as("今年三季度单季营业收入环比下降了多少？", "change_ratio"), [(1, across)]
    )
    assert fall and "(15091.3 - 17286.9) / 17286.9 = -12.7%" in fall[0]  # the latest year's
    first = fact_value_lines(
        _as("2025年一季度营业收入环比增长了多少？", "change_ratio"), [(1, across)]
    )
    assert first and "(15402.6 - 12784.6) / 12784.6 = 20.48%" in first[0]  # the year before's Q4
    # quarters down the rows, the table split into parts, its last part one row: the amount's
    # column, not the 环比（%） column the question's 环比 also names
    head = "<tr><th>季度</th><th>营业收入（百万元）</th><th>环比（%）</th><th>归母净利润（百万元）</th></tr>"
    parts = [
        (
            1,
            _chunk(
                f"<table>{head}<tr><td>2025Q1</td><td>2,000.0</td><td>-5.00</td><td>350.2</td></tr>"
                "<tr><td>2025Q2</td><td>2,318.7</td><td>15.94</td><td>412.6</td></tr></table>",
                1,
                "t:0",
            ),
        ),
        (
            2,
            _chunk(
                f"<table>{head}<tr><td>2025Q3</td><td>2,486.3</td><td>7.23</td><td>468.3</td></tr>"
                "</table>",
                2,
                "t:0",
            ),
        ),
    ]
    assert [f.column for f in table_facts(parts[1][1])][:1] == ["2025Q3"]  # read as its first part
    rise = fact_value_lines(_as("2025年三季度归母净利润环比增长了多少？", "change_ratio"), parts)
    assert rise and "(468.3 - 412.6) / 412.6 = 13.5%" in rise[0]


def test_an_amount_of_a_part_of_a_year_no_column_gives_adds_up_its_quarters() -> None:
    quarters = [
        (
            1,
            _chunk(
                "<table><tr><th>指标</th><th>2024Q4</th><th>2025Q1</th><th>2025Q2</th>"
                "<th>2025Q3</th></tr><tr><td>营业收入（百万元）</td><td>2,917</td><td>6,408</td>"
                "<td>4,287</td><td>4,359</td></tr><tr><td>归母净利润（百万元）</td><td>514</td>"
                "<td>2,187</td><td>1,185</td><td>1,226</td></tr><tr><td>毛利率（%）</td>"
                "<td>75.1</td><td>78.2</td><td>77.9</td><td>78.4</td></tr></table>"
            ),
        )
    ]
    nine = _as("岳泉酒业2025年前三季度累计实现归母净利润多少百万元？", "value")
    assert nine.asks_part_of_year  # 前三季度: no whole year's value answers it
    lines = fact_value_lines(nine, quarters)
    assert lines and "2187 + 1185 + 1226 = 4598" in lines[0]
    half = fact_value_lines(_as("2025年上半年营业收入合计是多少？", "value"), quarters)
    assert half and "6408 + 4287 = 10695" in half[0]
    assert fact_value_lines(_as("2025年前三季度毛利率是多少？", "value"), quarters) == []  # a rate
    third = fact_value_lines(_as("2025年三季度营业收入是多少？", "value"), quarters)
    assert third and "2025Q3：4,359" in third[0]  # one quarter of the year's: its own cell


def test_a_quarter_against_the_one_before_down_a_table_of_merged_headers() -> None:
    quarters = _chunk(
        "<table><tr><th rowspan='2'>季度</th><th colspan='2'>收入与利润</th><th>盈利能力</th></tr>"
        "<tr><th>营业收入（亿元）</th><th>同比（%）</th><th>毛利率（%）</th></tr>"
        "<tr><td>2024Q2</td><td>137.9</td><td>21.8</td><td>13.9</td></tr>"
        "<tr><td>2024Q3</td><td>156.1</td><td>32.5</td><td>20.5</td></tr>"
        "<tr><td>2024Q4</td><td>160.9</td><td>33.9</td><td>22.6</td></tr></table>"
    )
    rise = fact_value_lines(
        _as("中芯国际2024年第四季度营收环比增长了多少？", "change_ratio"), [(1, quarters)]
    )
    assert rise and "(160.9 - 156.1) / 156.1 = 3.07%" in rise[0]


def test_a_part_of_a_year_added_up_down_a_table_of_merged_headers() -> None:
    quarters = _chunk(
        "<table><tr><th rowspan='2'>季度</th><th colspan='2'>收入与利润</th></tr>"
        "<tr><th>营业收入（亿元）</th><th>同比（%）</th></tr>"
        "<tr><td>2024Q1</td><td>125.9</td><td>19.7</td></tr>"
        "<tr><td>2024Q2</td><td>137.9</td><td>21.8</td></tr>"
        "<tr><td>2024Q3</td><td>156.1</td><td>32.5</td></tr>"
        "<tr><td>2024Q4</td><td>160.9</td><td>33.9</td></tr></table>"
    )
    nine = fact_value_lines(_as("2024年前三季度营收合计多少？", "sum"), [(1, quarters)])
    assert nine and "125.9 + 137.9 + 156.1 = 419.9" in nine[0]


_YEARLESS_QUARTERS = _chunk(
    "<table><tr><th>项目</th><th>第一季度（1-3月份）</th><th>第二季度（4-6月份）</th>"
    "<th>第三季度（7-9月份）</th><th>第四季度（10-12月份）</th></tr>"
    "<tr><td>营业收入</td><td>652.3</td><td>798.5</td><td>812.9</td><td>1,022.8</td></tr>"
    "<tr><td>归属于上市公司股东的净利润</td><td>58.2</td><td>81.5</td><td>79.8</td><td>93.1</td>"
    "</tr></table>"
)


def test_a_years_four_quarters_headed_without_it_are_added_up_or_averaged() -> None:
    # an annual report's 分季度 table heads its quarters without the year; 四个季度 is all four
    summed = fact_value_lines(
        _as("2024年四个季度营业收入合计多少？", "sum"), [(1, _YEARLESS_QUARTERS)]
    )
    assert summed and "652.3 + 798.5 + 812.9 + 1022.8 = 3286.5" in summed[0]
    mean = fact_value_lines(
        _as("2024年四个季度归母净利润的平均值是多少？", "average"), [(1, _YEARLESS_QUARTERS)]
    )
    assert mean and "/ 4 = 78.15" in mean[0]  # 归母净利润 names 归属于上市公司股东的净利润
    half = fact_value_lines(_as("2024年上半年营业收入是多少？", "value"), [(1, _YEARLESS_QUARTERS)])
    assert half and "652.3 + 798.5 = 1450.8" in half[0]


def test_a_quarter_named_beside_another_of_its_year_in_the_questions_order() -> None:
    quarters = _chunk(
        "<table><tr><th>指标</th><th>2024Q3</th><th>2024Q4</th><th>2025Q1</th></tr>"
        "<tr><td>归母净利润（百万元）</td><td>1,204</td><td>514</td><td>2,187</td></tr></table>"
    )
    lines = fact_value_lines(
        _as("2024年四季度归母净利润比三季度减少了多少百万元？", "diff"), [(1, quarters)]
    )
    assert lines and "2024Q4 - 2024Q3" in lines[0] and "514 - 1204 = -690" in lines[0]


def test_each_operand_of_a_working_is_quoted_with_its_row() -> None:
    """A sum of four quarters quotes the four rows it adds, not only the three quotes the
    answer keeps otherwise (the fourth quarter's row was left out); a count it divides by (/ 4)
    brings no row of its own."""
    from rag_app.answer.offline import ExtractiveAnswerer

    rows = "".join(
        f"<tr><td>2024Q{q}</td><td>{v}</td><td>{4 + q}</td></tr>"
        for q, v in ((1, "125.9"), (2, "135.1"), (3, "156.1"), (4, "160.9"))
    )
    table = Chunk(
        "t:1", "t", "table", "", "季度经营业绩", (0,), header_rows=1,
        table_html=f"<table><tr><th>季度</th><th>营业收入（亿元）</th><th>排名</th></tr>{rows}"
        "<tr><td>2023Q4</td><td>4</td><td>4</td></tr></table>",
    )  # fmt: skip
    for question in ("2024年四个季度营业收入合计多少？", "2024年四个季度营业收入平均每季度多少？"):
        text = ExtractiveAnswerer().answer_text(analyse_query(question), [(1, table)])
        quoted = [line for line in text.splitlines() if line.startswith("- ")]
        assert [q for q in ("2024Q1", "2024Q2", "2024Q3", "2024Q4") if any(q in x for x in quoted)] == [
            "2024Q1", "2024Q2", "2024Q3", "2024Q4"
        ], text  # fmt: skip
        assert not any("2023Q4" in line for line in quoted), text


def test_a_quarter_against_the_same_quarter_a_year_before() -> None:
    from rag_app.text.period_pointers import quarters_compared

    assert quarters_compared("2024年第三季度营收同比增长多少？") == (("2024", 3), ("2023", 3))
    assert quarters_compared("2024年三季度营收比2023年三季度增长了多少？") == (
        ("2024", 3),
        ("2023", 3),
    )
    assert quarters_compared("2023年四季度和2024年一季度相比") == (("2024", 1), ("2023", 4))
    assert quarters_compared("三季度营收较去年同期增长多少？") == (("", 3), ("", 3))
    for other in ("2024年三季度营收环比增长多少", "2024年营收同比增长多少", "10月营收同比"):
        assert quarters_compared(other) is None, other
    down = _chunk(
        "<table><tr><th>季度</th><th>营业收入（亿元）</th><th>毛利率（%）</th></tr>"
        "<tr><td>2023Q3</td><td>117.5</td><td>19.8</td></tr>"
        "<tr><td>2024Q2</td><td>135.1</td><td>13.9</td></tr>"
        "<tr><td>2024Q3</td><td>156.1</td><td>20.5</td></tr></table>"
    )
    rise = fact_value_lines(_as("2024年三季度营收同比增长了多少？", "change_ratio"), [(1, down)])
    assert rise and "(156.1 - 117.5) / 117.5 = 32.85%" in rise[0]  # not against 2024Q2
    more = fact_value_lines(_as("2024年三季度的营收比2023年三季度多多少？", "diff"), [(1, down)])
    assert more and "156.1 - 117.5 = 38.6" in more[0]
    across = _chunk(
        "<table><tr><th>项目</th><th>2024Q1</th><th>2024Q2</th><th>2025Q1</th><th>2025Q2</th>"
        "</tr><tr><td>营业收入（百万元）</td><td>1,000</td><td>1,100</td><td>1,200</td>"
        "<td>1,320</td></tr></table>"
    )
    latest = fact_value_lines(_as("二季度营业收入同比增长多少？", "change_ratio"), [(1, across)])
    assert (
        latest and "(1320 - 1100) / 1100 = 20%" in latest[0]
    )  # the latest year's, the year before


def test_a_quarters_year_on_year_change_is_worked_from_the_amount_not_the_stated_rate() -> None:
    # 同比 names the table's 同比（%） column too; the change is the amount's (营业收入 of 收入与利润)
    quarters = _chunk(
        "<table><tr><th rowspan='2'>季度</th><th colspan='2'>收入与利润</th><th>盈利能力</th></tr>"
        "<tr><th>营业收入（亿元）</th><th>同比（%）</th><th>毛利率（%）</th></tr>"
        "<tr><td>2023Q3</td><td>117.5</td><td>-13.2</td><td>19.8</td></tr>"
        "<tr><td>2024Q2</td><td>137.9</td><td>21.8</td><td>13.9</td></tr>"
        "<tr><td>2024Q3</td><td>156.1</td><td>32.9</td><td>20.5</td></tr></table>"
    )
    rise = fact_value_lines(
        _as("中芯国际2024年第三季度营收同比增长多少？", "change_ratio"), [(1, quarters)]
    )
    assert rise and "(156.1 - 117.5) / 117.5 = 32.85%" in rise[0]
    # the rate itself when no amount is named: its percentage points
    rate = fact_value_lines(
        _as("2024年三季度同比增速比2023年三季度高多少个百分点？", "diff"), [(1, quarters)]
    )
    assert rate and "32.9 - -13.2 = 46.1" in rate[0], rate


_QUARTER_ROWS = _chunk(
    "<table><tr><th>季度</th><th>营业收入（亿元）</th><th>毛利率（%）</th></tr>"
    "<tr><td>2023Q4</td><td>118.3</td><td>16.4</td></tr>"
    "<tr><td>2024Q1</td><td>125.9</td><td>13.7</td></tr>"
    "<tr><td>2024Q2</td><td>135.1</td><td>13.9</td></tr>"
    "<tr><td>2024Q3</td><td>156.1</td><td>20.5</td></tr></table>"
)
_YEARS = _chunk(
    "<table><tr><th>项目</th><th>2022A</th><th>2023A</th><th>2024A</th></tr>"
    "<tr><td>毛利率（%）</td><td>38.3</td><td>19.3</td><td>18.6</td></tr></table>",
    2,
)


def test_which_quarter_is_highest_or_lowest_reads_the_quarters_not_the_years() -> None:
    sources = [(1, _YEARS), (2, _QUARTER_ROWS)]
    low = fact_value_lines(_as("2024年哪个季度毛利率最低？", "year_min"), sources)
    assert low and "最低季度（2024Q1 13.7; 2024Q2 13.9; 2024Q3 20.5）：2024Q1" in low[0], low
    high = fact_value_lines(_as("哪个季度的毛利率最高？", "year_max"), sources)
    assert high and "2023Q4 16.4" in high[0] and high[0].endswith("：2024Q3 [Source 2]"), high
    year = fact_value_lines(_as("哪一年的毛利率最高？", "year_max"), sources)
    # each year as its column writes it: an actual (A) told from a forecast (E)
    assert year and "最高年份（2022A 38.3; 2023A 19.3; 2024A 18.6）：2022A" in year[0], year


def test_a_halfs_amount_asked_as_a_lookup_or_an_unsure_sum_adds_its_quarters() -> None:
    sources = [(1, _QUARTER_ROWS)]
    for operation in ("span", "value", "sum"):
        query = _as("2024年上半年营业收入是多少？", operation)
        lines = fact_value_lines(query, sources)
        assert lines and "125.9 + 135.1 = 261" in lines[0], (operation, lines)
    unsure = analyse_query("2024年前三季度营业收入是多少？")
    unsure._lazy["operation"] = Operation("sum", 0.4)
    lines = fact_value_lines(unsure, sources)
    assert lines and "125.9 + 135.1 + 156.1 = 417.1" in lines[0]
    # a rate's quarters do not add up, and an average is not a sum
    assert fact_value_lines(_as("2024年上半年毛利率是多少？", "span"), sources) == []


def test_a_quarters_value_in_a_row_under_a_merged_header_is_read_by_its_own_label() -> None:
    # 毛利率（%） under 盈利能力, 营业收入（亿元） under 收入与利润: the question names the leaf
    quarters = _chunk(
        "<table><tr><th rowspan='2'>季度</th><th colspan='2'>收入与利润</th><th>盈利能力</th></tr>"
        "<tr><th>营业收入（亿元）</th><th>同比（%）</th><th>毛利率（%）</th></tr>"
        "<tr><td>2024Q3</td><td>156.1</td><td>32.9</td><td>20.5</td></tr>"
        "<tr><td>2024Q4</td><td>160.9</td><td>33.9</td><td>22.6</td></tr></table>"
    )
    margin = fact_value_lines(_as("中芯国际2024年第四季度毛利率是多少？", "span"), [(1, quarters)])
    assert margin and "毛利率（%） 2024Q4：22.6" in margin[0], margin
    revenue = fact_value_lines(_as("中芯国际2024年第四季度营收是多少？", "span"), [(1, quarters)])
    assert revenue and "营业收入（亿元） 2024Q4：160.9" in revenue[0], revenue


def test_quarters_counted_are_those_of_the_year_named() -> None:
    quarters = _chunk(
        "<table><tr><th>项目</th><th>2023Q3</th><th>2023Q4</th><th>2024Q1</th><th>2024Q2</th>"
        "</tr><tr><td>营业收入（亿元）</td><td>160</td><td>170</td><td>125.9</td><td>156.1</td>"
        "</tr></table>"
    )
    counted = fact_value_lines(
        _as("2024年有几个季度营业收入超过150亿元？", "count"), [(1, quarters)]
    )
    assert counted and "（2024Q1 125.9; 2024Q2 156.1）：1" in counted[0], counted
    every = fact_value_lines(_as("有几个季度营业收入超过150亿元？", "count"), [(1, quarters)])
    assert every and "：3" in every[0], every
