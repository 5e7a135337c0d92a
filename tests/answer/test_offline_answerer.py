"""The offline extractive answerer: quotes the right sentences, rows and figures, honestly."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import subprocess
import sys
import textwrap
from collections.abc import Sequence

import pytest

from rag_app.answer.base import ChatMessage, GenerationRequest, collect
from rag_app.answer.named_reports import named_sources
from rag_app.answer.offline import (
    NOT_ANSWERED,
    NOT_FOUND,
    NOTICE,
    ExtractiveAnswerer,
)
from rag_app.answer.quotes import quotable_parts
from rag_app.models import Chunk
from rag_app.stage_settings import OfflineSettings
from rag_app.text.analyzer import match_terms as tokenize
from rag_app.text.language import Language
from rag_app.text.subjects import subject_words
from rag_app.text.tables import column_labels, labelled_rows, parse_table
from rag_app.understand.analysis import analyse_query
from tests.conftest import REPO_ROOT

CAPACITY_HTML = (
    "<table>"
    '<tr><th rowspan="2">公司</th><th colspan="2">2023年</th></tr>'
    "<tr><th>产能（万片/月）</th><th>制程</th></tr>"
    "<tr><td>中芯国际</td><td>80</td><td>28nm</td></tr>"
    "<tr><td>中芯南方</td><td>3.5</td><td>14nm</td></tr>"
    "<tr><td>华虹半导体</td><td>35</td><td>55nm</td></tr>"
    "</table>"
)

TEXT = Chunk(
    chunk_id="d1-t1",
    doc_id="d1",
    type="text",
    text=(
        "中芯国际是中国大陆规模最大的晶圆代工企业。公司2023年营业收入为63.2亿美元，同比下降8.6%。"
        "中芯南方主要负责14nm及以下先进制程的研发和量产。"
    ),
    search_text="",
    item_indices=(0,),
    pages=(1,),
    heading_path=("公司概况",),
)
TABLE = Chunk(
    chunk_id="d1-tab1",
    doc_id="d1",
    type="table",
    text="",
    search_text="",
    item_indices=(1,),
    pages=(2,),
    table_html=CAPACITY_HTML,
    caption="表1：国内主要晶圆厂产能",
    header_rows=2,
    n_rows=5,
    n_cols=3,
)
IMAGE = Chunk(
    chunk_id="d1-img1",
    doc_id="d1",
    type="image",
    text="",
    search_text="",
    item_indices=(2,),
    pages=(3,),
    caption="图3：2023年全球晶圆代工市场份额",
    description="台积电占据全球晶圆代工市场约60%的份额。中芯国际位列第五，份额约为6%。",
    image_path="images/fig3.png",
)
ENGLISH = Chunk(
    chunk_id="d2-t1",
    doc_id="d2",
    type="text",
    text=(
        "SMIC reported revenue of US$6.32 billion in 2023, down 8.6% year on year. "
        "Gross margin fell to 19.3% as utilisation declined. "
        "The company plans to add 60k wafers per month of 12-inch capacity."
    ),
    search_text="",
    item_indices=(0,),
)
SOURCES = [(1, TEXT), (2, TABLE), (3, IMAGE)]


@pytest.fixture(scope="module")
def answerer() -> ExtractiveAnswerer:
    return ExtractiveAnswerer()


def quoted_lines(answer: str) -> list[str]:
    return [line for line in answer.splitlines() if line.startswith("- ")]


def request(
    question: str, sources: Sequence[tuple[int, Chunk]], lang: Language = "zh"
) -> GenerationRequest:
    """A request as the pipeline makes one; the offline answerer reads all but the messages."""
    return GenerationRequest(
        (ChatMessage("user", question),), analyse_query(question), tuple(sources), lang
    )


def test_chinese_text_question_quotes_the_sentence_with_its_source(answerer):
    events = list(answerer.stream(request("中芯国际2023年营业收入是多少？", SOURCES)))
    answer = collect(events).text
    assert answer.splitlines()[0] == NOTICE["zh"]
    lines = quoted_lines(answer)
    # the one sentence giving 营业收入: the others name no revenue and answer nothing asked
    assert lines == ["- 公司2023年营业收入为63.2亿美元，同比下降8.6%。 [Source 1]"]
    assert all(re.search(r" \[Source \d+\]$", line) for line in lines)


def test_streams_in_small_pieces_ending_in_done(answerer):
    events = list(answerer.stream(request("中芯国际2023年营业收入是多少？", SOURCES)))
    tokens = [e for e in events if e.kind == "token"]
    assert len(tokens) > 15
    assert [e.kind for e in events][-1] == "done"
    # pieces of at most 4 characters, except whole words ("28nm ") and markers
    assert all(len(e.text) <= 4 or e.text.isascii() for e in tokens)
    assert "[Source 1]" in [e.text for e in tokens]  # a marker is never split
    assert collect(events).text == answerer.answer_text(
        analyse_query("中芯国际2023年营业收入是多少？"), SOURCES
    )


def test_table_question_picks_the_named_row_with_headers(answerer):
    answer = answerer.answer_text(analyse_query("中芯南方的产能是多少"), SOURCES)
    lines = quoted_lines(answer)
    assert lines[0] == (
        "- 公司: 中芯南方; 2023年 / 产能（万片/月）: 3.5; 2023年 / 制程: 14nm [Source 2]"
    )
    assert not any("华虹" in line for line in lines)


def test_table_row_chosen_among_many_similar_rows():
    rows = "".join(f"<tr><td>晶圆厂{i}</td><td>{i * 10}</td></tr>" for i in range(1, 30))
    html = f"<table><tr><th>工厂</th><th>产能</th></tr>{rows}<tr><td>中芯南方</td><td>3.5</td></tr></table>"
    chunk = Chunk("t", "d", "table", "", "", (0,), table_html=html, header_rows=1)
    lines = quoted_lines(
        ExtractiveAnswerer().answer_text(analyse_query("中芯南方的产能是多少"), [(4, chunk)])
    )
    assert lines[0] == "- 工厂: 中芯南方; 产能: 3.5 [Source 4]"


def test_image_question_uses_caption_and_description(answerer):
    answer = answerer.answer_text(analyse_query("台积电的市场份额是多少？"), SOURCES)
    lines = quoted_lines(answer)
    assert lines[0] == (
        "- 图3：2023年全球晶圆代工市场份额：台积电占据全球晶圆代工市场约60%的份额。 [Source 3]"
    )


def test_image_with_caption_only():
    chunk = Chunk("i", "d", "image", "", "", (0,), caption="图5：中国大陆晶圆厂扩产计划")
    answer = ExtractiveAnswerer().answer_text(analyse_query("大陆晶圆厂的扩产计划"), [(1, chunk)])
    assert quoted_lines(answer) == ["- 图5：中国大陆晶圆厂扩产计划 [Source 1]"]


def test_english_question(answerer):
    answer = answerer.answer_text(
        analyse_query("What was SMIC's gross margin?"), [(5, ENGLISH)], lang="en"
    )
    assert answer.splitlines()[0] == NOTICE["en"]
    lines = quoted_lines(answer)
    assert lines[0] == "- Gross margin fell to 19.3% as utilisation declined. [Source 5]"
    assert "3.5" not in answer  # "19.3%" and "US$6.32" stay whole sentences


@pytest.mark.parametrize(
    ("question", "lang"),
    [("特斯拉的电池技术路线是什么？", "zh"), ("What is Tesla's battery roadmap?", "en")],
)
def test_no_overlap_says_the_sources_do_not_contain_the_answer(answerer, question, lang):
    events = list(answerer.stream(request(question, SOURCES + [(4, ENGLISH)], lang)))
    answer = collect(events).text
    assert answer == f"{NOTICE[lang]}\n\n{NOT_FOUND[lang]}"
    assert "[Source" not in answer
    assert events[-1].kind == "done"


def test_answers_the_requests_question_and_sources_not_its_messages(answerer):
    # The rendered prompt is for chat models; quoting needs the question and the numbered chunks.
    question = "中芯南方的产能是多少"
    prompt = (
        ChatMessage("system", "只根据参考资料回答。"),
        ChatMessage("user", "台积电的市场份额"),
    )
    ask = GenerationRequest(prompt, analyse_query(question), ((7, TABLE), (9, TEXT)), "en")
    answer = collect(answerer.stream(ask)).text
    assert answer == answerer.answer_text(analyse_query(question), [(7, TABLE), (9, TEXT)], "en")
    assert answer.startswith(NOTICE["en"]) and "中芯南方" in quoted_lines(answer)[0]


def test_no_sources(answerer):
    answer = answerer.answer_text(analyse_query("中芯南方的产能是多少"), [])
    assert answer == f"{NOTICE['zh']}\n\n{NOT_FOUND['zh']}"


def test_source_numbers_come_from_the_caller(answerer):
    answer = answerer.answer_text(analyse_query("中芯南方的制程是什么"), [(7, TABLE), (9, TEXT)])
    assert "[Source 7]" in answer and "[Source 9]" in answer
    assert "[Source 1]" not in answer


# Streams one answer in a fresh interpreter and prints its events as JSON. The answerer ranks
# words it holds in sets, whose order follows PYTHONHASHSEED: another seed is another order.
_ANSWER_IN_A_FRESH_PROCESS = textwrap.dedent(
    """
    import dataclasses, json
    from rag_app.answer.offline import ExtractiveAnswerer
    from tests.answer.test_offline_answerer import SOURCES, request

    ask = request("中芯国际的产能和市场份额", SOURCES)
    print(json.dumps([dataclasses.asdict(e) for e in ExtractiveAnswerer().stream(ask)]))
    """
)


def test_deterministic(answerer):
    ask = request("中芯国际的产能和市场份额", SOURCES)
    events = list(ExtractiveAnswerer().stream(ask))
    assert quoted_lines(collect(events).text) == [
        "- 公司: 中芯国际; 2023年 / 产能（万片/月）: 80; 2023年 / 制程: 28nm [Source 2]",
        "- 图3：2023年全球晶圆代工市场份额：台积电占据全球晶圆代工市场约60%的份额。 [Source 3]",
        "- 中芯国际位列第五，份额约为6%。 [Source 3]",
    ]
    assert list(answerer.stream(ask)) == events  # an answerer used before carries nothing over
    here = [dataclasses.asdict(e) for e in events]
    for seed in ("1", "2"):
        done = subprocess.run(
            [sys.executable, "-c", _ANSWER_IN_A_FRESH_PROCESS],
            env={**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(REPO_ROOT)},
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout) == here, f"answer differs under PYTHONHASHSEED={seed}"


def test_sentence_count_is_bounded():
    def lines(most: int, least: int) -> list[str]:
        answerer = ExtractiveAnswerer(max_sentences=most, min_sentences=least)
        return quoted_lines(answerer.answer_text(analyse_query("中芯国际"), SOURCES))

    ranked = lines(5, 5)  # five quotes share a term with the question, best first
    assert len(ranked) == 5
    assert lines(1, 1) == ranked[:1] and lines(2, 2) == ranked[:2]  # the maximum binds
    assert lines(4, 4) == ranked[:4]  # the minimum outweighs the relative cutoff ...
    assert lines(4, 2) == ranked[:3]  # ... which stops at three when only two are required
    with pytest.raises(ValueError):
        ExtractiveAnswerer(max_sentences=1, min_sentences=2)


# -- pieces ------------------------------------------------------------------------------------


def test_parse_table_expands_rowspan_and_colspan():
    grid = parse_table(CAPACITY_HTML, header_rows=2)
    assert grid.n_cols == 3
    assert column_labels(grid, " / ") == ["公司", "2023年 / 产能（万片/月）", "2023年 / 制程"]
    assert labelled_rows(grid)[1] == (
        "中芯南方",
        "公司: 中芯南方; 2023年 / 产能（万片/月）: 3.5; 2023年 / 制程: 14nm",
    )


def test_parse_table_detects_th_headers_and_merged_body_cells():
    html = (
        "<table><thead><tr><th>地区</th><th>工厂</th><th>产能</th></tr></thead><tbody>"
        '<tr><td rowspan="2">上海</td><td>中芯南方</td><td>3.5</td></tr>'
        "<tr><td>华虹五厂</td><td>4.0</td></tr>"
        '<tr><td>合计</td><td colspan="2">7.5</td></tr>'
        "</tbody></table>"
    )
    grid = parse_table(html)  # header_rows unknown: found from <thead>
    assert grid.header_rows == 1
    assert [text for _, text in labelled_rows(grid)] == [
        "地区: 上海; 工厂: 中芯南方; 产能: 3.5",
        "地区: 上海; 工厂: 华虹五厂; 产能: 4.0",
        "地区: 合计; 工厂: 7.5",  # a value merged over two columns is given once
    ]


def test_parse_table_tolerates_broken_html():
    grid = parse_table("<table><tr><td>A<td>1<tr><td>B<td colspan='x'>2</table>", header_rows=0)
    assert [text for _, text in labelled_rows(grid)] == ["A; 1", "B; 2"]


def test_quotable_parts_keep_decimals_and_drop_markdown():
    text = "## 业绩回顾\n- 营收为 3.5 亿元，同比增长 12.3%。毛利率提升！Revenue was US$1.2bn. Margin rose."
    assert quotable_parts(text) == [
        "业绩回顾",
        "营收为 3.5 亿元，同比增长 12.3%。",
        "毛利率提升！",
        "Revenue was US$1.2bn.",
        "Margin rose.",
    ]


def test_tokenize_drops_question_words():
    words, bigrams = tokenize("中芯南方的产能是多少？")
    assert {"中芯", "南方", "产能"} <= words
    assert "多少" not in words and "的" not in words
    assert "芯南" in bigrams and "的产" not in bigrams
    assert tokenize("What were the revenues?")[0] == {"revenue"}


def test_script_in_a_table_cell_is_not_quoted():
    grid = parse_table(
        "<table><tr><td>项目</td><td>2024</td></tr>"
        "<tr><td>营业收入<script>window.__pwned=1</script></td><td>4.2</td></tr>"
        "</table>",
        1,
    )
    text = " ".join(t for _, t in labelled_rows(grid))
    assert "营业收入" in text and "pwned" not in text


def _forecast(doc: str, title: str, revenue: str, label: str = "营业收入（百万元）") -> Chunk:
    html = (
        "<table><tr><td>项目</td><td>2024A</td><td>2025E</td></tr>"
        f"<tr><td>{label}</td><td>1</td><td>{revenue}</td></tr></table>"
    )
    return Chunk(
        f"{doc}:{label}",
        doc,
        "table",
        "表1：盈利预测与估值",
        f"{title} > 5 盈利预测与估值\n表1：盈利预测与估值",  # chunking puts the title first
        (9,),
        heading_path=("5 盈利预测与估值",),  # a section, not the title: the path restarts
        table_html=html,
        caption="表1：盈利预测与估值",
        header_rows=1,
    )


BYD = _forecast("byd", "比亚迪（002594.SZ）深度报告：技术迭代引领新能源车浪潮", "925,400")
CATL = _forecast("catl", "宁德时代（300750.SZ）深度报告：全球动力电池龙头", "412,680")


def test_a_question_naming_one_report_is_not_answered_from_a_look_alike_table():
    """Every report has a 盈利预测 table; asked about 比亚迪, the answer quotes 比亚迪's row only,
    even when 宁德时代's table is retrieved first."""
    answerer = ExtractiveAnswerer()
    answer = answerer.answer_text(
        analyse_query("比亚迪2025年的营业收入预测是多少？"), [(1, CATL), (2, BYD)]
    )
    assert "925,400 [Source 2]" in answer and "412,680" not in answer
    both = answerer.answer_text(
        analyse_query("比亚迪和宁德时代2025年的营业收入预测"), [(1, CATL), (2, BYD)]
    )
    assert "925,400" in both and "412,680" in both  # both named: both quoted
    neither = answerer.answer_text(
        analyse_query("2025年的营业收入预测是多少？"), [(1, CATL), (2, BYD)]
    )
    assert "412,680" in neither  # no report named: nothing is filtered
    assert subject_words(CATL) == {"宁德时代"}
    # an annual report excerpt titled by its section's number has no subject in its title
    section = _forecast("annual", "第二节 公司简介和主要财务指标", "3,286")
    assert subject_words(section) == frozenset()
    assert named_sources(analyse_query("What is BYD's revenue?"), [(1, CATL), (2, BYD)]) is None
    # every chunk of a named report stays, whatever section it is in
    byd_pe = _forecast("byd", "比亚迪（002594.SZ）深度报告", "18.2", label="市盈率（倍）")
    assert named_sources(analyse_query("比亚迪的市盈率"), [(1, CATL), (2, BYD), (3, byd_pe)]) == {
        2,
        3,
    }
    assert (
        named_sources(analyse_query("比亚迪的市盈率"), [(2, BYD), (3, byd_pe)]) is None
    )  # one report


