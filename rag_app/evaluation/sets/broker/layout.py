"""What the five broker reports share: the cover page (title, 投资要点, 表1 and the sidebar), a
small page program and the segment tables' two-row headers."""

from __future__ import annotations

from rag_app.evaluation.sets.docgen import Doc
from rag_app.evaluation.sets.tables import forecast_rows, thousands

GENERIC_FAB_HEADER = dict(size_col="类别", last_col="主要产品")


def cover(d: Doc, s: dict) -> None:
    """Page 1: title, 投资要点, 表1 盈利预测与估值, sidebar with rating and 基本数据."""
    d.new_page(header=f"证券研究报告·公司深度研究·{s['industry']}")
    d.heading(s["title"], 1, key="title", col="main")
    d.para(f"报告日期：{s['date']}　　所属行业：{s['industry_path']}", col="main")
    d.heading("投资要点", 2, key="kp_heading", col="main")
    for key, text in s["key_points"]:
        d.para(text, key=key, col="main")
    d.para("风险提示：" + s["risk_short"], key="kp_risk", col="main")
    d.table(
        "表1：盈利预测与估值",
        forecast_rows(
            s["revenue"],
            s["revenue_prev"],
            s["net_profit"],
            s["np_prev"],
            s["gross_margin"],
            s["roe"],
            s["bvps"],
            s["price"],
            s["shares_m"],
        ),
        [f"数据来源：Wind，示例证券研究所预测；股价为{s['price_date']}收盘价{s['price']:.2f}元"],
        key="t_forecast",
        col="main",
        wrap=s.get("wrap_html", False),
        row_h=19,
    )
    d.para(f"投资评级：{s['rating']}", key="rating", col="side")
    d.para(f"目标价格：{s['target']:.2f}元", key="target", col="side")
    d.para(f"分析师：{s['analyst']}", col="side")
    d.para(f"执业证书编号：{s['cert']}", col="side")
    mcap = s["price"] * s["shares_m"] / 100
    d.table(
        "基本数据",
        [
            ["收盘价（元）", f"{s['price']:.2f}"],
            ["一年内最高/最低（元）", s["range"]],
            ["总股本（百万股）", thousands(s["shares_m"])],
            ["总市值（亿元）", f"{mcap:,.2f}"],
            ["每股净资产（元）", f"{s['bvps'][2]:.2f}"],
            ["资产负债率（%）", s["debt_ratio"]],
        ],
        [f"数据来源：Wind，截至{s['price_date']}"],
        key="t_market",
        col="side",
        wrap=s.get("wrap_html", False),
    )


def render(d: Doc, ops: list[tuple]) -> None:
    """A tiny page program: ("page",), ("h1"|"h2", text[, key]), ("p", text[, key]),
    ("table", caption, rows, footnotes[, key[, opts]]), ("image", caption, footnotes, content[, key])."""
    for op in ops:
        kind = op[0]
        if kind == "page":
            d.new_page()
        elif kind in ("h1", "h2"):
            d.heading(op[1], 1 if kind == "h1" else 2, key=op[2] if len(op) > 2 else None)
        elif kind == "p":
            d.para(op[1], key=op[2] if len(op) > 2 else None)
        elif kind == "table":
            opts = op[5] if len(op) > 5 else {}
            d.table(op[1], op[2], op[3], key=op[4] if len(op) > 4 else None, **opts)
        elif kind == "image":
            d.image(
                op[1],
                op[2],
                content=op[3],
                key=op[4] if len(op) > 4 else None,
                height=op[5] if len(op) > 5 else 200,
            )
        else:
            raise ValueError(kind)


def two_year_rows(label: str, first_hdr: str, second_hdr: str, years: list[str], rows: list[tuple]):
    """A segment table: label column, then two groups of year columns (营业收入 / 毛利率)."""
    head = [
        [
            {"t": label, "rs": 2},
            {"t": first_hdr, "cs": len(years)},
            {"t": second_hdr, "cs": len(years)},
        ],
        years + years,
    ]
    return head + [[name] + list(a) + list(b) for name, a, b in rows]


def quarter_rows(label: str, groups: list[tuple[str, list[str]]], rows: list[tuple]):
    head = [
        [{"t": label, "rs": 2}] + [{"t": g, "cs": len(qs)} for g, qs in groups],
        [q for _, qs in groups for q in qs],
    ]
    return head + [[name] + list(vals) for name, vals in rows]
