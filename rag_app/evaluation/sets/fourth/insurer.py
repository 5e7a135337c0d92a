"""The fourth set's insurance report: 鹏屿保险集团 (Pengyu Insurance Group, 601586.SH), 2024年年度报告,
an excerpt of a composite insurer's 主要会计数据, its life arm (保费 by 险种, 新业务价值 by channel
under merged headers), its property and casualty arm (保费 by 险种 with a group row, 综合成本率 by
险种), 偿付能力 of the group and two subsidiaries side by side, 内含价值 and 投资资产; amounts in
百万元, the prose in 亿元. The group, its subsidiaries, people and every number are invented."""

from __future__ import annotations

from decimal import Decimal

from rag_app.evaluation.sets.broker.layout import render
from rag_app.evaluation.sets.docgen import Doc
from rag_app.evaluation.sets.third.numbers import change, fmt, num, share, total

# 主要会计数据 (人民币百万元): 2024年, 2023年
ACCOUNTS = {
    "保险服务收入": ("186,425", "172,318"),
    "营业收入": ("238,907", "219,564"),
    "利润总额": ("28,746", "24,105"),
    "归属于母公司股东的净利润": ("24,318", "20,457"),
    "经营活动产生的现金流量净额": ("61,207", "54,833"),
}
EPS = ("2.43", "2.05")
# 2024年12月31日, 2023年12月31日
BALANCES = {
    "总资产": ("2,684,315", "2,437,962"),
    "归属于母公司股东的股东权益": ("198,642", "186,207"),
}
# 寿险原保险保费收入 by 险种 (百万元): 2024年, 2023年
LIFE = [
    ("传统型寿险", "38,652", "35,207"),
    ("分红型寿险", "27,418", "22,936"),
    ("年金险", "31,905", "33,482"),
    ("健康险", "24,783", "23,116"),
    ("意外伤害险", "2,146", "2,231"),
]
# 新业务价值 (百万元) and 新业务价值率 (%) by channel: 2024年, 2023年
NBV = [
    ("个人代理渠道", ("8,426", "28.6"), ("7,315", "25.9")),
    ("银行保险渠道", ("2,187", "12.4"), ("1,542", "9.8")),
    ("团体保险渠道", ("305", "6.1"), ("287", "5.7")),
]
NBV_RATE = ("21.3", "19.2")
NBV_YEARS = [("2020", "132.65"), ("2021", "114.08"), ("2022", "86.37")]  # 亿元, figure only
# 财险原保险保费收入 by 险种 (百万元): 2024年, 2023年; the rest sit under 非机动车辆保险
MOTOR = ("机动车辆保险", "58,364", "55,921")
NON_MOTOR = [
    ("农业保险", "9,872", "8,615"),
    ("健康险", "11,437", "9,208"),
    ("责任保险", "7,215", "6,587"),
    ("企业财产保险", "4,306", "4,118"),
    ("意外伤害保险", "2,589", "2,702"),
    ("其他险种", "3,124", "2,897"),
]
# 综合成本率 by 险种: 保险服务收入 2024 (百万元), 综合成本率 2024, 2023 (%)
COR = [
    ("机动车辆保险", "56,208", "97.2", "97.8"),
    ("农业保险", "8,934", "96.8", "98.1"),
    ("健康险", "10,862", "99.4", "101.2"),
    ("责任保险", "6,940", "101.6", "100.9"),
    ("企业财产保险", "3,817", "95.3", "96.5"),
    ("意外伤害保险", "2,511", "93.7", "95.2"),
]
COR_TOTAL_2023 = "98.5"
# 偿付能力 (百万元): 核心资本, 实际资本, 最低资本; 2024年末, 2023年末
SOLVENCY = {
    "本集团": (("312,450", "421,886", "186,304"), ("289,637", "398,215", "175,942")),
    "鹏屿人寿": (("241,735", "338,427", "158,264"), ("226,108", "317,650", "149,377")),
    "鹏屿财险": (("52,318", "61,742", "24,116"), ("48,906", "57,835", "22,647")),
}
# 内含价值 (百万元): 2024年12月31日, 2023年12月31日
EV = [
    ("调整后净资产", "186,543", "172,906"),
    ("扣除要求资本成本前的有效业务价值", "142,378", "135,664"),
    ("要求资本成本", "-12,905", "-12,317"),
]
# 投资资产 (百万元): 2024年12月31日, 2023年12月31日
INVEST = [
    ("现金及现金等价物", "48,216", "52,907"),
    ("定期存款", "176,385", "189,420"),
    ("债券投资", "1,386,472", "1,204,658"),
    ("股票投资", "172,904", "149,361"),
    ("基金投资", "68,531", "71,206"),
    ("长期股权投资", "95,748", "90,125"),
    ("其他投资", "293,617", "268,543"),
]


