"""The third set's fund report: 嘉峰消费精选混合型证券投资基金 (Calder Peak Consumer Select Hybrid Fund,
codes 018642 / 018643), 2025年第3季度报告, run by 嘉峰基金 (Calder Peak Fund Management). Two share
classes side by side, the net-value tables of each, the asset mix, the 前十名股票 (companies most of
which have no document) and the change in 基金份额. The fund, its manager and every number are
invented."""

from __future__ import annotations

from rag_app.evaluation.sets.broker.layout import render
from rag_app.evaluation.sets.docgen import Doc
from rag_app.evaluation.sets.third.numbers import fmt, less, num, share, total

CLASSES = ("嘉峰消费精选混合A", "嘉峰消费精选混合C")
# 主要财务指标 (元): A, C
INDICATORS = [
    ("1.本期已实现收益", "18,406,215.33", "4,962,807.15"),
    ("2.本期利润", "96,318,470.82", "25,407,391.64"),
    ("3.加权平均基金份额本期利润", "0.1283", "0.1246"),
]
NAV = ("1,046,872,915.40", "268,530,447.19")
UNIT_NAV = ("1.4217", "1.4035")
# 基金份额 (份): period start, subscriptions
OPENING = ("702,418,365.27", "176,903,518.60")
SUBSCRIBED = ("128,604,291.55", "61,270,834.12")
# 净值表现: stage, then ① and ② of class A, ① and ② of class C, ③ and ④ (the benchmark)
STAGES = [
    ("过去三个月", ("9.86", "0.92"), ("9.73", "0.92"), ("7.41", "0.78")),
    ("过去六个月", ("12.53", "0.97"), ("12.27", "0.97"), ("8.02", "0.81")),
    ("过去一年", ("15.38", "1.11"), ("14.84", "1.11"), ("10.27", "0.94")),
    ("过去三年", ("6.92", "1.24"), ("5.69", "1.24"), ("-3.58", "1.06")),
    ("自基金合同生效起至今", ("42.17", "1.21"), ("40.35", "1.21"), ("1.83", "1.03")),
]
# 资产组合 (元)
STOCKS = "1,164,318,207.56"
BONDS = "86,402,118.90"
CASH = "62,915,334.27"
OTHER = "5,280,611.08"
# 前十名股票: code, name, shares, price on 2025-09-30 (元)
HOLDINGS = [
    ("605376", "沐溪食品", "3,218,400", "38.65"),
    ("603719", "云岫酒业", "512,300", "186.20"),
    ("603815", "北麓乳业", "4,106,900", "21.37"),
    ("002795", "凯澜电器", "1,825,000", "43.18"),
    ("603177", "鼎味股份", "1,320,500", "51.90"),
    ("688574", "岚泊药业", "1,486,200", "42.75"),
    ("301216", "青禾母婴", "2,384,600", "24.62"),
    ("09863", "悦舟旅行", "6,250,000", "8.74"),
    ("300958", "拾光美妆", "1,097,800", "45.30"),
    ("002861", "星岚文旅", "3,640,000", "12.06"),
]


def _closing() -> tuple[str, str]:
    """Each class's shares at the period end: its net assets over its unit value."""
    return tuple(fmt(num(n) / num(u), 2) for n, u in zip(NAV, UNIT_NAV))  # type: ignore[return-value]


def _nav_total() -> str:
    return total(NAV)


def _product_table() -> list[list]:
    closing = _closing()

    def whole(label: str, value: str) -> list:
        return [label, {"t": value, "cs": 2}]

    return [
        whole("基金名称", "嘉峰消费精选混合型证券投资基金"),
        whole("基金英文名称", "Calder Peak Consumer Select Hybrid Fund"),
        whole("基金简称", "嘉峰消费精选混合"),
        whole("基金主代码", "018642"),
        whole("基金运作方式", "契约型开放式"),
        whole("基金合同生效日", "2022年3月15日"),
        whole("报告期末基金份额总额", f"{total(closing)}份"),
        whole(
            "投资目标",
            "在严格控制风险的前提下，精选受益于消费升级的优质上市公司，追求基金资产的长期稳健增值。",
        ),
        whole(
            "业绩比较基准",
            "中证主要消费指数收益率×65%＋中证港股通消费综合指数收益率×15%＋中债综合全价指数收益率×20%",
        ),
        whole("基金管理人", "嘉峰基金管理有限公司"),
        whole("基金托管人", "恒泽银行股份有限公司"),
        ["下属分级基金的基金简称", *CLASSES],
        ["下属分级基金的交易代码", "018642", "018643"],
        ["报告期末下属分级基金的份额总额", f"{closing[0]}份", f"{closing[1]}份"],
    ]


