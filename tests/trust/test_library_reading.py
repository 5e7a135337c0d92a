"""The question read against what the library holds (a company's own report, an industry
report that only ranks other companies): a company only mentioned, a place the report does not
write, a metric it does not give, a year only a date names, an English name by its pinyin. Two
small content lists in the shape MinerU writes; the deterministic hash embedder."""

from __future__ import annotations

import json

import pytest

from rag_app.index.library import Library
from rag_app.trust.answerability import assess
from rag_app.understand.analysis import analyse_query
from tests.conftest import hash_library

SECTION = "第二节 公司简介和主要财务指标"


def _table(rows: list[list[str]], caption: str = "", page: int = 0) -> dict:
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in r) + "</tr>" for r in rows)
    return {"type": "table", "table_caption": [caption] if caption else [],
            "table_body": f"<table>{body}</table>", "page_idx": page}  # fmt: skip


def _text(text: str, page: int = 0, level: int = 0) -> dict:
    item: dict = {"type": "text", "text": text, "page_idx": page}
    if level:
        item["text_level"] = level
    return item


ANNUAL = [
    _text(SECTION, level=1),
    _table(
        [
            ["公司的中文名称", "江苏澄远智能装备股份有限公司"],
            ["公司的中文简称", "澄远智能"],
            ["公司的外文名称", "Jiangsu Chengyuan Intelligent Equipment Co., Ltd."],
            ["信息披露日期", "2025年4月18日"],
        ]
    ),  # fmt: skip
    _text("澄远智能主营工业机器人，澄远智能的产品覆盖多关节机器人与协作机器人。"),
    _table(
        [
            ["主要会计数据", "2024年", "2023年", "2022年"],
            ["营业收入（元）", "3,286,451,209.37", "2,915,337,804.12", "2,466,102,331.58"],
            [
                "经营活动产生的现金流量净额（元）",
                "405,318,962.74",
                "198,460,112.31",
                "176,502,998.20",
            ],
            [
                "归属于上市公司股东的净利润（元）",
                "312,684,550.21",
                "268,115,402.77",
                "221,937,018.40",
            ],
        ],
        "单位：元",
        page=1,
    ),  # fmt: skip
    _text("海外市场方面，澄远智能在越南新设服务中心，境外业务稳步推进。", page=1),
    _text("公司主要子公司为常州澄远机器人有限公司（持股100%）。", page=1),
    _table(
        [
            ["公司", "总部", "2024年营业收入（亿元）"],
            ["澄远智能", "常州", "32.86"],
            ["Brightmoor Robotics", "美国", "58.10"],
        ],
        "表5：同行业可比公司",
        page=2,
    ),  # fmt: skip
    _table(
        [
            ["存款类别", "2024年末（亿元）"],
            ["企业存款", "12.4"],
            ["个人存款", "3.1"],
        ],
        "表6：客户存款构成",
        page=2,
    ),  # fmt: skip
]
INDUSTRY = [
    _text("工业机器人行业深度报告：国产替代进入深水区", level=1),
    _text("2024年中国工业机器人销量30.9万台，国产品牌份额继续提升；力传感器国产化率仍低。"),
    _table(
        [
            ["排名", "厂商", "销量（万台）", "市场份额（%）"],
            ["1", "北辰智控", "2.9", "9.4"],
            ["2", "东栎机器人", "2.1", "6.8"],
            ["3", "澄远智能", "1.7", "5.5"],
        ],
        "表2：2024年中国工业机器人市场竞争格局（按销量）",
    ),  # fmt: skip
    _table(
        [
            ["月份", "2025年1月", "2025年2月", "2025年3月"],
            ["谐波减速器均价（元/台）", "1,850", "1,820", "1,790"],
        ],
        "表3：谐波减速器月度均价",
    ),  # fmt: skip
    _text("2019年以来，国产机器人品牌持续扩产，产品线不断丰富；北辰智控市场份额逐年提升。"),
    _text("资料来源：中广证券研究所"),
]


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory, counter) -> Library:  # type: ignore[no-untyped-def]
    folder = tmp_path_factory.mktemp("reading")
    paths = []
    for name, items in (("annual", ANNUAL), ("industry", INDUSTRY)):
        path = folder / f"{name}_content_list.json"
        path.write_text(json.dumps(items, ensure_ascii=False), encoding="utf-8")
        paths.append(path)
    return hash_library(folder, counter, paths)


