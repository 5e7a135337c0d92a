"""Builds the demo report: an authored, fictional broker-style report on 中芯国际 as MinerU output.

Writes, next to this file:
  smic_report_content_list.json   MinerU content list (new schema: bbox, page_idx, discarded ...)
  smic_report.md                  MinerU-style Markdown of the same content
  images/<sha256>.png             the three figures (drawn with Pillow when it is importable)
  smic_report.zip                 content list + md + images/, as a MinerU output folder
  questions.json                  example questions for the UI, with the items that answer them

Run:  /work/main/.venv/bin/python assets/sample_report/build_sample.py
All numbers are illustrative (see README.md). ``build_smic()`` is also imported by
``assets/broker_eval/build.py``, which copies this report into the evaluation set.
"""

from __future__ import annotations

import json
import sys
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "broker_eval"))
from docgen import Doc, contains_answer, fake_img_path, to_markdown  # noqa: E402

DOC_NAME = "smic_report"
PRICE = 86.20
SHARES_M = 7980  # 百万股

# ----------------------------------------------------------------------------- data
YEARS = ["2022A", "2023A", "2024A", "2025E", "2026E"]
REVENUE = [49516, 45250, 57796, 67850, 77420]  # 百万元
REVENUE_PREV = 35631  # 2021A
NET_PROFIT = [12133, 4823, 3699, 5210, 6480]  # 归母净利润, 百万元
NET_PROFIT_PREV = 10733
GROSS_MARGIN = ["38.3", "19.3", "18.6", "21.8", "23.5"]
ROE = ["10.8", "3.7", "2.6", "3.5", "4.2"]
BVPS = [16.21, 17.04, 18.01, 18.66, 19.47]

QUARTERS = [f"{y}Q{q}" for y in range(2019, 2025) for q in range(1, 5)]
Q_REV = [
    45.1,
    52.3,
    55.6,
    67.2,
    64.0,
    72.4,
    76.4,
    61.9,
    72.9,
    87.7,
    100.8,
    94.9,
    116.9,
    128.7,
    135.4,
    114.2,
    102.1,
    112.7,
    117.5,
    120.2,
    125.9,
    135.1,
    156.1,
    160.9,
]  # 亿元
Q_REV_2018 = [53.5, 58.6, 59.0, 59.1]
Q_NP = [
    1.4,
    2.7,
    3.4,
    10.4,
    14.2,
    9.4,
    16.9,
    2.8,
    10.3,
    20.8,
    23.6,
    52.6,
    41.3,
    31.5,
    30.6,
    17.9,
    16.0,
    15.6,
    6.8,
    9.8,
    5.0,
    9.4,
    10.6,
    12.0,
]
Q_GM = [
    20.6,
    19.1,
    20.8,
    23.8,
    25.8,
    26.5,
    24.2,
    17.0,
    22.7,
    30.1,
    33.1,
    35.0,
    40.7,
    39.4,
    38.9,
    32.0,
    20.8,
    20.3,
    19.8,
    16.4,
    13.7,
    13.9,
    20.5,
    22.6,
]
Q_UTIL = [
    89.9,
    91.1,
    97.0,
    98.8,
    98.5,
    98.6,
    97.8,
    95.5,
    98.7,
    100.4,
    99.9,
    100.2,
    100.4,
    97.1,
    92.1,
    79.5,
    68.1,
    78.3,
    77.1,
    76.8,
    80.8,
    85.2,
    90.4,
    85.5,
]

CAP_Q = QUARTERS[16:]  # 2023Q1-2024Q4
CAPACITY = [78.6, 79.8, 80.5, 80.6, 81.4, 83.7, 88.4, 94.8]  # 万片/月, 折合8英寸
CAPACITY_2022Q4 = 71.4
SHIPMENTS = [131.8, 155.6, 153.5, 175.6, 179.4, 211.2, 212.2, 202.0]  # 万片, 折合8英寸

APPS = ["智能手机", "电脑与平板", "消费电子", "互联与可穿戴", "工业与汽车"]
USD_REV = [1462, 1560, 1621, 1678, 1750, 1901, 2171, 2207]  # 百万美元
APP_SHARE = [  # %, per quarter, sums to 100
    [25.3, 26.9, 25.6, 14.2, 8.0],
    [27.0, 23.5, 26.1, 14.6, 8.8],
    [26.5, 20.9, 27.9, 15.7, 9.0],
    [26.6, 19.0, 29.2, 15.8, 9.4],
    [31.0, 17.1, 29.6, 14.5, 7.8],
    [32.0, 13.7, 35.6, 11.7, 7.0],
    [24.9, 15.5, 42.6, 8.8, 8.2],
    [24.2, 17.0, 38.2, 11.5, 9.1],
]

CAPEX_YEARS = ["2020A", "2021A", "2022A", "2023A", "2024A", "2025E", "2026E"]
CAPEX = [56.9, 45.2, 63.5, 74.7, 73.3, 73.0, 70.0]  # 亿美元
DEPR = [22.3, 24.0, 25.9, 31.5, 38.9, 44.6, 49.8]
USD_ANNUAL = [39.07, 54.43, 72.73, 63.22, 80.29, 94.20, 107.50]  # 亿美元

