"""Periods named from another: how many years a pointer moves by, and a period shifted by it."""

from __future__ import annotations

import pytest

from rag_app.text.period_pointers import years_away
from rag_app.text.periods import (
    PERIOD_SPAN,
    RELATIVE_PART,
    counts_rows,
    month_range,
    month_tokens,
    months_named,
    part_months,
    quarters_of_year,
    quarters_spanned,
    shift_part,
    shift_year,
    year_so_far,
    yearless_quarter,
)


@pytest.mark.parametrize(
    ("pointer", "step"),
    [
        ("两年前", -2),
        ("3年后", 3),
        ("一年以前", -1),
        ("前年", -2),
        ("two years earlier", -2),
        ("Three years ago", -3),
        ("one year later", 1),
        ("去年", None),  # one year back: the first character says so (referents.shifted)
        ("两年", None),
    ],
)
def test_the_years_a_pointer_moves_by(pointer: str, step: int | None) -> None:
    assert years_away(pointer) == step


def test_a_period_shifted_keeps_what_narrows_it() -> None:
    assert shift_year("2024年末", -2) == "2022年末"
    assert shift_year("2025年前三季度", -1) == "2024年前三季度"
    assert shift_year("上年末", -1) == "上年末"  # no year to move


@pytest.mark.parametrize(
    ("period", "pointer", "step", "shifted"),
    [
        ("2025年6月", "上个月", -1, "2025年5月"),
        ("2025年1月", "上月", -1, "2024年12月"),
        ("2024年12月", "下个月", 1, "2025年1月"),
        ("2024年第四季度", "上一季度", -1, "2024年第三季度"),
        ("2025年一季度", "上季度", -1, "2024年第四季度"),
        ("2025Q3", "下一季度", 1, "2025年第四季度"),
        ("2024年", "上个月", -1, "2023年"),  # no month to move: the year's step
        ("2024年第四季度", "上年", -1, "2023年第四季度"),
        ("2025年10月", "上年同月", -1, "2024年10月"),  # a year named: the year's step
        ("October 2025", "the previous month", -1, "September 2025"),
        ("January 2025", "the month before", -1, "December 2024"),
        ("Q1 2025", "the previous quarter", -1, "Q4 2024"),
        ("October 2025", "the same month last year", -1, "October 2024"),
    ],
)
def test_a_period_shifted_by_a_month_or_a_quarter(
    period: str, pointer: str, step: int, shifted: str
) -> None:
    assert shift_part(period, pointer, step) == shifted


def test_a_month_or_quarter_pointer_is_a_relative_part_and_a_date_is_not() -> None:
    for pointer in ("上个月", "上月", "上一季度", "下季度", "上一个季度", "前一个月", "前一季度"):
        assert RELATIVE_PART.fullmatch(pointer)
    assert not RELATIVE_PART.match("上月10日")
    assert not RELATIVE_PART.match("前三季度")  # the first three quarters, no pointer


@pytest.mark.parametrize(
    ("text", "months"),
    [
        ("2025年11月电池级碳酸锂均价是多少？", ["2025年11月"]),
        ("2025年 3 月和2024年12月", ["2025年3月", "2024年12月"]),
        ("What was the price in November 2025?", ["2025年11月"]),
        ("Sept. 2024 against Oct 2024", ["2024年9月", "2024年10月"]),
        ("2025年1-10月累计", []),  # a range, not one month
        ("截至2025年11月30日", []),  # a day
        ("maybe 2025 may differ", []),
    ],
)
def test_the_months_a_text_names(text: str, months: list[str]) -> None:
    assert month_tokens(text) == months


def test_months_named_with_or_without_their_year_and_runs_of_months() -> None:
    assert months_named("10月生猪销量比9月增加了多少？") == [("", 10), ("", 9)]
    assert months_named("2025年10月") == [("2025", 10)]
    assert months_named("1-10月累计，10月31日") == []  # a run's end, a day's month
    assert month_range("2025年1-9月销售收入合计") == (1, 9)
    assert month_range("1至10月") == (1, 10)
    assert month_range("10月比9月") is None


