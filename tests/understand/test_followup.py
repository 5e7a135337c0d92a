"""Follow-ups made standalone as slots, without a model: the earlier question's subject, period
and metric carried where the follow-up leaves them out and replaced where it names them, a name
set beside the earlier one asked for both, pointers given what they point at, and the question
written again so it reads as one. The library is a small fake of what the profiles hold."""

from __future__ import annotations

import pytest

from rag_app.understand.followup import resolve, standalone
from rag_app.understand.known import Known, known_of
from rag_app.understand.slots import read

REPORTS = ("中芯国际", "华虹半导体", "北方华创", "宁德时代", "比亚迪", "隆基绿能")
KNOWN = known_of(
    REPORTS,
    [
        ("华虹集团", "中芯国际", ()),  # a peer 中芯国际's report ranks (表3)
        ("台积电", "中芯国际", ()),
        ("三星", "中芯国际", ()),
        ("中芯天津（T1）", "中芯国际", ()),
        ("中芯北京（B1）", "中芯国际", ()),
        ("中芯南方（SN1）", "中芯国际", ()),
        ("中芯京城", "中芯国际", ()),
        ("中芯国际", "中芯国际", ("SMIC", "688981.SH")),
        ("宁德车里湾基地", "宁德时代", ()),
        ("宜宾基地", "宁德时代", ()),
        ("合肥基地", "比亚迪", ()),
        ("乌兹别克斯坦工厂", "比亚迪", ()),
        ("营业收入", "中芯国际", ()),  # a table row a profile also lists as a name
        ("刀片电池", "比亚迪", ()),  # two rows of one report's product table
        ("DM-i混动系统", "比亚迪", ()),
    ],
    ["营业收入", "毛利率", "市盈率", "每股收益", "ROE", "产能 月产能", "当前产能", "规划产能",
     "研发费用", "归母净利润", "工艺节点"],
)  # fmt: skip
MARGIN = "中芯国际2025年的毛利率预测是多少？"


@pytest.mark.parametrize(
    ("previous", "question", "expected"),
    [
        # a period, a company, a metric, or two of them in place of the earlier ones
        (MARGIN, "那2026年呢？", "中芯国际2026年的毛利率预测是多少？"),
        (MARGIN, "华虹半导体呢？", "华虹半导体2025年的毛利率预测是多少？"),
        ("中芯国际2025年预测归母净利润是多少？", "每股收益呢？", "中芯国际2025年预测每股收益是多少？"),
        ("中芯国际2022年的营业收入是多少？", "那2025年的归母净利润呢？", "中芯国际2025年的归母净利润是多少？"),
        ("中芯国际2024年的毛利率是多少？", "换成2022年呢？", "中芯国际2022年的毛利率是多少？"),
        ("中芯国际2024年的毛利率是多少？", "一季度呢？", "中芯国际2024年一季度的毛利率是多少？"),
        # a metric the finance words do not know but the library's tables do, or neither
        ("中芯国际2024年的毛利率是多少？", "研发费用呢？", "中芯国际2024年的研发费用是多少？"),
        ("中芯国际2024年的毛利率是多少？", "研发投入呢？", "中芯国际2024年的研发投入是多少？"),
        # a table row named before: its other column, another row, a place of the company
        ("中芯天津（T1）的当前产能是多少？", "规划产能呢？", "中芯天津（T1）的规划产能是多少？"),
        ("中芯天津（T1）的当前产能是多少？", "中芯北京（B1）呢？", "中芯北京（B1）的当前产能是多少？"),
        ("宁德车里湾基地的当前产能是多少？", "宜宾基地呢？", "宁德时代宜宾基地的当前产能是多少？"),
        # a peer the report ranks after another, not a place of the report's company
        ("台积电的市占率是多少？", "三星呢？", "三星的市占率是多少？"),
        (
            "比亚迪合肥基地的当前产能是多少万辆/年？",
            "乌兹别克斯坦工厂呢？",
            "比亚迪乌兹别克斯坦工厂的当前产能是多少万辆/年？",
        ),
        # the earlier question's own asking words, not "是多少" glued on
        ("中芯南方（SN1）采用什么工艺节点？", "中芯京城呢？", "中芯京城采用什么工艺节点？"),
        # 和X比: both; X read against the library's names (华虹: the report on 华虹半导体)
        ("中芯国际的产能是多少？", "和华虹比呢？", "中芯国际和华虹半导体的产能分别是多少？"),
        # pointers back: the company, the year for 同年; the earlier period kept
        ("中芯国际2024年的毛利率是多少？", "它的产能呢？", "中芯国际2024年的产能是多少？"),
        ("中芯国际2024年的毛利率是多少？", "这个平台的产能呢？", "中芯国际2024年的产能是多少？"),
        ("中芯国际2023年营业收入是多少？", "它2025年的ROE是多少？", "中芯国际2025年的ROE是多少？"),
        ("中芯国际2023年营业收入是多少？", "该公司2024年的ROE是多少？", "中芯国际2024年的ROE是多少？"),
        (MARGIN, "那么它2026年呢？", "中芯国际2026年的毛利率预测是多少？"),
        ("中芯国际2024年的毛利率是多少？", "同年的ROE呢？", "中芯国际2024年的ROE是多少？"),
        ("中芯国际2024年第四季度的产能利用率是多少？", "它有哪些产线？", "中芯国际有哪些产线？"),
        # no subject at all: the earlier one's, with its period when a metric is asked for
        ("中芯国际2024年的毛利率是多少？", "研发费用是多少？", "中芯国际2024年的研发费用是多少？"),
        ("中芯国际2024年的毛利率是多少？", "请总结这份报告的主要风险。", "请总结中芯国际的主要风险。"),
        # English
        ("What is SMIC's gross margin in 2024?", "And in 2026?", "What is SMIC's gross margin in 2026?"),
        ("What is SMIC's gross margin in 2024?", "What about Hua Hong?", "What is Hua Hong's gross margin in 2024?"),
        ("What is SMIC's gross margin in 2024?", "What is its P/E in 2026?", "What is SMIC's P/E in 2026?"),
        ("What was SMIC's revenue in 2024?", "What about free cash flow?", "What was SMIC's free cash flow in 2024?"),
        # a metric the library does not know, in place of the earlier one's own words
        ("What was SMIC's cost-to-income ratio in 2024?", "And the liquidity ratio?", "What was SMIC's liquidity ratio in 2024?"),
    ],
)  # fmt: skip
def test_a_follow_up_becomes_the_question_it_means(
    previous: str, question: str, expected: str
) -> None:
    resolution = resolve(question, previous, KNOWN)
    assert resolution.text == expected
    assert resolution.changed