def _indicators_table() -> list[list]:
    rows: list[list] = [
        [{"t": "主要财务指标", "rs": 2}, {"t": "报告期（2025年7月1日－2025年9月30日）", "cs": 2}],
        list(CLASSES),
    ]
    rows += [list(r) for r in INDICATORS]
    rows.append(["4.期末基金资产净值", *NAV])
    rows.append(["5.期末基金份额净值", *UNIT_NAV])
    return rows


def _performance_table(cls: int) -> list[list[str]]:
    rows = [["阶段", "份额净值增长率①", "份额净值增长率标准差②", "业绩比较基准收益率③",
             "业绩比较基准收益率标准差④", "①－③", "②－④"]]  # fmt: skip
    for stage, a, c, bench in STAGES:
        own = (a, c)[cls]
        rows.append(
            [
                stage,
                own[0],
                own[1],
                bench[0],
                bench[1],
                fmt(num(own[0]) - num(bench[0]), 2, sep=False),
                fmt(num(own[1]) - num(bench[1]), 2, sep=False),
            ]
        )
    return rows


def _managers_table() -> list[list]:
    return [
        [
            {"t": "姓名", "rs": 2},
            {"t": "职务", "rs": 2},
            {"t": "任本基金的基金经理期限", "cs": 2},
            {"t": "证券从业年限", "rs": 2},
            {"t": "说明", "rs": 2},
        ],
        ["任职日期", "离任日期"],
        ["周亦恒（Ethan Zhou）", "本基金的基金经理、权益投资部总监", "2022-03-15", "—", "14年",
         "伦敦政治经济学院金融学硕士，曾任嘉峰基金消费行业研究员、研究部副总监。"],
        ["苏蔓", "本基金的基金经理", "2024-07-01", "—", "9年", "复旦大学经济学硕士，曾任嘉峰基金食品饮料行业研究员。"],
    ]  # fmt: skip


def _assets_total() -> str:
    return total([STOCKS, BONDS, "0.00", CASH, OTHER])


def _assets_table() -> list[list]:
    whole = _assets_total()
    rows: list[list] = [["序号", "项目", "金额（元）", "占基金总资产的比例（%）"]]
    for n, (name, sub, value) in enumerate(
        [("权益投资", "其中：股票", STOCKS), ("固定收益投资", "其中：债券", BONDS)], 1
    ):
        rows.append([{"t": str(n), "rs": 2}, name, value, share(value, whole)])
        rows.append([sub, value, share(value, whole)])
    for n, (name, value) in enumerate(
        [("买入返售金融资产", "0.00"), ("银行存款和结算备付金合计", CASH), ("其他资产", OTHER),
         ("合计", whole)], 3):  # fmt: skip
        rows.append([str(n), name, value, share(value, whole)])
    return rows


def _holdings_table() -> list[list[str]]:
    nav = _nav_total()
    rows = [
        ["序号", "股票代码", "股票名称", "数量（股）", "公允价值（元）", "占基金资产净值比例（%）"]
    ]
    for n, (code, name, count, price) in enumerate(HOLDINGS, 1):
        value = fmt(num(count) * num(price), 2)
        rows.append([str(n), code, name, count, value, share(value, nav)])
    return rows


def _units_table() -> list[list[str]]:
    closing = _closing()
    redeemed = [less(f"{num(OPENING[i]) + num(SUBSCRIBED[i]):,.2f}", [closing[i]]) for i in (0, 1)]
    return [
        ["项目", *CLASSES],
        ["报告期期初基金份额总额", *OPENING],
        ["报告期期间基金总申购份额", *SUBSCRIBED],
        ["减：报告期期间基金总赎回份额", *redeemed],
        ["报告期期间基金拆分变动份额（份额减少以“-”填列）", "0.00", "0.00"],
        ["报告期期末基金份额总额", *closing],
    ]


