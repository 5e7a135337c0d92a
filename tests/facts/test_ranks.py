"""Ranking tables (rag_app/facts/ranks.py) and the line naming who ranks where
(rag_app/answer/fact_lines.ranked_lines): the ranks a question asks by, read from its
numerals, never a quarter's 第一 or 前三季度; the table by its shape, a rank column beside names."""

from __future__ import annotations

import pytest

from rag_app.answer.fact_counts import ranked_lines
from rag_app.facts.ranks import asked_ranks, is_ordinal, ranked_rows, stated_rows
from rag_app.models import Chunk
from rag_app.understand.analysis import analyse_query


@pytest.mark.parametrize(
    ("question", "ranks"),
    [
        ("2024年全球晶圆代工厂营收排名第一的是哪家？", (1,)),
        ("排名前三的晶圆代工厂是哪几家？", (1, 2, 3)),
        ("前五大客户都有谁？", (1, 2, 3, 4, 5)),
        ("Which company ranked second by revenue?", (2,)),
        ("Who are the top five customers?", (1, 2, 3, 4, 5)),
        ("排名第十二的是谁？", (12,)),
        ("2024年第一季度营收是多少？", ()),  # a quarter
        ("前三季度营收是多少？", ()),
        ("中芯国际排名第几？", ()),  # asks the rank, not by it
        ("第一大重仓股的公允价值比第二大重仓股多多少？", (1, 2)),  # two ranks, in their order
    ],
)
def test_the_ranks_a_question_asks_by(question: str, ranks: tuple[int, ...]) -> None:
    assert asked_ranks(question) == ranks


def test_a_rank_column_counts_its_rows() -> None:
    assert is_ordinal(["1", "2", "3"]) and not is_ordinal(["1", "3", "4"]) and not is_ordinal(["7"])


@pytest.mark.parametrize(
    ("question", "lang", "answer"),
    [
        ("2024年全球晶圆代工厂营收排名第一的是哪家？", "zh", "第1名：台积电"),
        ("排名前三的晶圆代工厂是哪几家？", "zh", "前3名：台积电、三星、中芯国际"),
        ("Which foundry ranked second by 2024 revenue?", "en", "Rank 2: 三星"),
    ],
)
def test_who_ranks_where_from_the_ranking_table(sample_sources, question, lang, answer) -> None:  # type: ignore[no-untyped-def]
    lines = ranked_lines(analyse_query(question), sample_sources, lang)
    assert len(lines) == 1 and answer in lines[0] and "表3" in lines[0]
    number = int(lines[0].rsplit("[Source ", 1)[1].rstrip("]"))
    assert "台积电" in dict(sample_sources)[number].text


def test_no_rank_line_unless_a_name_is_asked_by_rank(sample_sources) -> None:  # type: ignore[no-untyped-def]
    assert ranked_lines(analyse_query("中芯国际2024年营收排名第几？"), sample_sources) == []
    assert ranked_lines(analyse_query("排名第一的营收是多少亿美元？"), sample_sources) == []


def test_a_ranking_within_each_period_is_read_in_the_period_asked() -> None:
    html = (
        "<table><tr><td>期间</td><td>序号</td><td>客户名称</td><td>销售金额（万元）</td></tr>"
        '<tr><td rowspan="3">2023年度</td><td>1</td><td>甲公司</td><td>9,836.27</td></tr>'
        "<tr><td>2</td><td>乙公司</td><td>6,402.15</td></tr>"
        '<tr><td colspan="2">合计</td><td>16,238.42</td></tr>'
        '<tr><td rowspan="3">2022年度</td><td>1</td><td>乙公司</td><td>8,215.09</td></tr>'
        "<tr><td>2</td><td>丙公司</td><td>4,390.52</td></tr>"
        '<tr><td colspan="2">合计</td><td>12,605.61</td></tr></table>'
    )
    table = Chunk(
        chunk_id="t",
        doc_id="d",
        text="",
        search_text="",
        type="table",
        pages=(1,),
        item_indices=(0,),
        table_html=html,
        header_rows=1,
        caption="前五名客户的销售情况",
    )
    rows = ranked_rows("2022年前两名客户是谁？", [(4, table)])
    assert [(r.rank, r.name, r.source) for r in rows] == [(1, "乙公司", 4), (2, "丙公司", 4)]
    assert [r.name for r in ranked_rows("前两名客户是谁？", [(4, table)])] == ["甲公司", "乙公司"]


def _holdings(rows: str, n: int, head: str = "") -> Chunk:
    return Chunk(
        f"f:{n}", "f", "table", "", "", (0,), caption="前十名股票投资明细", parent_table_id="f:t",
        table_html="<table><tr><th>序号</th><th>股票名称</th><th>公允价值（元）</th></tr>"
        f"{rows}</table>",
    )  # fmt: skip


