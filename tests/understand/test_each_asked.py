"""The same asked of several metrics or names, asked of each (rag_app/understand/analysis.py
``each_asked``): the offline answer gives each its line."""

from __future__ import annotations

from rag_app.understand.analysis import analyse_query, each_asked
from rag_app.understand.operations import Operation


def _as(question: str, operation: str):  # type: ignore[no-untyped-def]
    query = analyse_query(question)
    query._lazy["operation"] = Operation(operation, 0.9)
    return query


def test_metrics_or_names_joined_are_asked_one_by_one() -> None:
    metrics = each_asked(_as("中芯国际2024年营收和归母净利润分别是多少？", "multi-span"))
    assert [p.text for p in metrics] == [
        "中芯国际2024年营收分别是多少？",
        "中芯国际2024年归母净利润分别是多少？",
    ]
    assert {p.operation.name for p in metrics} == {"span"}  # each one value, not a list
    names = each_asked(_as("中芯东方和中芯西青的规划产能是多少？", "span"))
    assert [p.text for p in names] == ["中芯东方的规划产能是多少？", "中芯西青的规划产能是多少？"]


def test_a_sum_the_joining_word_suggests_is_read_again_for_each_and_a_real_one_kept() -> None:
    # 和 leaned the model to a sum; each part's own reading is a change
    growth = each_asked(_as("中芯国际营收和净利润同比增长了多少？", "sum"))
    assert len(growth) == 2 and "sum" not in {p.operation.name for p in growth}
    # what is added up is asked of the two together: so read, or surely read (0.9 here)
    assert each_asked(_as("中芯国际和台积电2024年的营收合计是多少？", "sum")) == []
    assert each_asked(_as("臻藏系列和窖龄系列2024年收入加在一起是多少百万元？", "sum")) == []
    assert each_asked(_as("中芯国际2024年的营收是多少？", "span")) == []
