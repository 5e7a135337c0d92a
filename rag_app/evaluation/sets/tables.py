"""The tables every report of the bundled sets shares, and the number formats they use.

Every report (the sample on 中芯国际 and the five broker reports) has a 表1 盈利预测与估值 with the
same rows and the same two-row header, and a 产线一览 table with the same headers: the look-alike
tables that make the broker set hard on purpose (``assets/broker_eval/README.md``).
"""

from __future__ import annotations

from typing import Any

YEARS = ["2022A", "2023A", "2024A", "2025E", "2026E"]


def pct(a: float, b: float) -> float:
    return (a / b - 1) * 100


def f1(x: float) -> str:
    return f"{x:.1f}"


def thousands(x: int) -> str:
    return f"{x:,}"


def forecast_rows(
    revenue, revenue_prev, net_profit, np_prev, gross_margin, roe, bvps, price, shares_m
):
    """表1 盈利预测与估值: the same layout in every report of the set."""
    rev_g = [pct(revenue[0], revenue_prev)] + [pct(revenue[i], revenue[i - 1]) for i in range(1, 5)]
    np_g = [pct(net_profit[0], np_prev)] + [
        pct(net_profit[i], net_profit[i - 1]) for i in range(1, 5)
    ]

    np_growth = []
    prev = [np_prev] + net_profit[:-1]
    for g, p, cur in zip(np_g, prev, net_profit, strict=True):
        np_growth.append("—" if (p <= 0 or cur <= 0) else f1(g))
    eps = [n / shares_m for n in net_profit]
    pe = [("—" if n <= 0 else f1(price * shares_m / n)) for n in net_profit]
    pb = [f"{price / b:.2f}" for b in bvps]
    return [
        [{"t": "项目", "rs": 2}, {"t": "实际值", "cs": 3}, {"t": "预测值", "cs": 2}],
        YEARS,
        ["营业收入（百万元）"] + [thousands(v) for v in revenue],
        ["增长率（%）"] + [f1(g) for g in rev_g],
        ["归母净利润（百万元）"] + [thousands(v) for v in net_profit],
        ["增长率（%）"] + np_growth,
        ["毛利率（%）"] + gross_margin,
        ["ROE（%）"] + roe,
        ["每股收益（元）"] + [f"{e:.2f}" for e in eps],
        ["市盈率（倍）"] + pe,
        ["市净率（倍）"] + pb,
    ]


def fab_rows(
    fabs,
    split_after: int,
    first_label: str,
    second_label: str,
    last_col: str = "工艺节点",
    size_col: str = "晶圆尺寸",
):
    """产线一览: two header rows (产能 spans 规划/当前), the size/category column merged by rowspan."""
    rows = [
        [
            {"t": "序号", "rs": 2},
            {"t": size_col, "rs": 2},
            {"t": "厂区", "rs": 2},
            {"t": "类型", "rs": 2},
            {"t": "地点", "rs": 2},
            {"t": "产能", "cs": 2},
            {"t": "状态", "rs": 2},
            {"t": last_col, "rs": 2},
        ],
        ["规划产能", "当前产能"],
    ]
    for i, f in enumerate(fabs):
        row: list[Any] = [str(i + 1)]
        if i == 0:
            row.append({"t": first_label, "rs": split_after})
        elif i == split_after:
            row.append({"t": second_label, "rs": len(fabs) - split_after})
        row += list(f)
        rows.append(row)
    return rows
