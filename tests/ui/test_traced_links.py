"""Traced numbers drawn (issue 25 item 3): each number the citation check traced is a link in the
answer to its place, and its source's card gives that place the link's anchor: the table cell
itself, or a span around the sentence; a computed number's anchor marks its operands. The real
browser follows them in tests/ui/test_traced_browser.py."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import streamlit as st

from rag_app.cite import check_answer
from rag_app.models import Chunk
from rag_app.understand.analysis import analyse_query
from ui.render_citations import answer_markdown
from ui.render_sources import highlight_html, highlight_table
from ui.render_traced import card_targets, computed_style, number_links, unplaced

TABLE = Chunk(
    "t",
    "smic",
    "table",
    "",
    "",
    (0,),
    table_html="<table><tr><th>项目</th><th>2023A</th><th>2024A</th></tr>"
    "<tr><td>营业收入（百万元）</td><td>45,250</td><td>57,796</td></tr>"
    "<tr><td>增长率（%）</td><td>-8.6</td><td>27.7</td></tr></table>",
    header_rows=1,
)
TEXT = Chunk(
    "x", "smic", "text", "行业回升。公司2024年营收578.0亿元，同比增长27.7%。完。", "", (1,)
)
SOURCES = {1: TABLE, 2: TEXT}


@pytest.fixture(autouse=True)
def chinese() -> Iterator[None]:
    st.session_state["lang"] = "zh"
    yield
    st.session_state["lang"] = "zh"


def _report(answer: str):  # type: ignore[no-untyped-def]
    return check_answer(answer, SOURCES, None, analyse_query("中芯国际营业收入"))


def test_each_traced_number_links_to_its_cell_or_sentence() -> None:
    answer = "2024A 营业收入：57,796 百万元 [Source 1]。公司营收578.0亿元，增长27.7% [Source 2]。"
    out = answer_markdown(answer, _report(answer), max_number=2)
    assert '[57,796](#source-1-cell-1-2 "来源 1 · 营业收入（百万元） × 2024A：57,796")' in out
    assert "[578.0](#source-2-text-" in out and "[27.7%](#source-2-text-" in out
    assert "2024A" in out and "[2024" not in out  # a year is no figure
    prefixed = answer_markdown(answer, _report(answer), prefix="t3", max_number=2)
    assert "(#t3-source-1-cell-1-2 " in prefixed
    assert "-cell-" not in answer_markdown(answer, _report(answer), max_number=0)  # no cards


def test_english_titles_and_quoted_answers() -> None:
    st.session_state["lang"] = "en"
    answer = "- 营业收入（百万元）: 2023A 45,250; 2024A 57,796 [Source 1]"
    out = answer_markdown(answer, _report(answer), max_number=2, literal=True)
    assert '[45,250](#source-1-cell-1-1 "Source 1 · 营业收入（百万元） x 2023A: 45,250")' in out
    assert out.startswith("- ")  # the bullet kept


def test_an_untraced_number_is_flagged_not_linked() -> None:
    answer = "2024A 营业收入：99,999 百万元 [Source 1]。"
    out = answer_markdown(answer, _report(answer), max_number=2)
    assert "[99,999]" not in out and "⚠️" in out


def test_a_computed_number_links_to_its_operands() -> None:
    answer = "营业收入变化：57796 - 45250 = 12546 [Source 1]"
    report = _report(answer)
    links = number_links(answer, report, "", 2)
    computed = links[answer.index("12546")]
    assert computed.href == f"#source-1-calc-{answer.index('12546')}"
    assert computed.title.startswith("算式：57796 - 45250 = 12546")
    targets = card_targets(report, 1, "")
    assert set(targets.places) == {"source-1-cell-1-1", "source-1-cell-1-2"}
    style = computed_style(targets)
    assert f":root:has(#source-1-calc-{answer.index('12546')}:target)" in style
    assert "#source-1-cell-1-1" in style and "#source-1-cell-1-2" in style


def test_the_card_gives_the_cell_and_the_sentence_their_anchors() -> None:
    answer = "2024A 营业收入：57,796 百万元 [Source 1]。公司营收578.0亿元 [Source 2]。"
    report = _report(answer)
    table = highlight_table(TABLE.table_html, [], 1, targets=card_targets(report, 1, ""))
    assert '<td id="source-1-cell-1-2">57,796</td>' in table  # the cell, not its row
    assert table.count(" id=") == 1
    targets = card_targets(report, 2, "")
    html = highlight_html(TEXT.text, ["公司2024年营收578.0亿元"], targets.sentences(["text"]))
    (element,) = targets.places
    # the sentence holding the number in its span, the quote inside it still marked
    assert html == (
        f'行业回升。<span class="rag-at" id="{element}"><mark>公司2024年营收578.0亿元</mark>'
        "，同比增长27.7%。</span>完。"
    )
    assert unplaced(targets, [html]) == ""
    assert unplaced(targets, []) == f'<span class="rag-anchor" id="{element}"></span>'


def test_a_table_read_again_finds_the_cell_by_its_labels() -> None:
    """A restored turn's card draws the table as the library has it now: a row added above
    moves the cell, which is found by its row label and text."""
    answer = "2024A 营业收入：57,796 百万元 [Source 1]。"
    targets = card_targets(_report(answer), 1, "")
    moved = TABLE.table_html.replace(
        "<tr><td>营业收入", "<tr><td>新行</td><td>1</td><td>2</td></tr><tr><td>营业收入"
    )
    table = highlight_table(moved, [], 1, targets=targets)
    assert '<td id="source-1-cell-1-2">57,796</td>' in table