def test_reports_titled_by_a_section_are_told_apart_by_the_librarys_company_names():
    """Two annual reports' excerpts titled "第二节 …" name no subject in their titles; the
    library's profiles name their companies, so a question about one quotes only its report."""
    bank = _forecast("bank", "第二节 公司简介和主要财务指标", "3,286")
    maker = _forecast("maker", "第二节 公司简介和主要财务指标", "1,574")
    companies = {"bank": ("嵘城银行股份有限公司", "嵘城银行", "601128.SH"), "maker": ("澄远智能",)}
    asked = analyse_query("嵘城银行2025年的营业收入预测是多少？", companies=companies)
    assert named_sources(asked, [(1, maker), (2, bank)]) == {2}
    answer = ExtractiveAnswerer().answer_text(asked, [(1, maker), (2, bank)])
    assert "3,286 [Source 2]" in answer and "1,574" not in answer
    # without the profiles' names, neither is told apart
    assert named_sources(analyse_query(asked.text), [(1, maker), (2, bank)]) is None


def test_finance_synonyms_meet_across_languages():
    """An English question meets a Chinese row: P/E is 市盈率, and 2026 is the 2026E column."""
    smic = _forecast("smic", "中芯国际（688981.SH）深度报告", "106.2", label="市盈率（倍）")
    answer = ExtractiveAnswerer().answer_text(
        analyse_query("What is the forecast P/E for 2025?"), [(1, smic)]
    )
    assert "106.2 [Source 1]" in answer
    english = ExtractiveAnswerer().answer_text(
        analyse_query("What is the forecast P/E for 2025?"), [(1, smic)], lang="en"
    )
    # in the question's words, the table's label beside them, no "："
    assert value_lines(english) == ["中芯国际 2025E P/E (市盈率): 106.2 倍 [Source 1]"]