def _finding(library: Library, question: str):  # type: ignore[no-untyped-def]
    return assess(analyse_query(question), library, "default")


def test_the_profile_knows_which_company_a_report_is_about(library: Library) -> None:
    profiles = library.profiles("default")
    assert profiles["annual"].subject == "江苏澄远智能装备股份有限公司"
    assert profiles["industry"].subject == "工业机器人行业深度报告"


def test_a_company_only_ranked_is_answered_only_for_what_the_ranking_gives(
    library: Library,
) -> None:
    chairman = _finding(library, "东栎机器人的董事长是谁？")
    assert chairman.declines and chairman.gaps[0].kind == "mentioned"
    assert "表2" in chairman.note() and "东栎机器人" in chairman.note()
    assert not _finding(library, "东栎机器人的市场份额是多少？").declines
    assert _finding(library, "北辰智控2024年的营业收入是多少？").declines


def test_what_the_company_report_does_not_hold_is_said(library: Library) -> None:
    place = _finding(library, "澄远智能在越南的销售收入是多少？")  # 越南 written, no revenue there
    assert place.declines and place.gaps[0].kind == "name"
    metric = _finding(library, "澄远智能2024年末资产负债率是多少？")
    assert metric.declines and metric.gaps[0].kind == "metric"
    # 2025 is only a date in the fact sheet, not a year the report gives figures for
    year = _finding(library, "澄远智能2025年的营业收入是多少？")
    assert year.declines and year.gaps[0].kind == "period"
    assert not _finding(library, "澄远智能2024年的营业收入是多少？").gaps


def test_english_names_are_held_by_their_words_or_their_pinyin(library: Library) -> None:
    absent = _finding(library, "What was Brightline Dynamics' revenue in 2024?")
    assert absent.declines and absent.gaps[0].kind == "subject"
    assert not _finding(library, "What was Chengyuan Intelligent's revenue in 2024?").declines
    assert not _finding(library, "澄远智能2024年的归母净利润是多少？").declines
    # an acronym the question leads with as a name, which no report writes, among several
    # companies' reports: not presumed to be any of them, nor held against the library (SMIC
    # of 中芯国际 beside other reports is answered from what retrieval finds)
    assert not _finding(library, "What was BRTX's revenue in 2024?").gaps


def test_a_noun_written_but_not_as_the_question_qualifies_it_is_said(library: Library) -> None:
    # the report gives the operating line's 现金流量净额, never the investing one's
    investing = _finding(library, "澄远智能2024年投资活动产生的现金流量净额是多少？")
    assert investing.declines and investing.gaps[0].kind == "metric"
    assert "投资活动产生的现金流量净额" in investing.note()
    assert not _finding(library, "澄远智能2024年经营活动产生的现金流量净额是多少？").declines
    # a question of several clauses asks more than one noun: not read this way
    assert not _finding(
        library, "澄远智能2024年营业收入是多少？和2023年的比，增长了多少？"
    ).declines


def test_a_company_no_report_covers_is_said_even_when_a_word_of_its_name_is_written(
    library: Library,
) -> None:
    # 传感 (a common word, of 力传感器) is written; 拓衡传感 is not: no report of it
    absent = _finding(library, "拓衡传感有几名独立董事？")
    assert absent.declines and absent.gaps[0].kind == "subject"
    # the annual report's title is a section heading: it is held as 澄远智能, not as 第二节
    assert "澄远智能" in absent.note() and "第二节" not in absent.note()


