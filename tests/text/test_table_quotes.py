"""Sub-table HTML drawn with the document's spans, and the cells a cited statement quotes
(issue 26 item 3)."""

from __future__ import annotations

import re

from rag_app.text.table_quotes import quoted_cell_ids, quoted_cells, quoted_values
from rag_app.text.tables import grid_to_html, join_cut_spans, parse_table
from tests.text.test_tables import FAB_TABLE

# 表1 of the sample report: "项目" over two header rows, "实际值" over three years, and the
# label "增长率（%）" on two rows (under 营业收入 and under 归母净利润).
EARNINGS = [
    ["项目", "实际值", "预测值"],
    ["2022A", "2023A", "2024A", "2025E", "2026E"],
    ["营业收入（百万元）", "49,516", "45,250", "57,796", "67,850", "77,420"],
    ["增长率（%）", "39.0", "-8.6", "27.7", "17.4", "14.1"],
    ["归母净利润（百万元）", "12,133", "4,823", "3,699", "5,210", "6,480"],
    ["增长率（%）", "13.0", "-60.2", "-23.3", "40.8", "24.4"],
]
ROW_QUOTE = (
    "项目: 增长率（%）; 实际值 / 2022A: 39.0; 实际值 / 2023A: -8.6; 实际值 / 2024A: 27.7; "
    "预测值 / 2025E: 17.4; 预测值 / 2026E: 14.1"
)


def _cells(html: str) -> list[str]:
    return re.findall(r"<t[hd][^>]*>[^<]*</t[hd]>", html)


def test_the_header_is_drawn_once_with_its_spans() -> None:
    grid = parse_table(FAB_TABLE)
    html = grid_to_html(grid)
    cells = _cells(html)
    for label in ("序号", "晶圆尺寸", "厂区", "工艺节点"):
        assert cells.count(f'<th rowspan="2">{label}</th>') == 1
        assert html.count(f">{label}<") == 1
    assert cells.count('<th colspan="2">产能</th>') == 1 and html.count(">产能<") == 1
    assert '<td rowspan="3">8英寸</td>' in cells and html.count(">8英寸<") == 1
    assert parse_table(html).rows == grid.rows  # the same table, read back


def test_a_rowspan_cut_by_a_sub_table_is_drawn_over_the_rows_it_shows() -> None:
    grid = parse_table(FAB_TABLE)
    html = grid_to_html(grid, (3, 4))  # the 2nd and 3rd fabs: "8英寸" spans them
    assert html.count(">8英寸<") == 1 and '<td rowspan="2">8英寸</td>' in html
    assert parse_table(html).rows == grid.rows[:2] + grid.rows[3:5]
    alone = grid_to_html(grid, (4,))
    assert "<td>8英寸</td>" in alone and "rowspan" not in alone.split("</tr>", 2)[2]


def test_a_repeated_label_is_marked_in_the_row_quoted_only() -> None:
    marked = quoted_cells(EARNINGS, [ROW_QUOTE])
    assert (3, 0) in marked and (5, 0) not in marked
    assert {(3, c) for c in range(6)} == marked


def test_a_figure_stated_in_prose_is_marked_where_it_stands() -> None:
    marked = quoted_cells(EARNINGS, ["中芯国际2024年营业收入为57,796百万元，同比增长27.7%。"])
    assert marked == {(2, 3), (3, 3)}


def test_a_repeated_value_is_marked_in_the_row_the_statement_quotes_most() -> None:
    rows = [
        ["10", "中芯京城", "北京", "10.0", "5.0", "产能爬坡"],
        ["11", "中芯东方", "上海", "10.0", "—", "在建"],
        ["12", "中芯西青", "天津", "10.0", "—", "在建"],
    ]
    quote = "序号: 10; 厂区: 中芯京城; 产能 规划产能: 10.0; 产能 当前产能: 5.0; 状态: 产能爬坡"
    assert quoted_cells(rows, [quote]) == {(0, c) for c in (0, 1, 3, 4, 5)}
    assert quoted_cells(rows, ["规划产能均为10.0万片"]) == {(0, 3), (1, 3), (2, 3)}


# -- a table joined back from its sub-tables (issue 26: 表6's "12英寸") -----------------------------
def _joined_back(cut: int) -> str:
    """FAB_TABLE split into two sub-tables before data row ``cut`` (as ingestion splits it) and
    joined back as the prompt joins them (``merge_table_chunks``)."""
    from rag_app.models import Chunk
    from rag_app.prompt.tables import merge_table_chunks

    grid = parse_table(FAB_TABLE)
    parts = [
        Chunk(
            f"t:{i}", "t", "table", "", "", (0,), table_html=grid_to_html(grid, rows),
            header_rows=2, parent_table_id="t#table0", subtable_index=i, subtable_count=2,
        )
        for i, rows in ((1, range(2, cut)), (2, range(cut, 5)))
    ]  # fmt: skip
    return merge_table_chunks(parts).table_html


def test_a_span_cut_between_sub_tables_is_one_cell_again_when_joined() -> None:
    whole = parse_table(FAB_TABLE)
    for cut in (3, 4):  # "8英寸" over 1 + 2 rows, then over 2 + 1
        html = _joined_back(cut)
        assert html.count(">8英寸<") == 2  # each part drew its share
        grid = join_cut_spans(parse_table(html))
        drawn = grid_to_html(grid)
        assert drawn.count(">8英寸<") == 1 and '<td rowspan="3">8英寸</td>' in drawn
        assert drawn.count(">0.35μm-90nm<") == 2  # equal one-row cells are the document's own
        assert parse_table(drawn).rows == whole.rows
        assert drawn.count("<th") == 7  # the header untouched: 5 cells over 2 rows, then 2


def test_a_cell_spanning_rows_is_marked_once_in_the_row_quoted() -> None:
    grid = join_cut_spans(parse_table(_joined_back(4)))
    quote = "序号: 3; 晶圆尺寸: 8英寸; 厂区: 中芯深圳（8英寸）; 产能 / 规划产能: 7.0; 产能 / 当前产能: 6.8"
    html = grid_to_html(grid, classes=dict.fromkeys(quoted_cell_ids(grid, [quote]), "hit"))
    assert '<td rowspan="3" class="hit">8英寸</td>' in html
    assert re.findall(r'class="hit">([^<]*)<', html) == [
        "8英寸", "3", "中芯深圳（8英寸）", "7.0", "6.8",
    ]  # fmt: skip


def test_a_number_inside_a_word_is_no_value_of_its_own() -> None:
    rows = [["11", "中芯东方", "10.0"], ["12", "中芯西青", "10.0"]]
    # "12英寸" and "28nm" name a size and a node: the 序号 12 is not quoted
    assert quoted_cells(rows, ["中芯京城: 12英寸产线，28nm及以上"]) == set()
    assert quoted_values(["规划产能10.0万片，当前5.0，增长27.7%"]) >= {"10.0", "5.0", "27.7"}
    assert "12" in quoted_values(["序号为12。"])  # standing alone it is a value