def test_a_question_naming_two_reports_quotes_each_of_them():
    """Asked about two companies, the answer quotes each one's row, even when one company's
    report has more (and better-matching) sentences than the other's."""
    catl_rows = [
        _forecast("catl", "宁德时代（300750.SZ）深度报告", value, label=label)
        for value, label in [
            ("412,680", "营业收入（百万元）"),
            ("61,230", "营业收入增长率（%）"),
            ("24.8", "营业收入占比（%）"),
        ]
    ]
    byd_chart = Chunk(
        "byd:fig",
        "byd",
        "image",
        "图2：比亚迪季度营收",
        "比亚迪（002594.SZ）深度报告\n图2：比亚迪季度营收",
        (20,),
        caption="图2：比亚迪季度营收",
        description="柱状图：比亚迪2023Q1至2024Q4单季度营收。",
    )
    sources = [(1, catl_rows[0]), (2, catl_rows[1]), (3, catl_rows[2]), (4, byd_chart), (5, BYD)]
    answer = ExtractiveAnswerer().answer_text(
        analyse_query("比亚迪和宁德时代2025年的营业收入预测分别是多少？"), sources
    )
    assert "412,680 [Source 1]" in answer
    assert "925,400 [Source 5]" in answer  # the 营业收入 row, not the chart naming 比亚迪