def _profile_table() -> list[list[str]]:
    return [
        ["公司的中文名称", "鹏屿保险集团股份有限公司"],
        ["公司的中文简称", "鹏屿保险"],
        ["公司的外文名称", "Pengyu Insurance Group Co., Ltd."],
        ["法定代表人", "韩承曜"],
        ["注册地址", "海滨市前湾区望潮路168号鹏屿金融中心"],
        ["股票简称 / 股票代码", "鹏屿保险 / 601586（上海证券交易所）"],
    ]


def _accounts_table() -> list[list[str]]:
    rows = [["项目", "2024年", "2023年", "本年比上年增减(%)"]]
    for label, (now, before) in ACCOUNTS.items():
        rows.append([label, now, before, change(now, before)])
    rows.append(["基本每股收益（元）", *EPS, change(*EPS)])
    rows.append(["项目", "2024年12月31日", "2023年12月31日", "本年末比上年末增减(%)"])
    for label, (now, before) in BALANCES.items():
        rows.append([label, now, before, change(now, before)])
    return rows


def _life_table() -> list[list[str]]:
    rows = [["险种", "2024年", "2023年", "同比增减（%）"]]
    for name, now, before in [*LIFE, ("合计", *(total(p[1 + i] for p in LIFE) for i in range(2)))]:
        rows.append([name, now, before, change(now, before)])
    return rows


def _nbv_table() -> list[list]:
    rows: list[list] = [
        [{"t": "渠道", "rs": 2}, {"t": "2024年", "cs": 2}, {"t": "2023年", "cs": 2}],
        ["新业务价值", "新业务价值率（%）", "新业务价值", "新业务价值率（%）"],
    ]
    for name, (value, rate), (value_before, rate_before) in NBV:
        rows.append([name, value, rate, value_before, rate_before])
    sums = [total(c[1 + i][0] for c in NBV) for i in range(2)]
    rows.append(["合计", sums[0], NBV_RATE[0], sums[1], NBV_RATE[1]])
    return rows


def _pc_table() -> list[list[str]]:
    rows = [["险种", "2024年", "2023年", "同比增减（%）", "2024年占比（%）"]]
    subtotal = ("非机动车辆保险", *(total(p[1 + i] for p in NON_MOTOR) for i in range(2)))
    whole = [total([MOTOR[1 + i], subtotal[1 + i]]) for i in range(2)]
    lines = [MOTOR, subtotal, *((f"　{n}", a, b) for n, a, b in NON_MOTOR), ("合计", *whole)]
    for name, now, before in lines:
        rows.append([name, now, before, change(now, before), share(now, whole[0])])
    return rows


def _profit(revenue: str, ratio: str) -> Decimal:
    return num(revenue) * (100 - num(ratio)) / 100


def cor_total() -> tuple[str, str, str]:
    """The P&C arm's 保险服务收入, 承保利润 and 综合成本率 of 2024, summed over the 险种."""
    revenue = total(c[1] for c in COR)
    profit = sum((num(fmt(_profit(c[1], c[2]), 0)) for c in COR), Decimal(0))
    return revenue, fmt(profit, 0), fmt(100 - profit / num(revenue) * 100, 1, sep=False)


def _cor_table() -> list[list]:
    rows: list[list] = [
        [
            {"t": "险种", "rs": 2},
            {"t": "保险服务收入", "rs": 2},
            {"t": "承保利润", "rs": 2},
            {"t": "综合成本率（%）", "cs": 2},
        ],
        ["2024年", "2023年"],
    ]
    for name, revenue, now, before in COR:
        rows.append([name, revenue, fmt(_profit(revenue, now), 0), now, before])
    revenue, profit, ratio = cor_total()
    rows.append(["合计", revenue, profit, ratio, COR_TOTAL_2023])
    return rows


def solvency_ratio(entity: str, year: int, capital: int) -> str:
    """核心 (capital 0) or 综合 (capital 1) 偿付能力充足率 of ``entity`` at a year end (0: 2024)."""
    values = SOLVENCY[entity][year]
    return share(values[capital], values[2])


