"""The third set's bank report: 嵘城银行 (601329.SH), 2024年年度报告, an excerpt of a city commercial
bank's 主要财务指标, 管理层讨论与分析 (loans and deposits by segment in 亿元, loan quality) and
股东及公司治理 sections; amounts in 千元 and 亿元, the board in prose. Invented, every number too."""

from __future__ import annotations

from rag_app.evaluation.sets.broker.layout import render
from rag_app.evaluation.sets.docgen import Doc
from rag_app.evaluation.sets.third.numbers import change, fmt, less, num, share, total

# 经营业绩 (人民币千元): 2024, 2023, 2022
RESULTS = {
    "营业收入": ("18,426,537", "17,318,904", "16,052,771"),
    "营业利润": ("7,204,318", "6,789,052", "6,218,440"),
    "利润总额": ("7,188,692", "6,771,305", "6,197,863"),
    "归属于本行股东的净利润": ("6,152,804", "5,736,219", "5,241,086"),
    "归属于本行股东的扣除非经常性损益的净利润": ("6,087,395", "5,679,431", "5,193,520"),
    "经营活动产生的现金流量净额": ("21,367,450", "-8,452,116", "14,905,238"),
}
EPS = ("0.91", "0.85", "0.78")
# 规模指标 (人民币千元), year ends 2024, 2023, 2022
SCALE = {
    "资产总额": ("612,845,307", "558,203,416", "503,917,642"),
    "发放贷款和垫款本金总额": ("338,516,204", "301,872,559", "268,440,918"),
    "负债总额": ("566,392,815", "515,906,273", "465,118,027"),
    "吸收存款本金总额": ("421,730,668", "382,954,107", "344,260,395"),
    "归属于本行股东的权益": ("45,720,384", "41,597,013", "38,129,561"),
}
# 主要监管指标 (%): group, name, standard, 2024, 2023, 2022 year ends
INDICATORS = [
    ("资本充足情况", "核心一级资本充足率", "≥7.5", "9.86", "9.52", "9.31"),
    ("资本充足情况", "一级资本充足率", "≥8.5", "11.27", "10.94", "10.68"),
    ("资本充足情况", "资本充足率", "≥10.5", "13.42", "13.05", "12.87"),
    ("资产质量", "不良贷款率", "≤5", "1.18", "1.24", "1.31"),
    ("资产质量", "拨备覆盖率", "≥150", "312.71", "299.19", "287.79"),
    ("资产质量", "贷款拨备率", "≥2.5", "3.69", "3.71", "3.77"),
    ("盈利能力", "净息差", "—", "1.86", "1.97", "2.12"),
    ("盈利能力", "净利差", "—", "1.72", "1.83", "1.99"),
    ("盈利能力", "平均总资产收益率", "—", "1.05", "1.08", "1.10"),
    ("盈利能力", "加权平均净资产收益率", "—", "14.09", "14.40", "14.52"),
    ("盈利能力", "成本收入比", "≤45", "29.84", "30.57", "31.26"),
    ("流动性", "流动性比例", "≥25", "68.42", "63.15", "60.88"),
]
# 营业收入构成 (千元): 2024, 2023; the last line is the rest of 营业收入
INCOME = [
    ("利息净收入", "15,094,216", "14,562,380"),
    ("手续费及佣金净收入", "1,608,935", "1,547,220"),
    ("投资收益", "1,236,702", "896,455"),
    ("公允价值变动损益", "287,419", "134,906"),
]
# 贷款和垫款 (亿元): group, line, 2024 year end, 2023 year end; 票据贴现 is the rest of the total
LOANS = {
    "公司贷款和垫款": [
        ("制造业", "512.38", "447.90"),
        ("批发和零售业", "286.47", "271.35"),
        ("租赁和商务服务业", "634.92", "571.18"),
        ("水利、环境和公共设施管理业", "418.55", "392.04"),
        ("房地产业", "173.06", "181.72"),
        ("其他行业", "389.21", "290.41"),
    ],
    "个人贷款和垫款": [
        ("个人住房贷款", "452.83", "431.56"),
        ("个人经营贷款", "276.14", "238.47"),
        ("个人消费贷款", "98.67", "89.12"),
        ("信用卡透支", "41.29", "38.74"),
    ],
}
LOANS_TOTAL = ("3,385.16", "3,018.73")
# 吸收存款 (亿元); 其他存款 is the rest of the total
DEPOSITS = {
    "公司存款": [("公司活期存款", "986.42", "958.20"), ("公司定期存款", "1,035.87", "921.64")],
    "个人存款": [("个人活期存款", "402.15", "389.77"), ("个人定期存款", "1,508.63", "1,296.05")],
}
MARGIN_DEPOSITS = ("214.36", "201.93")
DEPOSITS_TOTAL = ("4,217.31", "3,829.54")
# 贷款五级分类 (亿元): 关注 and the three non-performing classes; 正常 is the rest
QUALITY = [
    ("关注", "51.45", "58.27"),
    ("次级", "21.37", "19.86"),
    ("可疑", "11.85", "10.92"),
    ("损失", "6.72", "6.65"),
]
SHARES_TOTAL = "6,761,340,000"
HOLDERS = [
    ("嵘城市国有资本投资运营集团有限公司", "国有法人", "1,235,408,000"),
    ("嵘城港务集团有限公司", "国有法人", "604,127,500"),
    ("泓泰实业集团有限公司", "境内非国有法人", "412,860,300"),
    ("香港中央结算有限公司", "境外法人", "287,531,946"),
    ("新禾电力股份有限公司", "境内非国有法人", "203,840,000"),
    ("嵘城市财政局", "国家", "180,000,000"),
]
NIM = [("2020", "2.31", "2.18"), ("2021", "2.24", "2.09"), ("2022", "2.12", "1.99"),
       ("2023", "1.97", "1.83"), ("2024", "1.86", "1.72")]  # fmt: skip