def test_plural_english_terms_meet_their_synonyms():
    smic = _forecast("smic", "中芯国际（688981.SH）深度报告", "21.8", label="毛利率（%）")
    answer = ExtractiveAnswerer().answer_text(
        analyse_query("What are the 2025E gross margins?"), [(1, smic)]
    )
    assert "21.8 [Source 1]" in answer


def test_a_row_is_quoted_with_its_note_and_a_sentence_with_its_reason(answerer):
    table = Chunk(
        "opex",
        "acme",
        "table",
        "opex",
        "opex",
        (3, 4, 5),
        pages=(0,),
        table_html="<table><tr><td>(In thousands)</td><td>2019</td></tr>"
        "<tr><td>Service delivery costs(1)</td><td>661,214</td></tr>"
        "<tr><td>Customer related costs(2)</td><td>260,215</td></tr></table>",
        footnote="(1) Include cost of equipment sold.\n(2) Include advertising expenses.",
        header_rows=1,
    )
    text = Chunk(
        "why",
        "acme",
        "text",
        "Operating expenses rose 6.4% in 2019. The increase was primarily due to the new "
        "network. Headcount was flat.",
        "",
        (6,),
    )
    answer = collect(
        answerer.stream(request("What do customer related costs include?", [(1, table)]))
    )
    lines = quoted_lines(answer.text)
    assert "Customer related costs(2)" in lines[0] and "(2) Include advertising" in lines[0]
    assert "equipment sold" not in lines[0]  # another row's note
    answer = collect(
        answerer.stream(request("Why did operating expenses rise in 2019?", [(1, text)]))
    )
    assert (
        "Operating expenses rose 6.4% in 2019. The increase was primarily due to the new network."
        in quoted_lines(answer.text)[0]
    )


