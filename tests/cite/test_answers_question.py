"""Issue 24: the citation check says "切题" only for a sentence that answers the question (the
asked metric, or the figure asked about, for the asked subject and period), and reads numbers
as the source card shows them."""

from __future__ import annotations

from rag_app.cite import check_answer
from rag_app.models import Chunk, Hit
from rag_app.prompt.builder import Source
from rag_app.understand.analysis import analyse_query

TITLE = "中芯国际（688981.SH）深度报告：产能扩张稳步推进"
SPEC = Chunk(
    chunk_id="cell:0003",
    doc_id="cell",
    type="text",
    text=(
        "电芯采用方形铝壳封装，循环寿命超过6000次。"
        "在 $2 5 \\pm 3 ^ { \\circ } \\mathrm { C }$ 环境下，电芯可承受 $1 0 0 0 \\mathrm { A }$ 的"
        "脉冲放电电流，容量保持率为 $3 \\% - 5 \\%$ 衰减以内。"
    ),
    search_text="储能电芯技术白皮书 > 规格\n电芯采用方形铝壳封装",
    item_indices=(3,),
    pages=(1,),
)
RISKS = Chunk(
    chunk_id="smic:0002",
    doc_id="smic",
    type="text",
    text="风险提示：下游需求复苏不及预期；先进制程研发及客户导入不及预期；地缘政治风险。",
    search_text=f"{TITLE} > 风险提示\n风险提示",
    item_indices=(2,),
    pages=(1,),
)
FORECAST = Chunk(
    chunk_id="smic:0004",
    doc_id="smic",
    type="table",
    text="",
    search_text=f"{TITLE} > 盈利预测\n表1：盈利预测与估值",
    item_indices=(7,),
    pages=(2,),
    table_html=(
        "<table><tr><th>项目</th><th>2024A</th><th>2025E</th></tr>"
        "<tr><td>营业收入（百万元）</td><td>57,796</td><td>67,850</td></tr>"
        "<tr><td>增长率（%）</td><td>27.7</td><td>17.4</td></tr>"
        "<tr><td>毛利率（%）</td><td>18.6</td><td>21.8</td></tr></table>"
    ),
    caption="表1：盈利预测与估值",
    header_rows=1,
)
FIGURE_2 = Chunk(
    chunk_id="smic:0017",
    doc_id="smic",
    type="image",
    text="图2：中芯国际季度毛利率与产能利用率",
    search_text=f"{TITLE} > 经营指标\n图2：中芯国际季度毛利率与产能利用率",
    item_indices=(39,),
    pages=(3,),
    caption="图2：中芯国际季度毛利率与产能利用率",
    context=(
        "从经营指标看，公司产能利用率已自2023年一季度68.1%的低点持续回升，2024年三季度回升至"
        "90.4%。毛利率方面，2024年一季度毛利率一度降至13.7%，此后逐季改善，四季度毛利率回升至22.6%。"
    ),
)
RANKING = Chunk(
    chunk_id="smic:0009",
    doc_id="smic",
    type="table",
    text="",
    search_text=f"{TITLE} > 行业格局\n表3：2024年全球晶圆代工厂营收排名",
    item_indices=(20,),
    pages=(3,),
    table_html=(
        "<table><tr><th>排名</th><th>厂商</th><th>2024年营收（亿美元）</th></tr>"
        "<tr><td>2</td><td>三星</td><td>131.8</td></tr>"
        "<tr><td>3</td><td>中芯国际</td><td>80.3</td></tr></table>"
    ),
    caption="表3：2024年全球晶圆代工厂营收排名",
    header_rows=1,
)


def _factual(answer: str, question: str, sources: dict) -> list:  # type: ignore[type-arg]
    report = check_answer(answer, sources, None, analyse_query(question))
    return [s for s in report.sentences if s.factual]


def test_a_number_the_card_shows_is_found_though_the_prompt_block_was_cut() -> None:
    # The prompt kept only the block's first sentence (a "cut" source); the offline answer
    # quotes the chunk, whose card shows the whole text, with its math read as text.
    block = "[Source 1] (文件: cell, 页: 1)\n电芯采用方形铝壳封装，循环寿命超过6000次。"
    source = Source(1, Hit(SPEC, 1.0), (), "cut", block)
    answer = (
        "- 在 25±3°C 环境下，电芯可承受 1000 A 的脉冲放电电流，容量保持率为 3%-5% 衰减以内。"
        " [Source 1]"
    )
    (sentence,) = _factual(answer, "电芯的脉冲放电电流是多少？", {1: source})
    assert sentence.supported, sentence.reason
    assert "25" not in sentence.reason


