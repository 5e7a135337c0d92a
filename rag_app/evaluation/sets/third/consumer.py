"""The third set's broker report on a consumer-goods company: 沐溪食品 (605376.SH), a 2025年三季报点评
by 北岸证券研究所 on another template than the broker set's: its 盈利预测 table is transposed (years
as rows, metrics as columns under merged headers), the rating and 目标价 sit in the byline, and a
可比公司 table names companies that have no document. The company and every number are invented."""

from __future__ import annotations

from decimal import Decimal

from rag_app.evaluation.sets.broker.layout import render
from rag_app.evaluation.sets.docgen import Doc
from rag_app.evaluation.sets.third.numbers import change, fmt, num, total

PRICE = "39.12"  # 2025年10月28日收盘价（元）
TARGET = "48.60"
SHARES_M = Decimal("625.0")  # 总股本（百万股）
# 会计年度, 营业收入 (百万元), 归母净利润 (百万元), 毛利率 (%), ROE (%); 2022A only for growth
FORECAST = [
    ("2022A", "4,475.80", "641.33", "", ""),
    ("2023A", "4,912.36", "708.45", "35.12", "15.86"),
    ("2024A", "5,386.02", "786.20", "36.04", "16.21"),
    ("2025E", "5,921.47", "893.55", "36.85", "16.94"),
    ("2026E", "6,548.90", "1,012.38", "37.42", "17.58"),
    ("2027E", "7,203.64", "1,139.72", "37.96", "18.03"),
]
# 2025年前三季度分产品: 产品, 营业收入 (百万元), 同比 (%)
PRODUCTS = [
    ("复合调味料", "1,528.47", "26.31"),
    ("酱油", "1,395.62", "-3.84"),
    ("食醋", "612.08", "4.57"),
    ("料酒及其他", "649.83", "8.12"),
]
# 复合调味料单季收入 (百万元) and its year-on-year growth (%)
COMPOUND = [("2024Q1", "398.25", "18.6"), ("2024Q2", "421.07", "19.4"), ("2024Q3", "436.92", "21.7"),
            ("2024Q4", "452.36", "23.5"), ("2025Q1", "493.10", "23.8"), ("2025Q2", "519.84", "23.5"),
            ("2025Q3", "515.53", "18.0")]  # fmt: skip
# 可比公司: 公司, 代码, 股价 (元), EPS 2024A/2025E/2026E (元)
PEERS = [
    ("鼎味股份", "603177.SH", "52.36", ("1.86", "2.07", "2.31")),
    ("川禾食品", "002968.SZ", "18.45", ("0.72", "0.81", "0.93")),
    ("海岳调味", "300892.SZ", "27.80", ("0.95", "1.09", "1.24")),
]


def _eps(net_profit: str) -> str:
    return fmt(num(net_profit) / SHARES_M, 2, sep=False)


def _pe(price: str, eps: str) -> str:
    return fmt(num(price) / num(eps), 1, sep=False)


def _forecast_table() -> list[list]:
    rows: list[list] = [
        [
            {"t": "会计年度", "rs": 2},
            {"t": "营业收入", "cs": 2},
            {"t": "归母净利润", "cs": 2},
            {"t": "毛利率（%）", "rs": 2},
            {"t": "ROE（%）", "rs": 2},
            {"t": "EPS（元）", "rs": 2},
            {"t": "P/E（倍）", "rs": 2},
        ],
        ["金额（百万元）", "同比（%）", "金额（百万元）", "同比（%）"],
    ]
    for before, now in zip(FORECAST, FORECAST[1:]):
        year, revenue, profit, margin, roe = now
        eps = _eps(profit)
        rows.append(
            [
                year,
                revenue,
                change(revenue, before[1]),
                profit,
                change(profit, before[2]),
                margin,
                roe,
                eps,
                _pe(PRICE, eps),
            ]
        )
    return rows


def _products_table() -> list[list[str]]:
    whole = total(p[1] for p in PRODUCTS)
    rows = [["产品", "营业收入（百万元）", "同比（%）"]]
    rows += [[name, revenue, growth] for name, revenue, growth in PRODUCTS]
    rows.append(["合计", whole, "9.72"])
    return rows


def _peers_table() -> list[list]:
    rows: list[list] = [
        [
            {"t": "公司", "rs": 2},
            {"t": "代码", "rs": 2},
            {"t": "股价（元）", "rs": 2},
            {"t": "EPS（元）", "cs": 3},
            {"t": "PE（倍）", "cs": 3},
        ],
        ["2024A", "2025E", "2026E"] * 2,
    ]
    pes: list[list[str]] = []
    for name, code, price, eps in PEERS:
        pe = [_pe(price, e) for e in eps]
        pes.append(pe)
        rows.append([name, code, price, *eps, *pe])
    mean = [
        fmt(sum((num(p[i]) for p in pes), Decimal(0)) / len(pes), 1, sep=False) for i in range(3)
    ]
    rows.append([{"t": "可比公司平均", "cs": 6}, *mean])
    own = [_eps(FORECAST[i][2]) for i in (2, 3, 4)]
    rows.append(["沐溪食品", "605376.SH", PRICE, *own, *(_pe(PRICE, e) for e in own)])
    return rows


