"""The fourth set's monthly announcement: 青岚航空 (Qinglan Airlines, 601895.SH), 2025年10月主要运营数据
公告. Its main table sets 本月 against 上年同月 and 本年累计 against 上年同期累计 under merged headers,
with 国内 / 国际 / 地区 lines repeated under each metric and 客座率 changes in percentage points; a
table of every month of the year so far (万人次, where the main table counts 千人次), the fleet by
maker and type, and the usual boilerplate. The airline and every number are invented."""

from __future__ import annotations

from rag_app.evaluation.sets.broker.layout import render
from rag_app.evaluation.sets.docgen import Doc
from rag_app.evaluation.sets.third.numbers import change, fmt, less, num, share

# Each metric: 本月 (2025年10月), 上年同月, 本年累计 (1-10月), 上年同期累计; sub-lines 国内, 国际, then
# 地区 as the rest of the total.
ASK = (
    ("18,426.37", "16,852.14", "176,318.52", "160,247.85"),
    ("14,208.65", "13,524.90", "138,406.27", "130,915.33"),
    ("3,602.18", "2,842.61", "32,375.46", "24,106.72"),
)
RPK = (
    ("15,562.84", "13,954.27", "147,905.61", "132,618.09"),
    ("12,105.37", "11,318.46", "117,432.80", "109,203.54"),
    ("2,962.55", "2,226.07", "26,108.39", "19,375.26"),
)
PAX = (
    ("9,286.45", "8,617.32", "88,904.17", "81,725.66"),
    ("8,412.73", "7,948.15", "81,267.38", "75,802.41"),
    ("682.06", "512.84", "5,935.12", "4,406.97"),
)
ATK = ("2,486.31", "2,275.64", "23,804.57", "21,712.36")
RTK = ("1,784.52", "1,603.27", "17,026.18", "15,486.73")
CARGO = ("68,412.5", "61,937.8", "652,318.4", "597,406.2")
# 旅客运输量 (千人次) of 2025年1-9月 and 2024年1-9月 (10月 is PAX's); 客座率 (%) and its change (pp)
MONTHS = [
    ("8,652.30", "7,915.42", "83.9", "1.2"),
    ("8,918.64", "8,306.18", "85.6", "0.8"),
    ("8,407.15", "7,702.55", "81.7", "1.9"),
    ("8,615.82", "7,958.30", "82.5", "1.1"),
    ("8,736.09", "8,016.74", "83.1", "0.7"),
    ("8,804.56", "8,152.03", "84.0", "1.5"),
    ("9,512.18", "8,903.61", "87.8", "0.9"),
    ("9,645.37", "9,064.27", "88.4", "1.3"),
    ("8,325.61", "7,089.24", "83.2", "2.4"),
]
# 机队: maker, type, 自有, 融资租赁, 经营租赁
FLEET = [
    ("空客", "A320ceo", 38, 12, 21),
    ("空客", "A320neo", 22, 18, 26),
    ("空客", "A321neo", 14, 9, 11),
    ("波音", "B737-800", 31, 8, 19),
    ("波音", "B737 MAX 8", 6, 4, 10),
    ("波音", "B787-9", 8, 4, 2),
    ("中国商飞", "C919", 5, 0, 0),
]


def _lines(metric: tuple[tuple[str, ...], ...]) -> list[tuple[str, ...]]:
    """国内, 国际 and 地区 (the rest) of a metric, each with its four columns."""
    whole, home, abroad = metric
    rest = tuple(less(whole[i], [home[i], abroad[i]]) for i in range(4))
    return [home, abroad, rest]


def load_factor(rpk: str, ask: str) -> str:
    return fmt(num(rpk) / num(ask) * 100, 2, sep=False)


def _pp(now: str, before: str) -> str:
    return fmt(num(now) - num(before), 2, sep=False)


def _row(label: str, v: tuple[str, ...]) -> list[str]:
    return [label, v[0], v[1], change(v[0], v[1]), v[2], v[3], change(v[2], v[3])]


def _ratio_row(label: str, top: tuple[str, ...], bottom: tuple[str, ...]) -> list[str]:
    r = [load_factor(top[i], bottom[i]) for i in range(4)]
    return [label, r[0], r[1], _pp(r[0], r[1]), r[2], r[3], _pp(r[2], r[3])]


