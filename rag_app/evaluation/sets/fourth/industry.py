"""The fourth set's industry report: a 动力电池 annual strategy by 柏湾证券研究所 comparing six listed
battery makers (出货量, 营业收入 and 毛利率 over three years under merged headers), a market-share
table that names one more maker and 其他, monthly cell and lithium prices, and a valuation table
with ratings. The broker, the companies, their codes and every number are invented."""

from __future__ import annotations

from decimal import Decimal

from rag_app.evaluation.sets.broker.layout import render
from rag_app.evaluation.sets.docgen import Doc
from rag_app.evaluation.sets.third.numbers import change, fmt, num, share, total

YEARS = ("2022", "2023", "2024")
# 公司, 出货量 (GWh), 营业收入 (亿元), 毛利率 (%): each 2022, 2023, 2024
MAKERS = [
    (
        "沧澜新能",
        ("186.4", "241.7", "298.5"),
        ("1,682.35", "1,905.48", "1,847.26"),
        ("19.8", "21.6", "24.3"),
    ),
    (
        "锐驰电池",
        ("62.8", "88.3", "121.6"),
        ("612.47", "745.09", "832.61"),
        ("16.2", "17.9", "18.4"),
    ),
    (
        "华棱动力",
        ("41.5", "52.6", "67.9"),
        ("386.92", "436.15", "472.38"),
        ("14.7", "15.3", "16.8"),
    ),
    (
        "恒湃锂能",
        ("28.3", "39.7", "58.2"),
        ("241.36", "318.42", "375.84"),
        ("12.9", "14.8", "15.6"),
    ),
    (
        "科峦锂电",
        ("18.6", "27.4", "41.3"),
        ("165.28", "215.93", "268.47"),
        ("17.5", "18.7", "20.2"),
    ),
    ("昭远新能", ("12.1", "15.8", "16.4"), ("128.64", "142.07", "131.55"), ("11.3", "9.6", "7.8")),
]
# 国内装车量 (GWh): 2024年, 2023年; 其他 is the rest of the market
INSTALLED = [
    ("沧澜新能", "246.3", "168.5"),
    ("锐驰电池", "98.7", "68.2"),
    ("华棱动力", "47.2", "33.9"),
    ("恒湃锂能", "36.8", "24.1"),
    ("弘邦动力", "25.4", "19.8"),
    ("科峦锂电", "21.9", "14.6"),
    ("昭远新能", "10.6", "9.3"),
]
MARKET = ("548.6", "387.7")
MARKET_YEARS = [("2019", "62.2"), ("2020", "63.6"), ("2021", "154.5"), ("2022", "294.6")]
# 月份: 磷酸铁锂电芯, 三元电芯 (元/Wh), 电池级碳酸锂 (万元/吨)
PRICES = [
    ("2025年1月", "0.382", "0.491", "7.62"),
    ("2025年2月", "0.376", "0.488", "7.48"),
    ("2025年3月", "0.368", "0.482", "7.35"),
    ("2025年4月", "0.361", "0.475", "7.06"),
    ("2025年5月", "0.352", "0.469", "6.42"),
    ("2025年6月", "0.344", "0.463", "6.05"),
    ("2025年7月", "0.349", "0.466", "6.83"),
    ("2025年8月", "0.357", "0.472", "7.91"),
    ("2025年9月", "0.362", "0.478", "7.54"),
    ("2025年10月", "0.371", "0.484", "7.78"),
]
# 公司, 代码, 股价 (元, 2025年11月14日), EPS 2024A/2025E/2026E (元), 评级
VALUATION = [
    ("沧澜新能", "300861.SZ", "268.50", ("11.62", "13.85", "16.07"), "买入"),
    ("锐驰电池", "688351.SH", "42.36", ("1.58", "2.04", "2.51"), "买入"),
    ("科峦锂电", "603628.SH", "35.80", ("1.12", "1.46", "1.83"), "增持"),
    ("恒湃锂能", "301176.SZ", "28.94", ("0.86", "1.05", "1.32"), "增持"),
]


def _makers_table() -> list[list]:
    rows: list[list] = [
        [
            {"t": "公司", "rs": 2},
            {"t": "动力电池出货量（GWh）", "cs": 3},
            {"t": "营业收入（亿元）", "cs": 3},
            {"t": "毛利率（%）", "cs": 3},
        ],
        [f"{y}年" for y in YEARS] * 3,
    ]
    for name, shipped, revenue, margin in MAKERS:
        rows.append([name, *shipped, *revenue, *margin])
    return rows