LINES_HTML = (
    "<table><tr><th>序号</th><th>晶圆尺寸</th><th>厂区</th><th>月产能（万片）</th></tr>"
    "<tr><td>1</td><td>8英寸</td><td>中芯上海（S1）</td><td>12.0</td></tr>"
    "<tr><td>2</td><td>8英寸</td><td>中芯天津（T1）</td><td>18.0</td></tr>"
    "<tr><td>3</td><td>12英寸</td><td>中芯北京（B1）</td><td>6.0</td></tr>"
    "<tr><td>4</td><td>12英寸</td><td>中芯南方（SN1）</td><td>3.5</td></tr>"
    "<tr><td>合计</td><td></td><td></td><td>39.5</td></tr>"
    "</table>"
)
LINES = Chunk(
    "d1-tab6",
    "d1",
    "table",
    "",
    "",
    (9,),
    pages=(5,),
    table_html=LINES_HTML,
    caption="表6：中芯国际产线一览",
    header_rows=1,
    n_rows=6,
    n_cols=4,
)


@pytest.mark.parametrize(
    "question",
    ["中芯国际的产线有哪些？", "列出中芯国际的产线", "Which production lines does SMIC have?"],
)
def test_a_list_question_gets_the_names_the_list_table_gives(answerer, question):
    lines = quoted_lines(
        answerer.answer_text(analyse_query(question), [(1, TEXT), (3, IMAGE), (4, LINES)])
    )
    # the naming column (not the numbers, not the repeated wafer sizes, not the total row),
    # once, and no row of the same table again
    assert lines[0] == (
        "- 表6：中芯国际产线一览 · 厂区: 中芯上海（S1）; 中芯天津（T1）; 中芯北京（B1）; "
        "中芯南方（SN1） [Source 4]"
    )
    assert sum("[Source 4]" in line for line in lines) == 1


