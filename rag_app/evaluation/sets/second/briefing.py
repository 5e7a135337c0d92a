"""The second set's earnings-call minutes: Orvella Robotics Inc. (奥维拉机器人, NYSE: ORVL),
2025年第二季度业绩说明会纪要, a company known by its English name, its executives by theirs, figures in
百万美元 and a question-and-answer part. The company, its people and its numbers are invented."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

from rag_app.evaluation.sets.broker.layout import render
from rag_app.evaluation.sets.docgen import Doc

# 百万美元 or %: metric, 2025Q2, 2024Q2, 2025Q1
RESULTS = [
    ("营业收入", "326.4", "251.8", "285.7"),
    ("毛利率（%）", "44.8", "41.2", "43.5"),
    ("Non-GAAP营业利润", "41.7", "22.9", "30.6"),
    ("GAAP净利润", "28.3", "12.6", "19.8"),
    ("研发费用", "38.9", "31.5", "36.2"),
    ("自由现金流", "35.2", "9.4", "-6.8"),
]
# region, 2025Q2 revenue (百万美元), year-on-year change (%)
REGIONS = [
    ("北美", "142.6", "24.1"),
    ("欧洲", "104.9", "41.8"),
    ("中国", "37.5", "18.5"),
    ("亚太（不含中国）", "29.8", "33.9"),
    ("其他地区", "11.6", "12.3"),
]


def _pct(now: str, before: str) -> str:
    a, b = Decimal(now), Decimal(before)
    if b <= 0:
        return "—"
    return str(((a / b - 1) * 100).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))


def _points(now: str, before: str) -> str:
    return f"{Decimal(now) - Decimal(before):+.1f}pct"


def _results_table() -> list[list[str]]:
    rows = [["指标", "2025Q2", "2024Q2", "同比", "2025Q1", "环比"]]
    for name, now, year_ago, quarter_ago in RESULTS:
        if "%" in name:
            rows.append(
                [
                    name,
                    now,
                    year_ago,
                    _points(now, year_ago),
                    quarter_ago,
                    _points(now, quarter_ago),
                ]
            )
        else:
            rows.append(
                [
                    name,
                    now,
                    year_ago,
                    f"{_pct(now, year_ago)}%",
                    quarter_ago,
                    f"{_pct(now, quarter_ago)}%",
                ]
            )
    return [[c.replace("—%", "—") for c in row] for row in rows]


def _regions_table() -> list[list[str]]:
    total = sum(Decimal(r) for _, r, _ in REGIONS)
    rows = [["地区", "收入（百万美元）", "占总收入比重（%）", "同比增速（%）"]]
    for name, revenue, growth in REGIONS:
        share = (Decimal(revenue) / total * 100).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP)
        rows.append([name, revenue, str(share), growth])
    rows.append(["合计", f"{total}", "100.0", "29.6"])
    return rows


def build_report() -> Doc:
    d = Doc(
        "orvella_2025q2_call",
        header="Orvella Robotics（ORVL.US）业绩说明会纪要",
        footer="仅供内部参考，不构成投资建议",
    )
    render(
        d,
        [
            ("page",),
            ("h1", "Orvella Robotics（ORVL.US）2025年第二季度业绩说明会纪要", "title"),
            (
                "p",
                "会议时间：2025年8月14日 20:00（北京时间）。参会人员：Orvella Robotics Inc.（奥维拉机器人，NYSE: ORVL）"
                "首席执行官Daniel Hart、首席财务官Mei Lin（林梅）、投资者关系总监Kevin Zhao。公司主营割草机器人与泳池清洁"
                "机器人等家用户外服务机器人。",
                "p_meeting",
            ),
            ("h2", "一、业绩概览"),
            (
                "table",
                ["2025年第二季度主要财务数据（单位：百万美元，毛利率除外）"],
                _results_table(),
                ["注：Non-GAAP营业利润剔除股权激励费用及并购相关摊销。"],
                "t_results",
            ),
            (
                "p",
                "2025年上半年，公司累计实现营业收入612.1百万美元，同比增长27.3%；上半年GAAP净利润48.1百万美元。二季度毛利率"
                "创上市以来新高，主要得益于高端机型占比提升与泰国工厂爬坡带来的单位成本下降。",
                "p_half_year",
            ),
            ("h2", "二、分地区与分产品"),
            (
                "table",
                ["2025年第二季度分地区收入"],
                _regions_table(),
                ["注：公司未单独披露国别收入。"],
                "t_regions",
            ),
            (
                "p",
                "分产品看，割草机器人Terra X2系列二季度出货18.6万台，同比增长52%，是收入增长的主要来源；泳池清洁机器人"
                "AquaGlide 5出货7.9万台，同比增长16%。",
                "p_products",
            ),
            ("h2", "三、业绩指引"),
            (
                "p",
                "公司预计2025年第三季度营业收入为340-355百万美元，同比增长22%-27%；维持全年Non-GAAP营业利润率10%-11%的指引。",
                "p_guidance",
            ),
            ("page",),
            ("h2", "四、问答环节"),
            ("p", "问：美国关税政策对公司毛利率有何影响？", "q_tariff"),
            (
                "p",
                "答（CFO Mei Lin）：二季度关税对毛利率的拖累约为0.8个百分点。公司已将供应北美市场约60%的产能转移至泰国春武里"
                "工厂，预计年底该比例提升至80%，届时关税影响将基本消除。",
                "a_tariff",
            ),
            ("p", "问：欧洲市场增长的主要驱动因素是什么？", "q_europe"),
            (
                "p",
                "答（CEO Daniel Hart）：一是德国、法国渠道的持续拓展，二是Terra X2进入欧洲多家大型家居连锁；截至二季度末，"
                "公司在欧洲的线下零售网点增至5,200家。",
                "a_europe",
            ),
            ("p", "问：股份回购的进展如何？", "q_buyback"),
            (
                "p",
                "答（CFO Mei Lin）：截至2025年6月30日，公司已累计回购约210百万美元，剩余回购额度约290百万美元，将根据股价与"
                "现金流情况择机执行。",
                "a_buyback",
            ),
            ("p", "问：二季度末库存水平如何？", "q_inventory"),
            (
                "p",
                "答（CFO Mei Lin）：二季度末库存周转天数为78天，较一季度末下降9天，渠道库存处于健康水平。",
                "a_inventory",
            ),
            ("p", "问：公司是否会进入人形机器人领域？", "q_humanoid"),
            (
                "p",
                "答（CEO Daniel Hart）：短期内不会进入人形机器人整机领域，公司的重点仍是庭院与泳池场景；研发上会继续投入视觉"
                "导航与力控机械臂，计划于2026年推出带修剪臂的Terra X3。",
                "a_humanoid",
            ),
        ],
    )
    d.finish()
    return d