@pytest.mark.parametrize(
    "question",
    [
        "华虹半导体2024年的ROE是多少？",  # names all it needs
        "哪家公司的毛利率最高？",  # asks across the library
        "中芯国际有哪些产线？",
        "What was BYD's revenue in 2023?",
        "其中华虹集团的营业收入排名第几？",  # names its own subject
    ],
)
def test_a_question_that_stands_alone_is_left_alone(question: str) -> None:
    resolution = resolve(question, "中芯国际2024年的毛利率是多少？", KNOWN)
    assert resolution.text == question and not resolution.changed


def test_a_chain_of_follow_ups_builds_on_each_standalone_question() -> None:
    earlier = [MARGIN, "那2026年呢？"]
    resolution = standalone("市盈率呢？", earlier, KNOWN)
    assert resolution.text == "中芯国际2026年的市盈率预测是多少？"
    assert "metric 毛利率 -> 市盈率" in resolution.carried
    assert standalone("那2026年呢？", [], KNOWN).text == "那2026年呢？"  # no conversation


def test_a_pointer_after_a_question_for_a_name_is_the_name_the_answer_gives() -> None:
    earlier = ["2024年哪家公司的毛利率最高？"]
    answer = "华虹半导体的毛利率最高，为21.3% [Source 1]。"
    resolution = standalone("这家公司的市盈率是多少？", earlier, KNOWN, answer=answer)
    assert resolution.text == "华虹半导体2024年的市盈率是多少？"
    # without the answer, the question asked for a name and gives none to carry
    assert not standalone("这家公司的市盈率是多少？", earlier, KNOWN).changed


def test_a_pointer_after_which_one_of_a_ranking_is_the_company_the_answer_gives() -> None:
    """The earlier question's phrase ending in the pointer's noun (白酒上市公司) is what it asked
    which of, not what the pointer stands for; the answer's copula is no part of the name."""
    ranking = known_of(["岳泉酒业"], [("剑阳酒业", "岳泉酒业", ("000869.SZ",))], ["营业收入", "PE"])
    earlier = ["2024年白酒上市公司里收入排名第二的是哪家？"]
    for answer in ("是剑阳酒业，2024年营业收入862.4亿元。", "剑阳酒业，2024年营业收入862.4亿元。"):
        resolution = standalone("这家公司2026年的PE是多少？", earlier, ranking, answer=answer)
        assert resolution.text == "剑阳酒业2026年的PE是多少？"


def test_a_pointer_to_what_the_earlier_question_asked_which_of_is_what_the_answer_gives() -> None:
    earlier = ["中芯国际哪类产品的收入占比最高？"]
    answer = "28纳米及以上，2024年收入占比为61.2% [Source 1]。"  # a number first: no phrase
    assert (
        "28纳米" not in standalone("该类产品的毛利率是多少？", earlier, KNOWN, answer=answer).text
    )
    answer = "成熟制程，2024年收入占比为61.2% [Source 1]。"
    resolution = standalone("该类产品的毛利率是多少？", earlier, KNOWN, answer=answer)
    assert resolution.text == "中芯国际成熟制程的毛利率是多少？"
    # a pointer to something else the earlier question did not ask which of: not replaced
    other = standalone("该公司的毛利率是多少？", earlier, KNOWN, answer=answer)
    assert "成熟制程" not in other.text


def test_without_a_library_the_names_a_question_leads_with_are_carried() -> None:
    resolution = resolve("2022年呢？", "拓衡传感2023年的净利润是多少？", Known())
    assert resolution.text == "拓衡传感2022年的净利润是多少？"
    assert resolution.carried == ("subject 拓衡传感", "period 2023年 -> 2022年", "kept 净利润")


def test_slots_are_read_against_the_library() -> None:
    reading = read("它的产能呢？", KNOWN)
    assert [(p.kind, p.text) for p in reading.pieces] == [("pointer", "它"), ("metric", "产能")]
    assert reading.elliptic and reading.subject is None
    reading = read("比亚迪合肥基地2024年的当前产能是多少？", KNOWN)
    assert reading.subject is not None and reading.subject.text == "比亚迪合肥基地"
    assert [p.kind for p in reading.pieces if p.kind != "words"] == [
        "name",
        "name",
        "period",
        "metric",
    ]
    assert not reading.elliptic
    # a name the library spells otherwise, a metric it reports: by their shared bigrams
    assert KNOWN.closest("华虹")[:2] == ("name", "华虹半导体")  # a report's subject first
    sample = known_of(["中芯国际"], [("华虹集团", "中芯国际", ())])  # the sample report alone
    compared = resolve("和华虹比呢？", "中芯国际的产能是多少？", sample)
    assert compared.text == "中芯国际和华虹集团的产能分别是多少？"
    assert KNOWN.closest("研发费用率")[:2] == ("metric", "研发费用")
    # a table row the profile also lists as a name is a metric
    assert "营业收入" not in KNOWN.names
    assert read("和华虹比呢？", KNOWN).compares
    assert not read("华虹半导体在2025年呢？", KNOWN).compares
    assert read("哪家公司的毛利率最高？", KNOWN).asks_name
    assert not read("中芯国际有哪些产线？", KNOWN).asks_name  # asks for things, not a name