# 表6: (序号, 厂区, 类型, 地点, 规划产能, 当前产能, 状态, 工艺节点); 1-3 are 8英寸, 4-12 are 12英寸
FABS = [
    ("中芯上海（S1）", "FAB", "上海", "12.0", "11.5", "量产", "0.35μm-90nm"),
    ("中芯天津（T1）", "FAB", "天津", "18.0", "16.2", "量产", "0.35μm-90nm"),
    ("中芯深圳（8英寸）", "FAB", "深圳", "7.0", "6.8", "量产", "0.18μm-90nm"),
    ("中芯北京（B1）", "FAB", "北京", "6.5", "6.2", "量产", "90nm-55nm"),
    ("中芯北方（B2A）", "FAB", "北京", "6.2", "6.0", "量产", "65nm-28nm"),
    ("中芯北方（B2B）", "FAB", "北京", "7.0", "6.6", "量产", "40nm-28nm"),
    ("中芯上海（12英寸）", "FAB", "上海", "2.0", "1.8", "量产", "40nm-28nm"),
    ("中芯深圳（12英寸）", "FAB", "深圳", "4.0", "3.6", "量产", "65nm-28nm"),
    ("中芯南方（SN1）", "FAB", "上海", "3.5", "3.5", "量产", "14nmFinFET"),
    ("中芯京城", "FAB", "北京", "10.0", "5.0", "产能爬坡", "28nm及以上"),
    ("中芯东方", "FAB", "上海", "10.0", "—", "在建", "65nm-24nm"),
    ("中芯西青", "FAB", "天津", "10.0", "—", "在建", "180nm-28nm"),
]

FOUNDRY_RANK = [  # 排名, 厂商, 总部, 2024年营收（亿美元）, 同比（%）, 市占率（%）
    ("1", "台积电", "中国台湾", "881.6", "30.1", "64.9"),
    ("2", "三星", "韩国", "131.8", "-3.2", "9.7"),
    ("3", "中芯国际", "中国大陆", "80.3", "27.0", "5.9"),
    ("4", "联电", "中国台湾", "73.6", "4.4", "5.4"),
    ("5", "格芯", "美国", "67.5", "-8.7", "5.0"),
    ("6", "华虹集团", "中国大陆", "40.2", "-10.0", "3.0"),
    ("7", "高塔半导体", "以色列", "14.4", "1.0", "1.1"),
    ("8", "世界先进", "中国台湾", "14.2", "12.3", "1.0"),
    ("9", "合肥晶合", "中国大陆", "13.5", "27.7", "1.0"),
    ("10", "力积电", "中国台湾", "12.1", "-4.9", "0.9"),
]


def pct(a: float, b: float) -> float:
    return (a / b - 1) * 100


def f1(x: float) -> str:
    return f"{x:.1f}"


def thousands(x: int) -> str:
    return f"{x:,}"


def q_yoy() -> list[float]:
    prev = Q_REV_2018 + Q_REV
    return [pct(Q_REV[i], prev[i]) for i in range(len(Q_REV))]


def app_values() -> list[list[int]]:
    """Revenue by application (百万美元), rounded so each quarter sums to its total."""
    out = []
    for total, shares in zip(USD_REV, APP_SHARE, strict=True):
        raw = [total * s / 100 for s in shares]
        vals = [int(r) for r in raw]
        rest = total - sum(vals)
        for i in sorted(range(len(raw)), key=lambda i: raw[i] - vals[i], reverse=True)[:rest]:
            vals[i] += 1
        out.append(vals)
    return out


# ----------------------------------------------------------------------------- tables
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
        row = [str(i + 1)]
        if i == 0:
            row.append({"t": first_label, "rs": split_after})
        elif i == split_after:
            row.append({"t": second_label, "rs": len(fabs) - split_after})
        row += list(f)
        rows.append(row)
    return rows


