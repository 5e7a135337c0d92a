"""Names read off a question and off a report: jieba's proper nouns, Latin names, the noun a
question asks for, pinyin names, and a report's own subject names."""

from __future__ import annotations

import pytest

from rag_app.models import Chunk
from rag_app.text.names import (
    content_words,
    head_noun,
    is_place,
    leading_name,
    proper_names,
    qualified_noun,
    source_clause,
    title_genres,
)
from rag_app.text.pinyin import sounds_like
from rag_app.text.subjects import covers, is_listed, subject_names


@pytest.mark.parametrize(
    ("question", "names"),
    [
        ("东栎机器人的董事长是谁？", ("东栎机器人",)),
        ("Orvella二季度在德国的收入是多少？", ("德国", "Orvella")),
        ("What was Sorvik Robotics' revenue in 2024?", ("Sorvik Robotics",)),
        ("How much revenue did Halvorsen Marine make in 2024?", ("Halvorsen Marine",)),
        ("What are the 2025E gross margins of SMIC?", ()),  # "What" asks; SMIC is an acronym
        ("Zephyr Mobility（ZPHR）上半年收入多少？", ("Zephyr Mobility",)),
    ],
)
def test_the_names_a_question_gives(question: str, names: tuple[str, ...]) -> None:
    assert proper_names(question) == names


@pytest.mark.parametrize(
    ("question", "leave_out", "head"),
    [
        ("澄远智能2024年末资产负债率是多少？", ("澄远智能",), "资产负债率"),
        ("拓衡传感2023年速动比率是多少？", ("拓衡传感",), "速动 比率"),
        ("中芯国际营收同比增速在2023Q4之后呈现什么变化？", ("中芯国际",), ""),
        ("比亚迪泰国罗勇工厂是什么时候投产的？", ("比亚迪",), ""),
        # jieba reads 退保 率 as two verbs: the rate of what the verb names is the noun
        ("鹏屿保险2024年的退保率是多少？", ("鹏屿保险",), "退保率"),
    ],
)
def test_the_noun_a_question_asks_for(question: str, leave_out: tuple[str, ...], head: str) -> None:
    assert head_noun(question, leave_out) == head


def test_content_words_leave_out_names_periods_and_function_words() -> None:
    assert content_words("北辰智控2024年的营业收入是多少？", ("北辰智控",)) == ("营业收入",)
    assert content_words("东栎机器人的董事长是谁？", ("东栎机器人",), nouns=True) == ("董事长",)


def test_pinyin_names_and_places() -> None:
    assert sounds_like("LONGi", "隆基绿能") and sounds_like("Hua Hong", "华虹半导体")
    assert sounds_like("Chengyuan Intelligent", "江苏澄远智能装备股份有限公司")
    assert not sounds_like("Brightline Dynamics", "江苏澄远智能装备股份有限公司")
    assert is_place("德国") and is_place("中国制造业") and not is_place("华虹")


def _chunk(n: int, text: str, title: str, page: int = 0, kind: str = "text") -> Chunk:
    return Chunk(
        chunk_id=f"d:{n}", doc_id="d", type=kind, text=text, search_text=f"{title}\n{text}",
        item_indices=(n,), pages=(page,),
    )  # fmt: skip


