"""Follow-ups made standalone without a model: what changes is put in place, what points back
gets what it points to, and a question that stands alone is left alone."""

from __future__ import annotations

import pytest

from rag_app.understand.followup import resolve, spans, standalone

SUBJECTS = {"中芯国际", "华虹半导体", "北方华创", "宁德时代", "比亚迪", "隆基绿能"}
MARGIN = "中芯国际2025年的毛利率预测是多少？"


@pytest.mark.parametrize(
    ("previous", "question", "expected"),
    [
        # a period, a company, a metric, or two of them in place of the earlier ones
        (MARGIN, "那2026年呢？", "中芯国际2026年的毛利率预测是多少？"),
        (MARGIN, "华虹半导体呢？", "华虹半导体2025年的毛利率预测是多少？"),
        (
            "中芯国际2025年预测归母净利润是多少？",
            "每股收益呢？",
            "中芯国际2025年预测每股收益是多少？",
        ),
        (
            "中芯国际2022年的营业收入是多少？",
            "那2025年的净利润呢？",
            "中芯国际2025年的净利润是多少？",
        ),
        # a table row named before: its other column, another row
        ("中芯天津（T1）的当前产能是多少？", "规划产能呢？", "中芯天津（T1）的规划产能是多少？"),
        (
            "中芯天津（T1）的当前产能是多少？",
            "中芯北京（B1）呢？",
            "中芯北京（B1）的当前产能是多少？",
        ),
        (
            "比亚迪合肥基地的当前产能是多少万辆/年？",
            "乌兹别克斯坦工厂呢？",
            "比亚迪乌兹别克斯坦工厂的当前产能是多少万辆/年？",
        ),
        # pointers back: the company (and the year for 同年)
        (MARGIN, "它的产能呢？", "中芯国际的产能呢？"),
        (
            "中芯国际2023年营业收入是多少？",
            "它2025年的市净率是多少？",
            "中芯国际2025年市净率是多少？",
        ),
        (MARGIN, "那么它2026年呢？", "中芯国际2026年的毛利率预测是多少？"),
        ("中芯国际2024年的毛利率是多少？", "同年的ROE呢？", "中芯国际2024年的ROE呢？"),
        # English
        (
            "What is SMIC's gross margin in 2024?",
            "And in 2026?",
            "What is SMIC's gross margin in 2026?",
        ),
        (
            "What is SMIC's gross margin in 2024?",
            "What about Hua Hong?",
            "What is Hua Hong's gross margin in 2024?",
        ),
        (
            "What is SMIC's gross margin in 2024?",
            "What is its P/E in 2026?",
            "What is SMIC's P/E in 2026?",
        ),
    ],
)
def test_a_follow_up_becomes_the_question_it_means(
    previous: str, question: str, expected: str
) -> None:
    resolution = resolve(question, previous, SUBJECTS)
    assert resolution.text == expected
    assert resolution.changed


@pytest.mark.parametrize(
    "question",
    [
        "华虹半导体2024年的ROE是多少？",  # names all it needs
        "哪家公司的毛利率最高？",  # asks across the library
        "中芯国际有哪些产线？",
        "What was BYD's revenue in 2023?",
        "请总结这份报告的主要风险。",
    ],
)
def test_a_question_that_stands_alone_is_left_alone(question: str) -> None:
    resolution = resolve(question, "中芯国际2024年的毛利率是多少？", SUBJECTS)
    assert resolution.text == question and not resolution.changed


def test_a_chain_of_follow_ups_builds_on_each_standalone_question() -> None:
    earlier = [MARGIN, "那2026年呢？"]
    resolution = standalone("市盈率呢？", earlier, SUBJECTS)
    assert resolution.text == "中芯国际2026年的市盈率预测是多少？"
    assert "metric 毛利率 -> 市盈率" in resolution.carried
    assert standalone("那2026年呢？", [], SUBJECTS).text == "那2026年呢？"  # no conversation


def test_spans_read_periods_subjects_and_metrics_with_their_modifiers() -> None:
    found = spans("中芯国际2025年预测归母净利润和2024Q2当前产能", SUBJECTS)
    assert [(s.kind, s.text) for s in found] == [
        ("subject", "中芯国际"),
        ("period", "2025年"),
        ("metric", "预测归母净利润"),
        ("period", "2024Q2"),
        ("metric", "当前产能"),
    ]
    # entities are not metrics: 产线 and 工厂 name things, 预测 and 同比 qualify
    assert [s.kind for s in spans("北方华创的产线和工厂", SUBJECTS)] == ["subject"]
