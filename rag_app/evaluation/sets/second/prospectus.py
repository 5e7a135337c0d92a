"""The second set's IPO prospectus: 拓衡传感 (杭州拓衡传感科技股份有限公司), 首次公开发行股票并在科创板上市
招股说明书（申报稿）, an excerpt of its 概览, 业务与技术, 风险因素 and 募集资金运用. Invented throughout."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

from rag_app.evaluation.sets.broker.layout import render
from rag_app.evaluation.sets.docgen import Doc
from rag_app.evaluation.sets.second.money import amount, money

PERIODS = ("2023年度", "2022年度", "2021年度")
REVENUE = ("62,384.75", "47,916.20", "33,508.64")  # 营业收入, 万元
# 主营业务收入按产品 (万元), 2023, 2022, 2021
PRODUCTS = [
    ("六维力传感器", ("28,165.42", "19,802.55", "12,476.30")),
    ("关节扭矩传感器", ("17,390.18", "14,267.91", "10,955.72")),
    ("机器视觉模组", ("13,024.67", "10,318.06", "7,904.18")),
    ("其他", ("3,156.08", "2,898.60", "1,852.45")),
]
# 前五大客户 (万元), by year: name, sales, what they buy
CUSTOMERS = {
    "2023年度": [
        ("江苏澄远智能装备股份有限公司", "9,836.27", "关节扭矩传感器、六维力传感器"),
        ("Norden Automation GmbH", "6,402.15", "六维力传感器"),
        ("北辰智控科技（苏州）有限公司", "4,718.90", "机器视觉模组"),
        ("Kestrel Robotics Inc.", "3,265.44", "六维力传感器"),
        ("深圳市锐拓科技有限公司", "2,907.61", "机器视觉模组"),
    ],
    "2022年度": [
        ("江苏澄远智能装备股份有限公司", "8,215.09", "关节扭矩传感器"),
        ("北辰智控科技（苏州）有限公司", "4,390.52", "机器视觉模组"),
        ("Norden Automation GmbH", "3,877.36", "六维力传感器"),
        ("恒昇自动化股份有限公司", "2,652.80", "关节扭矩传感器"),
        ("深圳市锐拓科技有限公司", "2,104.17", "机器视觉模组"),
    ],
}
# 募集资金运用 (万元): project, total investment, raised funds used, construction period
PROJECTS = [
    ("高精度多维力传感器扩产项目", "32,580.00", "30,000.00", "24个月"),
    ("机器视觉模组产业化项目", "18,642.50", "16,500.00", "24个月"),
    ("研发中心建设项目", "12,360.80", "12,000.00", "36个月"),
    ("补充流动资金", "10,000.00", "10,000.00", "—"),
]


def _share(part: str, whole: str | Decimal) -> str:
    total = whole if isinstance(whole, Decimal) else amount(whole)
    value = amount(part) / total * 100
    return str(value.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))


def _offering_table() -> list[list[str]]:
    return [
        ["发行股票类型", "人民币普通股（A股）"],
        ["每股面值", "人民币1.00元"],
        ["发行股数", "本次公开发行股票不超过3,000.00万股，占发行后总股本的比例不低于25.00%"],
        ["每股发行价格", "【】元"],
        ["预计发行日期", "【】年【】月【】日"],
        ["拟上市的证券交易所和板块", "上海证券交易所科创板"],
        ["发行后总股本", "不超过12,000.00万股"],
        ["保荐人（主承销商）", "中晟证券股份有限公司"],
        ["招股说明书签署日期", "2024年6月18日"],
    ]


def _financials_table() -> list[list[str]]:
    head = ["项目", "2023年12月31日/2023年度", "2022年12月31日/2022年度", "2021年12月31日/2021年度"]
    return [
        head,
        ["资产总额（万元）", "86,412.57", "68,903.14", "51,276.38"],
        ["归属于母公司所有者权益（万元）", "54,718.26", "43,025.91", "34,662.07"],
        ["资产负债率（母公司）（%）", "34.12", "36.85", "31.47"],
        ["营业收入（万元）", *REVENUE],
        ["净利润（万元）", "11,692.35", "8,363.84", "5,917.42"],
        ["归属于母公司所有者的净利润（万元）", "11,604.18", "8,302.57", "5,880.15"],
        [
            "扣除非经常性损益后归属于母公司所有者的净利润（万元）",
            "10,875.40",
            "7,694.21",
            "5,341.96",
        ],
        ["基本每股收益（元）", "1.29", "0.92", "0.65"],
        ["加权平均净资产收益率（%）", "23.61", "21.37", "18.94"],
        ["经营活动产生的现金流量净额（万元）", "8,426.93", "4,105.72", "-1,236.58"],
        ["现金分红（万元）", "2,700.00", "1,800.00", "—"],
        ["研发投入占营业收入的比例（%）", "12.84", "13.56", "14.21"],
    ]


def _products_table() -> list[list]:
    rows: list[list] = [
        [{"t": "产品类别", "rs": 2}] + [{"t": p, "cs": 2} for p in PERIODS],
        ["金额", "占比（%）"] * 3,
    ]
    totals = [sum((amount(values[n]) for _, values in PRODUCTS), Decimal(0)) for n in range(3)]
    for name, values in PRODUCTS:
        row = [name]
        for n in range(3):
            row += [values[n], _share(values[n], totals[n])]
        rows.append(row)
    rows.append(["主营业务收入合计"] + [c for t in totals for c in (money(t), "100.00")])
    return rows


def _customers_table() -> list[list]:
    rows: list[list] = [
        ["期间", "序号", "客户名称", "销售金额（万元）", "占营业收入比例（%）", "主要销售内容"]
    ]
    for period, customers in CUSTOMERS.items():
        revenue = REVENUE[PERIODS.index(period)]
        for n, (name, sales, goods) in enumerate(customers, 1):
            row: list = [{"t": period, "rs": len(customers) + 1}] if n == 1 else []
            rows.append(row + [str(n), name, sales, _share(sales, revenue), goods])
        total = money(sum((amount(s) for _, s, _ in customers), Decimal(0)))
        rows.append([{"t": "合计", "cs": 2}, total, _share(total, revenue), "—"])
    return rows


def _projects_table() -> list[list]:
    rows: list[list] = [
        ["序号", "项目名称", "项目投资总额（万元）", "拟使用募集资金投入金额（万元）", "建设期"]
    ]
    for n, project in enumerate(PROJECTS, 1):
        rows.append([str(n), *project])
    totals = [money(sum((amount(p[i]) for p in PROJECTS), Decimal(0))) for i in (1, 2)]
    rows.append([{"t": "合计", "cs": 2}, *totals, "—"])
    return rows


def top_five_share(period: str) -> str:
    """The top five customers' share of revenue in ``period``, as the table prints it."""
    customers = CUSTOMERS[period]
    total = money(sum((amount(s) for _, s, _ in customers), Decimal(0)))
    return _share(total, REVENUE[PERIODS.index(period)])