def _rest(i: int) -> str:
    return fmt(num(MARKET[i]) - sum((num(r[1 + i]) for r in INSTALLED), Decimal(0)), 1)


def _share_table() -> list[list]:
    rows: list[list] = [
        ["排名", "公司", "2024年装车量（GWh）", "2024年市场份额（%）", "2023年市场份额（%）"]
    ]
    for n, (name, now, before) in enumerate(INSTALLED, 1):
        rows.append([str(n), name, now, share(now, MARKET[0]), share(before, MARKET[1])])
    rest = [_rest(0), _rest(1)]
    rows.append(["—", "其他", rest[0], share(rest[0], MARKET[0]), share(rest[1], MARKET[1])])
    rows.append([{"t": "合计", "cs": 2}, MARKET[0], "100.00", "100.00"])
    return rows


def _price_table() -> list[list[str]]:
    head = ["月份", "磷酸铁锂动力电芯（元/Wh）", "三元动力电芯（元/Wh）", "电池级碳酸锂（万元/吨）"]
    return [head, *map(list, PRICES)]


def _pe(price: str, eps: str) -> str:
    return fmt(num(price) / num(eps), 1, sep=False)


def _valuation_table() -> list[list]:
    rows: list[list] = [
        [
            {"t": "公司", "rs": 2},
            {"t": "代码", "rs": 2},
            {"t": "股价（元）", "rs": 2},
            {"t": "EPS（元）", "cs": 3},
            {"t": "PE（倍）", "cs": 3},
            {"t": "评级", "rs": 2},
        ],
        ["2024A", "2025E", "2026E"] * 2,
    ]
    for name, code, price, eps, rating in VALUATION:
        rows.append([name, code, price, *eps, *(_pe(price, e) for e in eps), rating])
    return rows


def top3_share() -> str:
    return share(total(r[1] for r in INSTALLED[:3]), MARKET[0])