def build_smic() -> Doc:
    img1 = fake_img_path("smic_report/figure1", "png")
    img2 = fake_img_path("smic_report/figure2", "png")
    img3 = fake_img_path("smic_report/figure3", "png")
    d = Doc("smic_688981", header="中芯国际（688981.SH）深度研究报告")
    yoy = q_yoy()
    apps = app_values()

    # ------------------------------------------------------------------ page 1: cover
    d.new_page(header="证券研究报告·公司深度研究·半导体")
    d.heading(
        "中芯国际（688981.SH）深度报告：产能扩张稳步推进，先进制程构筑长期壁垒",
        1,
        key="title",
        col="main",
    )
    d.para("报告日期：2025年3月17日　　所属行业：电子/半导体/集成电路制造", col="main")
    d.heading("投资要点", 2, key="kp_heading", col="main")
    d.para(
        "行业景气触底回升，国产化需求提供坚实支撑。2024年全球晶圆代工行业走出库存调整周期，智能手机与消费电子"
        "补库存带动成熟制程需求回暖。公司2024年实现营业收入577.96亿元，创历史新高；全年晶圆销售量（折合8英寸）"
        "约805万片，产能利用率逐季回升，三季度重回90%以上。",
        key="kp_industry",
        col="main",
    )
    d.para(
        "产能扩张稳步推进，逆周期投资夯实份额。公司坚持逆周期投资，2024年末折合8英寸标准逻辑月产能接近95万片，"
        "全年新增约14万片/月。中芯京城、中芯东方、中芯西青及中芯深圳四个12英寸新厂有序推进，公司指引2025年资本开支"
        "与2024年大致持平，约为73亿美元，新增产能主要投向28nm及以上成熟制程与特色工艺平台。",
        key="kp_capacity",
        col="main",
    )
    d.para(
        "先进制程构筑长期壁垒，特色工艺多点开花。公司是中国大陆首家实现14nm FinFET量产的晶圆代工企业，FinFET平台"
        "持续迭代；同时在BCD、高压显示驱动、嵌入式存储、CIS等特色工艺平台形成差异化优势，有望充分受益于本土设计公司"
        "崛起带来的国产替代需求。",
        key="kp_advanced",
        col="main",
    )
    d.para(
        "盈利预测与投资建议。我们预计公司2025-2026年营业收入分别为678.50/774.20亿元，归母净利润分别为52.10/64.80亿元，"
        "对应EPS分别为0.65/0.81元。参考可比公司估值并考虑公司龙头地位与稀缺性，给予公司2025年5.3倍PB，对应目标价"
        "98.90元，维持“买入”评级。",
        key="kp_forecast",
        col="main",
    )
    d.para(
        "风险提示：下游需求复苏不及预期；产能扩张进度不及预期；先进制程研发及客户导入不及预期；地缘政治与出口管制风险；"
        "折旧上升导致毛利率承压。",
        key="kp_risk",
        col="main",
    )
    d.table(
        "表1：盈利预测与估值",
        forecast_rows(
            REVENUE,
            REVENUE_PREV,
            NET_PROFIT,
            NET_PROFIT_PREV,
            GROSS_MARGIN,
            ROE,
            BVPS,
            PRICE,
            SHARES_M,
        ),
        ["数据来源：Wind，示例证券研究所预测；股价为2025年3月14日收盘价86.20元"],
        key="t_forecast",
        col="main",
        img_path="",
        row_h=19,
    )
    d.para("投资评级：买入（维持）", key="rating", col="side")
    d.para("目标价格：98.90元", key="target", col="side")
    d.para("分析师：林致远", col="side")
    d.para("执业证书编号：SAC-DEMO-0001", col="side")
    d.para("邮箱：research@example.com", col="side")
    d.table(
        "基本数据",
        [
            ["收盘价（元）", "86.20"],
            ["一年内最高/最低（元）", "104.88/38.51"],
            ["总股本（百万股）", "7,980"],
            ["流通A股（百万股）", "1,990"],
            ["总市值（亿元）", "6,878.76"],
            ["每股净资产（元）", "18.01"],
            ["资产负债率（%）", "33.6"],
        ],
        ["数据来源：Wind，截至2025年3月14日"],
        key="t_market",
        col="side",
        img_path="",
    )
    d.para(
        "相关研究：《中芯国际2024年三季报点评：产能利用率回升，四季度指引乐观》2024-11-08",
        col="side",
    )

    # ------------------------------------------------------------------ page 2: company
    d.new_page()
    d.heading("1 公司概况：中国大陆规模最大、技术最先进的晶圆代工企业", 1, key="h_company")
    d.para(
        "中芯国际成立于2000年，总部位于上海，是中国大陆规模最大、技术最先进、配套最完善的集成电路晶圆代工企业，"
        "于2004年在香港联交所上市、2020年在上交所科创板上市。公司为全球客户提供0.35微米至14纳米多种技术节点、"
        "不同工艺平台的集成电路晶圆代工及配套服务，在上海、天津、深圳建有三座8英寸晶圆厂，在上海、北京、深圳建有"
        "多条12英寸产线，并在北京、上海、天津布局新的12英寸项目。",
        key="p_company",
    )
    d.heading("1.1 营收规模创历史新高，盈利能力阶段性承压", 2)
    rev_2019, rev_2024 = sum(Q_REV[0:4]), sum(Q_REV[20:24])
    cagr = (rev_2024 / rev_2019) ** (1 / 5) * 100 - 100
    d.para(
        f"2019-2024年，公司营业收入由{rev_2019:.1f}亿元增长至{rev_2024:.1f}亿元，年均复合增速达{cagr:.1f}%。"
        "2023年受全球半导体库存调整影响，公司营收同比下降8.6%；2024年随着下游补库存及国产替代加速，营收同比增长27.7%，"
        "创历史新高。但由于新产能集中转固、折旧大幅增加，公司2024年毛利率降至18.6%，归母净利润为36.99亿元，"
        "同比下降23.3%。",
        key="p_revenue_trend",
    )
    annual = [sum(Q_REV[i : i + 4]) for i in range(0, 24, 4)]
    annual_g = [pct(annual[0], sum(Q_REV_2018))] + [
        pct(annual[i], annual[i - 1]) for i in range(1, 6)
    ]
    d.image(
        "图1：中芯国际年度营业收入及增速",
        ["数据来源：Wind，公司公告，示例证券研究所"],
        img_path=img1,
        content="柱状图为2019-2024年中芯国际年度营业收入（亿元，左轴），折线为营业收入同比增速（%，右轴）。"
        + "、".join(
            f"{2019 + i}年营收{annual[i]:.1f}亿元（同比{annual_g[i]:+.1f}%）" for i in range(6)
        )
        + "。2022年增速为六年内最高，2023年为唯一一次负增长，2024年营收创历史新高。",
        key="fig1",
        height=215,
    )
    d.heading("1.2 收入结构：消费电子占比提升，智能手机需求回暖", 2)
    d.para(
        "从下游应用看，2024年消费电子成为公司第一大收入来源。受益于国内消费电子补库存及本土芯片设计公司份额提升，"
        "消费电子收入占比由2023年一季度的25.6%提升至2024年三季度的42.6%。智能手机收入占比保持在24%-32%区间，"
        "电脑与平板占比则随海外PC需求疲软逐步回落。工业与汽车领域收入占比稳步提升至9%左右，车规级MCU、功率与模拟"
        "芯片的国产化进程为公司带来新的增量。",
        key="p_app_mix",
    )
    rows = [
        [{"t": "应用领域", "rs": 2}, {"t": "2023年", "cs": 4}, {"t": "2024年", "cs": 4}],
        ["Q1", "Q2", "Q3", "Q4", "Q1", "Q2", "Q3", "Q4"],
    ]
    for a, name in enumerate(APPS):
        rows.append([name] + [thousands(apps[q][a]) for q in range(8)])
    rows.append(["合计"] + [thousands(v) for v in USD_REV])
    d.table(
        "表2：中芯国际分应用领域季度营收（百万美元）",
        rows,
        ["数据来源：公司季度报告，示例证券研究所整理；注：按公司披露的各应用领域收入占比折算"],
        key="t_app",
        img_path="",
    )
    q3_g = pct(USD_REV[6], USD_REV[2])
    d.para(
        f"分季度看，2024年第三季度公司实现营收{USD_REV[6] / 100:.2f}亿美元，同比增长{q3_g:.1f}%，单季营收首次突破20亿美元，"
        f"其中消费电子收入达到{apps[6][2] / 100:.2f}亿美元。四季度受部分产品价格调整影响，消费电子收入环比有所回落，"
        "但智能手机与工业汽车收入环比增长。",
        key="p_app_quarter",
    )

    # ------------------------------------------------------------------ page 3: industry
    d.new_page()
    d.heading("2 行业景气：库存去化基本完成，晶圆代工需求温和复苏", 1, key="h_industry")
    d.para(
        "2023年全球半导体行业经历了自2019年以来最深的一轮下行周期，终端需求疲软叠加渠道高库存，晶圆代工厂产能利用率"
        "普遍下滑，成熟制程价格承压。进入2024年，随着智能手机、PC等终端库存去化基本完成，叠加AI服务器及端侧AI带动的"
        "增量需求，全球晶圆代工行业重回增长轨道。据行业机构统计，2024年全球晶圆代工市场规模约1,358亿美元，同比增长约22%。",
        key="p_industry_1",
    )
    d.para(
        "结构上看，本轮复苏呈现明显的分化特征：以AI加速器为代表的先进制程需求旺盛，头部厂商先进制程产能持续满载；"
        "成熟制程则在消费电子补库存、国产替代的带动下逐步回暖，但价格恢复相对滞后。我们认为，2025年成熟制程供需格局"
        "仍将处于修复通道，具备本土客户资源与产能规模优势的大陆晶圆厂有望率先受益。",
        key="p_industry_2",
    )
    d.table(
        "表3：2024年全球晶圆代工厂营收排名",
        [["排名", "厂商", "总部", "2024年营收（亿美元）", "同比（%）", "市占率（%）"]]
        + [list(r) for r in FOUNDRY_RANK],
        ["数据来源：行业机构统计，各公司公告，示例证券研究所整理（部分为估算值）"],
        key="t_rank",
        img_path="",
    )
    d.heading("2.1 国产替代加速，本土设计公司崛起", 2)
    d.para(
        "在外部出口管制持续收紧的背景下，国内芯片设计公司加速将产品导入本土晶圆代工厂。公司2024年来自中国区的收入"
        "占比超过85%，较2022年提升约10个百分点。我们认为，国产替代已由“可选项”变为“必选项”，模拟、电源管理、MCU、"
        "CIS及显示驱动等品类的本土化生产需求将为公司成熟制程产能提供长期支撑。",
        key="p_localization",
    )
    d.para(
        "从经营指标看，公司产能利用率已自2023年一季度68.1%的低点持续回升，2024年三季度回升至90.4%，四季度受季节性因素"
        "影响小幅回落。毛利率方面，由于新增产能折旧压力较大，2024年一季度毛利率一度降至13.7%，此后随着产能利用率提升和"
        "产品结构优化逐季改善，四季度毛利率回升至22.6%。",
        key="p_util_text",
    )
    d.image(
        "图2：中芯国际季度毛利率与产能利用率",
        ["数据来源：公司季度报告，示例证券研究所"],
        img_path=img2,
        key="fig2",
        height=215,
    )

    # ------------------------------------------------------------------ page 4: capacity
    d.new_page()
    d.heading("3 产能扩张：逆周期投资，12英寸新厂有序推进", 1, key="h_capacity")
    d.para(
        "公司坚持逆周期投资策略，2022-2024年累计资本开支超过210亿美元，明显高于同期经营性现金流。截至2024年末，公司"
        "折合8英寸标准逻辑月产能接近95万片，较2023年末增加约14万片/月，新增产能主要来自中芯京城及中芯深圳12英寸产线。",
        key="p_capacity_1",
    )
    rows = [
        [{"t": "季度", "rs": 2}, {"t": "产能", "cs": 2}, {"t": "经营", "cs": 2}],
        ["月产能（万片）", "环比新增（万片）", "产能利用率（%）", "晶圆销售量（万片）"],
    ]
    prev = [CAPACITY_2022Q4] + CAPACITY[:-1]
    for i, q in enumerate(CAP_Q):
        rows.append(
            [q, f1(CAPACITY[i]), f1(CAPACITY[i] - prev[i]), f1(Q_UTIL[16 + i]), f1(SHIPMENTS[i])]
        )
    d.table(
        "表4：中芯国际季度月产能及产能利用率",
        rows,
        [
            "数据来源：公司季度报告，示例证券研究所；注：月产能为期末折合8英寸标准逻辑月产能，晶圆销售量为折合8英寸"
        ],
        key="t_capacity",
        img_path="",
    )
    d.para(
        "从季度数据看，公司2024年下半年产能扩充明显提速，同时晶圆销售量保持高位，显示新增产能消化顺利。我们预计2025年"
        "公司月产能将继续增加约5万片（折合8英寸），产能利用率有望维持在85%以上。",
        key="p_capacity_2",
    )
    d.heading("3.1 四大12英寸新厂有序推进，资本开支维持高位", 2)
    dep_ratio = DEPR[5] / USD_ANNUAL[5] * 100
    d.para(
        "目前公司在建或爬坡的12英寸项目主要包括中芯京城、中芯东方（临港）、中芯西青（天津）及中芯深圳，四个项目规划月产能"
        "合计约34万片（12英寸）。其中中芯京城一期已于2023年进入产能爬坡阶段，中芯深圳12英寸产线已实现量产，中芯东方与"
        "中芯西青预计将于2025-2026年陆续投产。高强度资本开支带来折旧压力，我们预计公司2025年折旧及摊销将增至44.6亿美元，"
        f"占营收比重约{dep_ratio:.0f}%。",
        key="p_new_fabs",
    )
    rows = [
        [{"t": "项目", "rs": 2}, {"t": "实际值", "cs": 5}, {"t": "预测值", "cs": 2}],
        CAPEX_YEARS,
        ["资本开支（亿美元）"] + [f1(v) for v in CAPEX],
        ["折旧及摊销（亿美元）"] + [f1(v) for v in DEPR],
        ["营业收入（亿美元）"] + [f"{v:.2f}" for v in USD_ANNUAL],
        ["资本开支/营收（%）"] + [f1(c / r * 100) for c, r in zip(CAPEX, USD_ANNUAL, strict=True)],
        ["折旧/营收（%）"] + [f1(dd / r * 100) for dd, r in zip(DEPR, USD_ANNUAL, strict=True)],
    ]
    d.table(
        "表5：中芯国际资本开支及折旧预测",
        rows,
        ["数据来源：公司公告，示例证券研究所预测"],
        key="t_capex",
        img_path="",
    )
    d.heading("3.2 产线布局：三座8英寸晶圆厂与九条12英寸产线", 2)
    d.para(
        "公司目前拥有三座8英寸晶圆厂和九条12英寸产线（含在建），分布于上海、北京、天津、深圳四地，各产线规划产能、"
        "当前产能与工艺节点如表6所示。",
        key="p_fabs_intro",
    )

    # ------------------------------------------------------------------ page 5: fabs + advanced nodes
    d.new_page()
    d.table(
        "表6：中芯国际产线一览",
        fab_rows(FABS, 3, "8英寸", "12英寸"),
        [
            "数据来源：公司公告，公司官网，示例证券研究所整理",
            "注：产能单位为万片/月（按各厂晶圆尺寸计），“—”表示尚未投产",
        ],
        key="t_fabs",
        img_path="",
    )
    d.heading("4 先进制程：FinFET平台持续迭代，构筑长期壁垒", 1, key="h_advanced")
    d.para(
        "先进制程是晶圆代工行业技术壁垒最高、价值量最大的环节。公司于2019年实现14nm FinFET工艺量产，成为中国大陆首家"
        "量产FinFET工艺的晶圆代工企业，相关产能主要位于中芯南方。此后公司持续推进FinFET平台迭代，在功耗、性能和面积"
        "（PPA）上不断优化，可满足中高端移动终端处理器、高性能计算及AI加速芯片的制造需求。",
        key="p_advanced_1",
    )
    d.para(
        "受外部设备出口管制影响，公司先进制程扩产节奏面临一定不确定性，但设备国产化率的持续提升为产能建设提供了新的路径。"
        "我们认为，先进制程的持续突破不仅为公司带来更高的单片价值量，也将在长期构筑难以复制的竞争壁垒。",
        key="p_advanced_2",
    )
    d.heading("4.1 特色工艺多点开花，车规与显示驱动成为新增长点", 2)
    d.para(
        "在成熟制程领域，公司围绕BCD、高压显示驱动（HV）、嵌入式非易失性存储（eNVM）、图像传感器（CIS）及射频（RF）等"
        "特色工艺平台持续投入。2024年公司车规级工艺平台通过多家头部车企供应链认证，40nm高压显示驱动平台实现大规模量产，"
        "55nm BCD平台在快充与电源管理芯片领域份额快速提升。",
        key="p_specialty",
    )
    q = list(range(16, 24))
    d.image(
        "图3：中芯国际季度营收及增速",
        ["数据来源：Wind，公司季度报告，示例证券研究所"],
        img_path=img3,
        content="柱状图为2023Q1至2024Q4中芯国际单季度营业收入（亿元，左轴），折线为营收同比增速（%，右轴）。"
        "2023年四个季度营收分别为"
        + "、".join(f"{Q_REV[i]:.1f}" for i in q[:4])
        + "亿元，同比增速分别为"
        + "、".join(f"{yoy[i]:.1f}%" for i in q[:4])
        + "；2024年四个季度营收分别为"
        + "、".join(f"{Q_REV[i]:.1f}" for i in q[4:])
        + "亿元，同比增速分别为"
        + "、".join(f"{yoy[i]:.1f}%" for i in q[4:])
        + "。2024Q4营收为样本期内单季最高，同比增速自2023Q4"
        "由负转正并持续扩大。",
        key="fig3",
        height=215,
    )

    # ------------------------------------------------------------------ page 6: forecast + quarterly table
    d.new_page()
    d.heading("5 盈利预测与估值", 1, key="h_forecast")
    d.para(
        "核心假设：（1）晶圆销售量：随着新增产能释放及产能利用率维持高位，我们预计2025-2026年公司晶圆销售量（折合8英寸）"
        "分别同比增长12%/10%；（2）平均销售单价：成熟制程价格企稳，产品结构向12英寸及特色工艺倾斜，预计2025-2026年ASP分别"
        "同比增长4.8%/3.7%；（3）毛利率：折旧压力仍存，但产能利用率提升带来规模效应，预计2025-2026年毛利率分别为"
        "21.8%/23.5%。",
        key="p_assumptions",
    )
    d.para(
        "估值方面，晶圆代工属于重资产行业，盈利受折旧周期影响较大，我们采用PB估值法。选取华虹半导体、联电、格芯、世界先进"
        "作为可比公司，2025年平均PB约为2.1倍。考虑到公司在中国大陆晶圆代工领域的龙头地位、先进制程的稀缺性及更高的成长性，"
        "给予公司2025年5.3倍PB，对应目标价98.90元，维持“买入”评级。",
        key="p_valuation",
    )
    rows = [
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
    d.table(
        "表7：中芯国际季度财务数据（2019Q1-2024Q4）",
        rows,
        ["数据来源：Wind，公司公告，示例证券研究所"],
        key="t_quarterly",
        img_path="",
        row_h=19,
    )

    # ------------------------------------------------------------------ page 7: risks
    d.new_page()
    d.heading("6 风险提示", 1, key="h_risk")
    d.para(
        "（1）下游需求复苏不及预期：若消费电子、智能手机等终端需求恢复弱于预期，公司产能利用率及产品价格或将承压。",
        key="risk_1",
    )
    d.para(
        "（2）产能扩张进度不及预期：公司新厂建设依赖进口设备，若设备交付延迟或受限，将影响新增产能的释放节奏。",
        key="risk_2",
    )
    d.para(
        "（3）先进制程研发及客户导入不及预期：先进制程研发投入大、周期长，若技术突破或客户验证进度不及预期，将影响公司中长期"
        "竞争力。",
        key="risk_3",
    )
    d.para(
        "（4）地缘政治与出口管制风险：美国等国家和地区对半导体设备、材料及技术的出口管制存在进一步收紧的可能，或影响公司"
        "供应链稳定。",
        key="risk_4",
    )
    d.para(
        "（5）折旧压力超预期：新增产能集中转固可能导致折旧大幅增加，若产能利用率不及预期，将拖累公司毛利率。",
        key="risk_5",
    )
    d.heading("评级说明", 2)
    d.para(
        "公司评级以报告发布日后6个月内公司股价相对同期沪深300指数的涨跌幅为基准：买入——相对涨幅超过15%；增持——相对"
        "涨幅介于5%与15%之间；中性——相对涨跌幅介于-5%与5%之间；减持——相对跌幅超过5%。",
        key="p_rating_def",
    )
    d.para(
        "行业评级以报告发布日后6个月内行业指数相对同期沪深300指数的涨跌幅为基准：增持——相对涨幅超过5%；中性——相对"
        "涨跌幅介于-5%与5%之间；减持——相对跌幅超过5%。"
    )
    d.heading("重要声明", 2)
    d.para(
        "本报告为rag_app项目编写的示例数据，用于软件演示与测试；文中公司名称为真实上市公司，但所有财务数据、预测、评级与"
        "目标价均为虚构或示意，不构成任何投资建议。",
        key="p_disclaimer",
    )
    d.finish()
    return d


# ----------------------------------------------------------------------------- charts
def draw_charts(paths: dict[str, Path]) -> None:
    """Three small charts (ASCII labels: no CJK font is assumed on the build machine)."""
    try:
        from PIL import Image, ImageDraw, ImageFont
    except ImportError:  # pragma: no cover - fallback without Pillow
        for p in paths.values():
            _write_plain_png(p)
        return

    def font(size):
        for name in ("DejaVuSans.ttf", "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"):
            try:
                return ImageFont.truetype(name, size)
            except OSError:
                pass
        return ImageFont.load_default()

    W, H = 640, 360
    L, R, T, B = 60, 580, 50, 300
    f_title, f_small = font(15), font(11)

    def frame(title):
        im = Image.new("RGB", (W, H), "white")
        dr = ImageDraw.Draw(im)
        dr.text((L, 15), title, fill=(30, 30, 30), font=f_title)
        dr.line([(L, B), (R, B)], fill=(90, 90, 90))
        dr.line([(L, T), (L, B)], fill=(90, 90, 90))
        dr.line([(R, T), (R, B)], fill=(90, 90, 90))
        return im, dr

    def y_of(v, lo, hi):
        return B - (v - lo) / (hi - lo) * (B - T)

    def axis(dr, lo, hi, step, side, fmt="{:.0f}"):
        v = lo
        while v <= hi + 1e-9:
            y = y_of(v, lo, hi)
            if side == "left":
                dr.line([(L - 4, y), (L, y)], fill=(90, 90, 90))
                dr.line([(L + 1, y), (R - 1, y)], fill=(232, 232, 232))
                dr.text((L - 8, y), fmt.format(v), fill=(60, 60, 60), font=f_small, anchor="rm")
            else:
                dr.line([(R, y), (R + 4, y)], fill=(90, 90, 90))
                dr.text((R + 8, y), fmt.format(v), fill=(60, 60, 60), font=f_small, anchor="lm")
            v += step

    def bars_and_line(path, title, labels, bars, line, blo, bhi, bstep, llo, lhi, lstep, legend):
        im, dr = frame(title)
        axis(dr, blo, bhi, bstep, "left")
        axis(dr, llo, lhi, lstep, "right")
        n = len(labels)
        slot = (R - L) / n
        pts = []
        for i, (lab, b, ln) in enumerate(zip(labels, bars, line, strict=True)):
            cx = L + slot * (i + 0.5)
            dr.rectangle(
                [cx - slot * 0.3, y_of(b, blo, bhi), cx + slot * 0.3, B - 1], fill=(46, 94, 170)
            )
            dr.text(
                (cx, y_of(b, blo, bhi) - 3),
                f"{b:.1f}",
                fill=(46, 94, 170),
                font=f_small,
                anchor="mb",
            )
            dr.text((cx, B + 8), lab, fill=(60, 60, 60), font=f_small, anchor="mt")
            pts.append((cx, y_of(ln, llo, lhi)))
        if llo < 0 < lhi:
            dr.line([(L, y_of(0, llo, lhi)), (R, y_of(0, llo, lhi))], fill=(200, 120, 60), width=1)
        dr.line(pts, fill=(214, 96, 33), width=3)
        for x, y in pts:
            dr.ellipse([x - 4, y - 4, x + 4, y + 4], fill=(214, 96, 33))
        _legend(dr, legend)
        _save(im, path)

    def _legend(dr, entries):
        x = L
        for text, color, kind in entries:
            if kind == "bar":
                dr.rectangle([x, 328, x + 14, 338], fill=color)
            else:
                dr.line([(x, 333), (x + 14, 333)], fill=color, width=3)
            dr.text((x + 20, 333), text, fill=(40, 40, 40), font=f_small, anchor="lm")
            x += 40 + dr.textlength(text, font=f_small)

    def _save(im, path):
        im = im.convert("P", palette=Image.Palette.ADAPTIVE, colors=32)
        im.save(path, optimize=True)

    annual = [sum(Q_REV[i : i + 4]) for i in range(0, 24, 4)]
    annual_g = [pct(annual[0], sum(Q_REV_2018))] + [
        pct(annual[i], annual[i - 1]) for i in range(1, 6)
    ]
    bars_and_line(
        paths["fig1"],
        "SMIC annual revenue (RMB 100m) and YoY growth (%)",
        [str(y) for y in range(2019, 2025)],
        annual,
        annual_g,
        0,
        900,
        100,
        -40,
        50,
        10,
        [
            ("Revenue (RMB 100m, left)", (46, 94, 170), "bar"),
            ("YoY % (right)", (214, 96, 33), "line"),
        ],
    )
    yoy = q_yoy()
    labels = [q[2:] for q in CAP_Q]  # 23Q1 ...
    bars_and_line(
        paths["fig3"],
        "SMIC quarterly revenue (RMB 100m) and YoY growth (%)",
        labels,
        Q_REV[16:],
        yoy[16:],
        0,
        250,
        25,
        -40,
        40,
        10,
        [
            ("Revenue (RMB 100m, left)", (46, 94, 170), "bar"),
            ("YoY % (right)", (214, 96, 33), "line"),
        ],
    )

    # figure 2: two lines, gross margin (left) and utilisation (right)
    im, dr = frame("SMIC quarterly gross margin (%) and utilisation rate (%)")
    axis(dr, 0, 40, 5, "left")
    axis(dr, 50, 100, 5, "right")
    n = len(CAP_Q)
    slot = (R - L) / n
    gm = Q_GM[16:]
    ut = Q_UTIL[16:]
    p_gm = [(L + slot * (i + 0.5), y_of(v, 0, 40)) for i, v in enumerate(gm)]
    p_ut = [(L + slot * (i + 0.5), y_of(v, 50, 100)) for i, v in enumerate(ut)]
    dr.line(p_gm, fill=(46, 94, 170), width=3)
    dr.line(p_ut, fill=(214, 96, 33), width=3)
    for (x, y), v in zip(p_gm, gm, strict=True):
        dr.ellipse([x - 4, y - 4, x + 4, y + 4], fill=(46, 94, 170))
        dr.text((x, y + 8), f"{v:.1f}", fill=(46, 94, 170), font=f_small, anchor="mt")
    for (x, y), v in zip(p_ut, ut, strict=True):
        dr.ellipse([x - 4, y - 4, x + 4, y + 4], fill=(214, 96, 33))
        dr.text((x, y - 8), f"{v:.1f}", fill=(214, 96, 33), font=f_small, anchor="mb")
    for i, lab in enumerate(labels):
        dr.text((L + slot * (i + 0.5), B + 8), lab, fill=(60, 60, 60), font=f_small, anchor="mt")
    _legend(
        dr,
        [
            ("Gross margin % (left)", (46, 94, 170), "line"),
            ("Utilisation % (right)", (214, 96, 33), "line"),
        ],
    )
    _save(im, paths["fig2"])


def _write_plain_png(path: Path) -> None:
    """Pure-python fallback: a blank light-grey PNG (used only when Pillow is missing)."""
    import struct
    import zlib

    w, h = 320, 180
    raw = b"".join(b"\x00" + b"\xee\xee\xee" * w for _ in range(h))

    def chunk(tag, data):
        return (
            struct.pack(">I", len(data))
            + tag
            + data
            + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)
        )

    png = (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(raw, 9))
        + chunk(b"IEND", b"")
    )
    path.write_bytes(png)