def _solvency_table() -> list[list]:
    ends = ["2024年12月31日", "2023年12月31日"]
    rows: list[list] = [
        [{"t": "项目", "rs": 2}, *({"t": name, "cs": 2} for name in SOLVENCY)],
        ends * len(SOLVENCY),
    ]
    labels = ["核心资本", "实际资本", "最低资本"]
    for i, label in enumerate(labels):
        rows.append([label, *(SOLVENCY[e][y][i] for e in SOLVENCY for y in (0, 1))])
    for i, label in enumerate(["核心偿付能力充足率（%）", "综合偿付能力充足率（%）"]):
        rows.append([label, *(solvency_ratio(e, y, i) for e in SOLVENCY for y in (0, 1))])
    return rows


def ev_total(year: int) -> str:
    return total(line[1 + year] for line in EV)


def _ev_table() -> list[list[str]]:
    rows = [["项目", "2024年12月31日", "2023年12月31日", "变动（%）"]]
    after = [total(line[1 + i] for line in EV[1:]) for i in range(2)]
    lines = [*EV, ("扣除要求资本成本后的有效业务价值", *after)]
    for name, now, before in [*lines, ("内含价值", ev_total(0), ev_total(1))]:
        rows.append([name, now, before, change(now, before) if num(before) > 0 else "—"])
    return rows


def _invest_table() -> list[list]:
    rows: list[list] = [
        [
            {"t": "投资资产", "rs": 2},
            {"t": "2024年12月31日", "cs": 2},
            {"t": "2023年12月31日", "cs": 2},
        ],
        ["金额", "占比（%）", "金额", "占比（%）"],
    ]
    wholes = [total(p[1 + i] for p in INVEST) for i in range(2)]
    for name, a, b in [*INVEST, ("投资资产合计", *wholes)]:
        rows.append([name, a, share(a, wholes[0]), b, share(b, wholes[1])])
    return rows


def _yi(millions: str) -> str:
    return fmt(num(millions) / 100, 2)