def test_a_sentence_sharing_a_word_but_not_the_asked_metric_is_off_question() -> None:
    # "研发" of 研发费用 in a risk sentence, and a growth row: neither gives 研发费用.
    answer = (
        "- 先进制程研发及客户导入不及预期； [Source 1]\n"
        "- 项目: 增长率（%）; 2024A: 27.7; 2025E: 17.4 [Source 2]"
    )
    checks = _factual(answer, "中芯国际2024年的研发费用是多少？", {1: RISKS, 2: FORECAST})
    assert len(checks) == 2
    assert not any(c.relevant for c in checks)
    assert all("研发费用" in c.off_subject for c in checks)


def test_a_sentence_giving_the_asked_metric_stays_on_question() -> None:
    answer = "- 项目: 毛利率（%）; 2024A: 18.6; 2025E: 21.8 [Source 2]"
    (check,) = _factual(answer, "中芯国际2024年的毛利率是多少？", {2: FORECAST})
    assert check.relevant
    # an English question over a Chinese report: gross margin is 毛利率
    (check,) = _factual(answer, "What was SMIC's gross margin in 2024?", {2: FORECAST})
    assert check.relevant


def test_a_prose_sentence_takes_the_metric_its_paragraph_names() -> None:
    answer = "中芯国际2024年毛利率为18.6% [Source 2]，2025E预计回升。其中2025E为21.8% [Source 2]。"
    checks = _factual(answer, "中芯国际的毛利率是多少？", {2: FORECAST})
    assert checks and all(c.relevant for c in checks)


def test_only_the_figure_asked_about_is_on_a_figure_question() -> None:
    answer = (
        "- 图2：中芯国际季度毛利率与产能利用率 [Source 1]\n"
        "- 排名: 2; 厂商: 三星; 2024年营收（亿美元）: 131.8 [Source 2]\n"
        "- 2024年一季度毛利率一度降至13.7%，此后逐季改善，四季度毛利率回升至22.6%。 [Source 1]"
    )
    caption, row, trend = _factual(answer, "图2是什么走势？", {1: FIGURE_2, 2: RANKING})
    assert caption.relevant and trend.relevant
    assert not row.relevant and "图2" in row.off_subject


def test_rows_sharing_only_the_figures_number_are_off_question() -> None:
    answer = "- 排名: 3; 厂商: 中芯国际; 2024年营收（亿美元）: 80.3 [Source 2]"
    (row,) = _factual(answer, "What does Figure 3 show?", {1: FIGURE_2, 2: RANKING})
    assert not row.relevant


def test_a_block_cut_inside_its_math_does_not_hide_the_number() -> None:
    # The budget cut the block inside "$2 5 { \pm } 3 ~ ^ { \circ" (read as "2 5"), the card
    # shows the whole chunk: the quote's 25 is the card's.
    chunk = Chunk(
        chunk_id="cell:0009",
        doc_id="cell",
        type="text",
        text=(
            "最大脉冲放电电流1000A。正常工作的单体电芯 $2 5 { \\pm } 3 ~ ^ { \\circ } "
            "\\mathrm { C }$ ，最长放电时间为 $1 0 ~ \\mathrm { s }$ 。"
        ),
        search_text="储能电芯技术白皮书 > 脉冲放电\n最大脉冲放电电流1000A",
        item_indices=(9,),
    )
    block = "[Source 1] (文件: cell)\n最大脉冲放电电流1000A。正常工作的单体电芯 $2 5 { \\pm } 3 ~ ^ { \\circ"
    source = Source(1, Hit(chunk, 1.0), (), "cut", block)
    answer = "- 正常工作的单体电芯 25±3°C ，最长放电时间为 10 s 。 [Source 1]"
    (sentence,) = _factual(answer, "最长放电时间是多少？", {1: source})
    assert sentence.supported, sentence.reason
