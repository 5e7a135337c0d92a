"""The second set's industry report: 中国工业机器人行业深度报告 (衡川证券研究所, 2025年3月), with a
market-size table by year with CAGR, a ranking of companies most of which have no document of their
own, and figures whose trend a paragraph discusses. Every company and number is invented."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

from rag_app.evaluation.sets.broker.layout import render
from rag_app.evaluation.sets.docgen import Doc

# year, market size (亿元), sales (万台)
MARKET = [
    ("2019", "428.6", "14.8"),
    ("2020", "476.3", "17.7"),
    ("2021", "622.5", "25.6"),
    ("2022", "658.9", "28.3"),
    ("2023", "692.4", "29.6"),
    ("2024", "731.8", "30.9"),
    ("2025E", "803.5", "33.8"),
    ("2026E", "886.7", "37.1"),
    ("2027E", "978.2", "40.6"),
]
# 2024 ranking by units sold: company, headquarters, units, share change in pct points
RANKING = [
    ("金田机器人（Kaneda Robotics）", "日本", 41560, "-1.8"),
    ("澄远智能", "江苏常州", 23750, "+1.1"),
    ("阿尔朋沃克（Alpenwerk）", "德国", 22410, "-1.2"),
    ("北辰智控", "江苏苏州", 18930, "+0.9"),
    ("恒昇自动化", "广东佛山", 16220, "+0.6"),
    ("Sorvik Robotics", "瑞典", 14870, "-0.7"),
    ("东栎机器人", "浙江宁波", 12640, "+1.3"),
    ("嘉禾智能", "上海", 10350, "+0.2"),
    ("拓野机械", "山东青岛", 9120, "+0.4"),
    ("Veltro Automazione", "意大利", 7980, "-0.3"),
]
MARKET_UNITS_2024 = 309000
DOMESTIC_SHARE = [("2019", "28.7"), ("2020", "31.4"), ("2021", "32.6"), ("2022", "36.1"),
                  ("2023", "42.5"), ("2024", "47.3")]  # fmt: skip


def _one(value: Decimal) -> str:
    return str(value.quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))


def cagr(first: str, last: str, years: int) -> str:
    """Compound annual growth in percent, one decimal."""
    rate = (float(last) / float(first)) ** (1 / years) - 1
    return _one(Decimal(repr(rate * 100)))


def _market_table() -> list[list[str]]:
    rows = [["年份", "市场规模（亿元）", "同比增速（%）", "销量（万台）", "销量同比（%）"]]
    for n, (year, size, units) in enumerate(MARKET):
        if n == 0:
            rows.append([year, size, "—", units, "—"])
            continue
        _, size_before, units_before = MARKET[n - 1]
        rows.append(
            [
                year,
                size,
                _one((Decimal(size) / Decimal(size_before) - 1) * 100),
                units,
                _one((Decimal(units) / Decimal(units_before) - 1) * 100),
            ]
        )
    for label, a, b, years in (("2019-2024年CAGR", 0, 5, 5), ("2024-2027年CAGR（预测）", 5, 8, 3)):
        rows.append(
            [
                label,
                cagr(MARKET[a][1], MARKET[b][1], years),
                "—",
                cagr(MARKET[a][2], MARKET[b][2], years),
                "—",
            ]
        )
    return rows


def _ranking_table() -> list[list[str]]:
    rows = [
        ["排名", "企业", "总部所在地", "2024年销量（台）", "市场份额（%）", "份额同比变化（pct）"]
    ]
    for n, (name, place, units, moved) in enumerate(RANKING, 1):
        share = _one(Decimal(units) / Decimal(MARKET_UNITS_2024) * 100)
        rows.append([str(n), name, place, f"{units:,}", share, moved])
    return rows


def _parts_table() -> list[list[str]]:
    return [
        ["核心零部件", "成本占比（%）", "2024年国产化率（%）", "国内代表企业"],
        ["精密减速器", "32", "48", "澄远智能、宁川精密"],
        ["伺服系统", "24", "39", "北辰智控、汇禾电气"],
        ["控制器", "12", "35", "嘉禾智能、东栎机器人"],
        ["力/视觉传感器", "8", "27", "拓衡传感、锐拓科技"],
        ["本体结构件及其他", "24", "—", "—"],
    ]


def build_report() -> Doc:
    d = Doc(
        "robot_industry_2025",
        header="行业深度报告｜机械设备｜工业机器人",
        footer="衡川证券研究所　请阅读最后一页的重要声明",
    )
    shares = ", ".join(f"{y}年{s}%" for y, s in DOMESTIC_SHARE)
    render(
        d,
        [
            ("page",),
            ("h1", "工业机器人行业深度报告：国产替代进入深水区，协作与人形打开新空间", "title"),
            ("p", "衡川证券研究所　2025年3月18日　行业评级：推荐（首次）", "p_byline"),
            ("h2", "核心观点"),
            (
                "p",
                "2024年中国工业机器人市场规模达到731.8亿元，销量30.9万台，在制造业资本开支偏弱的背景下仍保持正增长。我们认为，"
                "行业正由“量的扩张”转向“结构升级”：国产品牌凭借性价比与快速响应在中低负载领域全面替代，并开始向汽车焊装等"
                "高端场景渗透；协作机器人与人形机器人将成为下一阶段的主要增量。",
                "p_core",
            ),
            ("h1", "一、市场规模：增速放缓但韧性仍在", "h_market"),
            (
                "table",
                ["表1：2019-2027年中国工业机器人市场规模及预测"],
                _market_table(),
                ["资料来源：国家统计局，IFR，衡川证券研究所测算；E为预测值"],
                "t_market",
            ),
            (
                "p",
                "2021年受新能源与3C扩产拉动，市场规模同比大增，此后增速逐年回落。我们预计随着锂电、光伏扩产周期见底以及汽车"
                "零部件、金属加工等传统行业自动化改造提速，2025-2027年市场规模将恢复至约10%的年均增长。",
                "p_market",
            ),
            ("page",),
            ("h1", "二、竞争格局：外资份额持续下滑，国产龙头加速崛起", "h_competition"),
            (
                "table",
                ["表2：2024年中国工业机器人市场竞争格局（按销量）"],
                _ranking_table(),
                [
                    "资料来源：MIR睿工业，公司公告，衡川证券研究所整理；市场份额以全市场销量30.9万台为基数"
                ],
                "t_ranking",
            ),
            (
                "image",
                ["图1：2019-2024年中国工业机器人市场国产品牌销量份额"],
                ["资料来源：MIR睿工业，衡川证券研究所"],
                f"折线图，横轴为年份，纵轴为国产品牌销量份额（%）。数据点：{shares}。曲线逐年上行，2022年后斜率明显变陡。",
                "fig_domestic",
            ),
            (
                "p",
                "如图1所示，国产品牌份额由2019年的28.7%提升至2024年的47.3%，五年累计提升18.6个百分点；其中2023、2024两年"
                "合计提升11.2个百分点，替代明显提速。我们预计2025年国产品牌份额有望首次超过50%。",
                "p_domestic",
            ),
            (
                "p",
                "从头部企业看，澄远智能以7.7%的份额位列国产品牌第一、全市场第二，北辰智控、恒昇自动化紧随其后；外资方面，"
                "金田机器人仍居首位，但份额同比下滑1.8个百分点。",
                "p_leaders",
            ),
            ("page",),
            ("h1", "三、核心零部件：减速器率先突破，传感器仍是短板", "h_parts"),
            (
                "table",
                ["表3：工业机器人核心零部件成本占比及国产化率"],
                _parts_table(),
                ["资料来源：高工机器人，衡川证券研究所整理"],
                "t_parts",
            ),
            (
                "p",
                "力传感器方面，拓衡传感2024年在国内六维力传感器市场的出货份额约为21.3%，位居国产厂商首位，但高端型号的应变计"
                "与ADC芯片仍依赖进口。",
                "p_sensors",
            ),
            (
                "image",
                ["图2：2020-2024年中国协作机器人销量（万台）及同比增速"],
                ["资料来源：GGII，衡川证券研究所"],
                "柱状图与折线图组合。协作机器人销量由2020年的0.9万台增至2024年的2.6万台；同比增速在2021年达到峰值，"
                "2024年回落至约38%。",
                "fig_cobots",
            ),
            ("image", ["图3：2024年人形机器人产业链图谱"], [], None, "fig_humanoid"),
            ("h1", "四、投资建议与风险提示", "h_advice"),
            (
                "p",
                "首次覆盖工业机器人行业，给予“推荐”评级。建议关注整机龙头澄远智能，以及拟登陆科创板的力传感器厂商拓衡传感。"
                "风险提示：制造业投资不及预期；行业价格战加剧；核心零部件进口受限；人形机器人商业化进度不及预期。",
                "p_advice",
            ),
        ],
    )
    d.finish()
    return d