def _profile_table() -> list[list[str]]:
    return [
        ["法定中文名称", "嵘城银行股份有限公司（简称“嵘城银行”）"],
        ["法定英文名称", "BANK OF RONGCHENG CO., LTD."],
        ["法定代表人", "孟庆岚"],
        ["注册及办公地址", "嵘城市滨江新区临湖大道1088号"],
        ["股票上市交易所", "上海证券交易所"],
        ["股票简称 / 股票代码", "嵘城银行 / 601329"],
    ]


def _results_table() -> list[list]:
    rows: list[list] = [["经营业绩", "2024年", "2023年", "本年比上年增减(%)", "2022年"]]
    for label, (now, before, older) in RESULTS.items():
        rows.append([label, now, before, change(now, before), older])
    rows.append(["基本每股收益（元）", EPS[0], EPS[1], change(EPS[0], EPS[1]), EPS[2]])
    rows.append(
        ["规模指标", "2024年12月31日", "2023年12月31日", "本年末比上年末增减(%)", "2022年12月31日"]
    )
    for label, (now, before, older) in SCALE.items():
        rows.append([label, now, before, change(now, before), older])
    return rows


def _indicator_table() -> list[list]:
    rows: list[list] = [
        [{"t": "主要指标", "rs": 2}, {"t": "监管标准", "rs": 2}, {"t": "本行", "cs": 3}],
        ["2024年12月31日", "2023年12月31日", "2022年12月31日"],
    ]
    group = ""
    for g, name, standard, *values in INDICATORS:
        if g != group:
            rows.append([{"t": g, "cs": 5}])
            group = g
        rows.append([f"{name}（%）", standard, *values])
    return rows


def _income_table() -> list[list[str]]:
    rows = [["项目", "2024年", "2023年", "同比增减（%）"]]
    rest = [less(RESULTS["营业收入"][i], [line[1 + i] for line in INCOME]) for i in range(2)]
    for name, now, before in [*INCOME, ("其他业务及其他收益", *rest)]:
        rows.append([name, now, before, change(now, before)])
    now, before, _ = RESULTS["营业收入"]
    rows.append(["营业收入合计", now, before, change(now, before)])
    return rows