def test_a_place_in_another_companys_row_is_not_the_subjects(library: Library) -> None:
    # 美国 is written only as the headquarters of a peer in the comparison table
    us = _finding(library, "澄远智能在美国的销售收入是多少？")
    assert us.declines and us.gaps[0].kind == "name" and us.gaps[0].asked == "美国"
    # a row of its own (常州 in 澄远智能's row) holds the place
    assert not any(
        g.kind == "name" for g in _finding(library, "澄远智能在常州的营业收入是多少？").gaps
    )


def test_a_verb_and_its_object_are_no_qualified_metric(library: Library) -> None:
    # "来自个人" asks which part of the deposits: the 个人存款 row, not a metric 来自个人
    assert not _finding(library, "澄远智能的客户存款有多少来自个人？").declines
    assert not _finding(library, "澄远智能的存款主要来自个人吗？").declines


def test_a_report_s_name_run_on_into_the_question_is_cut_at_the_name(library: Library) -> None:
    # no delimiter after the name: still the report's company, and the investing line unheld
    investing = _finding(library, "澄远智能投资活动产生的现金流量净额是多少？")
    assert investing.declines and investing.gaps[0].kind == "metric"


def test_what_is_worked_out_of_a_held_metric_is_no_missing_metric(library: Library) -> None:
    # the average and the compound growth are worked out of the 营业收入 the report gives
    for question in (
        "澄远智能2022年到2024年营业收入的年均复合增长率是多少？",
        "澄远智能2022年至2024年营业收入的平均值是多少？",
        "澄远智能2024年营业收入减去归属于上市公司股东的净利润是多少？",
    ):
        assert not _finding(library, question).declines, question
    # a metric the report does not give stays missing when something is worked out of it
    assert _finding(library, "澄远智能2022年到2024年资产负债率的平均值是多少？").declines


def test_a_month_after_a_monthly_series_ends_is_said_with_the_months_held(
    library: Library,
) -> None:
    april = _finding(library, "2025年4月谐波减速器均价是多少？")
    assert april.declines and april.gaps[0].kind == "period"
    assert april.gaps[0].held == ("2025年1月", "2025年3月")
    assert "2025年4月的数据" in april.note()  # a month: no 年 after it
    english = _finding(library, "What was the harmonic reducer price in April 2025?")
    assert english.declines and english.gaps[0].asked == "2025年4月"
    assert not _finding(library, "2025年3月谐波减速器均价是多少？").declines
    assert not _finding(library, "2025年3月谐波减速器均价比1月低多少？").declines


def test_a_company_a_report_only_names_in_a_sentence_is_only_mentioned(library: Library) -> None:
    # the annual report names its subsidiary once; its figures are the group's
    subsidiary = _finding(library, "常州澄远机器人有限公司2024年的营业收入是多少？")
    assert subsidiary.declines and subsidiary.gaps[0].kind == "mentioned"
    assert not _finding(library, "澄远智能2024年的营业收入是多少？").declines


def test_two_names_joined_by_one_character_are_read_apart(library: Library) -> None:
    # the report's author, then the company its ranking gives: read as the company
    share = _finding(library, "中广证券对北辰智控的市场份额是多少？")
    assert not share.declines, share
    chairman = _finding(library, "中广证券对北辰智控的董事长是谁？")
    assert chairman.declines and chairman.gaps[0].asked == "北辰智控"


def test_a_rate_of_what_a_verb_names_is_a_metric_asked(library: Library) -> None:
    # jieba reads 退保 率 as two verbs: still the rate 退保率, which no report gives
    surrender = _finding(library, "澄远智能2024年的退保率是多少？")
    assert surrender.declines and surrender.gaps[0].asked == "退保率"


