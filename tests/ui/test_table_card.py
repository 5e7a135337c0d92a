"""A table's source card (ui/render_sources.py): the header as the document draws it, the
cited rows marked and no others, and a merge note only for a part of a table (issue 26 item 3).

Fast: the sample report is chunked with no embedding model, and the card drawn by AppTest."""

from __future__ import annotations

import re

from streamlit.testing.v1 import AppTest

from rag_app.models import Chunk, Hit
from ui import i18n
from ui.render_sources import part_note


def _earnings_card() -> None:
    """The card body of the sample's 表1, merged from its sub-tables, under an answer quoting
    its 营业收入 row and the 增长率 row under it (the offline answerer's row quotes)."""
    from rag_app.ingest import chunk_document, load_path
    from rag_app.prompt.tables import merge_table_chunks
    from rag_app.text.tokens import get_token_counter
    from tests.conftest import SAMPLE_CONTENT_LIST
    from ui.render_sources import render_chunk

    doc = load_path(SAMPLE_CONTENT_LIST, 10**9)[0].document
    chunks = chunk_document(doc, get_token_counter())
    table = merge_table_chunks([c for c in chunks if c.caption == "表1：盈利预测与估值"])
    lines = [
        "项目: 营业收入（百万元）; 实际值 / 2022A: 49,516; 实际值 / 2023A: 45,250; "
        "实际值 / 2024A: 57,796; 预测值 / 2025E: 67,850; 预测值 / 2026E: 77,420",
        "项目: 增长率（%）; 实际值 / 2022A: 39.0; 实际值 / 2023A: -8.6; 实际值 / 2024A: 27.7; "
        "预测值 / 2025E: 17.4; 预测值 / 2026E: 14.1",
    ]
    # The core checks a row quote clause by clause: the sentences are the clauses.
    sentences = [clause for line in lines for clause in line.split("; ")]
    render_chunk(table, None, "", sentences, lines)  # type: ignore[arg-type]


def _table_html() -> str:
    at = AppTest.from_function(_earnings_card, default_timeout=60)
    at.run()
    assert not at.exception, at.exception
    (html,) = [m.value for m in at.markdown if "rag-table" in m.value]
    return html


def test_the_earnings_card_draws_its_header_as_the_document_and_marks_the_cited_rows() -> None:
    html = _table_html()
    header = html.split("</tr>", 2)
    assert '<th rowspan="2">项目</th>' in header[0]
    assert '<th colspan="3">实际值</th>' in header[0] and '<th colspan="2">预测值</th>' in header[0]
    for label in ("项目", "实际值", "预测值", "2022A", "2026E"):
        assert html.count(f">{label}<") == 1, label  # drawn once
    hits = re.findall(r'<td class="rag-hit">([^<]*)</td>', html)
    assert hits.count("增长率（%）") == 1  # the second 增长率 row is not cited
    assert hits == [
        "营业收入（百万元）", "49,516", "45,250", "57,796", "67,850", "77,420",
        "增长率（%）", "39.0", "-8.6", "27.7", "17.4", "14.1",
    ]  # fmt: skip
    assert "由 2 个子表合并" not in html


def _part(index: int, count: int) -> Hit:
    chunk = Chunk(
        f"d:{index}", "d", "table", "", "", (0,), parent_table_id="d#table0",
        subtable_index=index, subtable_count=count,
    )  # fmt: skip
    return Hit(chunk, 0.5)


def test_a_merge_note_only_for_part_of_a_table() -> None:
    assert i18n.lang() == "zh"  # outside a session: the default
    assert part_note((_part(1, 2), _part(2, 2))) == ""  # the document's one table
    assert part_note((_part(2, 2),)) == "子表 2/2"
    assert part_note((_part(1, 3), _part(3, 3))) == "子表 1+3/3"
    assert part_note((Hit(Chunk("t", "d", "table", "", "", (0,)), 0.5),)) == ""


def _fab_lines_card() -> None:
    """The card body of the sample's 表6, merged from its two sub-tables (its "12英寸" spans
    nine rows across the cut), under the offline answerer's quote of the 中芯京城 row."""
    from rag_app.ingest import chunk_document, load_path
    from rag_app.prompt.tables import merge_table_chunks
    from rag_app.text.tokens import get_token_counter
    from tests.conftest import SAMPLE_CONTENT_LIST
    from ui.render_sources import render_chunk

    doc = load_path(SAMPLE_CONTENT_LIST, 10**9)[0].document
    chunks = chunk_document(doc, get_token_counter())
    table = merge_table_chunks([c for c in chunks if c.caption == "表6：中芯国际产线一览"])
    line = (
        "序号: 10; 晶圆尺寸: 12英寸; 厂区: 中芯京城; 类型: FAB; 地点: 北京; 产能 / 规划产能: 10.0; "
        "产能 / 当前产能: 5.0; 状态: 产能爬坡; 工艺节点: 28nm及以上"
    )
    render_chunk(table, None, "", line.split("; "), [line])  # type: ignore[arg-type]


def test_the_fab_card_draws_a_span_cut_by_its_sub_tables_once_and_marks_the_quoted_row() -> None:
    at = AppTest.from_function(_fab_lines_card, default_timeout=60)
    at.run()
    assert not at.exception, at.exception
    (html,) = [m.value for m in at.markdown if "rag-table" in m.value]
    assert html.count(">12英寸<") == 1  # was two cells, over 3 rows and over 6
    assert '<td rowspan="9" class="rag-hit">12英寸</td>' in html
    hits = re.findall(r'<td class="rag-hit">([^<]*)</td>', html)
    assert hits == [
        "10", "中芯京城", "FAB", "北京", "10.0", "5.0", "产能爬坡", "28nm及以上",
    ]  # fmt: skip
    assert "<td>12</td>" in html  # the 序号 of 中芯西青 is no "12英寸" quoted