def _two_year_head(label: str, first: str, second: str) -> list[list]:
    return [
        [{"t": label, "rs": 2}, {"t": first, "cs": 2}, {"t": second, "cs": 2}],
        ["金额", "占比（%）", "金额", "占比（%）"],
    ]


def _loans_table() -> list[list]:
    rows = _two_year_head("项目", "2024年12月31日", "2023年12月31日")
    parts: list[tuple[str, ...]] = []
    for group, lines in LOANS.items():
        parts.append((group, *(total(line[1 + i] for line in lines) for i in range(2))))
        parts += [(f"　{name}", a, b) for name, a, b in lines]
    subtotals = [p for p in parts if not p[0].startswith("　")]
    bills = tuple(less(LOANS_TOTAL[i], [p[1 + i] for p in subtotals]) for i in range(2))
    parts.append(("票据贴现", *bills))
    parts.append(("贷款和垫款总额", *LOANS_TOTAL))
    for name, a, b in parts:
        rows.append([name, a, share(a, LOANS_TOTAL[0]), b, share(b, LOANS_TOTAL[1])])
    return rows


def _deposits_table() -> list[list]:
    rows = _two_year_head("项目", "2024年末", "2023年末")
    parts: list[tuple[str, ...]] = []
    for group, lines in DEPOSITS.items():
        parts.append((group, *(total(line[1 + i] for line in lines) for i in range(2))))
        parts += [(f"　其中：{name}" if n == 0 else f"　　　　{name}", a, b)
                  for n, (name, a, b) in enumerate(lines)]  # fmt: skip
    parts.append(("保证金存款", *MARGIN_DEPOSITS))
    listed = [p for p in parts if not p[0].startswith("　")]
    parts.append(
        ("其他存款", *(less(DEPOSITS_TOTAL[i], [p[1 + i] for p in listed]) for i in range(2)))
    )
    parts.append(("吸收存款本金合计", *DEPOSITS_TOTAL))
    for name, a, b in parts:
        rows.append([name, a, share(a, DEPOSITS_TOTAL[0]), b, share(b, DEPOSITS_TOTAL[1])])
    return rows


def _quality_table() -> list[list]:
    rows = _two_year_head("五级分类", "2024年末", "2023年末")
    normal = tuple(less(LOANS_TOTAL[i], [q[1 + i] for q in QUALITY]) for i in range(2))
    for name, a, b in [("正常", *normal), *QUALITY, ("合计", *LOANS_TOTAL)]:
        rows.append([name, a, share(a, LOANS_TOTAL[0]), b, share(b, LOANS_TOTAL[1])])
    return rows


def _holders_table() -> list[list[str]]:
    rows = [["股东名称", "股东性质", "期末持股数量（股）", "持股比例（%）"]]
    for name, kind, count in HOLDERS:
        rows.append([name, kind, count, share(count, SHARES_TOTAL)])
    return rows


def _yi(thousands: str) -> str:
    """千元 in 亿元, two decimals."""
    return fmt(num(thousands) / 100000, 2, sep=False)


