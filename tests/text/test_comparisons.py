"""The amount a question counts against (rag_app/text/comparisons.py): its direction, its
scale, and a cell compared with it in the cell's own scale."""

from __future__ import annotations

import pytest

from rag_app.text.comparisons import Threshold, threshold


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("How many years did interest income exceed $1,500 thousand?", (1500.0, 3, True)),
        ("In how many years was R&D more than 5 million?", (5.0, 6, True)),
        ("How many segments were below $100m in 2018?", (100.0, 6, False)),
        ("How many quarters did basic EPS exceed $0.30?", (0.3, 0, True)),
        ("营业收入超过50亿元的年份有几个？", (50.0, 8, True)),
        ("毛利率在30%以上的年份有哪些？", (30.0, 0, True)),
        ("净利润低于1,000万元的年份？", (1000.0, 4, False)),
    ],
)
def test_the_threshold_a_question_names(question: str, expected: tuple) -> None:  # type: ignore[type-arg]
    found = threshold(question)
    assert found is not None
    assert (found.number, found.exponent, found.above) == expected


def test_no_threshold_in_a_period_or_a_plain_question() -> None:
    assert threshold("What was the change over 2019?") is None  # a year is no amount
    assert threshold("What was revenue in 2019?") is None


def test_a_value_is_compared_in_its_own_scale() -> None:
    five_million = Threshold(5.0, 6, "million", True)
    assert five_million.passes(6137.0, 3) and not five_million.passes(4804.0, 3)  # thousands
    assert Threshold(4300.0, 0, "", False).passes(4210.0, 3)  # no scale: the value's
    assert not Threshold(1.0, 9, "billion", True).passes(999.0, 6)
    assert Threshold(28.0, 8, "亿", True).passes(2_874_106_532.18, 0)  # 28亿 of a table in 元
    assert not Threshold(8000.0, 4, "万", True).passes(5917.42, 4)  # 万元 both