def test_joined_names_are_split_where_the_library_writes_both() -> None:
    from rag_app.trust.asked_names import joined as _joined

    texts = ["资料来源：柏湾证券研究所", "表1 华棱动力 47.2"]
    assert _joined(("柏湾证券对华棱动力",), texts) == ("华棱动力", "柏湾证券", "柏湾证券对华棱动力")
    # written as a whole, or one part unwritten: kept as it is
    assert _joined(("华棱动力",), texts) == ("华棱动力",)
    assert _joined(("柏湾证券对恒湃锂能",), texts) == ("柏湾证券对恒湃锂能",)


def test_a_two_character_short_form_of_a_label_is_held() -> None:
    from rag_app.trust.document_reading import Document

    document = Document(
        subjects=frozenset(), names=(), listed=True, title="", genres=frozenset(), entities=(),
        text="", chunks=(), labels=("生猪销售量（万头）", "营业收入"), quantities=frozenset(), exhibits=(), headers=(),
        table_years=frozenset(), table_periods=frozenset(),
    )  # fmt: skip
    assert document.writes("销量") and document.gives_value("销量")  # 销售量, unit aside
    assert not document.writes("产量") and not document.shortens("收入量")


def test_a_label_of_a_quantity_is_no_name_but_a_companys_row_is() -> None:
    from rag_app.trust.asked_names import asked_names
    from rag_app.trust.document_reading import Document

    fund = Document(
        subjects=frozenset(), names=("汀岚景和混合",), listed=True, title="", genres=frozenset(),
        entities=("岑岭微电子",), text="公允价值（元） 岑岭微电子 川禾食品", chunks=(),
        labels=("公允价值", "川禾食品"), quantities=frozenset({"公允价值"}), exhibits=(), headers=(),
        table_years=frozenset(), table_periods=frozenset(),
    )  # fmt: skip
    # jieba tags 公允 a person's name; the tables label a quantity in 元 with it
    assert asked_names("第一大重仓股的公允价值是多少元？", "", [fund]) == ()
    # nor run on into what is asked of it (公允价值合计: jieba's name, then a noun)
    assert asked_names("前十大重仓股公允价值合计占股票投资金额的比例是多少？", "", [fund]) == ()
    # a row of a table (another company's, no unit) is still a name asked
    assert asked_names("川禾食品三季度毛利率是多少？", "川禾食品", [fund]) == ("川禾食品",)
    # a held name glued to the word before it (中, among) is cut to the held name
    assert asked_names("前十大重仓股中岑岭微电子的公允价值是多少？", "", [fund]) == ("岑岭微电子",)
    # what comes before a held name describes it; it is not the metric asked
    from rag_app.trust.answerability import _from_name

    asked = ("岑岭微电子",)
    assert (
        _from_name("第一大重仓股岑岭微电子持有多少股？", asked, ["f"], {"f": fund})
        == "岑岭微电子持有多少股？"
    )
    assert _from_name(
        "第一大重仓股鹏屿科技持有多少股？", ("鹏屿科技",), ["f"], {"f": fund}
    ).startswith("第一")


def test_a_change_or_a_part_of_a_year_is_no_metric_of_its_own(library: Library) -> None:
    # 环比增长 worked out of 营业收入, which the table gives; 上半年, 4月份: periods
    for question in (
        "澄远智能2024年营业收入环比增长了多少？",
        "澄远智能上半年平均每月营业收入是多少？",
        "澄远智能4月份营业收入是多少？",
    ):
        assert not any(g.kind == "metric" for g in _finding(library, question).gaps), question


def test_a_figure_no_report_in_scope_has_is_a_gap_its_figures_are_not() -> None:
    from rag_app.trust.document_reading import Document
    from rag_app.trust.exhibits import exhibit_gap
    from rag_app.understand.analysis import analyse_query

    report = Document(
        subjects=frozenset(), names=("岳泉酒业",), listed=True, title="", genres=frozenset(),
        entities=(), text="如图2所示，产品结构持续升级", chunks=(), labels=(), quantities=frozenset(),
        exhibits=(("image", "图1"), ("image", "图2"), ("table", "表1")), headers=(),
        table_years=frozenset(), table_periods=frozenset(),
    )  # fmt: skip
    docs = {"r": report}
    gap = exhibit_gap(analyse_query("岳泉酒业那篇报告的图5讲的是什么？"), ["r"], docs)
    assert gap is not None and gap.kind == "exhibit" and gap.held == ("图1", "图2")
    assert exhibit_gap(analyse_query("图2讲的是什么？"), ["r"], docs) is None
    assert exhibit_gap(analyse_query("What does Figure 2 show?"), ["r"], docs) is None
    assert exhibit_gap(analyse_query("表1的营业收入是多少？"), ["r"], docs) is None