# ----------------------------------------------------------------------------- UI questions
def ui_questions(d: Doc) -> list[dict]:
    items = d.items
    apps = app_values()
    qs = [
        (
            "q1",
            "zh",
            "table",
            "中芯国际2026年预测市盈率是多少？",
            "106.2",
            ["t_forecast"],
            "表1 盈利预测与估值：2026E 市盈率 106.2 倍",
        ),
        (
            "q2",
            "zh",
            "table",
            "中芯南方（SN1）采用什么工艺节点？",
            "14nmFinFET",
            ["t_fabs"],
            "表6 中芯国际产线一览：中芯南方（SN1），上海，14nmFinFET",
        ),
        (
            "q3",
            "zh",
            "table",
            "2024年第二季度中芯国际的产能利用率是多少？",
            "85.2",
            ["t_capacity", "t_quarterly"],
            "表4 与表7 均给出 2024Q2 产能利用率 85.2%",
        ),
        (
            "q4",
            "zh",
            "table",
            "2024年第四季度中芯国际来自工业与汽车领域的营收是多少？",
            thousands(apps[7][4]),
            ["t_app"],
            f"表2：2024Q4 工业与汽车 {apps[7][4]} 百万美元",
        ),
        (
            "q5",
            "zh",
            "figure",
            "图3显示中芯国际营收同比增速在2023年四季度之后呈现什么趋势？",
            "由负转正并持续扩大",
            ["fig3"],
            "图3 的图表描述（content 字段）",
        ),
        (
            "q6",
            "zh",
            "text",
            "报告认为中芯国际2025年资本开支大约是多少？",
            "73亿美元",
            ["kp_capacity"],
            "投资要点：公司指引2025年资本开支与2024年大致持平，约为73亿美元",
        ),
        (
            "q7",
            "en",
            "table",
            "What is the planned monthly capacity of SMIC's 中芯京城 fab, and what is its status?",
            "产能爬坡",
            ["t_fabs"],
            "表6: 中芯京城 规划产能 10.0 万片/月, 当前产能 5.0, 状态 产能爬坡",
        ),
        (
            "q8",
            "en",
            "text",
            "What valuation method and multiple does the report use for SMIC's target price?",
            "5.3倍PB",
            ["kp_forecast", "p_valuation"],
            "PB valuation: 2025E 5.3x PB, target price 98.90元",
        ),
    ]
    out = []
    for qid, lang, kind, question, span, keys, note in qs:
        idx = sorted(d.index(k) for k in keys)
        for i in idx:
            if not contains_answer(items[i], span):
                raise SystemExit(f"UI question {qid}: {span!r} not in item {i}")
        out.append(
            {
                "id": qid,
                "question": question,
                "lang": lang,
                "kind": kind,
                "answer_span": span,
                "answer_note": note,
                "evidence": [
                    {
                        "item_index": i,
                        "type": items[i]["type"],
                        "page_idx": items[i]["page_idx"],
                        "caption": (
                            items[i].get("table_caption") or items[i].get("image_caption") or [""]
                        )[0],
                    }
                    for i in idx
                ],
            }
        )
    return out


