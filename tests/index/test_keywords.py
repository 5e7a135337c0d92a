"""Keyword tokens: jieba words, Chinese bigrams, and the period tokens reports need."""

from __future__ import annotations

import pytest

from rag_app.index.keywords import BM25Index
from rag_app.text.analyzer import index_tokens
from rag_app.text.periods import period_tokens


def test_words_and_bigrams_meet_however_jieba_segments() -> None:
    tokens = index_tokens("轻工业增加值同比增长")
    assert "轻工" in tokens and "增加" in tokens  # character bigrams
    assert "的" not in index_tokens("公司的营收")  # stopwords go


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2024年第二季度", "2024q2"),
        ("2024年二季度", "2024q2"),
        ("2024年Q2", "2024q2"),
        ("Q2 FY2024", "2024q2"),
        ("2Q24", "2024q2"),
        ("2024年上半年", "2024h1"),
    ],
)
def test_the_ways_of_writing_a_quarter_meet(text: str, expected: str) -> None:
    assert expected in period_tokens(text.lower())
    assert expected in index_tokens(text)


@pytest.mark.parametrize(
    ("text", "year", "annual"),
    [
        ("2024年的毛利率", "2024", True),
        ("实际值 2024A", "2024", True),
        ("预测值 2025E", "2025", True),
        ("FY2024 revenue", "2024", True),
        ("2024Q1", "2024", False),
        ("2024年第一季度", "2024", False),
        ("2024H1", "2024", False),
    ],
)
def test_a_year_alone_means_the_whole_year(text: str, year: str, annual: bool) -> None:
    tokens = index_tokens(text)
    assert year in tokens  # every period form also yields its bare year
    assert (f"{year}fy" in tokens) is annual


def test_a_year_question_prefers_the_annual_column_to_quarterly_rows() -> None:
    """Two tables that look alike: 盈利预测 with 2024A, and quarterly data with 2024Q1-Q4 rows
    (four mentions of 2024). Asked for 2024's 毛利率, the annual table comes first; asked for a
    quarter, the quarterly table does."""
    annual = "盈利预测 项目 实际值 2023A 实际值 2024A 预测值 2025E 毛利率（%） 19.3 18.6 21.0"
    quarterly = (
        "季度财务数据 季度 毛利率（%） 2024Q1 13.7 2024Q2 14.0 2024Q3 20.5 2024Q4 22.6 2023Q4 16.4"
    )
    index = BM25Index(["annual", "quarterly"], [index_tokens(annual), index_tokens(quarterly)])
    year = index.scores(index_tokens("中芯国际2024年的毛利率是多少？"))
    assert year[0] > year[1]
    quarter = index.scores(index_tokens("2024年第三季度的毛利率是多少？"))
    assert quarter[1] > quarter[0]