@pytest.mark.parametrize(
    "question",
    [
        "中芯南方的月产能是多少？",  # one value
        "哪条产线的月产能最高？",  # the one that stands out
        "公司有哪些风险？",  # no table lists risks: 公司 in a caption is no match
    ],
)
def test_other_questions_do_not_get_a_list(answerer, question):
    answer = answerer.answer_text(analyse_query(question), [*SOURCES, (4, LINES)])
    assert "厂区: 中芯上海（S1）; 中芯天津（T1）" not in answer


def test_the_company_a_report_is_about_does_not_make_a_table_its_list(answerer):
    answer = answerer.answer_text(analyse_query("中芯国际有哪些竞争优势？"), [*SOURCES, (4, LINES)])
    assert "厂区: 中芯上海（S1）; 中芯天津（T1）" not in answer


def test_a_list_question_naming_a_cell_value_gets_the_rows_that_have_it(answerer):
    sources = [(1, TEXT), (4, LINES)]
    lines = quoted_lines(
        answerer.answer_text(analyse_query("中芯国际有哪几座12英寸晶圆厂？"), sources)
    )
    # 12英寸 is a 晶圆尺寸 cell: only those rows, and the list says so
    assert lines[0] == (
        "- 表6：中芯国际产线一览 · 12英寸 · 厂区: 中芯北京（B1）; 中芯南方（SN1） [Source 4]"
    )


# -- issue 14: answers a business user can read ---------------------------------------------------


def _valuation(rows: str, caption: str = "表1：盈利预测与估值") -> Chunk:
    html = f"<table><tr><td>项目</td><td>2024A</td><td>2025E</td><td>2026E</td></tr>{rows}</table>"
    return Chunk(
        "smic:val",
        "smic",
        "table",
        caption,
        f"中芯国际（688981.SH）深度报告 > 盈利预测与估值\n{caption}",
        (9,),
        table_html=html,
        caption=caption,
        header_rows=1,
    )


VALUATION = _valuation(
    "<tr><td>营业收入</td><td>57,796</td><td>67,850</td><td>77,420</td></tr>"
    "<tr><td>归母净利润（百万元）</td><td>3,699</td><td>5,210</td><td>6,480</td></tr>"
    "<tr><td>增长率（%）</td><td>-23.3</td><td>40.8</td><td>24.4</td></tr>"
    "<tr><td>市盈率（倍）</td><td>120.5</td><td>106.2</td><td>85.3</td></tr>"
    "<tr><td>市净率（倍）</td><td>4.79</td><td>4.62</td><td>4.43</td></tr>",
    caption="表1：盈利预测与估值（单位：百万元）",
)


def value_lines(answer: str) -> list[str]:
    body = answer.split("\n\n", 1)[1]
    said = set(NOT_ANSWERED.values())  # not a value: the quotes below answer nothing asked
    return [
        line
        for line in body.splitlines()
        if line and not line.startswith("- ") and line not in said
    ]


def test_a_year_and_row_question_leads_with_the_value_its_unit_period_and_subject():
    answer = ExtractiveAnswerer().answer_text(
        analyse_query("中芯国际2025年的市盈率是多少？"), [(3, VALUATION)]
    )
    assert value_lines(answer) == ["中芯国际 2025E 市盈率：106.2 倍 [Source 3]"]
    # the row follows as the evidence (it gives the other years too)
    assert quoted_lines(answer)[0].startswith("- 项目: 市盈率（倍）; 2024A: 120.5")
    # the unit comes from the caption when the row label has none
    revenue = ExtractiveAnswerer().answer_text(
        analyse_query("中芯国际2026E营业收入"), [(1, VALUATION)]
    )
    assert value_lines(revenue) == ["中芯国际 2026E 营业收入：77,420 百万元 [Source 1]"]
    off = ExtractiveAnswerer(settings=OfflineSettings(value_lines=False))
    assert (
        value_lines(
            off.answer_text(analyse_query("中芯国际2025年的市盈率是多少？"), [(3, VALUATION)])
        )
        == []
    )


def test_no_value_line_gives_another_companys_number():
    # 中芯国际's row is no answer to a question on 蓝鲸存储科技 (a report the sources lack)
    answer = ExtractiveAnswerer().answer_text(
        analyse_query("蓝鲸存储科技2025年的市盈率是多少？"), [(3, VALUATION)]
    )
    assert value_lines(answer) == []