@pytest.mark.parametrize(
    ("question", "rows"),
    [
        ("可比公司中2025E PE高于60倍的有几家？", True),
        ("有几个产品的毛利率超过30%？", True),
        ("How many segments had revenue above 500?", True),
        ("1-10月里，业务量同比增速超过15%的月份有几个？", False),  # the months named before
        ("这七个季度中，单季毛利率超过26%的有几个季度？", False),
        ("净利润超过5亿元的年份一共有几年？", False),
        ("How many years did revenue exceed 1000?", False),
        ("净利润超过5亿元的有几个？", False),  # what is counted not said
    ],
)
def test_a_count_of_rows_is_told_from_a_count_of_periods(question: str, rows: bool) -> None:
    assert counts_rows(question) is rows


@pytest.mark.parametrize(
    ("period", "pointer", "so_far"),
    [
        ("2025年10月", "本年累计", "2025年1-10月累计"),
        ("2025年10月", "累计", "2025年1-10月累计"),
        ("2025年10月", "1-10月累计", "2025年1-10月累计"),
        ("2025年1-10月累计", "上年累计", "2024年1-10月累计"),
        ("2025年", "本年累计", "2025年"),  # no month to run to
    ],
)
def test_a_years_months_so_far(period: str, pointer: str, so_far: str) -> None:
    assert year_so_far(period, pointer) == so_far


def test_the_quarters_a_part_of_a_year_spans_as_tables_head_them() -> None:
    """ "2024年前三季度营收合计" named no word of the quarterly table that gives it (2024Q1 …)."""
    assert quarters_spanned("中芯国际2024年前三季度营收合计多少？") == [
        "2024Q1",
        "2024Q2",
        "2024Q3",
    ]
    assert quarters_spanned("2025年上半年营业收入") == ["2025Q1", "2025Q2"]
    assert quarters_spanned("2025年三季度营业收入") == []  # one quarter names itself
    assert quarters_spanned("前三季度营业收入") == []  # no year


def test_a_count_of_quarters_runs_from_the_first() -> None:
    # 四个季度 is a year's four quarters, not its fourth; 第四季度 and 四季度 are the fourth
    assert part_months("2024年四个季度归母净利润的平均值") == (1, 12)
    assert part_months("三个季度") == (1, 9)
    assert part_months("第四季度") == (10, 12)
    assert part_months("四季度") == (10, 12)


def test_a_yearless_quarter_column() -> None:
    assert yearless_quarter("第一季度（1-3月份）") == 1
    assert yearless_quarter("四季度") == 4
    assert yearless_quarter("2024年第一季度") == 0  # its year named: quarter_of reads it
    assert yearless_quarter("上半年") == 0
    assert yearless_quarter("营业收入") == 0


def test_quarters_beside_one_year_are_of_it() -> None:
    assert quarters_of_year("2024年四季度归母净利润比三季度减少了多少？") == ["2024Q4", "2024Q3"]
    assert quarters_of_year("2025年三季度比2024年三季度") == []  # two years: each names its own
    assert quarters_of_year("2024年前三季度营收") == []  # a run, not single quarters
    assert quarters_of_year("三季度营收") == []  # no year


def test_a_years_count_of_quarters_is_one_period_spanning_them() -> None:
    # "2024年四个季度" is read whole, as 2024年前三季度 is, not as 2024年 and a 季度营收 metric
    found = PERIOD_SPAN.search("中芯国际2024年四个季度营收合计多少？")
    assert found is not None and found.group() == "2024年四个季度"
    assert quarters_spanned("2024年四个季度营收") == ["2024Q1", "2024Q2", "2024Q3", "2024Q4"]


def test_a_years_first_months_counted_are_a_run_from_january() -> None:
    assert month_range("2025年前10个月电池级碳酸锂均价的平均值") == (1, 10)
    assert month_range("前十个月") == (1, 10) and month_range("前十二个月") == (1, 12)
    assert month_range("前三个月") == (1, 3) and month_range("1-9月") == (1, 9)
    assert month_range("前三季度") is None  # quarters, part_months reads them