def test_a_place_then_an_industry_is_a_company_not_a_place() -> None:
    from rag_app.text.names import is_place

    assert is_place("德国") and is_place("华东地区") and is_place("常州市武进区")
    assert not is_place("岱山重工") and not is_place("上海电气")


def test_a_rankings_row_gives_the_counts_and_years_of_its_columns() -> None:
    from rag_app.trust.answerability import _counts_asked, _names_year
    from rag_app.trust.mentions import Mention

    row = Mention(
        "m", ("排名", "公司", "2024年销量（台）", "市场份额（%）"), "1 岱山重工 27,122 26.8"
    )
    assert _counts_asked(row, "岱山重工2024年在国内卖了多少台挖掘机？")  # 台: the 销量 column
    assert not _counts_asked(row, "岱山重工2024年营收多少元？")  # money tells no column
    assert _names_year(row, ["2024"]) and not _names_year(row, ["2025"])
    assert _names_year(Mention("m", ("公司", "销量（台）"), "岱山重工 27,122"), ["2025"])


def test_a_company_with_a_column_of_its_own_is_given_every_row_of_the_table() -> None:
    from types import SimpleNamespace

    from rag_app.models import Chunk
    from rag_app.trust.mentions import gives, mention_context

    html = (
        "<table><tr><td>项目</td><td>本集团</td><td>鹏屿人寿</td></tr>"
        "<tr><td>核心资本</td><td>412,350</td><td>301,226</td></tr>"
        "<tr><td>实际资本</td><td>498,710</td><td>356,118</td></tr></table>"
    )
    table = Chunk("g:1", "g", "table", "项目 本集团 鹏屿人寿", "", (1,), table_html=html)
    chunks = SimpleNamespace(doc_chunk_ids=lambda d: ["g:1"], get_many=lambda ids: {"g:1": table})
    [mention] = mention_context(SimpleNamespace(chunks=chunks), ["g"], "鹏屿人寿")  # type: ignore[arg-type]
    assert "核心资本" in mention.labels and gives(mention, ("核心", "资本"))
    assert not gives(mention, ("董事长",))


def test_a_name_a_table_heads_run_on_into_the_metric_is_cut_at_the_name() -> None:
    from rag_app.trust.asked_names import asked_names
    from rag_app.trust.document_reading import Document

    text = "偿付能力状况 核心资本 鹏屿人寿 鹏屿财险 本集团"
    report = Document(
        frozenset({"鹏屿保险"}), ("鹏屿保险",), True, "鹏屿保险年报", frozenset(), ("中国",),
        text, (text,), ("核心资本",), frozenset(), (),
        ("项目", "本集团 2024年12月31日", "鹏屿财险 2024年12月31日", "核心资本", "中国"),
        frozenset({"2024"}), frozenset(),
    )  # fmt: skip
    assert asked_names("鹏屿财险核心资本2024年末是多少？", "鹏屿财险核心资本", [report])[0] == (
        "鹏屿财险"
    )  # not read as 鹏屿财 and 核心资本 joined by 险
    assert (
        asked_names("中国平安2024年营收是多少？", "中国平安", [report])[0] == "中国平安"
    )  # 中国: a region