def build_report() -> Doc:
    d = Doc(
        "muxi_foods_2025q3_note",
        header="公司点评报告｜食品饮料｜调味品",
        footer="北岸证券研究所　请务必阅读正文后的信息披露和法律声明",
    )
    compound = "；".join(f"{q} {v}百万元（同比+{g}%）" for q, v, g in COMPOUND)
    target_pe = fmt(num(TARGET) / num(_eps(FORECAST[4][2])), 0, sep=False)
    peer_count = len(PEERS)
    render(
        d,
        [
            ("page",),
            (
                "h1",
                "沐溪食品（605376）2025年三季报点评：复调放量对冲酱油承压，渠道改革渐入佳境",
                "title",
            ),
            (
                "p",
                f"北岸证券研究所　2025年10月29日　投资评级：买入（维持）　目标价：{TARGET}元　当前股价：{PRICE}元"
                "　分析师：林知夏（S0620523070002）",
                "p_byline",
            ),
            ("h2", "事件"),
            (
                "p",
                "公司发布2025年三季报：前三季度实现营业收入41.86亿元，同比增长9.72%；归母净利润6.35亿元，同比增长12.48%。"
                "其中第三季度单季实现营业收入14.27亿元，同比增长11.05%；归母净利润2.21亿元，同比增长15.93%，业绩略超我们"
                "此前预期。",
                "p_event",
            ),
            ("h2", "点评"),
            (
                "p",
                "复合调味料延续高增，酱油拖累收窄。分产品看，前三季度复合调味料收入同比增长26.31%，收入占比首次超过酱油，"
                "成为公司第一大品类；酱油受餐饮渠道需求疲软及价格竞争影响收入小幅下滑，但降幅较上半年收窄2.1个百分点。",
                "p_products",
            ),
            (
                "table",
                ["表1：2025年前三季度公司分产品收入"],
                _products_table(),
                ["资料来源：公司公告，北岸证券研究所"],
                "t_products",
            ),
            (
                "image",
                ["图1：2024Q1-2025Q3复合调味料单季收入及同比增速"],
                ["资料来源：公司公告，北岸证券研究所"],
                f"柱状图（收入，百万元）与折线图（同比增速）组合。{compound}。",
                "fig_compound",
            ),
            (
                "p",
                "如图1所示，复合调味料单季同比增速自2024Q3起连续四个季度保持在20%以上，2025Q3回落至18.0%，主要系去年同期"
                "火锅底料新品铺货形成高基数；环比看，2025Q3单季收入较Q2略降，我们判断属渠道备货节奏的正常波动。",
                "p_compound",
            ),
            (
                "p",
                "渠道改革成效显现。前三季度经销渠道收入占比71.4%，餐饮定制渠道占比15.2%，电商渠道占比8.9%，商超直营占比"
                "4.5%；公司年内净增经销商312家，期末经销商总数达2,846家，同时清理低效经销商97家。分区域看，华东、华南、"
                "华中、华北、西部收入分别同比增长6.8%、12.4%、15.1%、9.3%、21.9%。公司于2025年6月在泰国设立首家海外子公司，"
                "目前仍处于产能建设期。",
                "p_channels",
            ),
            ("page",),
            (
                "p",
                "毛利率持续改善，费用投放理性。第三季度单季毛利率为37.86%，同比提升1.42个百分点，主要受益于大豆、白砂糖等"
                "主要原材料价格回落以及高毛利的复合调味料占比提升；单季销售费用率为14.37%，同比下降0.65个百分点。",
                "p_margin",
            ),
            (
                "image",
                ["图2：公司2025年前三季度分渠道收入结构"],
                ["资料来源：公司公告"],
                None,
                "fig_channels",
                180,
            ),
            ("h2", "盈利预测与投资建议"),
            (
                "p",
                "我们维持公司2025-2027年盈利预测，预计归母净利润分别为8.94亿元、10.12亿元、11.40亿元。参考可比公司估值，"
                f"给予公司2026年{target_pe}倍PE，对应目标价{TARGET}元，维持“买入”评级。",
                "p_advice",
            ),
            (
                "table",
                ["表2：可比公司估值（股价为2025年10月28日收盘价）"],
                _peers_table(),
                [f"资料来源：Wind，北岸证券研究所；{peer_count}家可比公司EPS采用Wind一致预期"],
                "t_peers",
            ),
            ("h2", "风险提示"),
            (
                "p",
                "原材料价格大幅上涨风险；餐饮需求复苏不及预期风险；渠道改革效果不及预期风险；行业竞争加剧风险；食品安全风险。",
                "p_risks",
            ),
            (
                "table",
                ["附表：盈利预测与估值", "单位：百万元，元/股，倍"],
                _forecast_table(),
                [f"资料来源：Wind，北岸证券研究所预测；P/E按2025年10月28日收盘价{PRICE}元计算"],
                "t_forecast",
            ),
        ],
    )
    d.finish()
    return d
