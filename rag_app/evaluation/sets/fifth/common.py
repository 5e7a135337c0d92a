"""What the fifth set's four broker reports share: the cover (title, a byline with the 报告日期,
投资要点) and 表1 盈利预测与估值 over 2023A-2027E, its 同比 rates, EPS and PE worked out from the
amounts so that the table agrees with itself. A loss year has no 同比 and no PE ("—")."""

from __future__ import annotations

from decimal import Decimal

from rag_app.evaluation.sets.docgen import Doc
from rag_app.evaluation.sets.third.numbers import fmt, num

YEARS = ("2023A", "2024A", "2025E", "2026E", "2027E")
DASH = "—"


def _growth(now: str, before: str) -> str:
    a, b = num(now), num(before)
    if a <= 0 or b <= 0:
        return DASH
    return fmt((a / b - 1) * 100, 1, sep=False)


def forecast_rows(
    revenue: tuple[str, ...],
    revenue_before: str,
    profit: tuple[str, ...],
    profit_before: str,
    margin: tuple[str, ...],
    shares_m: str,
    price: str,
    pb: tuple[str, ...],
) -> list[list]:
    """表1 盈利预测与估值: amounts in 百万元, 同比 and 毛利率 in %, EPS in 元 (profit over
    ``shares_m`` million shares), PE at ``price``, PB as given."""
    rev_before = (revenue_before, *revenue[:-1])
    np_before = (profit_before, *profit[:-1])
    eps = [num(p) / num(shares_m) for p in profit]
    cap = num(price) * num(shares_m)
    pe = [DASH if num(p) <= 0 else fmt(cap / num(p), 1, sep=False) for p in profit]
    return [
        [{"t": "指标", "rs": 2}, {"t": "实际值", "cs": 2}, {"t": "预测值", "cs": 3}],
        list(YEARS),
        ["营业收入（百万元）", *revenue],
        ["同比（%）", *(_growth(a, b) for a, b in zip(revenue, rev_before, strict=True))],
        ["归母净利润（百万元）", *profit],
        ["同比（%）", *(_growth(a, b) for a, b in zip(profit, np_before, strict=True))],
        ["毛利率（%）", *margin],
        ["EPS（元）", *(fmt(e, 2, sep=False) for e in eps)],
        ["PE（倍）", *pe],
        ["PB（倍）", *pb],
    ]


def cover(
    d: Doc,
    title: str,
    byline: str,
    points: list[tuple[str, str]],
    risk: str,
) -> None:
    """Page 1 up to 表1: the title, the byline (broker, 报告日期, rating) and the 投资要点."""
    d.new_page()
    d.heading(title, 1, key="title")
    d.para(byline, key="p_byline")
    d.heading("投资要点", 2)
    for key, text in points:
        d.para(text, key=key)
    d.para("风险提示：" + risk, key="p_risk_short")


def quarter_growth(now: tuple[str, ...], before: tuple[str, ...]) -> list[str]:
    """同比 of each quarter on the same quarter a year before, one decimal."""
    return [_growth(a, b) for a, b in zip(now, before, strict=True)]


def share_of(part: str, whole: str, places: int = 1) -> str:
    """``part`` as a percentage of ``whole``."""
    return fmt(num(part) / num(whole) * Decimal(100), places, sep=False)