def _ops_table() -> list[list]:
    rows: list[list] = [
        [{"t": "指标", "rs": 2}, {"t": "本月", "cs": 3}, {"t": "本年累计", "cs": 3}],
        ["2025年10月", "2024年10月", "同比（%）", "2025年1-10月", "2024年1-10月", "同比（%）"],
    ]
    parts = ("　国内", "　国际", "　地区")
    rows.append([{"t": "运力", "cs": 7}])
    rows.append(_row("可用座公里（ASK）（百万）", ASK[0]))
    rows += [_row(p, v) for p, v in zip(parts, _lines(ASK))]
    rows.append(_row("可用吨公里（ATK）（百万）", ATK))
    rows.append([{"t": "运输量", "cs": 7}])
    rows.append(_row("收入客公里（RPK）（百万）", RPK[0]))
    rows += [_row(p, v) for p, v in zip(parts, _lines(RPK))]
    rows.append(_row("旅客运输量（千人次）", PAX[0]))
    rows += [_row(p, v) for p, v in zip(parts, _lines(PAX))]
    rows.append(_row("收入吨公里（RTK）（百万）", RTK))
    rows.append(_row("货邮运输量（吨）", CARGO))
    rows.append([{"t": "载运率", "cs": 7}])
    rows.append(_ratio_row("客座率（%）", RPK[0], ASK[0]))
    for p, top, bottom in zip(parts, _lines(RPK), _lines(ASK)):
        rows.append(_ratio_row(p, top, bottom))
    rows.append(_ratio_row("综合载运率（%）", RTK, ATK))
    return rows


def _wan(thousands: str) -> str:
    return fmt(num(thousands) / 10, 2)


def _monthly_table() -> list[list[str]]:
    rows = [["月份", "旅客运输量（万人次）", "同比（%）", "客座率（%）", "客座率同比（个百分点）"]]
    october = load_factor(RPK[0][0], ASK[0][0])
    before = load_factor(RPK[0][1], ASK[0][1])
    oct_row = (PAX[0][0], PAX[0][1], fmt(num(october), 1), fmt(num(october) - num(before), 1))
    for n, (now, last, rate, delta) in enumerate([*MONTHS, oct_row], 1):
        rows.append([f"{n}月", _wan(now), change(now, last), rate, f"+{delta}"])
    return rows


def fleet_total() -> int:
    return sum(own + fin + op for _, _, own, fin, op in FLEET)


def _fleet_table() -> list[list]:
    rows: list[list] = [
        [
            {"t": "制造商", "rs": 2},
            {"t": "机型", "rs": 2},
            {"t": "引进方式（架）", "cs": 3},
            {"t": "合计（架）", "rs": 2},
        ],
        ["自有", "融资租赁", "经营租赁"],
    ]
    makers = [f[0] for f in FLEET]
    for n, (maker, kind, own, fin, op) in enumerate(FLEET):
        first = [{"t": maker, "rs": makers.count(maker)}] if makers.index(maker) == n else []
        rows.append([*first, kind, str(own), str(fin), str(op), str(own + fin + op)])
    sums = [sum(f[2] for f in FLEET), sum(f[3] for f in FLEET), sum(f[4] for f in FLEET)]
    rows.append([{"t": "合计", "cs": 2}, *map(str, sums), str(fleet_total())])
    return rows