def build_report() -> Doc:
    d = Doc(
        "tuoheng_ipo_prospectus",
        header="杭州拓衡传感科技股份有限公司　招股说明书（申报稿）",
        footer="",
    )
    render(
        d,
        [
            ("page",),
            (
                "h1",
                "杭州拓衡传感科技股份有限公司首次公开发行股票并在科创板上市招股说明书（申报稿）",
                "title",
            ),
            ("p", "保荐人（主承销商）：中晟证券股份有限公司", "p_sponsor"),
            ("h1", "第二节 概览", "h_overview"),
            ("h2", "一、本次发行概况"),
            ("table", [], _offering_table(), [], "t_offering"),
            ("h2", "二、发行人主营业务经营情况"),
            (
                "p",
                "公司成立于2015年，是一家专注于机器人感知系统的高新技术企业，主要从事多维力/力矩传感器、关节扭矩传感器及"
                "机器视觉模组的研发、生产和销售，产品主要应用于工业机器人、协作机器人、医疗手术机器人及汽车测试等领域。公司"
                "英文名称为Tuoheng Sensing Technology Co., Ltd.。",
                "p_business",
            ),
            (
                "p",
                "根据行业研究机构统计，2023年公司六维力传感器在国内工业机器人领域的出货量份额约为18.5%，位居国内厂商第一。"
                "公司掌握多维力解耦标定、温度漂移补偿及高速数字采样等核心技术，已取得发明专利38项。",
                "p_position",
            ),
            ("page",),
            ("h2", "三、发行人报告期的主要财务数据和财务指标"),
            (
                "table",
                [],
                _financials_table(),
                ["注：资产负债率按母公司财务报表口径计算。"],
                "t_financials",
            ),
            ("h2", "四、主营业务收入构成"),
            (
                "table",
                ["报告期内，公司主营业务收入按产品类别构成如下：", "单位：万元"],
                _products_table(),
                [],
                "t_products",
            ),
            (
                "p",
                "报告期内，六维力传感器收入占比持续提升，主要受益于协作机器人及人形机器人研发样机对高精度力控需求的快速增长；"
                "关节扭矩传感器收入保持增长，但占比有所下降。",
                "p_products",
            ),
            ("page",),
            ("h1", "第五节 业务与技术", "h_business"),
            ("h2", "五、主要客户情况"),
            (
                "table",
                ["报告期内，公司向前五名客户的销售情况如下："],
                _customers_table(),
                ["注：受同一实际控制人控制的客户已合并计算销售额。"],
                "t_customers",
            ),
            (
                "p",
                "截至2023年12月31日，公司共有研发人员146人，占员工总数的31.20%，其中核心技术人员5名。公司研发中心设在杭州，"
                "并于2022年在苏州设立视觉算法研发分部。",
                "p_staff",
            ),
            ("h1", "第三节 风险因素", "h_risks"),
            (
                "p",
                "（一）技术迭代风险。机器人感知技术更新较快，若公司未能及时把握力控与视觉融合的技术方向，或新产品研发失败，"
                "将对公司的竞争力和经营业绩产生不利影响。",
                "p_risk_tech",
            ),
            (
                "p",
                "（二）客户集中度较高的风险。报告期各期，公司对前五大客户的销售收入占营业收入的比例分别为46.27%、"
                f"{top_five_share('2022年度')}%和{top_five_share('2023年度')}%，其中对江苏澄远智能装备股份有限公司的"
                "销售占比均超过15%。若主要客户经营状况发生不利变化，将对公司经营业绩产生较大影响。",
                "p_risk_customers",
            ),
            (
                "p",
                "（三）核心原材料进口依赖风险。公司生产所需的应变计、高精度ADC芯片主要向境外供应商采购，报告期各期进口原材料"
                "采购金额占原材料采购总额的比例分别为41.36%、38.92%和35.07%。",
                "p_risk_imports",
            ),
            (
                "p",
                "（四）毛利率下滑风险。报告期各期，公司主营业务毛利率分别为52.41%、50.86%和49.73%，呈逐年下降趋势，主要系"
                "关节扭矩传感器产品降价及机器视觉模组收入占比提升所致。",
                "p_risk_margin",
            ),
            (
                "p",
                "（五）应收账款回收风险。报告期各期末，公司应收账款账面价值分别为9,624.35万元、14,082.17万元和19,306.84万元，"
                "占各期末流动资产的比例较高。",
                "p_risk_receivables",
            ),
            ("page",),
            ("h1", "第七节 募集资金运用与未来发展规划", "h_proceeds"),
            (
                "p",
                "经公司2024年第一次临时股东大会审议通过，本次发行募集资金扣除发行费用后，将投资于以下项目：",
                "p_proceeds_intro",
            ),
            ("table", ["单位：万元"], _projects_table(), [], "t_projects"),
            (
                "p",
                "高精度多维力传感器扩产项目拟在杭州市余杭区新建厂房，达产后新增六维力传感器年产能8万台、关节扭矩传感器年产能"
                "20万台。若本次实际募集资金净额低于拟投入金额，不足部分由公司以自有资金或银行借款解决。",
                "p_expansion",
            ),
        ],
    )
    d.finish()
    return d