def test_a_month_before_a_series_begins_is_not_held(library: Library) -> None:
    """The monthly table starts in 2025年1月: 2024年12月 is outside it (only a month of a year
    the table lays out was checked), though the annual report's year-end dates name 2024."""
    before = _finding(library, "2024年12月谐波减速器均价是多少？")
    assert before.declines and before.gaps[0].kind == "period"
    assert "2025年1月" in before.note() and "2025年3月" in before.note()
    assert not _finding(library, "2025年2月谐波减速器均价是多少？").declines


def test_an_industry_reports_year_is_held_where_its_tables_or_sentences_give_what_is_asked(
    library: Library,
) -> None:
    """A Chinese industry report names 2019 in a sentence about something else: the ranking
    gives 2024's shares only (any year it named counted before, as for an English page)."""
    early = _finding(library, "北辰智控2019年的市场份额是多少？")
    assert early.declines and early.gaps[0].kind == "period"
    assert not _finding(library, "北辰智控2024年的市场份额是多少？").declines


BANK = [
    _text("第二节 公司简介和主要财务指标", level=1),
    _table(
        [
            ["法定中文名称", "嵘城银行股份有限公司（简称“嵘城银行”）"],
            ["股票简称 / 股票代码", "嵘城银行 / 601329"],
        ]
    ),  # fmt: skip
    _text("本行董事长孟庆岚女士，行长顾维衡先生。报告期内董事会共召开会议11次。"),
    _table(
        [
            ["指标", "2024Q1", "2024Q2", "2024Q3", "2024Q4", "2025Q1"],
            ["营业收入（亿元）", "45.1", "46.3", "47.0", "46.2", "47.8"],
        ],
        "表1：单季度营业收入",
    ),  # fmt: skip
    _table(
        [["指标", "2023年", "2024年"], ["营业收入（亿元）", "178.3", "184.6"]], "表2：年度营业收入"
    ),  # fmt: skip
]


@pytest.fixture(scope="module")
def bank(tmp_path_factory: pytest.TempPathFactory, counter) -> Library:  # type: ignore[no-untyped-def]
    folder = tmp_path_factory.mktemp("bank")
    path = folder / "bank_content_list.json"
    path.write_text(json.dumps(BANK, ensure_ascii=False), encoding="utf-8")
    return hash_library(folder, counter, [path])


def test_a_reports_name_segmented_into_the_next_word_is_still_its_name(bank: Library) -> None:
    """jieba cuts "嵘城银行行长" as 嵘城 / 银行行长: the report's name, written whole, is asked
    (银行行长 was read as the noun asked for, and the question declined)."""
    assert not _finding(bank, "嵘城银行行长是谁？").declines
    assert not _finding(bank, "嵘城银行董事长是谁？").declines


def test_a_quarter_before_the_quarters_a_table_gives_is_not_held(bank: Library) -> None:
    """The quarters run from 2024Q1: 2023年第一季度 is outside them, though another table gives
    the year 2023 (only a quarter of a year the quarters lay out was checked)."""
    early = _finding(bank, "嵘城银行2023年第一季度营业收入是多少？")
    assert early.declines and early.gaps[0].kind == "period"
    assert not _finding(bank, "嵘城银行2024年第二季度营业收入是多少？").declines