def build_report() -> Doc:
    d = Doc(
        "baiwan_battery_industry_2026_outlook",
        header="证券研究报告｜行业深度报告｜电力设备与新能源",
        footer="柏湾证券研究所　请务必阅读正文之后的信息披露和免责申明",
    )
    growth = change(*MARKET)
    history = "、".join(f"{y}年{v}GWh" for y, v in MARKET_YEARS)
    history += f"、2023年{MARKET[1]}GWh、2024年{MARKET[0]}GWh"
    low = min(PRICES, key=lambda p: num(p[3]))
    render(
        d,
        [
            ("page",),
            ("h1", "动力电池行业2026年度策略：格局趋稳，出海与储能打开第二曲线", "title"),
            (
                "p",
                "柏湾证券研究所　行业深度报告　2025年11月18日　行业评级：推荐（维持）　分析师：程予安（S1230521080003）"
                "　分析师：温晚舟（S1230523040001）",
                "p_byline",
            ),
            ("h2", "核心观点"),
            (
                "p",
                f"需求端，2024年国内动力电池装车量{MARKET[0]}GWh，同比增长{growth}%，新能源汽车渗透率持续提升；供给端，行业"
                "经历两年价格下行与产能出清，二三线厂商扩产明显放缓。我们认为2026年行业格局将进一步向头部集中，龙头沧澜"
                "新能源科技股份有限公司（Canglan New Energy Technology Co., Ltd.，以下简称“沧澜新能”）凭借成本与技术优势"
                "有望继续提升盈利能力，海外建厂与储能电池将成为各家公司的第二增长曲线。",
                "p_core",
            ),
            ("h2", "一、行业回顾：装车量高增，价格战接近尾声"),
            (
                "image",
                ["图1：2019-2024年国内动力电池装车量（GWh）"],
                ["资料来源：中国汽车动力电池产业创新联盟，柏湾证券研究所"],
                f"柱状图。{history}。2021年起进入高速增长期。",
                "fig_installed",
            ),
            (
                "p",
                "从电池类型看，2024年磷酸铁锂电池装车量占比提升至74.6%，三元电池占比降至25.3%，其余为锰酸锂等其他类型。"
                "磷酸铁锂凭借成本与安全性优势，在中低端车型和插电混动车型中几乎全面替代三元电池。",
                "p_chemistry",
            ),
            ("page",),
            ("h2", "二、竞争格局：头部集中，二线分化"),
            (
                "table",
                ["表1：2024年国内动力电池装车量及市场份额"],
                _share_table(),
                [
                    "资料来源：中国汽车动力电池产业创新联盟，柏湾证券研究所；“其他”包括40余家装车企业"
                ],
                "t_share",
            ),
            (
                "p",
                f"2024年装车量前三名合计市场份额为{top3_share()}%，行业集中度继续提升。弘邦动力为非上市公司，主要配套"
                "商用车客户。二线厂商中，恒湃锂能、科峦锂电份额提升较快，昭远新能受大客户销量下滑拖累，份额有所下降。",
                "p_competition",
            ),
            (
                "table",
                ["表2：主要上市动力电池企业经营数据对比"],
                _makers_table(),
                [
                    "资料来源：各公司年报，柏湾证券研究所；出货量为动力电池口径（含海外，不含储能电池），营业收入为公司整体口径"
                ],
                "t_makers",
            ),
            (
                "p",
                "盈利方面，2024年龙头与二线厂商的毛利率差距进一步拉大：沧澜新能毛利率较2022年提升4.5个百分点，而昭远新能"
                "因产能利用率不足，毛利率连续两年下滑。我们判断，随着碳酸锂价格企稳，二线厂商毛利率分化仍将延续。",
                "p_margin",
            ),
            ("page",),
            ("h2", "三、价格：碳酸锂筑底回升，电芯价格止跌"),
            (
                "table",
                ["表3：2025年1-10月动力电芯及碳酸锂月度均价"],
                _price_table(),
                ["资料来源：鑫椤资讯，上海有色网，柏湾证券研究所；电芯价格为方形动力电芯月度均价"],
                "t_prices",
            ),
            (
                "p",
                f"电池级碳酸锂月度均价在{low[0][5:]}触及年内低点后反弹，主要受江西部分锂云母矿停产整改影响；电芯价格随之于"
                f"7月起小幅回升，10月磷酸铁锂动力电芯均价较6月上涨{change(PRICES[9][1], PRICES[5][1])}%。我们预计"
                "2026年碳酸锂价格将在6-9万元/吨区间"
                "内波动，电芯价格战基本结束。",
                "p_prices",
            ),
            ("h2", "四、出海与储能：第二增长曲线"),
            (
                "p",
                "海外布局方面，沧澜新能匈牙利工厂一期（规划产能40GWh）已于2025年二季度投产；锐驰电池在摩洛哥规划建设"
                "20GWh电池基地，预计2026年底投产；科峦锂电与欧洲某车企签订为期五年的供货协议。结构件、铜箔等配套环节"
                "随客户出海，其中骏岭精工（603729.SH）已在匈牙利建设结构件生产基地。",
                "p_overseas",
            ),
            (
                "p",
                "储能方面，2025年前三季度全球储能电池出货量约385GWh，同比增长89%，其中中国企业出货占比超过90%。华棱动力"
                "与恒湃锂能储能业务收入占比已分别达到31%和27%。",
                "p_storage",
            ),
            (
                "image",
                ["图2：动力电池产业链示意图"],
                ["资料来源：柏湾证券研究所整理"],
                None,
                "fig_chain",
                200,
            ),
            ("page",),
            ("h2", "五、投资建议"),
            (
                "p",
                "维持行业“推荐”评级。我们看好具备全球竞争力的龙头和储能业务占比较高的二线厂商：首推沧澜新能、锐驰电池，"
                "给予“买入”评级；关注科峦锂电、恒湃锂能，给予“增持”评级。",
                "p_advice",
            ),
            (
                "table",
                ["表4：重点公司盈利预测与估值"],
                _valuation_table(),
                ["资料来源：Wind，柏湾证券研究所预测；股价为2025年11月14日收盘价"],
                "t_valuation",
            ),
            ("h2", "风险提示"),
            (
                "p",
                "新能源汽车销量不及预期；原材料价格大幅波动；海外贸易政策变化及海外工厂建设进度不及预期；行业产能过剩导致"
                "价格竞争再度加剧；固态电池等新技术路线带来的替代风险。",
                "p_risks",
            ),
        ],
    )
    d.finish()
    return d
