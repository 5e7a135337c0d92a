"""The scale a cell is written in (rag_app/answer/fact_format.py): its own, its label's, else
the nearest source's that states one; a label with a unit of its own borrows none."""

from __future__ import annotations

import pytest

from rag_app.answer.fact_format import cell_scale, fact_line
from rag_app.facts.cells import Fact
from rag_app.models import Chunk


def _table(chunk_id: str, caption: str) -> Chunk:
    html = "<table></table>"
    return Chunk(chunk_id, "r", "table", caption, caption, (0,), table_html=html, caption=caption)


# Two tables of one report: a forecast in 百万元 beside a quarterly table stating no scale.
SOURCES = [(1, _table("r:1", "表1：盈利预测（百万元）")), (2, _table("r:2", "表7：季度财务数据"))]


def _fact(metric: str, column: str = "2024Q3") -> Fact:
    return Fact("r:2", 1, 1, metric, column, "156.1", 156.1, "")


@pytest.mark.parametrize(
    ("metric", "scale"),
    [
        ("收入与利润 / 营业收入（亿元）", ""),  # 亿 has no English scale word; its own unit
        ("产能利用率（%）", ""),  # a percent, not 156.1 million
        ("营业收入（百万元）", "million"),  # its label states the scale
        ("营业收入", "million"),  # no unit of its own: the report's other table's
    ],
)
def test_a_label_with_a_unit_of_its_own_borrows_no_scale(metric: str, scale: str) -> None:
    assert cell_scale(_fact(metric), 2, SOURCES) == scale


def test_an_english_value_line_writes_no_borrowed_scale_after_an_amount_in_yi() -> None:
    fact = _fact("收入与利润 / 营业收入（亿元）")
    line = fact_line(
        f"{fact.metric}, {fact.column}", fact.value, cell_scale(fact, 2, SOURCES), 2, "en"
    )
    assert line == "收入与利润 / 营业收入（亿元）, 2024Q3: 156.1 [Source 2]"