def test_a_quantity_asked_for_at_no_period_is_asked_for_at_the_last_reported_year() -> None:
    known = known_of(
        ["中芯国际"],
        [("中芯天津（T1）", "中芯国际", ())],
        ["产能 月产能", "毛利率", "工艺节点"],
        {"中芯国际": ["2023A", "2024Q4", "2025E", "2026E"]},  # estimates are not reported
        ["产能", "月产能", "毛利率"],  # the metrics given with a unit
    )
    assert known.latest == {"中芯国际": "2024年"}
    previous = "中芯国际的产能利用率是多少？"
    latest = resolve("它的毛利率呢？", previous, known)
    assert latest.text == "中芯国际2024年的毛利率是多少？"
    assert "period 2024年 (latest reported)" in latest.carried
    assert resolve("它的毛利率呢？", previous, known, latest_period=False).text == (
        "中芯国际的毛利率是多少？"
    )
    # not for what has no unit, a table row, or a metric whose modifier says when
    assert resolve("它采用什么工艺节点？", previous, known).text == "中芯国际采用什么工艺节点？"
    row = "中芯天津（T1）的月产能是多少？"
    assert resolve("毛利率呢？", row, known).text == "中芯天津（T1）的毛利率是多少？"


def test_a_report_named_by_its_short_name_is_written_again_by_it() -> None:
    """A report's company has a legal name and the short name its passages use (澄远智能): a
    follow-up is written with the name the question used, not the legal one (second set's
    follow-ups, docs/EVALUATION.md session 12)."""
    from rag_app.index.profile import DocumentProfile, Entity
    from rag_app.pipeline.followups import _other_names

    legal = "江苏澄远智能装备股份有限公司"
    profile = DocumentProfile(
        "chengyuan",
        legal,
        entities=(Entity(legal, ("688999.SH",), ("澄远智能",)),),
        periods=("2023A", "2024A"),
    )
    assert _other_names(profile) == ("澄远智能",)  # not its ticker
    known = known_of(
        [legal, *_other_names(profile)],
        [(legal, legal, ("澄远智能", "688999.SH"))],
        ["营业收入", "毛利率"],
        {legal: list(profile.periods), "澄远智能": list(profile.periods)},
        ["营业收入"],
    )
    followed = resolve("那2023年呢？", "澄远智能2024年营业收入是多少？", known)
    assert followed.text == "澄远智能2023年营业收入是多少？"
    latest = resolve("它的营业收入呢？", "澄远智能的毛利率是多少？", known)
    assert latest.text == "澄远智能2024年的营业收入是多少？"
    # known only as an alias of the legal name, the company keeps the name the question wrote
    alias_only = known_of([legal], [(legal, legal, ("澄远智能",))], ["营业收入", "毛利率"])
    kept = resolve("那2023年呢？", "澄远智能2024年营业收入是多少？", alias_only)
    assert kept.text == "澄远智能2023年营业收入是多少？" and kept.carried[0] == f"subject {legal}"
    # a pointer with a noun stands for the earlier phrase ending in it, or for the company
    project = resolve("这个项目建设期多长？", "拓衡传感募投项目里的研发中心建设项目投资多少？")
    assert project.text.endswith("研发中心建设项目建设期多长？"), project
    chair = resolve("该公司董事长是谁？", "澄远智能审计委员会召集人是谁？", alias_only)
    assert chair.text == "澄远智能董事长是谁？"
    # why, or a verb with no noun of its own: asked of the earlier question's fact
    why = resolve("为什么提升了？", "澄远智能二季度毛利率多少？", alias_only)
    assert why.text == "澄远智能二季度毛利率为什么提升了？" and "asked 二季度毛利率" in why.carried
    assert resolve("为什么增长这么快？", "澄远智能2024年营业收入增长了多少？", alias_only).text == (
        "澄远智能2024年营业收入为什么增长这么快？"
    )  # 这么 says how fast, it points at nothing
    # a company in legal form takes the place of the earlier one of that form, not the subject's
    tuoheng = "杭州拓衡传感科技股份有限公司"
    customers = known_of(
        [tuoheng],
        [
            (tuoheng, tuoheng, ("拓衡传感",)),
            ("Norden Automation GmbH", tuoheng, ()),
            ("Kestrel Robotics Inc.", tuoheng, ()),
        ],
        ["销售额"],
    )
    swapped = resolve(
        "Kestrel Robotics Inc.呢？",
        "拓衡传感2023年对Norden Automation GmbH的销售额是多少？",
        customers,
    )
    assert swapped.text == "拓衡传感2023年对Kestrel Robotics Inc.的销售额是多少？"
    # a place set beside the earlier question's place: both places asked
    regions = known_of(
        [legal], [(legal, legal, ("澄远智能",)), ("境外", legal, ()), ("境内", legal, ())], ["收入"]
    )
    assert resolve("和境内比呢？", "澄远智能境外收入同比增长了多少？", regions).text == (
        "澄远智能境外和境内收入同比增长了多少？"
    )
    # relative periods and parts of the year replace the earlier ones
    assert resolve("去年呢？", "澄远智能2024年的营业收入是多少？", alias_only).text == (
        "澄远智能2023年的营业收入是多少？"
    )
    assert resolve("一季度呢？", "Orvella二季度GAAP净利润多少？").text == (
        "Orvella一季度GAAP净利润多少？"
    )
    assert resolve(
        "And the year before?", "What did Chengyuan spend on R&D in total in 2024?"
    ).text == ("What did Chengyuan spend on R&D in total in 2023?")


# Read against a consumer note and a bank's annual report (a fake of their profiles): the
# company a peers' valuation table lists as a row, periods named from another, growth columns.
PEERS = known_of(
    ["沐溪食品", "嵘城银行"],
    [("鼎味股份", "沐溪食品", ("603317.SH",))],
    ["沐溪食品", "鼎味股份", "营业收入", "同比", "毛利率", "目标价", "市盈率", "不良贷款率"],
    qualified=["营业收入 同比"],
)