def main() -> None:
    d = build_smic()
    items = d.items
    (HERE / "images").mkdir(exist_ok=True)
    paths = {k: HERE / items[d.index(k)]["img_path"] for k in ("fig1", "fig2", "fig3")}
    for old in (HERE / "images").glob("*.png"):
        if old not in paths.values():
            old.unlink()
    draw_charts(paths)
    cl = HERE / f"{DOC_NAME}_content_list.json"
    cl.write_text(json.dumps(items, ensure_ascii=False, indent=4) + "\n", encoding="utf-8")
    md = HERE / f"{DOC_NAME}.md"
    md.write_text(to_markdown(items), encoding="utf-8")
    with zipfile.ZipFile(HERE / f"{DOC_NAME}.zip", "w", zipfile.ZIP_DEFLATED) as z:
        for p in [cl, md] + sorted(paths.values()):
            zi = zipfile.ZipInfo(str(p.relative_to(HERE)), date_time=(2025, 3, 17, 0, 0, 0))
            zi.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(zi, p.read_bytes())
    qs = ui_questions(d)
    (HERE / "questions.json").write_text(
        json.dumps(qs, ensure_ascii=False, indent=2) + "\n", encoding="utf-8"
    )
    types: dict[str, int] = {}
    for it in items:
        types[it["type"]] = types.get(it["type"], 0) + 1
    print(
        f"{DOC_NAME}: {len(items)} items, pages {d.page + 1}, types {types}; {len(qs)} UI questions"
    )
    for p in sorted(paths.values()):
        print(f"  {p.name}: {p.stat().st_size} bytes")


if __name__ == "__main__":
    main()
