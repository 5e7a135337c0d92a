"""A table's cells as the library stores them (rag_app/facts/stored.py): the cells the answers'
reader reads, with the document's subject, each column's period, the unit and power of ten an
amount is written in, and the table it is a cell of; a series read from them is the one read
from the tables."""

from __future__ import annotations

import pytest

from rag_app.facts.cells import Fact, table_facts
from rag_app.facts.series import facts_series, metric_series
from rag_app.facts.stored import by_table, period_of, stored_facts
from rag_app.models import Chunk
from rag_app.understand.analysis import analyse_query
from tests.facts.test_series import SUBJECTS, TABLES


def _chunk(html: str, caption: str = "", footnote: str = "", n: int = 1) -> Chunk:
    return Chunk(
        f"r:{n}", "r", "table", "", "", (0,), pages=(3,), heading_path=("报告", "盈利预测"),
        table_html=html, caption=caption, footnote=footnote, context="下表为公司经营数据。",
    )  # fmt: skip


HTML = (
    "<table><tr><td>项目</td><td>2023年 / Q1</td><td>2024A</td><td>2025E</td></tr>"
    "<tr><td>营业收入（百万元）</td><td>1,200</td><td>1,300</td><td>1,450</td></tr>"
    "<tr><td>毛利率（%）</td><td>38.3</td><td>19.3</td><td>18.6</td></tr>"
    "<tr><td>市盈率（倍）</td><td>56.7</td><td>42.6</td><td>36.0</td></tr>"
    "<tr><td>总市值</td><td>12.5亿</td><td>13.1亿</td><td>-</td></tr>"
    "</table>"
)


def test_the_cells_the_reader_reads_with_whose_and_where() -> None:
    chunk = _chunk(HTML, caption="表1：盈利预测（单位：百万元）", footnote="资料来源：公司公告")
    facts = stored_facts([chunk], "中芯国际")
    assert [Fact(*(getattr(f, k) for k in Fact.__dataclass_fields__)) for f in facts] == list(
        table_facts(chunk)
    )  # the very cells answers read
    cells = {(f.metric, f.column): f for f in facts}
    revenue = cells[("营业收入（百万元）", "2024A")]
    assert (revenue.subject, revenue.period, revenue.unit, revenue.exponent) == (
        "中芯国际", "2024A", "百万元", 6,
    )  # fmt: skip
    assert (revenue.doc_id, revenue.chunk_id, revenue.pages) == ("r", "r:1", (3,))
    assert revenue.caption == "表1：盈利预测（单位：百万元）"
    assert revenue.qualifier == "下表为公司经营数据。\n资料来源：公司公告"
    assert revenue.stated == "表1：盈利预测（单位：百万元） 下表为公司经营数据。 报告 盈利预测"
    margin = cells[("毛利率（%）", "2023年 / Q1")]
    assert (margin.period, margin.unit, margin.exponent) == ("2023Q1", "%", 0)
    ratio = cells[("市盈率（倍）", "2025E")]
    assert (ratio.unit, ratio.exponent) == ("倍", 0)  # its own unit: not the caption's scale
    worth = cells[("总市值", "2024A")]
    assert (worth.number, worth.unit, worth.exponent) == (13.1, "亿", 8)  # the value's own word
    assert cells[("总市值", "2025E")].number is None
    assert stored_facts([_as_text(chunk)], "x") == ()  # a text chunk holds no facts


def _as_text(chunk: Chunk) -> Chunk:
    return Chunk(chunk.chunk_id, chunk.doc_id, "text", "毛利率 38.3%", "", (0,))


@pytest.mark.parametrize(
    ("column", "period"),
    [
        ("2024年 / 金额", "2024"),
        ("实际值 / 2022A", "2022A"),
        ("2023年 / Q1", "2023Q1"),
        ("2024年上半年", "2024H1"),
        ("2023年12月31日/2023年度", "2023"),
        ("2025年1-6月", "2025年1-6月"),
        ("本报告期", ""),
        ("2022-2024", ""),
        ("", ""),
    ],
)
def test_the_period_a_column_names(column: str, period: str) -> None:
    assert period_of(column) == period


def test_facts_a_table_at_a_time_in_order() -> None:
    facts = stored_facts([_chunk(HTML, n=1), _chunk(HTML, n=2)], "")
    tables = list(by_table(facts))
    assert [t[0].chunk_id for t in tables] == ["r:1", "r:2"]
    assert sum(len(t) for t in tables) == len(facts)


def test_a_series_from_stored_facts_is_the_one_from_the_tables() -> None:
    for question in ("中芯国际和华虹2022-2024年毛利率对比", "各公司的毛利率", "营业收入"):
        query = analyse_query(question)
        facts = {d: stored_facts(t, SUBJECTS[d]) for d, t in TABLES.items()}
        assert facts_series(query, facts) == metric_series(query, TABLES, SUBJECTS)
    assert facts_series(analyse_query("净利润"), facts) is None


def test_a_scale_stated_after_its_currency_is_read() -> None:
    from rag_app.text.scales import stated_exponent

    # a bank's 单位：人民币亿元 / 单位：人民币千元, as annual reports write them
    assert stated_exponent("单位：人民币亿元") == 8 and stated_exponent("单位：人民币千元") == 3
    assert stated_exponent("单位：人民币元") == 0