@pytest.mark.parametrize(
    ("previous", "question", "expected"),
    [
        ("沐溪食品2025年前三季度营业收入是多少？", "上半年呢？", "沐溪食品2025年上半年营业收入是多少？"),
        ("沐溪食品2025年前三季度营业收入是多少？", "去年同期呢？", "沐溪食品2024年前三季度营业收入是多少？"),
        ("嵘城银行2024年末不良贷款率多少？", "上年末呢？", "嵘城银行2023年末不良贷款率多少？"),
        ("沐溪食品2025年前三季度营业收入是多少？", "同比呢？", "沐溪食品2025年前三季度营业收入同比是多少？"),
        ("沐溪食品的目标价是多少？", "这个目标价对应多少倍市盈率？", "沐溪食品目标价对应多少倍市盈率？"),
        (
            "What was Muxi Foods' revenue in Q3 2025?",
            "And in the first half?",
            "What was Muxi Foods' revenue in the first half of 2025?",
        ),
    ],
)  # fmt: skip
def test_periods_named_from_another_and_growth_columns(
    previous: str, question: str, expected: str
) -> None:
    assert resolve(question, previous, PEERS).text == expected


def test_a_reports_subject_is_a_name_though_a_table_lists_it_as_a_row() -> None:
    reading = read("沐溪食品的毛利率是多少？", PEERS)
    assert reading.subject is not None and reading.subject.text == "沐溪食品"
    assert "沐溪食品" not in PEERS.metrics
    # a peer given with its ticker is a company of its own, not a row's metric nor a place of
    # the report's company (沐溪食品鼎味股份)
    assert "鼎味股份" not in PEERS.metrics
    resolution = resolve("鼎味股份呢？", "沐溪食品2025年的市盈率是多少？", PEERS)
    assert resolution.text == "鼎味股份2025年的市盈率是多少？"


# A bank's annual report and a consumer note as their profiles read them (a fake): the English
# name a filing gives in capitals, the library's row labels, a growth column under revenue.
BANK = known_of(
    ["嵘城银行", "沐溪食品"],
    [("嵘城银行", "嵘城银行", ("Bank of Rongcheng", "BANK OF RONGCHENG CO., LTD.")),
     ("Calder Peak Fund Management Co., Ltd.", "嘉峰基金", ())],
    ["营业收入", "利息净收入", "不良贷款率", "拨备覆盖率", "净息差", "毛利率", "同比"],
    qualified=["营业收入 同比"],
)  # fmt: skip
NIM = "What was Bank of Rongcheng's net interest margin in 2024?"


@pytest.mark.parametrize(
    ("previous", "question", "expected"),
    [
        # English: a name with "of", a metric the glossary names, a part of a year and its year
        (NIM, "Why did it narrow?", "Why did Bank of Rongcheng's net interest margin narrow in 2024?"),
        (NIM, "And its non-performing loan ratio?", "What was Bank of Rongcheng's non-performing loan ratio in 2024?"),
        (
            "What was Bank of Rongcheng's operating income in 2024?",
            "What about net profit attributable to shareholders?",
            "What was Bank of Rongcheng's net profit attributable to shareholders in 2024?",
        ),
        (
            "What was Muxi Foods' revenue in the first three quarters of 2025?",
            "How about the third quarter alone?",
            "What was Muxi Foods' revenue in the third quarter of 2025?",
        ),
        (
            "What is Muxi Foods' forecast EPS for 2026?",
            "How does that compare with Chuanhe Foods?",
            "What is Muxi Foods and Chuanhe Foods' forecast EPS for 2026?",
        ),
        # English "it" after a metric is the earlier fact; a follow-up naming no one, its subject
        (
            "What was Bank of Rongcheng's capital adequacy ratio at the end of 2024?",
            "How did it change from the previous year?",
            "How did Bank of Rongcheng's capital adequacy ratio change from 2023 in 2024?",
        ),
        ("What is Muxi Foods' target price?", "Who wrote the note?", "Who wrote the note (Muxi Foods)?"),
        # a bare why: the reason for what the earlier question asked
        ("嵘城银行2024年营业收入是多少？", "为什么？", "嵘城银行2024年营业收入的原因是什么？"),
        (NIM, "Why?", "What is the reason for Bank of Rongcheng's net interest margin in 2024?"),
        # "the … one": its own modifier, the earlier head noun, the earlier modifier gone
        (
            "What was Bank of Rongcheng's core capital adequacy ratio at the end of 2024?",
            "And the total one?",
            "What was Bank of Rongcheng's total capital adequacy ratio at the end of 2024?",
        ),
        # Chinese: a modifier alone, a growth word, a quantity pointed at, a period compared
        ("沐溪食品2025年前三季度营业收入是多少？", "第三季度单季呢？", "沐溪食品2025年第三季度单季营业收入是多少？"),
        ("嵘城银行2024年营业收入是多少？", "增速呢？", "嵘城银行2024年营业收入增速是多少？"),
        ("嵘城银行2024年末不良贷款率是多少？", "这个指标的监管标准是多少？", "嵘城银行2024年末不良贷款率的监管标准是多少？"),
        ("嵘城银行2024年末不良贷款率是多少？", "比上年末下降了多少？", "嵘城银行2024年末不良贷款率比2023年下降了多少？"),
        # periods: years away, several years, a period and its copula alone
        ("嵘城银行2024年的营业收入是多少？", "前年呢？", "嵘城银行2022年的营业收入是多少？"),
        ("嵘城银行2024年末不良贷款率是多少？", "两年前呢？", "嵘城银行2022年末不良贷款率是多少？"),
        ("嵘城银行2024年末不良贷款率是多少？", "上年末是多少？", "嵘城银行2023年末不良贷款率是多少？"),
        ("沐溪食品2025年预计归母净利润是多少？", "2026年和2027年呢？", "沐溪食品2026年和2027年预计归母净利润是多少？"),
        (
            "What was Bank of Rongcheng's operating income in 2024?",
            "What about two years earlier?",
            "What was Bank of Rongcheng's operating income in 2022?",
        ),
        # the library's row label over the finance term inside it (利息净收入, not 净收入)
        ("嵘城银行2024年营业收入是多少？", "其中利息净收入占多少？", "嵘城银行2024年的利息净收入占多少？"),
        # a statement term the glossary knows is a metric, never a name (销售费用率呢)
        ("沐溪食品第三季度毛利率是多少？", "销售费用率呢？", "沐溪食品第三季度销售费用率是多少？"),
    ],
)  # fmt: skip
def test_english_names_and_metrics_and_what_a_follow_up_points_at(
    previous: str, question: str, expected: str
) -> None:
    assert resolve(question, previous, BANK).text == expected