def test_rows_that_answer_nothing_are_dropped():
    question = "中芯国际2025年的市盈率是多少？"
    bare = OfflineSettings(value_lines=False, on_question_only=False)
    quoted = quoted_lines(
        ExtractiveAnswerer(settings=bare).answer_text(analyse_query(question), [(3, VALUATION)])
    )
    assert any("营业收入" in line for line in quoted)  # min_sentences: a second row, any row
    lines = quoted_lines(
        ExtractiveAnswerer().answer_text(analyse_query(question), [(3, VALUATION)])
    )
    assert lines and all("市盈率" in line for line in lines)
    # the on-question test alone drops it too: 营业收入 is another metric than 市盈率
    on_question = dataclasses.replace(bare, on_question_only=True)
    quoted = quoted_lines(
        ExtractiveAnswerer(settings=on_question).answer_text(
            analyse_query(question), [(3, VALUATION)]
        )
    )
    assert quoted and not any("营业收入" in line for line in quoted)


def test_a_sentence_about_another_year_is_not_quoted_while_one_on_the_year_is():
    report = Chunk(
        "smic:t",
        "smic",
        "text",
        "中芯国际2024年毛利率为18.6%，同比下降0.7个百分点。我们预计2026年毛利率回升至23.5%。",
        "中芯国际（688981.SH）深度报告",
        (3,),
    )
    question = "中芯国际2024年的毛利率是多少？"
    lines = quoted_lines(ExtractiveAnswerer().answer_text(analyse_query(question), [(1, report)]))
    assert lines == ["- 中芯国际2024年毛利率为18.6%，同比下降0.7个百分点。 [Source 1]"]
    off = OfflineSettings(on_question_only=False)
    both = quoted_lines(
        ExtractiveAnswerer(settings=off).answer_text(analyse_query(question), [(1, report)])
    )
    assert any("2026年" in line for line in both)
    # asked about 2030, nothing is on the year: the best quotes stay (the check flags them)
    assert quoted_lines(
        ExtractiveAnswerer().answer_text(analyse_query("中芯国际2030年的毛利率"), [(1, report)])
    )


def test_a_growth_row_is_named_with_the_row_above_it():
    answer = ExtractiveAnswerer().answer_text(
        analyse_query("中芯国际2025年归母净利润增长率"), [(2, VALUATION)]
    )
    assert value_lines(answer) == ["中芯国际 2025E 归母净利润增长率：40.8% [Source 2]"]
    # a quarter is no whole-year column: no line
    quarter = ExtractiveAnswerer().answer_text(
        analyse_query("中芯国际2025Q1的市盈率"), [(3, VALUATION)]
    )
    assert value_lines(quarter) == []


FIGURE = Chunk(
    "smic:fig3",
    "smic",
    "image",
    "",
    "中芯国际（688981.SH）深度报告\n图3：中芯国际季度营收及增速",
    (12,),
    caption="图3：中芯国际季度营收及增速",
    description=(
        "柱状图为2023Q1至2024Q4中芯国际单季度营收（亿元，左轴），折线为营收同比增速（%，右轴）。"
        "2024Q4营收为样本期内单季最高，同比增速自2023Q4由负转正并持续扩大。"
        "纵轴单位为亿元。"
    ),
)


def test_a_figure_question_gets_the_sentence_stating_the_trend():
    question = "图3显示的季度营收趋势如何？"
    lines = quoted_lines(
        ExtractiveAnswerer().answer_text(analyse_query(question), [(1, TEXT), (2, FIGURE)])
    )
    assert lines[0] == (
        "- 图3：中芯国际季度营收及增速：2024Q4营收为样本期内单季最高，"
        "同比增速自2023Q4由负转正并持续扩大。 [Source 2]"
    )  # named by its caption, once
    assert not any("左轴" in line or "纵轴" in line for line in lines)  # axes answer nothing
    without = ExtractiveAnswerer(settings=OfflineSettings(figure_sentences=False))
    first = quoted_lines(without.answer_text(analyse_query(question), [(1, TEXT), (2, FIGURE)]))[0]
    assert "单季最高" not in first  # without the feature, what shares the most words wins
    # the figure the question points at before another figure's trend
    other = dataclasses.replace(
        FIGURE,
        chunk_id="smic:fig1",
        caption="图1：中芯国际年度营收",
        description="2019-2024年中芯国际年度营收持续增长，季度波动较小。",
    )
    lines = quoted_lines(
        ExtractiveAnswerer().answer_text(analyse_query(question), [(1, other), (2, FIGURE)])
    )
    assert lines[0].endswith("[Source 2]")


def test_mineru_latex_is_quoted_as_text():
    chunk = Chunk(
        "catl:t",
        "catl",
        "text",
        r"公司神行电池单体容量$\geq 1 9 6 ~ \mathrm{A h}$，能量密度领先行业。",
        "",
        (0,),
    )
    answer = ExtractiveAnswerer().answer_text(
        analyse_query("神行电池的单体容量是多少？"), [(1, chunk)]
    )
    assert "单体容量≥196 Ah，能量密度领先行业。 [Source 1]" in answer
    assert "$" not in answer and "mathrm" not in answer