def test_a_report_names_its_company_with_a_ticker_or_in_legal_form() -> None:
    ticker = [_chunk(0, "正文", "中芯国际（688981.SH）深度报告：产能扩张")]
    assert subject_names(ticker)[:2] == ("中芯国际", "688981.SH")
    # a title that is a section heading: the legal name its first page gives, named often
    section = "第二节 公司简介和主要财务指标"
    annual = [
        _chunk(0, "公司的中文名称 江苏澄远智能装备股份有限公司 Jiangsu Chengyuan Intelligent "
                  "Equipment Co., Ltd.", section),
        *[_chunk(i, f"澄远智能第{i}项业务稳步增长。", section, page=1) for i in range(1, 4)],
    ]  # fmt: skip
    names = subject_names(annual)
    assert names[0] == "江苏澄远智能装备股份有限公司" and is_listed(names[0])
    assert covers(names, "澄远智能") and covers(names, "Chengyuan Intelligent")
    assert not covers(names, "Chengyuan Robotics Holdings")  # two words must match
    # a legal name of four characters before its form: those four are its short name
    bank = [
        _chunk(0, "嵘城银行股份有限公司2024年年度报告", "嵘城银行股份有限公司2024年年度报告"),
        *[_chunk(i, f"嵘城银行第{i}项业务稳步增长。", "年度报告", page=1) for i in range(1, 4)],
    ]  # fmt: skip
    assert subject_names(bank)[:2] == ("嵘城银行股份有限公司", "嵘城银行")
    # its English name as a filing writes it, in capitals with "of": the name before the form
    bank[0] = _chunk(
        0, "法定英文名称 BANK OF RONGCHENG CO., LTD. 嵘城银行股份有限公司", bank[0].text
    )
    assert {"BANK OF RONGCHENG CO., LTD.", "Bank of Rongcheng"} <= set(subject_names(bank))
    assert covers(subject_names(bank), "Bank of Rongcheng")
    # an industry report's title names its topic, which its text writes in part: the topic is
    # its subject, not the leading company its first page names in legal form
    title = "动力电池行业2026年度策略：格局趋稳"
    industry = [
        _chunk(0, "龙头沧澜新能源科技股份有限公司（Canglan New Energy Technology Co., Ltd.）"
                  "份额稳居第一，动力电池装车量持续增长。", title),
        *[_chunk(i, f"沧澜新能第{i}季度动力电池出货量增长。", title, page=1) for i in range(1, 4)],
    ]  # fmt: skip
    assert subject_names(industry) == ("动力电池行业",)
    # a story naming a company once is not about it
    story = [_chunk(0, "据中国铁路南宁局集团有限公司消息，暑运客流创新高。", "暑运客流创新高")]
    assert subject_names(story) == () or not is_listed(subject_names(story)[0])


@pytest.mark.parametrize(
    ("question", "leave_out", "read"),
    [
        (
            "拓衡传感2023年投资活动产生的现金流量净额是多少？",
            ("拓衡传感",),
            ("投资活动产生的现金流量净额", ("投资", "活动", "产生"), "净额"),
        ),
        ("拓衡传感董事会有几名独立董事？", ("拓衡传感",), ("独立董事", ("独立",), "董事")),
        (
            "Orvella二季度经营活动现金流净额是多少？",
            ("Orvella",),
            ("经营活动现金流净额", ("经营", "活动"), "净额"),
        ),
        ("拓衡传感2023年营业收入多少？", ("拓衡传感",), ("", (), "")),  # nothing qualifies it
        ("澄远智能营业收入是多少？和2023年比呢？", ("澄远智能",), ("", (), "")),  # two clauses
    ],
)
def test_the_noun_a_question_asks_is_read_with_what_qualifies_it(
    question: str, leave_out: tuple[str, ...], read: tuple[str, tuple[str, ...], str]
) -> None:
    assert qualified_noun(question, leave_out) == read


@pytest.mark.parametrize(
    ("question", "name"),
    [
        ("报告给出的目标价是多少？", ""),  # a report saying something: a clause, no company
        ("管理层表示的2025年指引是什么？", ""),
        ("分析师预计的2025年净利润是多少？", ""),
        ("北辰智控2024年的营业收入是多少？", "北辰智控"),
        ("三一重工2024年营收是多少？", "三一重工"),  # not a quarter's 三 and 一
        ("2024年第一季度中芯国际的营收是多少？", "中芯国际"),
        ("2024年末中芯国际的产能是多少？", "中芯国际"),
        ("初灵信息2024年营收是多少？", "初灵信息"),  # 初 of a year only after one
        ("新希望2024年营收是多少？", "新希望"),
        ("2025年1-9月销售收入合计多少亿元？", ""),  # a metric first: 销售 is no name
        ("营业收入是多少？", ""),
        ("2025年10月商品猪占生猪销售量的比例是多少？", ""),  # nouns a verb (占) relates
        ("2024年全年公司一共实现营业收入多少？", ""),  # a common noun, then what it did
        ("今年公司累计实现归母净利润多少亿元？", ""),
        ("表中三家可比公司2026年PE的平均值是多少？", ""),  # a count among its words
        ("三只松鼠2024年营收是多少？", "三只松鼠"),  # a count its name starts with
        ("四家可比公司PB的平均值是多少倍？", ""),  # a count first, then what they are
        ("两家公司营收合计多少？", ""),  # a count alone
    ],
)
def test_a_question_leads_with_a_name_not_with_a_clause(question: str, name: str) -> None:
    assert leading_name(question) == name