def test_a_latin_name_is_known_by_its_leading_words() -> None:
    reading = read("What was Calder Peak's fund share NAV?", BANK)
    names = [p for p in reading.pieces if p.kind == "name"]
    assert [p.value for p in names] == ["Calder Peak Fund Management Co., Ltd."]
    assert BANK.latin_name("Calder") is not None and BANK.latin_name("Muxi Foods") is None


def test_a_reading_is_the_same_whatever_the_hash_seed() -> None:
    # sets of terms iterate in a per-process order: ties among them (labels of one length
    # overlapping in a question) must not pick the reading
    import os
    import subprocess
    import sys

    script = (
        "from rag_app.understand.known import known_of\n"
        "from rag_app.understand.slots import read\n"
        "known = known_of(['嵘城银行'], [], ['房地产业', '地产业贷', '产业贷款', '业贷款余'])\n"
        "for q in ('嵘城银行2024年末房地产业贷款余额有多少亿？', '房地产业贷款呢？'):\n"
        "    print([(p.kind, p.text) for p in read(q, known).pieces])\n"
    )
    outputs = {
        subprocess.run(
            [sys.executable, "-c", script],
            env={**os.environ, "PYTHONHASHSEED": str(seed)},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in range(1, 9)
    }
    assert len(outputs) == 1, outputs


def test_a_row_of_the_same_report_takes_the_place_of_the_earlier_row() -> None:
    resolution = resolve("DM-i混动系统呢？", "比亚迪2024年刀片电池的销量是多少？", KNOWN)
    assert resolution.text == "比亚迪2024年DM-i混动系统的销量是多少？"
    assert resolution.carried == ("name 刀片电池 -> DM-i混动系统",)


def test_a_word_beside_a_metric_the_library_holds_is_not_the_metric_asked() -> None:
    # 对应 (jieba: a verbal noun) beside PE: the metric asked is PE
    resolution = resolve("对应市盈率呢？", "中芯国际2026年预测每股收益是多少？", KNOWN)
    assert "市盈率" in resolution.text and "对应是" not in resolution.text


def test_a_part_of_a_year_jieba_cuts_in_two_is_read_whole() -> None:
    # jieba cuts 前 off 三季度: still the first three quarters, in place of the third quarter
    assert [(p.kind, p.text) for p in read("前三季度累计呢？", KNOWN).pieces][0] == (
        "period_part",
        "前三季度",
    )
    resolution = resolve("前三季度呢？", "中芯国际2025年第三季度的营业收入是多少？", KNOWN)
    assert resolution.text == "中芯国际2025年前三季度的营业收入是多少？"


def test_a_pointer_after_what_is_the_thing_asks_for_what_the_answer_names_first() -> None:
    """ "…最高的产品是什么？" asks which product as 哪类产品 does: what the answer names first is
    what the pointer stands for."""
    earlier = ["中芯国际收入占比最高的产品是什么？"]
    answer = "成熟制程，2024年收入占比为61.2% [Source 1]。"
    resolution = standalone("这个产品的毛利率是多少？", earlier, KNOWN, answer=answer)
    assert "成熟制程的毛利率" in resolution.text


def test_the_same_period_of_another_year_keeps_its_part_of_the_year() -> None:
    earlier = ["中芯国际2024年第二季度营业收入是多少？"]
    assert "2025年第二季度营业收入" in standalone("2025年同期呢？", earlier, KNOWN).text
    assert "第二季度" not in standalone("2025年呢？", earlier, KNOWN).text  # the year asked


def test_a_rate_asked_alone_is_of_what_the_earlier_question_asked() -> None:
    resolution = standalone("同比变化多少？", ["中芯国际2023年归母净利润是多少？"], KNOWN)
    assert resolution.text.startswith("中芯国际2023年归母净利润") and "同比变化" in resolution.text
    assert resolution.text.count("2023年") == 1
    # a library whose tables have a 同比 column: 变化 is no metric of its own
    rates = known_of(REPORTS, [], ["归母净利润", "毛利率", "同比"])
    resolution = standalone("同比变化多少？", ["中芯国际2023年归母净利润是多少？"], rates)
    assert resolution.text == "中芯国际2023年归母净利润同比变化多少？"
    assert standalone("毛利率同比变化多少？", ["中芯国际2023年归母净利润是多少？"], rates).text == (
        "中芯国际2023年的毛利率同比变化多少？"
    )  # a metric named: its own


def test_an_english_question_naming_chinese_names_is_read_in_english() -> None:
    """Its names aside, the question's own words are English (8 CJK characters and 8 Latin
    words were read as Chinese, "How" taken for its subject); the earlier metric is the one
    before the name, not a run through the name to the segment after it."""
    machinery = known_of(["垣工重机"], [], ["revenue", "gross margin", "起重机械"])
    earlier = ["How much revenue did 垣工重机 make from cranes (起重机械) in 2024?"]
    assert read(earlier[0], machinery).english
    resolution = standalone("And the gross margin?", earlier, machinery)
    assert (
        resolution.text == "How much gross margin did 垣工重机 make from cranes (起重机械) in 2024?"
    )
    assert "metric revenue -> gross margin" in resolution.carried


def test_a_month_or_a_quarter_switched_is_of_the_earlier_questions_year() -> None:
    """ "9月呢" (jieba: 9 / 月) after a month of 2025 is 2025年9月; 上个月 and 上一季度 step back a
    month and a quarter, not a year (上个月 was read as the same month a year before)."""
    prices = known_of(["动力电池行业"], [], ["电池级碳酸锂", "磷酸铁锂动力电芯"])
    earlier = ["2025年10月电池级碳酸锂均价是多少？"]
    assert standalone("9月呢？", earlier, prices).text == "2025年9月电池级碳酸锂均价是多少？"
    earlier = ["2025年1月磷酸铁锂动力电芯均价是多少？"]
    assert standalone("上个月呢？", earlier, prices).text.startswith("2024年12月磷酸铁锂")
    quarters = known_of(["岳泉酒业"], [], ["营业收入"])
    earlier = ["岳泉酒业2025年第一季度营业收入是多少？"]
    for pointer in ("上一季度呢？", "上个季度呢？"):
        assert "2024年第四季度营业收入" in standalone(pointer, earlier, quarters).text
    assert (
        "2024年营业收入"
        in standalone("上一年呢？", ["岳泉酒业2025年营业收入是多少？"], quarters).text
    )


def test_a_period_with_its_modifier_is_one_period_not_a_metric() -> None:
    """ "2026年预测呢" asks the forecast column: 预测 is no metric to put before the earlier one."""
    peers = known_of(["动力电池行业"], [("沧澜新能", "", ("300861.SZ",))], ["PE", "沧澜新能"])
    resolution = standalone("2026年预测呢？", ["沧澜新能2024年的PE是多少？"], peers)
    assert resolution.text == "沧澜新能2026年预测的PE是多少？"


def test_a_company_given_with_its_ticker_is_a_name_where_a_table_lists_it_as_a_row() -> None:
    """An industry report's company (沧澜新能, 300861.SZ) heads a row of its tables, so the
    profile lists it as a metric too; it was read as one and the report's subject (动力电池行业)
    carried instead."""
    industry = known_of(
        ["动力电池行业"], [("沧澜新能", "", ("300861.SZ",))], ["沧澜新能", "出货量", "动力电池"]
    )
    resolution = standalone("2022年的呢？", ["沧澜新能2024年动力电池出货量是多少？"], industry)
    assert resolution.text.startswith("沧澜新能2022年")
    assert "subject 沧澜新能" in resolution.carried
    # with no ticker, a row's label stays a metric
    assert "沧澜新能" in known_of(["动力电池行业"], [("沧澜新能", "", ())], ["沧澜新能"]).metrics


def test_a_name_jieba_glued_to_the_conjunction_before_it_is_compared() -> None:
    """jieba reads 和锐驰 and 和鹏屿 as one person's name: "和X比呢" asked only X, or "和X" as a
    name; the conjunction is split off, so both are asked."""
    peers = known_of(
        ["动力电池行业", "鹏屿保险"],
        [("沧澜新能", "", ("300861.SZ",)), ("锐驰电池", "", ("688351.SH",))],
        ["市场份额", "核心偿付能力充足率"],
    )
    resolution = standalone("和锐驰电池比呢？", ["沧澜新能2024年市场份额是多少？"], peers)
    assert resolution.text == "沧澜新能和锐驰电池2024年市场份额分别是多少？"
    earlier = ["鹏屿人寿2024年末核心偿付能力充足率是多少？"]
    resolution = standalone("和鹏屿财险比呢？", earlier, peers)
    assert resolution.text.startswith("鹏屿人寿和鹏屿财险2024年末核心偿付能力充足率")


def test_an_english_month_without_its_year_is_of_the_earlier_questions_year() -> None:
    prices = known_of(["动力电池行业"], [], ["average price"])
    earlier = ["What was the average price of LFP power cells in October 2025?"]
    resolution = standalone("And in June?", earlier, prices)
    assert resolution.text == "What was the average price of LFP power cells in June 2025?"
    assert not read("May I ask what the price was?", prices).first("period_part")  # lower "may"
    assert read("Prices in Oct. and Nov.?", prices).of("period_part")


def test_another_metric_after_a_possessive_replaces_the_earlier_ones_modifier_too() -> None:
    """ "core" of "Pengyu Insurance's core solvency ratio" is that metric's: the actual capital
    asked next is not "core actual capital"."""
    insurer = known_of(["鹏屿保险"], [], ["solvency ratio", "actual capital"])
    earlier = ["What was Pengyu Insurance's core solvency ratio at the end of 2024?"]
    resolution = standalone("And the actual capital?", earlier, insurer)
    assert resolution.text == "What was Pengyu Insurance's actual capital at the end of 2024?"
    resolution = standalone("And the comprehensive one?", earlier, insurer)
    assert resolution.text == (
        "What was Pengyu Insurance's comprehensive solvency ratio at the end of 2024?"
    )


def test_a_modifier_the_tables_head_columns_with_is_the_periods() -> None:
    """实际 heads a forecast table's columns (实际值 / 预测值), so the library lists it as a
    metric: after a period it says which column, and the earlier metric is still asked."""
    forecasts = known_of(["垣工重机"], [], ["营业收入", "实际"])
    resolution = standalone("那2023年实际是多少？", ["垣工重机2025年营业收入是多少？"], forecasts)
    assert resolution.text == "垣工重机2023年实际营业收入是多少？"


def test_why_after_a_question_with_no_subject_asks_of_its_fact() -> None:
    """ "为什么下降？" after a price's question (no company) asked only "为什么下降？": the fact
    the earlier question asked is carried, its period with it."""
    prices = known_of(["动力电池行业"], [], ["电池级碳酸锂"])
    resolution = standalone("为什么下降？", ["2025年6月电池级碳酸锂均价是多少？"], prices)
    assert resolution.text == "2025年6月电池级碳酸锂均价为什么下降？"
    assert resolution.carried == ("no subject", "asked 2025年6月电池级碳酸锂均价")


def test_a_years_months_so_far_and_the_same_month_a_year_before() -> None:
    """A monthly announcement's columns (本月, 上年同月, 本年累计, 上年累计) asked as follow-ups:
    本年累计 was read as a metric in the earlier one's place, 1-10月累计 as the metric 10月."""
    port = known_of(["泊潮港口"], [], ["集装箱吞吐量", "货物吞吐量", "本年累计", "10月", "累计"])
    earlier = ["泊潮港口2025年10月集装箱吞吐量是多少？"]
    for pointer in ("本年累计呢？", "1-10月累计呢？"):
        resolution = standalone(pointer, earlier, port)
        assert resolution.text == "泊潮港口2025年1-10月累计集装箱吞吐量是多少？"
    assert (
        standalone("上年同月呢？", earlier, port).text == "泊潮港口2024年10月集装箱吞吐量是多少？"
    )
    earlier = ["泊潮港口2025年1-10月累计货物吞吐量是多少？"]
    assert (
        standalone("上年累计呢？", earlier, port).text
        == "泊潮港口2024年1-10月累计货物吞吐量是多少？"
    )


def test_a_month_or_quarter_asked_without_its_year_is_of_the_reports_last_year() -> None:
    """ "泊潮港口10月…" names no year: the month is of the last year the port's report covers, so
    上个月, 上年同月 and 年初至今 after it have a month to move (上个月 was answered with 10月 itself,
    上年同月 with 2025's); without the library's year the question is left as it was."""
    port = known_of(["泊潮港口", "海星速运"], [], ["集装箱吞吐量", "营业收入"],
                    {"泊潮港口": ["2024", "2025"], "海星速运": ["2024Q3", "2025Q3", "2026E"]})  # fmt: skip
    earlier = ["泊潮港口10月集装箱吞吐量是多少？"]
    expected = {
        "上个月呢？": "泊潮港口2025年9月集装箱吞吐量是多少？",
        "前一个月呢？": "泊潮港口2025年9月集装箱吞吐量是多少？",
        "上年同月呢？": "泊潮港口2024年10月集装箱吞吐量是多少？",
        "去年同期呢？": "泊潮港口2024年10月集装箱吞吐量是多少？",
    }
    for question, written_out in expected.items():
        assert standalone(question, earlier, port).text == written_out
    earlier = ["海星速运三季度营业收入是多少？"]  # 三季度, no 季度营业收入
    assert standalone("去年同期呢？", earlier, port).text == "海星速运2024年三季度营业收入是多少？"
    assert (
        standalone("上一季度呢？", earlier, port).text == "海星速运2025年第二季度营业收入是多少？"
    )
    unknown = known_of(["泊潮港口"], [], ["集装箱吞吐量"])  # no periods: no year to give
    assert (
        "2025" not in standalone("上个月呢？", ["泊潮港口10月集装箱吞吐量是多少？"], unknown).text
    )


@pytest.mark.parametrize(
    ("previous", "question", "expected"),
    [
        ("What was Bochao Port's throughput in October 2025?", "And the same month last year?",
         "What was Bochao Port's throughput in October 2024?"),
        ("What was Bochao Port's throughput in October 2025?", "And the previous month?",
         "What was Bochao Port's throughput in September 2025?"),
        ("What was Bochao Port's revenue in Q1 2025?", "And last quarter?",
         "What was Bochao Port's revenue in Q4 2024?"),
    ],
)  # fmt: skip
def test_english_month_quarter_and_year_pointers(
    previous: str, question: str, expected: str
) -> None:
    port = known_of(
        ["泊潮港口"], [("泊潮港口", "泊潮港口", ("Bochao Port",))], ["throughput", "revenue"]
    )
    assert standalone(question, [previous], port).text == expected


def test_a_reports_own_period_columns_are_periods_of_a_follow_up() -> None:
    """A quarterly or interim report's columns (本报告期, 年初至报告期末, 报告期末, 上年度末, 上年同期)
    are periods, not metrics in the earlier metric's place; 年初 is the year before's end; a
    date keeps its day."""
    report = known_of(
        ["澜拓精密"],
        [],
        ["营业收入", "总资产", "归母净利润", "毛利率", "年初至报告期末", "上年度末", "本报告期"],
    )
    earlier = ["澜拓精密2025年第三季度营业收入是多少？"]
    resolution = standalone("年初至报告期末呢？", earlier, report)
    assert resolution.text == "澜拓精密年初至报告期末营业收入是多少？"
    resolution = standalone("上年度末呢？", ["澜拓精密报告期末总资产是多少？"], report)
    assert resolution.text == "澜拓精密上年度末总资产是多少？"
    resolution = standalone("年初呢？", ["澜拓精密2025年9月30日总资产是多少？"], report)
    assert resolution.text == "澜拓精密2024年末总资产是多少？"
    resolution = standalone("去年同期是多少？", ["澜拓精密本报告期归母净利润是多少？"], report)
    assert resolution.text == "澜拓精密去年同期归母净利润是多少？"


def test_a_growth_term_alone_or_against_another_period_asks_of_the_earlier_fact() -> None:
    """同比增长 is a term of our dictionary, which jieba tags like punctuation: the follow-up
    had no piece and stayed as written; 变化 (a verbal noun) after 比上年同期 hid that it asks
    of the earlier fact."""
    report = known_of(["禾溪生物"], [], ["营业收入", "毛利率", "酶制剂"])
    resolution = standalone("同比增长多少？", ["禾溪生物2025年上半年营业收入是多少？"], report)
    assert resolution.text.startswith("禾溪生物2025年上半年营业收入")
    assert resolution.text.endswith("同比增长多少？")
    earlier = ["禾溪生物2025年上半年酶制剂毛利率是多少？"]
    resolution = standalone("比上年同期变化多少？", earlier, report)
    assert resolution.text == "禾溪生物2025年上半年酶制剂毛利率比2024年上半年变化多少？"


def test_a_conjunction_and_bi_set_the_earlier_fact_beside_another_period() -> None:
    """ "和去年同期比增长了多少？" (a conjunction before the period, 比 after it) compares as
    "比去年同期…" does; it was read as 增长 of the year before."""
    smic = known_of(["中芯国际"], [], ["营业收入", "增长"])  # a table's 增长 column: a metric
    earlier = ["中芯国际2024年前三季度营业收入是多少？"]
    resolution = standalone("和去年同期比增长了多少？", earlier, smic)
    assert resolution.text == "中芯国际2024年前三季度营业收入和2023年前三季度比增长了多少？"
    resolution = standalone("与上年同期相比增长了多少？", earlier, smic)
    assert resolution.text.startswith("中芯国际2024年前三季度营业收入与2023年前三季度相比")


@pytest.mark.parametrize(
    ("previous", "question", "expected"),
    [
        ("中芯国际2024年营业收入是多少？", "和2023年比呢？", "中芯国际2024年营业收入比2023年增长多少？"),
        ("中芯国际2024年营业收入同比增长多少？", "和2022年相比呢？", "中芯国际2024年营业收入比2022年增长多少？"),
        ("Orvella 2025年二季度营收是多少？", "和一季度比呢？", "Orvella 2025年二季度营收比2025年一季度增长多少？"),
    ],
)  # fmt: skip
def test_a_period_set_beside_the_earlier_one_asks_the_change_between_them(
    previous: str, question: str, expected: str
) -> None:
    """ "和2023年比呢？" was read as a switch to 2023 (or garbled a part of a year into the
    earlier one's); it asks how the earlier fact changed against that period."""
    known = known_of(["中芯国际", "Orvella"], [], ["营业收入", "营收"])
    assert standalone(question, [previous], known).text == expected


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("And last year?", "What was Rongcheng Bank's net interest margin in 2023?"),
        ("And in the preceding year?", "What was Rongcheng Bank's net interest margin in 2023?"),
        ("What was it the year before?", "What was Rongcheng Bank's net interest margin in 2023?"),
        ("And what was it in the prior year?",
         "And what was Rongcheng Bank's net interest margin in 2023?"),
        ("What about the same period last year?",
         "What was Rongcheng Bank's net interest margin in 2023?"),
        ("What about two years earlier?", "What was Rongcheng Bank's net interest margin in 2022?"),
        ("How did it compare with the prior year?",
         "How did Rongcheng Bank's net interest margin compare with 2023 in 2024?"),
    ],
)  # fmt: skip
def test_english_period_pointers_as_readers_write_them(question: str, expected: str) -> None:
    """An English pointer is read by its grammar: "last year" was read as a metric, "the
    preceding year" not at all; put in place of the pointer the period reads as written ("in
    2023", not "2023 in 2024"), and a period set beside the earlier one keeps both."""
    bank = known_of(["嵘城银行"], [("嵘城银行", "嵘城银行", ("Rongcheng Bank",))],
                    ["net interest margin"], {"嵘城银行": ["2023", "2024"]})  # fmt: skip
    earlier = ["What was Rongcheng Bank's net interest margin in 2024?"]
    assert standalone(question, earlier, bank).text == expected


