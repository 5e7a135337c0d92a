"""The rows of the sample report's own tables (表2, 表4, 表5, 表7), drawn from its numbers."""

from __future__ import annotations

from typing import Any

from rag_app.evaluation.sets.sample.figures import (
    APPS,
    CAP_Q,
    CAPACITY,
    CAPACITY_2022Q4,
    CAPEX,
    CAPEX_YEARS,
    DEPR,
    Q_GM,
    Q_NP,
    Q_REV,
    Q_UTIL,
    QUARTERS,
    SHIPMENTS,
    USD_ANNUAL,
    USD_REV,
    app_values,
    q_yoy,
)
from rag_app.evaluation.sets.tables import f1, thousands


def app_rows() -> list[list[Any]]:
    """表2: quarterly revenue by application, 2023Q1-2024Q4 (百万美元)."""
    apps = app_values()
    rows: list[list[Any]] = [
        [{"t": "应用领域", "rs": 2}, {"t": "2023年", "cs": 4}, {"t": "2024年", "cs": 4}],
        ["Q1", "Q2", "Q3", "Q4", "Q1", "Q2", "Q3", "Q4"],
    ]
    for a, name in enumerate(APPS):
        rows.append([name] + [thousands(apps[q][a]) for q in range(8)])
    rows.append(["合计"] + [thousands(v) for v in USD_REV])
    return rows


def capacity_rows() -> list[list[Any]]:
    """表4: monthly capacity, its quarterly addition, utilisation and shipments."""
    rows: list[list[Any]] = [
        [{"t": "季度", "rs": 2}, {"t": "产能", "cs": 2}, {"t": "经营", "cs": 2}],
        ["月产能（万片）", "环比新增（万片）", "产能利用率（%）", "晶圆销售量（万片）"],
    ]
    prev = [CAPACITY_2022Q4] + CAPACITY[:-1]
    for i, q in enumerate(CAP_Q):
        rows.append(
            [q, f1(CAPACITY[i]), f1(CAPACITY[i] - prev[i]), f1(Q_UTIL[16 + i]), f1(SHIPMENTS[i])]
        )
    return rows


def capex_rows() -> list[list[Any]]:
    """表5: capex and depreciation 2020A-2026E, and their ratios to revenue."""
    return [
        [{"t": "项目", "rs": 2}, {"t": "实际值", "cs": 5}, {"t": "预测值", "cs": 2}],
        CAPEX_YEARS,
        ["资本开支（亿美元）"] + [f1(v) for v in CAPEX],
        ["折旧及摊销（亿美元）"] + [f1(v) for v in DEPR],
        ["营业收入（亿美元）"] + [f"{v:.2f}" for v in USD_ANNUAL],
        ["资本开支/营收（%）"] + [f1(c / r * 100) for c, r in zip(CAPEX, USD_ANNUAL, strict=True)],
        ["折旧/营收（%）"] + [f1(dd / r * 100) for dd, r in zip(DEPR, USD_ANNUAL, strict=True)],
    ]


def quarterly_rows() -> list[list[Any]]:
    """表7: quarterly financials 2019Q1-2024Q4."""
    yoy = q_yoy()
    rows: list[list[Any]] = [
        [
            {"t": "季度", "rs": 2},
            {"t": "收入与利润", "cs": 3},
            {"t": "盈利能力", "cs": 2},
            {"t": "产能利用率（%）", "rs": 2},
        ],
        ["营业收入（亿元）", "同比（%）", "归母净利润（亿元）", "毛利率（%）", "净利率（%）"],
    ]
    for i, qq in enumerate(QUARTERS):
        rows.append(
            [
                qq,
                f1(Q_REV[i]),
                f1(yoy[i]),
                f1(Q_NP[i]),
                f1(Q_GM[i]),
                f1(Q_NP[i] / Q_REV[i] * 100),
                f1(Q_UTIL[i]),
            ]
        )
    return rows
