"""The fourth set's quarterly report: 骏岭精工 (Junling Precision Manufacturing, 603729.SH), 2025年第三季度
报告, with the exchange's layout: 本报告期 and 年初至报告期末 each beside its change on a year earlier
(the year-earlier amounts themselves not printed), 本报告期末 merged over two columns against 上年度末,
非经常性损益 by item with the tax and minority lines, the reasons for large changes, the top
shareholders under a merged 质押 header, and excerpts of the balance sheet and the income statement;
amounts in 元 with cents. The company, its people and every number are invented."""

from __future__ import annotations

from decimal import Decimal

from rag_app.evaluation.sets.broker.layout import render
from rag_app.evaluation.sets.docgen import Doc
from rag_app.evaluation.sets.third.numbers import change, fmt, less, num, share, total

# 本报告期 (2025Q3), 上年同期 (2024Q3), 年初至报告期末 (2025年1-9月), 上年同期 (2024年1-9月), in 元
ACCOUNTS = {
    "营业收入": ("1,862,437,915.36", "1,572,406,318.92", "5,013,862,407.58", "4,356,218,540.27"),
    "归属于上市公司股东的净利润": (
        "162,058,731.20",
        "127,304,518.66",
        "418,365,902.47",
        "340,628,175.91",
    ),
    "归属于上市公司股东的扣除非经常性损益的净利润": (
        "151,437,286.95",
        "121,085,907.34",
        "389,120,574.63",
        "322,907,148.05",
    ),
}
CASH_FLOW = ("526,781,340.19", "391,524,806.33")  # 年初至报告期末 only
PER_SHARE = {
    "基本每股收益（元/股）": ("0.38", "0.30", "0.98", "0.80"),
    "稀释每股收益（元/股）": ("0.38", "0.30", "0.97", "0.79"),
}
ROE = ("3.16", "2.71", "8.24", "7.12")
# 本报告期末, 上年度末
BALANCES = {
    "总资产": ("9,836,204,517.83", "9,127,468,930.41"),
    "归属于上市公司股东的所有者权益": ("5,204,718,362.09", "4,906,335,184.72"),
}
# 非经常性损益: item, 本期金额, 年初至报告期末金额, 说明
NON_RECURRING = [
    ("非流动性资产处置损益，包括已计提资产减值准备的冲销部分", "-386,520.17", "1,204,683.50", ""),
    (
        "计入当期损益的政府补助，但与公司正常经营业务密切相关、符合国家政策规定、按照确定的标准享有、对公司损益"
        "产生持续影响的政府补助除外",
        "10,215,806.88",
        "25,875,918.42",
        "主要系收到的技术改造专项补助",
    ),
    (
        "除同公司正常经营业务相关的有效套期保值业务外，非金融企业持有金融资产和金融负债产生的公允价值变动损益"
        "以及处置金融资产和金融负债产生的损益",
        "4,126,907.35",
        "9,318,204.66",
        "银行理财产品收益",
    ),
    (
        "单独进行减值测试的应收款项减值准备转回",
        "0.00",
        "2,150,000.00",
        "收回以前年度单项计提的货款",
    ),
    ("除上述各项之外的其他营业外收入和支出", "-1,203,458.62", "-2,871,035.27", ""),
]
TAX_RATE = Decimal("0.15")
# 合并资产负债表 (元): 2025年9月30日, 2024年12月31日
ASSETS = [
    ("货币资金", "1,286,437,502.18", "1,105,628,914.36"),
    ("交易性金融资产", "420,000,000.00", "650,000,000.00"),
    ("应收票据", "186,205,371.42", "143,918,602.77"),
    ("应收账款", "2,108,634,917.25", "1,812,407,356.90"),
    ("存货", "1,247,806,315.64", "1,096,532,480.13"),
    ("固定资产", "2,865,314,720.57", "2,734,186,095.42"),
    ("在建工程", "612,508,437.91", "418,226,713.65"),
]
LIABILITIES = [
    ("短期借款", "705,000,000.00", "580,000,000.00"),
    ("应付账款", "1,673,205,418.36", "1,508,634,207.81"),
    ("合同负债", "96,418,305.27", "82,705,164.39"),
    ("长期借款", "1,150,000,000.00", "1,320,000,000.00"),
]
LIABILITIES_TOTAL = ("4,458,362,915.40", "4,047,219,583.26")
# 合并利润表 (元): 2025年前三季度, 2024年前三季度
COSTS = [
    ("营业成本", "3,947,215,308.64", "3,462,870,915.38"),
    ("税金及附加", "28,614,390.17", "24,105,776.82"),
    ("销售费用", "61,325,804.93", "55,418,207.66"),
    ("管理费用", "152,486,730.28", "138,974,512.40"),
    ("研发费用", "218,637,405.16", "186,205,938.71"),
    ("财务费用", "18,406,227.35", "24,731,508.92"),
]
NET_PROFIT = ("426,912,385.06", "347,205,631.84")
SHARES = "427,180,000"
HOLDERS = [
    ("许衡舟", "境内自然人", "128,154,000", "质押", "18,000,000"),
    ("骏岭投资控股有限公司", "境内非国有法人", "64,077,000", "无", "0"),
    ("香港中央结算有限公司", "境外法人", "12,864,392", "无", "0"),
    ("嘉禾远景创业投资合伙企业（有限合伙）", "其他", "9,398,000", "无", "0"),
    ("全国社保基金四一六组合", "其他", "6,152,380", "无", "0"),
    ("许慕青", "境内自然人", "5,126,160", "无", "0"),
]
QUARTERS = [
    ("2024Q1", "13.52"),
    ("2024Q2", "14.32"),
    ("2024Q3", "15.72"),
    ("2024Q4", "16.08"),
    ("2025Q1", "15.06"),
    ("2025Q2", "16.45"),
    ("2025Q3", "18.62"),
]