def test_rows_named_by_rank_are_worked_out_across_a_table_split_by_rows() -> None:
    from dataclasses import replace

    from rag_app.answer.fact_lines import fact_value_lines
    from rag_app.understand.operations import Operation

    first = _holdings("<tr><td>1</td><td>岑岭微电子</td><td>220.6</td></tr>"
                      "<tr><td>2</td><td>溯光通信</td><td>199.6</td></tr>", 1)  # fmt: skip
    second = _holdings("<tr><td>3</td><td>衡沙电气</td><td>184.6</td></tr>"
                       "<tr><td>4</td><td>琨源新材</td><td>153.8</td></tr>", 2)  # fmt: skip
    sources = [(1, first), (2, replace(second))]

    def lines(question: str, operation: str) -> list[str]:
        query = analyse_query(question)
        query._lazy["operation"] = Operation(operation, 0.9)
        return fact_value_lines(query, sources)

    diff = lines("第一大重仓股的公允价值比第二大重仓股多多少元？", "diff")
    assert diff and "岑岭微电子 - 溯光通信" in diff[0] and "220.6 - 199.6 = 21" in diff[0]
    average = lines("前三大重仓股平均每只的公允价值是多少元？", "average")
    assert average and "(220.6 + 199.6 + 184.6) / 3 = 201.6" in average[0]  # 3 in the second part
    assert [r.name for r in ranked_rows("第三大重仓股的公允价值", sources)] == ["衡沙电气"]


@pytest.mark.parametrize(
    ("question", "count"),
    [
        ("垣工重机那四家可比公司2025年的PE均值是多少倍？", 4),
        ("表中5家可比公司的平均PE是多少？", 5),
        ("排名第四家的公司是谁？", 0),  # a rank, not a count
        ("前五家公司的份额合计是多少？", 0),  # ranks (asked_ranks reads them)
        ("四家中哪家的PE最高？", 0),  # among them: no count of rows asked over
        ("可比公司2025年PE的平均值是多少？", 0),
        ("鹏屿财险六个主要险种2024年综合成本率的简单平均是多少？", 6),  # 个 counts rows too
        ("2024年四个季度营收合计多少？", 0),  # …not quarters
        ("毛利率比上年高了3个百分点吗？", 0),  # …nor points
    ],
)
def test_a_count_of_companies_the_question_states(question: str, count: int) -> None:
    assert stated_rows(question) == count


def test_a_rankings_column_named_by_a_synonym_or_without_its_year() -> None:
    from rag_app.answer.fact_lines import fact_value_lines
    from rag_app.understand.operations import Operation

    ranking = Chunk(
        "r:1", "r", "table", "", "", (0,), caption="表3：2024年全球晶圆代工厂营收排名",
        table_html="<table><tr><th>排名</th><th>厂商</th><th>2024年营收（亿美元）</th>"
        "<th>市占率（%）</th></tr><tr><td>1</td><td>台积电</td><td>881.6</td><td>64.9</td></tr>"
        "<tr><td>2</td><td>三星</td><td>131.8</td><td>9.7</td></tr>"
        "<tr><td>3</td><td>中芯国际</td><td>80.3</td><td>5.9</td></tr></table>",
    )  # fmt: skip

    def lines(question: str, operation: str) -> list[str]:
        query = analyse_query(question)
        query._lazy["operation"] = Operation(operation, 0.9)
        return fact_value_lines(query, [(1, ranking)])

    # 市场份额 names 市占率 (a synonym); the 排名 column the question also names is the rank
    share = lines("表3中排名前三的厂商市场份额加起来是多少？", "sum")
    assert share and "64.9 + 9.7 + 5.9 = 80.5" in share[0]
    revenue = lines("表3中排名第一和第二的厂商营收相差多少？", "diff")
    assert revenue and "881.6 - 131.8 = 749.8" in revenue[0]

    # no column named by its words: the one in the unit asked (卖了多少台 of 销量（台）), the
    # sum read unsurely (0.55) confirmed by the ranks it names
    sales = Chunk(
        "r:2", "r", "table", "", "", (0,), caption="表4：2024年国内挖掘机销量排名",
        table_html="<table><tr><th>排名</th><th>厂商</th><th>2024年销量（台）</th>"
        "<th>市场份额（%）</th></tr><tr><td>1</td><td>岱山重工</td><td>27,122</td><td>26.8</td>"
        "</tr><tr><td>2</td><td>垣工重机</td><td>14,472</td><td>14.3</td></tr>"
        "<tr><td>3</td><td>柳岳机械</td><td>11,740</td><td>11.6</td></tr></table>",
    )  # fmt: skip
    from rag_app.answer.fact_lines import worked_lines

    query = analyse_query("国内挖掘机前三名2024年一共卖了多少台？")
    query._lazy["operation"] = Operation("sum", 0.55, "value")
    (line,) = worked_lines(query, [(1, sales)])
    assert "27122 + 14472 + 11740 = 53334" in line
