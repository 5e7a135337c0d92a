"""Computed answers over a broker report's tables (rag_app/answer/fact_lines.py and
fact_counts.py with rag_app/facts): a ranking's rows named by their companies, the rest of a
ranking (其他) no item of its own, a share whose whole another table gives, and a row's quarters
summed over a part of a year or counted."""

from __future__ import annotations

from rag_app.answer.fact_lines import fact_value_lines
from rag_app.facts.cells import table_facts
from rag_app.models import Chunk
from rag_app.text.comparisons import threshold
from rag_app.text.names import leading_name
from rag_app.text.periods import asks_by_quarter, quarter_of
from rag_app.understand.analysis import analyse_query
from rag_app.understand.operations import Operation


def _as(question: str, operation: str):  # type: ignore[no-untyped-def]
    query = analyse_query(question)
    query._lazy["operation"] = Operation(operation, 0.9)
    return query


def _table(n: int, html: str, caption: str = "") -> tuple[int, Chunk]:
    return n, Chunk(f"t:{n}", "t", "table", "", "", (n,), table_html=html, caption=caption)


_FORECAST = _table(
    1,
    "<table><tr><td>指标</td><td>2023A</td><td>2024A</td></tr>"
    "<tr><td>营业收入（百万元）</td><td>38,624</td><td>41,187</td></tr></table>",
    "表1：盈利预测与估值",
)
_PRODUCTS = _table(
    2,
    "<table><tr><td rowspan='2'>产品</td><td colspan='2'>营业收入（百万元）</td></tr>"
    "<tr><td>2023A</td><td>2024A</td></tr>"
    "<tr><td>挖掘机械</td><td>15,237</td><td>17,582</td></tr>"
    "<tr><td>桩工机械</td><td>3,105</td><td>3,387</td></tr></table>",
    "表2：分产品营业收入",
)
_RANKING = _table(
    3,
    "<table><tr><td>排名</td><td>公司</td><td>2024年销量（台）</td><td>市场份额（%）</td></tr>"
    "<tr><td>1</td><td>岱山重工</td><td>27,122</td><td>26.8</td></tr>"
    "<tr><td>2</td><td>垣工重机</td><td>14,472</td><td>14.3</td></tr>"
    "<tr><td>3</td><td>柳岳机械</td><td>9,311</td><td>9.2</td></tr>"
    "<tr><td>—</td><td>其他</td><td>50,295</td><td>49.7</td></tr>"
    "<tr><td colspan='2'>合计</td><td>101,200</td><td>100.0</td></tr></table>",
    "表3：2024年国内挖掘机销量及市场份额",
)
_QUARTERS = _table(
    4,
    "<table><tr><td>指标</td><td>2024Q3</td><td>2024Q4</td><td>2025Q1</td><td>2025Q2</td></tr>"
    "<tr><td>营业收入（百万元）</td><td>4,215</td><td>2,917</td><td>6,408</td><td>4,287</td></tr>"
    "</table>",
    "表4：单季度经营数据",
)


def test_a_rankings_rows_are_named_by_their_companies() -> None:
    facts = table_facts(_RANKING[1])
    assert {f.metric for f in facts} >= {"岱山重工", "垣工重机", "其他", "合计"}
    assert any(f.metric == "垣工重机" and f.column == "排名" and f.value == "2" for f in facts)
    ratio = fact_value_lines(
        _as("岱山重工去年的挖掘机销量是垣工重机的几倍？", "divide"), [_RANKING]
    )
    assert ratio and "27122 / 14472 = 1.87" in ratio[0]
    assert leading_name("岱山重工去年的挖掘机销量是多少？") == "岱山重工"  # 去年: a period


def test_the_rest_of_a_ranking_is_not_counted_as_one_of_its_companies() -> None:
    assert threshold("有几家超过了9%？") is not None  # 了 after the comparative
    lines = fact_value_lines(_as("市场份额超过9%的厂商有几家？", "count"), [_RANKING])
    assert lines and lines[0].endswith("：3 [Source 3]") and "其他" not in lines[0]


def test_a_share_whose_whole_another_table_gives() -> None:
    """挖掘机械 is a row of the product table, which has no total; 总营收 is 表1's 营业收入."""
    question = "2024年挖掘机械收入占垣工重机总营收的比例是多少？"
    lines = fact_value_lines(_as(question, "share"), [_FORECAST, _PRODUCTS, _RANKING])
    assert lines and "17582 / 41187 = 42.69%" in lines[0]  # not 桩工机械, nor the ranking's row