def _points(now: str, before: str) -> str:
    delta = num(now) - num(before)
    return f"{'增加' if delta >= 0 else '减少'}{fmt(abs(delta), 2, sep=False)}个百分点"


def _main_table() -> list[list]:
    rows: list[list] = [
        [
            "项目",
            "本报告期",
            "本报告期比上年同期增减变动幅度(%)",
            "年初至报告期末",
            "年初至报告期末比上年同期增减变动幅度(%)",
        ],
    ]
    for label, (q, q_before, ytd, ytd_before) in ACCOUNTS.items():
        rows.append([label, q, change(q, q_before), ytd, change(ytd, ytd_before)])
    rows.append(
        ["经营活动产生的现金流量净额", "不适用", "不适用", CASH_FLOW[0], change(*CASH_FLOW)]
    )
    for label, (q, q_before, ytd, ytd_before) in PER_SHARE.items():
        rows.append([label, q, change(q, q_before), ytd, change(ytd, ytd_before)])
    rows.append(
        [
            "加权平均净资产收益率（%）",
            ROE[0],
            _points(ROE[0], ROE[1]),
            ROE[2],
            _points(ROE[2], ROE[3]),
        ]
    )
    rows.append(
        ["", {"t": "本报告期末", "cs": 2}, "上年度末", "本报告期末比上年度末增减变动幅度(%)"]
    )
    for label, (now, before) in BALANCES.items():
        rows.append([label, {"t": now, "cs": 2}, before, change(now, before)])
    return rows


def _balancing(column: int) -> tuple[str, str, str]:
    """所得税影响额, 少数股东权益影响额 and 合计 of one column (1: 本期, 2: 年初至报告期末): the
    合计 is 归母净利润 less 扣非净利润, the minority line what is left after tax."""
    items = total(line[column] for line in NON_RECURRING)
    tax = fmt(num(items) * TAX_RATE, 2)
    q_or_ytd = 0 if column == 1 else 2
    net, deducted = (ACCOUNTS[k][q_or_ytd] for k in list(ACCOUNTS)[1:])
    whole = less(net, [deducted])
    minority = less(items, [tax, whole])
    if num(minority) <= 0:
        raise ValueError("非经常性损益: the minority line comes out negative")
    return tax, minority, whole