@pytest.mark.parametrize(
    ("previous", "question", "expected"),
    [
        ("中芯国际2024年四个季度营收合计多少？", "那平均呢？", "中芯国际2024年四个季度营收平均多少？"),
        ("中芯国际2024年四个季度营收的平均值是多少？", "合计呢？",
         "中芯国际2024年四个季度营收的合计是多少？"),
        ("中芯国际2024年营业收入同比增长多少？", "环比呢？", "中芯国际2024年营业收入环比增长多少？"),
        # a metric switched is still a metric switched
        ("中芯国际2024年营收合计多少？", "净利润呢？", "中芯国际2024年净利润合计多少？"),
    ],
)  # fmt: skip
def test_a_follow_up_that_changes_only_the_operation(
    previous: str, question: str, expected: str
) -> None:
    """平均 after 合计, 环比 after 同比: the words of the earlier question naming its operation
    (by the operation model's weights for them) give way to the follow-up's, the metric kept
    (it was "平均营收合计", "同比环比增长")."""
    known = known_of(["中芯国际"], [], ["营收", "合计", "营业收入", "同比", "净利润"])
    assert standalone(question, [previous], known).text == expected


@pytest.mark.parametrize(
    ("previous", "question", "expected"),
    [
        ("What is Orvella's revenue guidance for Q3 2025?", "What growth does that imply?",
         "What growth does Orvella's revenue guidance imply in Q3 2025?"),
        ("What was Muxi Foods' gross margin in Q3 2025?",
         "How does that compare with the industry average?",
         "How does Muxi Foods' gross margin compare with the industry average in Q3 2025?"),
        ("What was Muxi Foods' gross margin in Q3 2025?", "How does that compare with last year?",
         "How does Muxi Foods' gross margin compare with Q3 2024 in Q3 2025?"),
    ],
)  # fmt: skip
def test_an_english_that_is_the_earlier_fact_at_its_period(
    previous: str, question: str, expected: str
) -> None:
    """ "that" and "this" point at the earlier fact as "it" does: its subject, metric with the
    words running on from it (revenue guidance) and, when the follow-up names none, its period
    (these questions were left as asked)."""
    known = known_of(["Orvella", "沐溪食品"], [("沐溪食品", "沐溪食品", ("Muxi Foods",))],
                     ["revenue", "gross margin"])  # fmt: skip
    assert standalone(question, [previous], known).text == expected