def test_a_rows_quarters_summed_over_a_half_and_counted() -> None:
    assert quarter_of("2025Q1") == ("2025", 1) and quarter_of("2025年第二季度") == ("2025", 2)
    assert asks_by_quarter("有几个季度") and not asks_by_quarter("有几年")
    half = fact_value_lines(_as("2025年上半年收入合计多少？", "sum"), [_FORECAST, _QUARTERS])
    assert half and "2025Q1 + 2025Q2：6408 + 4287 = 10695" in half[0]
    question = "有几个季度单季收入超过了4,300百万元？"
    count = fact_value_lines(_as(question, "count"), [_FORECAST, _QUARTERS])
    assert count and "的季度" in count[0] and count[0].endswith("：1 [Source 4]")


def test_a_share_of_two_rows_both_written_whole_keeps_both() -> None:
    """个人存款's words are all in 个人定期存款's, yet the question writes both: both are read."""
    deposits = _table(
        5,
        "<table><tr><td>项目</td><td>2024年末</td></tr>"
        "<tr><td>个人存款</td><td>1,910.78</td></tr>"
        "<tr><td>其中：个人定期存款</td><td>1,508.63</td></tr></table>",
    )
    lines = fact_value_lines(
        _as("2024年末个人定期存款占个人存款的比例是多少？", "share"), [deposits]
    )
    assert lines and "1508.63 / 1910.78 = 78.95%" in lines[0]
    assert leading_name("梅湾和金沙两个港区今年累计完成多少？") == ""  # two places, no company


def test_a_percentage_is_no_part_of_another_tables_amount() -> None:
    # the customers' 占营业收入比例（%） is a share already, not a part of another table's amount;
    # the product table's row and its 合计 give the share asked
    customers = _table(
        1,
        "<table><tr><th>期间</th><th>序号</th><th>客户名称</th><th>销售金额（万元）</th>"
        "<th>占营业收入比例（%）</th></tr><tr><td rowspan='2'>2023年度</td><td>1</td>"
        "<td>甲公司</td><td>9,836.27</td><td>15.77</td></tr>"
        "<tr><td>2</td><td>乙公司</td><td>6,402.15</td><td>10.26</td></tr></table>",
    )
    products = _table(
        3,
        "<table><tr><td rowspan='2'>产品类别</td><td colspan='2'>2023年度</td></tr>"
        "<tr><td>金额</td><td>占比（%）</td></tr>"
        "<tr><td>六维力传感器</td><td>28,165.42</td><td>45.62</td></tr>"
        "<tr><td>关节扭矩传感器</td><td>33,570.93</td><td>54.38</td></tr>"
        "<tr><td>主营业务收入合计</td><td>61,736.35</td><td>100.00</td></tr></table>",
    )
    question = "2023年六维力传感器收入占主营收入的比例？"
    lines = fact_value_lines(_as(question, "share"), [customers, products])
    assert lines and "28165.42 / 61736.35 = 45.62%" in lines[0]


def test_an_average_of_no_rows_named_is_the_one_the_comparables_table_states() -> None:
    # "可比公司…均值" names no company: the table's 平均值 row gives it, not the report's own PE
    # row averaged over two years (2025E and 2026E)
    comps = _table(
        4,
        "<table><tr><td rowspan='2'>公司</td><td rowspan='2'>代码</td><td colspan='2'>PE（倍）</td>"
        "</tr><tr><td>2025E</td><td>2026E</td></tr>"
        "<tr><td>剑阳酒业</td><td>000869.SZ</td><td>15.2</td><td>13.4</td></tr>"
        "<tr><td>古岭贡酒</td><td>000799.SZ</td><td>29.0</td><td>25.4</td></tr>"
        "<tr><td colspan='2'>平均值</td><td>22.1</td><td>19.4</td></tr></table>",
    )
    own = _table(
        5,
        "<table><tr><td>指标</td><td>2025E</td><td>2026E</td></tr>"
        "<tr><td>PE（倍）</td><td>20.2</td><td>18.0</td></tr></table>",
    )
    lines = fact_value_lines(_as("可比公司2026年PE的均值是多少倍？", "average"), [own, comps])
    assert lines and lines[0].startswith("平均值 PE（倍） / 2026E：19.4")