def build_report() -> Doc:
    d = Doc(
        "pengyu_insurance_2024_annual", header="鹏屿保险集团股份有限公司2024年年度报告", footer=""
    )
    np_now, np_before = ACCOUNTS["归属于母公司股东的净利润"]
    nbv_now, nbv_before = (total(c[1 + i][0] for c in NBV) for i in range(2))
    pc_revenue, pc_profit, pc_ratio = cor_total()
    nbv_years = "、".join(f"{y}年{v}亿元" for y, v in NBV_YEARS)
    nbv_all = f"{nbv_years}、2023年{_yi(nbv_before)}亿元、2024年{_yi(nbv_now)}亿元"
    render(
        d,
        [
            ("page",),
            ("h1", "第二节 公司简介和主要财务指标", "h_profile"),
            (
                "p",
                "重要提示：本公司董事会、监事会及董事、监事、高级管理人员保证年度报告内容的真实性、准确性、完整性。"
                "立衡会计师事务所（特殊普通合伙）为本公司出具了标准无保留意见的审计报告。",
                "p_notice",
            ),
            ("table", ["一、公司信息"], _profile_table(), [], "t_profile"),
            ("h2", "二、主要会计数据和财务指标"),
            ("table", ["单位：人民币百万元"], _accounts_table(), [], "t_accounts"),
            (
                "p",
                f"2024年，本集团实现归属于母公司股东的净利润{_yi(np_now)}亿元，同比增长"
                f"{change(np_now, np_before)}%；集团内含价值{_yi(ev_total(0))}亿元，较上年末增长"
                f"{change(ev_total(0), ev_total(1))}%；寿险一年新业务价值{_yi(nbv_now)}亿元，同比增长"
                f"{change(nbv_now, nbv_before)}%。董事会建议派发2024年度末期现金股利每股人民币0.98元（含税）。",
                "p_overview",
            ),
            ("page",),
            ("h1", "第三节 管理层讨论与分析", "h_mdna"),
            ("h2", "一、人寿保险业务"),
            (
                "table",
                ["（一）寿险原保险保费收入（按险种）", "单位：人民币百万元"],
                _life_table(),
                [],
                "t_life",
            ),
            (
                "table",
                ["（二）新业务价值（按渠道）", "单位：人民币百万元"],
                _nbv_table(),
                ["注：新业务价值率＝新业务价值／首年保费（标准保费口径）。"],
                "t_nbv",
            ),
            (
                "p",
                "个人代理渠道坚持“高质量队伍”转型，截至2024年末个人代理人规模为14.26万人，较上年末下降6.3%，但人均新业务"
                "价值同比提升21.4%。银行保险渠道“报行合一”政策落地后，期交保费占比提升，新业务价值率同比提高2.6个百分点。"
                "13个月保单继续率为94.2%，25个月保单继续率为88.7%。",
                "p_life",
            ),
            (
                "image",
                ["图1：2020-2024年寿险一年新业务价值（亿元）"],
                ["资料来源：本公司历年年度报告"],
                f"柱状图。{nbv_all}。2020-2022年逐年下降，2023年起恢复增长。",
                "fig_nbv",
            ),
            ("page",),
            ("h2", "二、财产保险业务"),
            (
                "table",
                ["（一）财险原保险保费收入（按险种）", "单位：人民币百万元"],
                _pc_table(),
                [],
                "t_pc",
            ),
            (
                "table",
                ["（二）主要险种经营情况（2024年）", "单位：人民币百万元"],
                _cor_table(),
                [
                    "注：综合成本率＝（保险服务费用＋分出再保险净损益＋承保财务损益）／保险服务收入。"
                ],
                "t_cor",
            ),
            (
                "p",
                f"2024年鹏屿财险实现承保利润{_yi(pc_profit)}亿元，综合成本率{pc_ratio}%，较上年"
                f"下降{fmt(num(COR_TOTAL_2023) - num(pc_ratio), 1, sep=False)}个百分点，其中综合赔付率71.4%，"
                "综合费用率26.5%。责任保险综合成本率仍高于100%，主要受雇主责任险赔付上升影响；健康险扭亏为盈。",
                "p_pc",
            ),
            ("page",),
            ("h2", "三、偿付能力"),
            (
                "table",
                ["（一）偿付能力状况", "单位：人民币百万元"],
                _solvency_table(),
                ["注：根据《保险公司偿付能力监管规则（Ⅱ）》计算。"],
                "t_solvency",
            ),
            (
                "p",
                "截至2024年末，本集团及主要保险子公司的核心偿付能力充足率和综合偿付能力充足率均高于监管要求（分别为50%和"
                "100%）。2024年第四季度风险综合评级（IRR）结果显示，鹏屿人寿、鹏屿财险均为A类。",
                "p_solvency",
            ),
            ("h2", "四、内含价值"),
            (
                "table",
                ["（一）集团内含价值", "单位：人民币百万元"],
                _ev_table(),
                ["注：风险贴现率假设为9.0%，长期投资收益率假设为4.5%。"],
                "t_ev",
            ),
            ("h2", "五、投资业务"),
            ("table", ["（一）投资组合", "单位：人民币百万元"], _invest_table(), [], "t_invest"),
            (
                "p",
                "2024年本集团实现净投资收益率4.12%，总投资收益率4.86%，综合投资收益率5.73%。报告期内本集团增配长久期"
                "地方政府债和国债，权益类资产配置以高股息蓝筹股为主。",
                "p_invest",
            ),
            ("page",),
            ("h2", "六、客户服务与理赔"),
            (
                "p",
                "2024年本集团累计处理理赔案件1,286万件，财产保险车险案均结案周期3.8天；线上化理赔占比达91.5%。截至报告期末，"
                "本集团个人客户数达1.07亿人，其中持有两张及以上保单的客户占比38.2%。",
                "p_service",
            ),
            ("h2", "七、主要子公司"),
            (
                "p",
                "本集团主要经营实体为鹏屿人寿保险股份有限公司（持股99.51%）、鹏屿财产保险股份有限公司（持股98.76%）和鹏屿资产"
                "管理有限公司（持股100%）。本集团总经理为邵蔚然先生，首席财务官为关意涵女士。",
                "p_subsidiaries",
            ),
            ("image", ["图2：鹏屿保险集团主要子公司股权结构图"], [], None, "fig_structure", 220),
            ("h2", "八、风险提示"),
            (
                "p",
                "（1）利率持续下行带来的利差损风险；（2）巨灾等自然灾害导致赔付上升的风险；（3）权益市场波动对投资收益的影响；"
                "（4）代理人队伍规模下降带来的业务增长风险。",
                "p_risks",
            ),
        ],
    )
    d.finish()
    return d