def test_a_segment_row_the_question_writes_is_answered_not_the_companys_total():
    """清洗设备 is a row of the products table, its columns "2025E收入（百万元）"; the forecast's
    营业收入 row is named only through 收入's synonym: its value is not the answer."""
    total = _forecast("semi", "天枢微装（688101.SH）深度报告", "9,452.0")
    html = (
        "<table><tr><td>产品</td><td>2024A收入（百万元）</td><td>2025E收入（百万元）</td></tr>"
        "<tr><td>刻蚀设备</td><td>3,025.8</td><td>3,911.2</td></tr>"
        "<tr><td>清洗设备</td><td>812.9</td><td>1,062.4</td></tr></table>"
    )
    products = dataclasses.replace(
        total, chunk_id="semi:products", text="表2：分产品收入", table_html=html, caption="表2"
    )
    asked = analyse_query("2025年清洗设备收入预测为多少百万元？")
    answer = ExtractiveAnswerer().answer_text(asked, [(1, total), (2, products)])
    assert value_lines(answer)[0].startswith("清洗设备 2025E收入（百万元）：1,062.4 [Source 2]")
    # the company's own revenue is still its 营业收入 row
    revenue = ExtractiveAnswerer().answer_text(
        analyse_query("2025年营业收入预测为多少百万元？"), [(1, total), (2, products)]
    )
    assert "9,452.0" in value_lines(revenue)[0]


def test_quotes_keep_another_reports_row_that_writes_the_asked_company():
    # the question names 拓衡传感 (its prospectus's 杭州拓衡传感科技股份有限公司, written short):
    # quotes come from its report and from the industry report's sentence that writes it, not
    # from the other company's report
    def chunk(doc_id: str, text: str) -> Chunk:
        return Chunk(f"{doc_id}:0001", doc_id, "text", text, f"第一节 概览 > 概览\n{text}", (1,))

    prospectus = chunk("tuoheng", "2023年公司六维力传感器在国内的出货量份额约为18.5%。")
    industry = chunk("industry", "拓衡传感2024年在国内六维力传感器市场的出货份额约为21.3%。")
    other = chunk("chengyuan", "2024年公司六维力传感器的出货份额约为9.9%。")
    companies = {
        "tuoheng": ("杭州拓衡传感科技股份有限公司",),
        "chengyuan": ("江苏澄远智能装备股份有限公司",),
    }
    query = analyse_query("拓衡传感2024年六维力传感器的出货份额大概多少？", companies=companies)
    text = ExtractiveAnswerer().answer_text(
        query, [(1, other), (2, industry), (3, prospectus)], "zh"
    )
    assert "21.3%" in text and "9.9%" not in text


def test_quotes_keep_to_the_report_a_latin_name_written_alone_names():
    # "Orvella" of Orvella Robotics, written alone in a Chinese question: its call's sentence,
    # not another report's 归属于上市公司股东的净利润 row
    def chunk(doc_id: str, text: str) -> Chunk:
        return Chunk(f"{doc_id}:0001", doc_id, "text", text, f"第一节 概览 > 概览\n{text}", (1,))

    call = chunk("orvella", "上半年GAAP净利润48.1百万美元。")
    other = chunk("chengyuan", "上半年归属于上市公司股东的净利润1.40亿元。")
    companies = {
        "orvella": ("Orvella Robotics", "ORVL.US"),
        "chengyuan": ("江苏澄远智能装备股份有限公司",),
    }
    query = analyse_query("Orvella上半年净利润多少？", companies=companies)
    text = ExtractiveAnswerer().answer_text(query, [(1, other), (2, call)], "zh")
    assert "48.1" in text and "1.40" not in text


def test_a_word_cut_apart_in_the_question_still_meets_it_in_a_row():
    # "的市占率" is cut 的 / 市 / 占率, "市占率（%）" is one word: the ranking row still answers
    html = (
        "<table><tr><th>排名</th><th>厂商</th><th>市占率（%）</th></tr>"
        "<tr><td>1</td><td>台积电</td><td>64.9</td></tr>"
        "<tr><td>3</td><td>中芯国际</td><td>5.9</td></tr></table>"
    )
    chunk = Chunk("r", "d", "table", "", "", (0,), table_html=html, header_rows=1)
    # the report is the company's: its name decides nothing, 市占率 must
    query = analyse_query("中芯国际的市占率是多少？", companies={"d": ("中芯国际",)})
    answer = ExtractiveAnswerer().answer_text(query, [(1, chunk)])
    assert "排名: 3; 厂商: 中芯国际; 市占率（%）: 5.9 [Source 1]" in answer