def build_report() -> Doc:
    for i in (0, 1):  # the months add up to the year so far, as the main table says
        if sum((num(m[i]) for m in MONTHS), num(PAX[0][i])) != num(PAX[0][2 + i]):
            raise ValueError("旅客运输量: the months do not add up to 1-10月")
    d = Doc("qinglan_airlines_2025_10_traffic", header="", footer="")
    pax = PAX[0]
    home, abroad, rest = (v[0] for v in _lines(PAX))
    mix = f"国内航线{share(home, pax[0])}%、国际航线{share(abroad, pax[0])}%、地区航线{share(rest, pax[0])}%"
    intl = change(PAX[2][0], PAX[2][1])
    cargo = change(CARGO[0], CARGO[1])
    render(
        d,
        [
            ("page",),
            ("p", "证券代码：601895　　证券简称：青岚航空　　公告编号：临2025-071", "p_code"),
            ("h1", "青岚航空股份有限公司2025年10月主要运营数据公告", "title"),
            (
                "p",
                "本公司董事会及全体董事保证本公告内容不存在任何虚假记载、误导性陈述或者重大遗漏，并对其内容的真实性、"
                "准确性和完整性承担法律责任。",
                "p_board",
            ),
            (
                "p",
                "2025年10月，青岚航空股份有限公司（Qinglan Airlines Co., Ltd.，以下简称“本公司”）及所属子公司青岚航空"
                "（云州）有限公司、岚翔航空有限公司（以下合称“本集团”）主要运营数据如下：",
                "p_intro",
            ),
            (
                "table",
                ["一、主要运营数据"],
                _ops_table(),
                [
                    "注：客座率、综合载运率的同比变动单位为百分点；地区指中国香港、中国澳门及中国台湾地区。"
                ],
                "t_ops",
            ),
            (
                "p",
                f"2025年10月，本集团旅客运输量同比增长{change(pax[0], pax[1])}%，客运运力投入（按可用座公里计）同比增长"
                f"{change(ASK[0][0], ASK[0][1])}%，旅客周转量（按收入客公里计）同比增长{change(RPK[0][0], RPK[0][1])}%。"
                f"国际航线旅客运输量同比增长{intl}%，主要得益于新开及加密东南亚、日韩航线；货邮运输量同比增长{cargo}%，"
                "主要来自跨境电商包机业务。",
                "p_analysis",
            ),
            ("page",),
            (
                "p",
                "二、航线变动：本月本集团新开云州—新加坡、岚城—大阪（关西）、岚城—胡志明市3条国际航线，以及岚城—喀什、"
                "云州—西双版纳等4条国内航线；暂停岚城—首尔（仁川）航线。",
                "p_routes",
            ),
            ("p", "三、机队情况", "h_fleet"),
            ("table", ["截至2025年10月31日"], _fleet_table(), [], "t_fleet"),
            (
                "p",
                f"2025年10月，本集团引进C919飞机2架，退出B737-800飞机1架。截至10月末，本集团共运营{fleet_total()}架客机，"
                "平均机龄7.6年。",
                "p_fleet",
            ),
            (
                "table",
                ["四、2025年1-10月各月旅客运输量及客座率"],
                _monthly_table(),
                ["注：各月数据为本集团口径，10月数据与上表一致，按万人次列示。"],
                "t_monthly",
            ),
            (
                "image",
                ["图1：2025年1-10月月度旅客运输量及客座率走势"],
                [],
                None,
                "fig_monthly",
                200,
            ),
            (
                "p",
                "9月旅客运输量同比增幅较高，主要系上年同期受台风天气影响大量航班取消，基数较低；7、8月暑运期间客座率均超过"
                "87%。",
                "p_months",
            ),
            (
                "image",
                ["图2：2025年10月旅客运输量按航线区域构成"],
                ["资料来源：本集团内部统计"],
                f"饼图。{mix}。",
                "fig_mix",
                180,
            ),
            (
                "p",
                "五、运行品质：2025年10月本集团航班正常率为89.62%，同比提升2.15个百分点；国庆、中秋假期（10月1日至8日）"
                "共保障航班1.86万班次，运送旅客243.7万人次。",
                "p_punctual",
            ),
            ("page",),
            (
                "table",
                ["附：主要运营指标释义"],
                [
                    ["指标", "释义"],
                    [
                        "可用座公里（ASK）",
                        "每一航段可出售座位数乘以该航段飞行距离的总和，反映客运运力投入",
                    ],
                    [
                        "收入客公里（RPK）",
                        "每一航段收费旅客人数乘以该航段飞行距离的总和，反映旅客周转量",
                    ],
                    ["客座率", "收入客公里除以可用座公里"],
                    ["综合载运率", "收入吨公里除以可用吨公里"],
                ],
                [],
                "t_glossary",
            ),
            (
                "p",
                "六、其他说明：上述运营数据来源于本集团内部统计，未经审计，可能与本公司定期报告披露的数据存在差异。投资者应"
                "注意不恰当信赖或使用以上信息可能造成投资风险。",
                "p_note",
            ),
            ("p", "特此公告。", "p_end"),
            ("p", "青岚航空股份有限公司董事会　2025年11月14日", "p_sign"),
        ],
    )
    d.finish()
    return d