def test_a_title_says_what_the_document_calls_itself() -> None:
    assert "报告" in title_genres("中芯国际（688981.SH）深度报告：产能扩张稳步推进")
    assert "年度报告" in title_genres("江苏澄远智能装备股份有限公司2024年年度报告")
    assert "招股说明书" in title_genres("杭州拓衡传感科技股份有限公司　招股说明书（申报稿）")


@pytest.mark.parametrize(
    ("question", "clause"),
    [
        ("报告给出的目标价是多少？", "报告给出的"),
        ("研报预测的2026年营收是多少？", "研报预测的"),  # 研报: X报 of a 报告
        ("该行年报披露的不良贷款率是多少？", "该行年报披露的"),  # 年报 of 年度报告
        ("招股书披露的募集资金是多少？", "招股书披露的"),
        ("文中提到的目标价是多少？", "文中提到的"),  # said in the text
        ("报告中提到的12英寸产能是多少？", "报告中提到的"),
        ("拓衡传感2023年投资活动产生的现金流量净额是多少？", ""),  # what is asked, no source
        ("中芯国际有几名独立董事？", ""),
    ],
)
def test_the_clause_naming_the_source_is_told_from_what_is_asked(
    question: str, clause: str
) -> None:
    genres = (
        title_genres("中芯国际（688981.SH）深度报告：产能扩张稳步推进")
        | title_genres("江苏澄远智能装备股份有限公司2024年年度报告")
        | title_genres("杭州拓衡传感科技股份有限公司　招股说明书（申报稿）")
    )
    assert source_clause(question, genres) == clause


@pytest.mark.parametrize(
    ("question", "name"),
    [
        ("排名前三的晶圆代工厂是哪几家？", ""),  # starts with a verb of the dictionary
        ("锐拓科技2023年末的资产负债率是多少？", "锐拓科技"),  # a brand jieba guesses a verb
        # one word of the dictionary, a verb, adjective or time, before the metric: no name
        ("2025年预测净利润是多少？", ""),
        ("预计2025年营收是多少？", ""),
        ("累计营收是多少？", ""),
        ("格力2024年营收是多少？", "格力"),
        ("华虹2024年营收是多少？", "华虹"),
        ("新希望2024年营收是多少？", "新希望"),
    ],
)
def test_a_run_starting_with_a_verb_is_no_name_unless_jieba_guessed_it(
    question: str, name: str
) -> None:
    assert leading_name(question) == name


def test_an_announcements_title_gives_its_company_up_to_the_legal_form() -> None:
    from rag_app.models import Chunk
    from rag_app.text.subjects import subject_words

    title = "澜禾牧业股份有限公司关于2025年10月生猪销售情况的简报"
    chunk = Chunk("a:1", "a", "text", "正文", f"{title} > 正文", (0,))
    assert subject_words(chunk) == frozenset({"澜禾牧业股份有限公司"})


def test_a_chinese_question_led_by_a_latin_name_names_it() -> None:
    from rag_app.text.names import leading_name

    assert leading_name("Orvella上半年净利润多少？") == "Orvella"
    assert leading_name("Thornbury Bank 2024年末不良贷款率是多少？") == "Thornbury Bank"
    assert leading_name("PE是多少？") == ""  # a metric, not a name
    assert leading_name("中芯国际2024年营收") == "中芯国际"
