"""The Library page's facts (ui/render_facts.py): a row a stored fact, in the UI's language,
its scale as the report writes it (万, 亿, 百万, %)."""

from __future__ import annotations

from rag_app.facts.stored import stored_facts
from rag_app.models import Chunk
from ui.render_facts import facts_table, scale_text

TABLE = Chunk(
    "r:1", "r", "table", "", "", (0,), pages=(1,), caption="表1：盈利预测",
    table_html="<table><tr><td>项目</td><td>2024A</td><td>2025E</td></tr>"
    "<tr><td>营业收入（亿元）</td><td>10.2</td><td>11.5</td></tr>"
    "<tr><td>净利润（百万元）</td><td>1.2</td><td>1.5</td></tr>"
    "<tr><td>毛利率（%）</td><td>30.1</td><td>31.2</td></tr>"
    "<tr><td>市盈率（倍）</td><td>20.1</td><td>18.2</td></tr></table>",
)  # fmt: skip
FACTS = stored_facts([TABLE], "甲公司")


def test_a_row_a_fact_with_its_unit_scale_and_table(lang: str) -> None:
    table = facts_table(FACTS)
    assert len(table) == 8
    headers = {
        "zh": ["主体", "指标", "期间", "列", "数值", "单位", "量级", "表格"],
        "en": ["Subject", "Metric", "Period", "Column", "Value", "Unit", "Scale", "Table"],
    }
    assert list(table.columns) == headers[lang]
    first = table.iloc[0].tolist()
    page = "第 2 页" if lang == "zh" else "p. 2"
    scale = "亿" if lang == "zh" else "hundred million"
    assert first == ["甲公司", "营业收入（亿元）", "2024A", "2024A", "10.2", "亿元", scale,
                     f"表1：盈利预测 · {page}"]  # fmt: skip
    assert list(facts_table([]).columns) == headers[lang]  # no facts: the headers still


def test_the_scale_as_written(lang: str) -> None:
    scales = [scale_text(f) for f in FACTS[::2]]
    assert scales == (["亿", "百万", "%", ""] if lang == "zh" else
                      ["hundred million", "million", "%", ""])  # fmt: skip
