"""The third set's pharmaceutical half-year report: 岚泊药业 (688574.SH), 2025年半年度报告, an excerpt
of its 主要会计数据 (本报告期 1-6月 against 上年同期, in 元), revenue by product under merged headers
(万元), the 研发管线 by stage, 期间费用 and R&D in prose, one figure with only its caption and one
with a description. The company, its drugs and every number are invented."""

from __future__ import annotations

from rag_app.evaluation.sets.broker.layout import render
from rag_app.evaluation.sets.docgen import Doc
from rag_app.evaluation.sets.third.numbers import change, less, num, points, share, total

# 主要会计数据 (元): 本报告期（1-6月）, 上年同期
ACCOUNTS = {
    "营业收入": ("1,486,235,719.42", "1,312,908,463.15"),
    "归属于上市公司股东的净利润": ("203,517,846.09", "168,442,105.73"),
    "归属于上市公司股东的扣除非经常性损益的净利润": ("191,806,322.58", "159,073,641.20"),
    "经营活动产生的现金流量净额": ("254,910,387.66", "187,265,904.31"),
}
# 本报告期末, 上年度末 (元)
BALANCES = {
    "归属于上市公司股东的净资产": ("4,862,075,318.27", "4,705,329,846.55"),
    "总资产": ("6,318,442,907.80", "6,120,581,336.14"),
}
# 主营业务分产品 (万元): product, 2025年1-6月, 上年同期
PRODUCTS = [
    ("泊替尼片（抗肿瘤）", "61,842.37", "48,905.16"),
    ("岚舒宁胶囊（中枢神经）", "35,216.08", "33,874.52"),
    ("注射用泊康单抗（自身免疫）", "18,307.55", "9,826.40"),
    ("复方芩参颗粒（中成药）", "22,418.90", "24,731.08"),
    ("原料药及中间体", "8,971.63", "11,206.77"),
]
# 期间费用 (元): 本期数, 上年同期数, 变动原因
EXPENSES = [
    ("销售费用", "560,118,307.25", "523,847,609.18", "学术推广活动增加，但集采品种推广投入下降"),
    ("管理费用", "98,735,420.61", "91,562,087.34", "新厂区投入使用，折旧摊销增加"),
    ("研发费用", "258,012,663.90", "211,115,403.77", "LB-101、LB-205等项目临床投入增加"),
    ("财务费用", "-12,406,518.37", "-9,873,220.46", "利息收入增加"),
]
# 研发管线: 项目代号, 药物类型, 适应症, 研发阶段, 本期进展
PIPELINE = [
    ("LB-101", "小分子靶向药", "EGFR突变非小细胞肺癌（二线）", "III期临床", "完成全部受试者入组"),
    ("LB-118", "小分子靶向药", "晚期胆管癌", "II期临床", "获得突破性治疗药物认定"),
    (
        "LB-205",
        "单克隆抗体",
        "中重度斑块状银屑病",
        "上市申请（NDA）已受理",
        "2025年5月获国家药监局受理",
    ),
    ("LB-233", "双特异性抗体", "类风湿关节炎", "I期临床", "完成首例受试者给药"),
    ("LB-307", "小分子", "难治性癫痫", "IND已获批", "2025年3月获得临床试验默示许可"),
    ("LB-412", "抗体偶联药物（ADC）", "HER2低表达乳腺癌", "临床前", "确定临床候选化合物"),
]
RND_HALVES = [
    ("2021", "1.32"),
    ("2022", "1.58"),
    ("2023", "1.87"),
    ("2024", "2.11"),
    ("2025", "2.58"),
]


def _company_table() -> list[list[str]]:
    return [
        ["公司的中文名称", "岚泊药业股份有限公司"],
        ["公司的中文简称", "岚泊药业"],
        ["公司的外文名称", "Lanbo Pharmaceutical Co., Ltd."],
        ["公司的法定代表人", "叶知远"],
        ["股票上市交易所及板块", "上海证券交易所科创板"],
        ["股票简称 / 股票代码", "岚泊药业 / 688574"],
    ]


def _accounts_table() -> list[list[str]]:
    rows = [["主要会计数据", "本报告期（1-6月）", "上年同期", "本报告期比上年同期增减(%)"]]
    for label, (now, before) in ACCOUNTS.items():
        rows.append([label, now, before, change(now, before)])
    rows.append(["", "本报告期末", "上年度末", "本报告期末比上年度末增减(%)"])
    for label, (now, before) in BALANCES.items():
        rows.append([label, now, before, change(now, before)])
    return rows


def _indicators_table() -> list[list[str]]:
    rnd_now = share(EXPENSES[2][1], ACCOUNTS["营业收入"][0])
    rnd_before = share(EXPENSES[2][2], ACCOUNTS["营业收入"][1])
    return [
        ["主要财务指标", "本报告期（1-6月）", "上年同期", "本报告期比上年同期增减(%)"],
        ["基本每股收益（元／股）", "0.51", "0.42", "21.43"],
        ["稀释每股收益（元／股）", "0.50", "0.42", "19.05"],
        ["加权平均净资产收益率（%）", "4.25", "3.71", points("4.25", "3.71")],
        ["研发投入占营业收入的比例（%）", rnd_now, rnd_before, points(rnd_now, rnd_before)],
    ]