def build_report() -> Doc:
    d = Doc(
        "calder_peak_consumer_2025q3",
        header="嘉峰消费精选混合型证券投资基金2025年第3季度报告",
        footer="",
    )
    position = share(STOCKS, _nav_total())
    render(
        d,
        [
            ("page",),
            ("h1", "嘉峰消费精选混合型证券投资基金2025年第3季度报告", "title"),
            (
                "p",
                "基金管理人：嘉峰基金管理有限公司　基金托管人：恒泽银行股份有限公司　报告送出日期：2025年10月24日",
                "p_parties",
            ),
            ("h2", "§1 重要提示"),
            (
                "p",
                "基金管理人嘉峰基金管理有限公司（Calder Peak Fund Management Co., Ltd.，以下简称“嘉峰基金”）保证本报告所载"
                "资料不存在虚假记载、误导性陈述或重大遗漏。基金托管人恒泽银行股份有限公司于2025年10月22日复核了本报告中的"
                "财务指标、净值表现和投资组合报告等内容。本报告期自2025年7月1日起至9月30日止。",
                "p_notice",
            ),
            ("h2", "§2 基金产品概况"),
            ("table", [], _product_table(), [], "t_product"),
            ("h2", "§3 主要财务指标和基金净值表现"),
            (
                "table",
                ["3.1 主要财务指标", "单位：人民币元"],
                _indicators_table(),
                [
                    "注：本期已实现收益指基金本期利息收入、投资收益、其他收入（不含公允价值变动收益）扣除相关费用后的余额，"
                    "本期利润为本期已实现收益加上本期公允价值变动收益。"
                ],  # fmt: skip
                "t_indicators",
            ),
            ("page",),
            ("p", "3.2 基金净值表现"),
            ("table", [CLASSES[0]], _performance_table(0), [], "t_perf_a"),
            ("table", [CLASSES[1]], _performance_table(1), [], "t_perf_c"),
            (
                "image",
                ["图1：嘉峰消费精选混合A累计净值增长率与同期业绩比较基准收益率的历史走势对比图"],
                ["注：本基金合同生效日为2022年3月15日，图示日期为2022年3月15日至2025年9月30日。"],
                None,
                "fig_history",
            ),
            ("h2", "§4 管理人报告"),
            ("table", ["4.1 基金经理（或基金经理小组）简介"], _managers_table(), [], "t_managers"),
            (
                "p",
                "4.4 报告期内基金的投资策略和运作分析。三季度，A股消费板块在促消费政策催化下先扬后抑，中证主要消费指数季度"
                "上涨6.2%。本基金在报告期内提高了乳制品、家电和调味品的配置比例，降低了白酒仓位，并通过港股通增配了出行服务"
                f"类个股；季末股票资产占基金资产净值的比例为{position}%，较二季度末提升3.2个百分点。",
                "p_strategy",
            ),
            (
                "p",
                "展望四季度，我们认为消费复苏的斜率仍取决于居民收入预期的修复，估值已处于历史较低分位的调味品、乳制品龙头"
                "具备较高的安全边际，将继续作为组合的底仓配置。",
                "p_outlook",
            ),
            (
                "p",
                f"4.5 报告期内基金的业绩表现。截至本报告期末，{CLASSES[0]}的基金份额净值为{UNIT_NAV[0]}元，本报告期基金份额"
                f"净值增长率为{STAGES[0][1][0]}%；{CLASSES[1]}的基金份额净值为{UNIT_NAV[1]}元，本报告期基金份额净值增长率为"
                f"{STAGES[0][2][0]}%；同期业绩比较基准收益率为{STAGES[0][3][0]}%。",
                "p_performance",
            ),
            ("page",),
            ("h2", "§5 投资组合报告"),
            ("table", ["5.1 报告期末基金资产组合情况"], _assets_table(), [], "t_assets"),
            (
                "table",
                ["5.2 报告期末按公允价值占基金资产净值比例大小排序的前十名股票投资明细"],
                _holdings_table(),
                ["注：悦舟旅行为港股通投资股票，公允价值已按报告期末汇率折算为人民币。"],
                "t_holdings",
            ),
            ("h2", "§6 开放式基金份额变动"),
            ("table", ["单位：份"], _units_table(), [], "t_units"),
            ("h2", "§7 基金管理人运用固有资金投资本基金情况"),
            (
                "p",
                "报告期内，基金管理人未运用固有资金投资本基金，本基金亦未发生单一投资者持有基金份额比例达到或超过20%的情况。"
                "嘉峰基金成立于2013年，注册地上海，截至2025年9月30日共管理公募基金47只，公募资产管理规模约1,268亿元。",
                "p_manager",
            ),
        ],
    )
    d.finish()
    return d