def build_report() -> Doc:
    d = Doc("rongcheng_bank_2024_annual", header="嵘城银行股份有限公司2024年年度报告", footer="")
    now, before, _ = RESULTS["营业收入"]
    np_now, np_before, _ = RESULTS["归属于本行股东的净利润"]
    nim = "、".join(f"{y}年{a}%" for y, a, _ in NIM)
    spread = "、".join(f"{y}年{b}%" for y, _, b in NIM)
    render(
        d,
        [
            ("page",),
            ("h1", "第二节 公司简介和主要财务指标", "h_profile"),
            ("h2", "一、公司信息"),
            ("table", [], _profile_table(), [], "t_profile"),
            ("h2", "二、近三年主要会计数据和财务指标"),
            ("table", ["单位：人民币千元"], _results_table(), [], "t_results"),
            (
                "table",
                ["三、主要监管指标（%）"],
                _indicator_table(),
                [
                    "注：监管指标按照国家金融监督管理总局口径计算；资本充足率指标按照《商业银行资本管理办法》计算。"
                ],
                "t_indicators",
            ),
            ("page",),
            ("h1", "第三节 管理层讨论与分析", "h_mdna"),
            ("h2", "一、经营情况概述"),
            (
                "p",
                f"2024年，面对净息差持续收窄的经营环境，本行坚持“做小做散、服务地方”的定位，实现营业收入"
                f"{_yi(now)}亿元，同比增长{change(now, before)}%；实现归属于本行股东的净利润{_yi(np_now)}亿元，"
                f"同比增长{change(np_now, np_before)}%。截至报告期末，本行资产总额突破6,000亿元。",
                "p_overview",
            ),
            ("h2", "二、利润表分析"),
            ("table", ["（一）营业收入构成", "单位：人民币千元"], _income_table(), [], "t_income"),
            (
                "image",
                ["图1：2020-2024年本行净息差与净利差走势（%）"],
                ["资料来源：本行年报"],
                f"折线图，两条曲线。净息差：{nim}；净利差：{spread}。两条曲线均逐年下行。",
                "fig_nim",
            ),
            (
                "p",
                "如图1所示，本行净息差由2020年的2.31%逐年收窄至2024年的1.86%，五年累计下降45个基点；2024年同比下降11个"
                "基点，降幅较2023年的15个基点有所收窄。净息差收窄主要受贷款市场报价利率（LPR）多次下调、存量个人住房贷款"
                "利率调整以及存款定期化趋势延续影响。",
                "p_nim",
            ),
            ("page",),
            ("h2", "三、资产负债表分析"),
            (
                "table",
                ["（一）贷款和垫款按行业及产品分布", "单位：人民币亿元"],
                _loans_table(),
                ["注：“其他行业”包括交通运输、建筑业、信息技术服务业等。"],
                "t_loans",
            ),
            (
                "p",
                "报告期内，本行持续加大对实体经济的信贷投放。截至报告期末，普惠型小微企业贷款余额412.36亿元，较上年末增长"
                "15.84%；绿色贷款余额286.09亿元，较上年末增长27.65%；房地产业贷款余额及占比实现“双降”。",
                "p_loans",
            ),
            (
                "table",
                ["（二）吸收存款构成", "单位：人民币亿元"],
                _deposits_table(),
                [],
                "t_deposits",
            ),
            ("page",),
            ("h2", "四、资产质量分析"),
            (
                "table",
                ["贷款五级分类情况", "单位：人民币亿元"],
                _quality_table(),
                ["注：不良贷款包括次级类、可疑类和损失类贷款。"],
                "t_quality",
            ),
            (
                "p",
                "报告期内，本行通过现金清收、核销和批量转让等方式处置不良资产合计48.62亿元。关注类贷款余额与占比较上年末"
                "双双下降，逾期90天以上贷款与不良贷款的比例为81.37%。",
                "p_quality",
            ),
            ("h2", "五、分支机构"),
            (
                "p",
                "截至报告期末，本行共设有分行级机构15家（其中省内分行11家、省外分行4家），营业网点203个，在职员工6,847人；"
                "控股嵘城金融租赁有限责任公司和2家村镇银行。",
                "p_network",
            ),
            ("page",),
            ("h1", "第四节 股东情况及公司治理", "h_governance"),
            ("h2", "一、前十名股东持股情况（节选）"),
            (
                "table",
                ["截至2024年12月31日"],
                _holders_table(),
                [f"注：本行普通股总股本为{SHARES_TOTAL}股。"],
                "t_holders",
            ),
            ("h2", "二、董事会"),
            (
                "p",
                "本行第七届董事会由13名董事组成，其中执行董事3名、股权董事4名、独立董事6名。董事长孟庆岚女士，行长顾维衡"
                "先生。报告期内，董事会共召开会议11次，审议议案87项。",
                "p_board",
            ),
            (
                "p",
                "董事会下设战略发展委员会、风险管理与关联交易控制委员会、审计委员会、提名与薪酬委员会和消费者权益保护"
                "委员会，其中审计委员会、提名与薪酬委员会的主任委员均由独立董事担任。监事会由7名监事组成，其中外部监事3名。",
                "p_committees",
            ),
            ("image", ["图2：嵘城银行组织架构图"], [], None, "fig_org", 260),
        ],
    )
    d.finish()
    return d