def _products_table() -> list[list]:
    rows: list[list] = [
        [
            {"t": "产品", "rs": 2},
            {"t": "2025年1-6月", "cs": 2},
            {"t": "上年同期", "cs": 2},
        ],
        ["营业收入", "占主营业务收入比例（%）", "营业收入", "占主营业务收入比例（%）"],
    ]
    wholes = [total(p[1 + i] for p in PRODUCTS) for i in range(2)]
    for name, now, before in PRODUCTS:
        rows.append([name, now, share(now, wholes[0]), before, share(before, wholes[1])])
    rows.append(["主营业务收入合计", wholes[0], "100.00", wholes[1], "100.00"])
    return rows


def _pipeline_table() -> list[list[str]]:
    return [["项目代号", "药物类型", "适应症", "研发阶段", "本期进展"], *map(list, PIPELINE)]


def _expenses_table() -> list[list[str]]:
    rows = [["科目", "本期数", "上年同期数", "变动比例（%）", "变动原因"]]
    for name, now, before, why in EXPENSES:
        rows.append([name, now, before, change(now, before), why])
    return rows


def build_report() -> Doc:
    d = Doc("lanbo_pharma_2025_interim", header="岚泊药业股份有限公司2025年半年度报告", footer="")
    revenue_now, revenue_before = ACCOUNTS["营业收入"]
    selling_now = share(EXPENSES[0][1], revenue_now)
    selling_before = share(EXPENSES[0][2], revenue_before)
    other_business = less(f"{num(revenue_now) / 10000:,.2f}", [total(p[1] for p in PRODUCTS)])
    rnd = "、".join(f"{y}年上半年{v}亿元" for y, v in RND_HALVES)
    render(
        d,
        [
            ("page",),
            ("h1", "第二节 公司简介和主要财务指标", "h_profile"),
            ("h2", "一、公司基本情况"),
            ("table", [], _company_table(), [], "t_company"),
            ("h2", "二、公司主要会计数据和财务指标"),
            ("p", "（一）主要会计数据"),
            ("table", ["单位：元　币种：人民币"], _accounts_table(), [], "t_accounts"),
            ("p", "（二）主要财务指标"),
            ("table", [], _indicators_table(), [], "t_indicators"),
            ("page",),
            ("h1", "第三节 管理层讨论与分析", "h_mdna"),
            ("h2", "一、报告期内公司所属行业及主营业务情况说明"),
            (
                "p",
                "公司是一家以创新药为核心、仿制药与中成药为支撑的制药企业，聚焦肿瘤、自身免疫及中枢神经系统三大治疗领域。"
                "核心产品泊替尼片于2024年3月起纳入国家医保药品目录（乙类），报告期内在全国覆盖医院数增至2,316家。",
                "p_business",
            ),
            ("h2", "二、经营情况的讨论与分析"),
            (
                "table",
                ["（一）主营业务分产品情况", "单位：万元　币种：人民币"],
                _products_table(),
                [f"注：营业收入与主营业务收入的差额{other_business}万元为技术服务及其他业务收入。"],
                "t_products",
            ),
            (
                "p",
                "注射用泊康单抗上市后首个完整半年放量，收入同比增长86.31%。复方芩参颗粒受中成药省际联盟集中带量采购影响，"
                "中标价格平均降幅约32%，收入同比下降9.35%。报告期内境外收入1.27亿元，主要来自原料药向东南亚及南美市场的"
                "出口。",
                "p_products",
            ),
            (
                "table",
                ["（二）期间费用情况"],
                _expenses_table(),
                ["注：财务费用为负数，系利息收入大于利息支出。"],
                "t_expenses",
            ),
            (
                "p",
                f"报告期内，公司销售费用率为{selling_now}%，较上年同期的{selling_before}%下降"
                f"{points(selling_before, selling_now)[2:]}，主要系集采品种的推广费用随销量下降，以及数字化学术推广降低了"
                "单位推广成本。",
                "p_selling",
            ),
            ("page",),
            ("h2", "三、研发进展"),
            (
                "table",
                ["表：主要在研项目进展（截至2025年6月30日）"],
                _pipeline_table(),
                ["注：IND指新药临床试验申请；NDA指新药上市申请。"],
                "t_pipeline",
            ),
            ("image", ["图1：公司核心在研管线进度示意图"], [], None, "fig_pipeline", 220),
            (
                "p",
                "截至报告期末，公司研发人员412人，占员工总数的23.65%，其中博士学历58人；累计获得发明专利授权96项，其中"
                "报告期内新增11项。公司核心技术人员共7名，报告期内未发生变动。",
                "p_rnd_staff",
            ),
            (
                "image",
                ["图2：2021-2025年各年上半年研发投入（亿元）"],
                ["资料来源：公司定期报告"],
                f"柱状图。{rnd}，逐年增长。",
                "fig_rnd",
            ),
            ("h2", "四、风险因素"),
            (
                "p",
                "（1）新药研发失败或进度不及预期的风险；（2）集中带量采购导致产品价格下降的风险；（3）核心产品医保支付"
                "标准调整的风险；（4）原料药出口受汇率波动影响的风险。",
                "p_risks",
            ),
        ],
    )
    d.finish()
    return d