def test_a_companys_row_in_a_ranking_gives_only_what_its_columns_name() -> None:
    # the ranking's 2024年销量 is no 营业收入: the forecast's row answers
    revenue = fact_value_lines(_as("岱山重工2024年营业收入是多少？", "span"), [_RANKING, _FORECAST])
    assert revenue and "41,187" in revenue[0] and "27,122" not in revenue[0]
    # an undated column of a ranking dated by its caption, in the year asked only
    share = fact_value_lines(_as("岱山重工2024年市场份额是多少？", "span"), [_RANKING])
    assert share and share[0].startswith("岱山重工 市场份额（%）：26.8")
    assert not fact_value_lines(_as("岱山重工2023年市场份额是多少？", "span"), [_RANKING])


def test_a_year_is_not_read_off_its_first_quarters_column() -> None:
    # 2024Q3 and 2025Q1 are no years' revenue: which year is highest is not read from them
    assert not fact_value_lines(_as("哪一年营业收入最高？", "year_max"), [_QUARTERS])
    assert fact_value_lines(_as("哪一年营业收入最高？", "year_max"), [_QUARTERS, _FORECAST]) == [
        "营业收入（百万元） 最高年份（2023A 38,624; 2024A 41,187）：2024A [Source 1]"
    ]


def test_no_year_named_adds_no_forecast_to_the_actuals() -> None:
    forecast = _table(
        5,
        "<table><tr><td>指标</td><td>2023A</td><td>2024A</td><td>2025E</td></tr>"
        "<tr><td>归母净利润（百万元）</td><td>4,823</td><td>3,699</td><td>5,210</td></tr></table>",
        "表1：盈利预测与估值",
    )
    assert not fact_value_lines(_as("归母净利润合计多少？", "sum"), [forecast])
    named = fact_value_lines(_as("2023-2024年归母净利润合计多少？", "sum"), [forecast])
    assert named and "3699 + 4823 = 8522" in named[0], named


_TWO_ROWS = _table(
    6,
    "<table><tr><td>指标</td><td>2023A</td><td>2024A</td><td>2025E</td></tr>"
    "<tr><td>营业收入（百万元）</td><td>45,250</td><td>57,796</td><td>67,850</td></tr>"
    "<tr><td>归母净利润（百万元）</td><td>4,823</td><td>3,699</td><td>5,210</td></tr></table>",
    "表1：盈利预测与估值",
)


def test_the_same_asked_of_two_metrics_is_answered_for_each() -> None:
    from rag_app.answer.offline import ExtractiveAnswerer

    # the joining 和 leans the model to a sum; each metric's own change, of the latest actuals
    query = _as("营收和归母净利润同比增长了多少？", "sum")
    answer = ExtractiveAnswerer().answer_text(query, [_TWO_ROWS])
    assert "(57796 - 45250) / 45250 = 27.73%" in answer, answer
    assert "(3699 - 4823) / 4823 = -23.3%" in answer, answer
    both = ExtractiveAnswerer().answer_text(
        _as("2024年营收和归母净利润分别是多少？", "multi-span"), [_TWO_ROWS]
    )
    assert "57,796" in both.split("- ")[0] and "3,699" in both.split("- ")[0], both


def test_a_year_only_its_quarters_give_is_each_quarter_never_added() -> None:
    from rag_app.answer.fact_counts import quarters_listed

    quarters = _table(
        7,
        "<table><tr><td>指标</td><td>2024Q1</td><td>2024Q2</td><td>2024Q3</td><td>2024Q4</td></tr>"
        "<tr><td>月产能（万片）</td><td>81.4</td><td>83.7</td><td>88.4</td><td>94.8</td></tr>"
        "</table>",
        "表4：季度月产能",
    )
    line = quarters_listed(_as("2024年月产能是多少？", "span"), [quarters], "zh")
    assert (
        line
        == "月产能（万片） 2024年各季度：2024Q1 81.4; 2024Q2 83.7; 2024Q3 88.4; 2024Q4 94.8 [Source 7]"
    )
    assert not quarters_listed(_as("2024年月产能合计多少？", "sum"), [quarters], "zh")
    assert not quarters_listed(_as("2025年月产能是多少？", "span"), [quarters], "zh")