def _non_recurring_table() -> list[list[str]]:
    rows = [["项目", "本期金额", "年初至报告期末金额", "说明"]]
    rows += [list(line) for line in NON_RECURRING]
    (tax_q, minority_q, whole_q), (tax_y, minority_y, whole_y) = _balancing(1), _balancing(2)
    rows.append(["减：所得税影响额", tax_q, tax_y, ""])
    rows.append(["　　少数股东权益影响额（税后）", minority_q, minority_y, ""])
    rows.append(["合计", whole_q, whole_y, ""])
    return rows


def _changes_table() -> list[list[str]]:
    revenue, net = ACCOUNTS["营业收入"], ACCOUNTS["归属于上市公司股东的净利润"]
    eps = PER_SHARE["基本每股收益（元/股）"]
    return [
        ["项目名称", "变动比例（%）", "主要原因"],
        [
            "营业收入_本报告期",
            change(revenue[0], revenue[1]),
            "新能源汽车电池结构件订单增长，储能结构件产品放量",
        ],
        [
            "归属于上市公司股东的净利润_本报告期",
            change(net[0], net[1]),
            "收入规模增长，高毛利的储能结构件产品占比提升",
        ],
        ["归属于上市公司股东的净利润_年初至报告期末", change(net[2], net[3]), "同上"],
        [
            "经营活动产生的现金流量净额_年初至报告期末",
            change(*CASH_FLOW),
            "销售回款增加，票据到期托收增加",
        ],
        [
            "基本每股收益（元/股）_本报告期",
            change(eps[0], eps[1]),
            "归属于上市公司股东的净利润增加",
        ],
    ]


def _holders_table() -> list[list]:
    rows: list[list] = [
        [
            {"t": "股东名称", "rs": 2},
            {"t": "股东性质", "rs": 2},
            {"t": "持股数量（股）", "rs": 2},
            {"t": "持股比例（%）", "rs": 2},
            {"t": "质押、标记或冻结情况", "cs": 2},
        ],
        ["股份状态", "数量"],
    ]
    for name, kind, count, state, pledged in HOLDERS:
        rows.append([name, kind, count, share(count, SHARES), state, pledged])
    return rows


def _balance_table() -> list[list[str]]:
    rows = [["项目", "2025年9月30日", "2024年12月31日"]]
    rows += [list(line) for line in ASSETS]
    assets = BALANCES["总资产"]
    rows.append(["资产总计", *assets])
    rows += [list(line) for line in LIABILITIES]
    rows.append(["负债合计", *LIABILITIES_TOTAL])
    equity = BALANCES["归属于上市公司股东的所有者权益"]
    rows.append(["归属于母公司所有者权益合计", *equity])
    minority = [less(assets[i], [LIABILITIES_TOTAL[i], equity[i]]) for i in range(2)]
    rows.append(["少数股东权益", *minority])
    return rows


def gross_margin(i: int) -> str:
    """前三季度毛利率 (%), 0: 2025, 1: 2024."""
    revenue = ACCOUNTS["营业收入"][2 + i]
    return fmt((1 - num(COSTS[0][1 + i]) / num(revenue)) * 100, 2, sep=False)


def _income_table() -> list[list[str]]:
    rows = [["项目", "2025年前三季度（1-9月）", "2024年前三季度（1-9月）"]]
    revenue = ACCOUNTS["营业收入"]
    rows.append(["一、营业总收入", revenue[2], revenue[3]])
    rows.append(["二、营业总成本", *(total(c[1 + i] for c in COSTS) for i in range(2))])
    rows += [
        [f"　其中：{n}" if k == 0 else f"　　　　{n}", a, b] for k, (n, a, b) in enumerate(COSTS)
    ]
    rows.append(["五、净利润", *NET_PROFIT])
    net = ACCOUNTS["归属于上市公司股东的净利润"]
    rows.append(["　1.归属于母公司股东的净利润", net[2], net[3]])
    rows.append(["　2.少数股东损益", *(less(NET_PROFIT[i], [net[2 + i]]) for i in range(2))])
    return rows