@pytest.mark.parametrize(
    ("previous", "question", "expected"),
    [
        # an earlier question with no subject: the rate asked is of its fact (it stood alone)
        ("报告期内营业收入是多少？", "同比增长多少？", "报告期内营业收入的同比增长多少？"),
        # the earlier period written before the subject is kept (it was dropped)
        ("2024年全球工业机器人销量是多少？", "同比增长多少？",
         "工业机器人行业2024年销量的同比增长多少？"),
    ],
)  # fmt: skip
def test_a_rate_asked_of_the_earlier_fact_keeps_its_period(
    previous: str, question: str, expected: str
) -> None:
    known = known_of(["沐溪食品", "工业机器人行业"], [], ["营业收入", "销量"])
    assert standalone(question, [previous], known).text == expected


def test_an_english_possessive_follows_the_name_put_in() -> None:
    """ "Muxi Foods' gross margin" with Chuanhe in its place is "Chuanhe's" (it was "Chuanhe'")."""
    known = known_of(["沐溪食品"], [("沐溪食品", "沐溪食品", ("Muxi Foods",))], ["gross margin"])
    earlier = ["What was Muxi Foods' gross margin in Q3 2025?"]
    assert standalone("What about Chuanhe?", earlier, known).text == (
        "What was Chuanhe's gross margin in Q3 2025?"
    )
    assert standalone("And Dingwei Foods?", earlier, known).text == (
        "What was Dingwei Foods' gross margin in Q3 2025?"
    )