INTERIM = [
    _text("禾溪生物科技股份有限公司2025年半年度报告摘要", level=1),
    _text("证券代码：300917　　证券简称：禾溪生物"),
    _table(
        [
            ["项目", "本报告期", "上年同期", "本报告期比上年同期增减"],
            ["营业收入（元）", "1,865,302,417.55", "1,603,918,244.21", "16.30%"],
        ],
        "主要会计数据和财务指标",
    ),  # fmt: skip
    _table(
        [
            ["产品", "营业收入（元）", "毛利率"],
            ["酶制剂", "986,214,503.20", "49.17%"],
            ["益生菌", "542,087,311.65", "46.59%"],
        ],
        "分产品情况",
    ),  # fmt: skip
    _text("报告期内，公司酶制剂业务实现营业收入9.86亿元，益生菌业务实现营业收入5.42亿元。"),
]
MONTHLY = [
    _text("泊潮港口集团股份有限公司2025年10月主要生产数据公告", level=1),
    _text("证券简称：泊潮港口　　公告编号：临2025-063"),
    _table(
        [["指标", "本月", "上年同月"], ["集装箱吞吐量（万标准箱）", "309.72", "286.15"]],
        "表1：2025年10月主要生产数据",
    ),  # fmt: skip
    _table(
        [["月份", "集装箱吞吐量（万标准箱）"], ["8月", "318.47"], ["9月", "296.04"]],
        "表2：各月主要生产数据",
    ),  # fmt: skip
]


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory, counter) -> Library:  # type: ignore[no-untyped-def]
    folder = tmp_path_factory.mktemp("reports")
    paths = []
    for name, items in (("interim", INTERIM), ("monthly", MONTHLY)):
        path = folder / f"{name}_content_list.json"
        path.write_text(json.dumps(items, ensure_ascii=False), encoding="utf-8")
        paths.append(path)
    return hash_library(folder, counter, paths)


def test_a_reports_own_columns_give_the_year_its_title_names_and_the_one_before(
    reports: Library,
) -> None:
    """本报告期 / 上年同期 name no year: the title's 2025 and the year before are held (2025 was
    read as a year no table gives, and the question declined); 本月 / 上年同月 and a monthly
    table's 9月 are months of the title's year."""
    assert not _finding(reports, "禾溪生物2025年上半年营业收入是多少？").declines
    assert not _finding(reports, "禾溪生物2024年上半年营业收入是多少？").declines
    assert _finding(reports, "禾溪生物2023年上半年营业收入是多少？").declines
    # a half-year report gives the first half of its year, not the second
    assert _finding(reports, "禾溪生物2025年下半年营业收入是多少？").declines
    assert not _finding(reports, "泊潮港口2025年9月集装箱吞吐量是多少？").declines
    assert not _finding(reports, "泊潮港口2024年10月集装箱吞吐量是多少？").declines
    assert _finding(reports, "泊潮港口2025年11月集装箱吞吐量是多少？").declines


def test_a_row_run_on_into_the_metric_is_no_other_name(reports: Library) -> None:
    """ "益生菌业务收入" is read as a name: it starts with the 益生菌 row, so it is that row's."""
    assert not _finding(reports, "禾溪生物2025年上半年益生菌业务收入是多少？").declines


def _quarters_document(columns: list[str]):  # type: ignore[no-untyped-def]
    from rag_app.models import Chunk
    from rag_app.trust.document_reading import read_document

    head = "".join(f"<th>{c}</th>" for c in columns)
    row = "".join("<td>1.0</td>" for _ in columns)
    html = f"<table><tr><th>项目</th>{head}</tr><tr><td>营业收入（亿元）</td>{row}</tr></table>"
    return read_document(
        [Chunk("d:1", "d", "table", "营业收入", "营业收入", (0,), table_html=html)]
    )


def test_a_half_is_held_where_its_two_quarters_are_and_said_without_a_year_word() -> None:
    from rag_app.trust.findings import Gap, say

    # 2024H1 of a table with 2024Q1, 2024Q2 and 2024H2: its quarters add up to it
    assert not _quarters_document(["2024Q1", "2024Q2", "2024H2"]).lacks_part("2024h1")
    assert _quarters_document(["2024Q3", "2024Q4", "2024H2"]).lacks_part("2024h1")
    # a part or a month names its own period; years take 年, as the years held do
    assert say(Gap("period", "2024H1", ("2019", "2026")), "zh") == (
        "库中报告不含2024H1的数据（只覆盖2019至2026年）。"
    )
    assert say(Gap("period", "2018", ("2019", "2026")), "zh") == (
        "库中报告不含2018年的数据（只覆盖2019至2026年）。"
    )
    assert say(Gap("period", "2025年11月", ("2025年1月", "2025年10月")), "zh") == (
        "库中报告不含2025年11月的数据（只覆盖2025年1月至2025年10月）。"
    )