def build_report() -> Doc:
    d = Doc(
        "junling_precision_2025q3", header="骏岭精工制造股份有限公司2025年第三季度报告", footer=""
    )
    quarters = "、".join(f"{q} {v}亿元" for q, v in QUARTERS)
    margin, margin_before = gross_margin(0), gross_margin(1)
    render(
        d,
        [
            ("page",),
            ("p", "证券代码：603729　　证券简称：骏岭精工", "p_code"),
            ("h1", "骏岭精工制造股份有限公司2025年第三季度报告", "title"),
            (
                "p",
                "重要内容提示：公司董事会及董事、高级管理人员保证季度报告内容的真实、准确、完整，不存在虚假记载、误导性"
                "陈述或重大遗漏。公司负责人许衡舟、主管会计工作负责人吕嘉禾及会计机构负责人（会计主管人员）谭若溪保证季度"
                "报告中财务信息的真实、准确、完整。第三季度财务报表是否经审计：□是 √否",
                "p_notice",
            ),
            ("h2", "一、主要财务数据"),
            ("p", "（一）主要会计数据和财务指标"),
            (
                "table",
                ["单位：元　币种：人民币"],
                _main_table(),
                ["注：“本报告期”指本季度初至本季度末3个月期间，下同。"],
                "t_main",
            ),
            ("p", "（二）非经常性损益项目和金额"),
            ("table", ["单位：元　币种：人民币"], _non_recurring_table(), [], "t_nonrecurring"),
            ("page",),
            ("p", "（三）主要会计数据、财务指标发生变动的情况、原因"),
            ("table", ["√适用 □不适用"], _changes_table(), [], "t_changes"),
            (
                "image",
                ["图1：2024年第一季度至2025年第三季度单季营业收入（亿元）"],
                ["资料来源：公司定期报告"],
                f"柱状图。{quarters}。2025Q3单季收入创历史新高。",
                "fig_quarters",
            ),
            ("h2", "二、股东信息"),
            (
                "p",
                "截至报告期末，公司普通股股东总数为31,862户，报告期末表决权恢复的优先股股东总数为0户。",
                "p_holders_count",
            ),
            (
                "table",
                ["前10名股东持股情况（节选）", "单位：股"],
                _holders_table(),
                ["注：许衡舟与许慕青系父女关系；许衡舟为骏岭投资控股有限公司的实际控制人。"],
                "t_holders",
            ),
            ("h2", "三、其他提醒事项"),
            (
                "p",
                "报告期内，公司匈牙利生产基地一期项目完成设备安装调试，预计于2026年第一季度投产。公司向特定对象发行股票"
                "事项已获上海证券交易所审核通过，尚需中国证监会同意注册。前三季度公司前五名客户销售额占营业收入的62.4%，"
                "其中第一大客户为沧澜新能源科技股份有限公司。",
                "p_other",
            ),
            (
                "p",
                f"前三季度公司综合毛利率为{margin}%，较上年同期的{margin_before}%"
                f"{_points(margin, margin_before)}，主要系储能结构件规模效应显现及铝材采购价格下降。骏岭精工制造股份有限公司"
                "（Junling Precision Manufacturing Co., Ltd.）主营新能源汽车动力电池精密结构件、储能电池结构件及汽车轻量化"
                "零部件。",
                "p_margin",
            ),
            ("page",),
            ("h2", "四、季度财务报表"),
            (
                "table",
                [
                    "合并资产负债表（节选）",
                    "编制单位：骏岭精工制造股份有限公司　单位：元　币种：人民币",
                ],
                _balance_table(),
                [],
                "t_balance",
            ),
            (
                "table",
                ["合并利润表（节选）", "单位：元　币种：人民币"],
                _income_table(),
                ["注：利润表中营业利润、利润总额等项目略。"],
                "t_income",
            ),
            (
                "p",
                "公司负责人：许衡舟　　主管会计工作负责人：吕嘉禾　　会计机构负责人：谭若溪",
                "p_people",
            ),
            ("p", "骏岭精工制造股份有限公司董事会　2025年10月28日", "p_sign"),
        ],
    )
    d.finish()
    return d
