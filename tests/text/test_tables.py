"""Tables: HTML grids (spans, header rows), linearisation, table chunks and sub-table splits."""

from __future__ import annotations

import json
import time
from pathlib import Path

from rag_app.ingest import ChunkingOptions, chunk_document, load_bytes, load_path
from rag_app.models import Chunk, Document, Item
from rag_app.text.tables import (
    Grid,
    column_labels,
    grid_to_html,
    linearise,
    linearise_row,
    parse_table,
)
from tests.conftest import SAMPLE_CONTENT_LIST, TEST_DATA

# The head of 表6 in the sample report: rowspan=2 labels, 产能 colspan=2 over two sub-labels, and
# a body cell spanning three rows, cells covered by spans left out as MinerU writes them.
FAB_TABLE = (
    '<table><tr><td rowspan="2">序号</td><td rowspan="2">晶圆尺寸</td><td rowspan="2">厂区</td>'
    '<td colspan="2">产能</td><td rowspan="2">工艺节点</td></tr>'
    "<tr><td>规划产能</td><td>当前产能</td></tr>"
    '<tr><td>1</td><td rowspan="3">8英寸</td><td>中芯上海（S1）</td><td>12.0</td><td>11.5</td>'
    "<td>0.35μm-90nm</td></tr>"
    "<tr><td>2</td><td>中芯天津（T1）</td><td>18.0</td><td>16.2</td><td>0.35μm-90nm</td></tr>"
    "<tr><td>3</td><td>中芯深圳（8英寸）</td><td>7.0</td><td>6.8</td><td>0.18μm-90nm</td></tr>"
    "</table>"
)


def _doc(items: list[Item], doc_id: str = "t") -> Document:
    return Document(
        doc_id=doc_id,
        name=f"{doc_id}.json",
        source_format="content_list",
        items=tuple(items),
        content_hash="x",
        size_bytes=1,
    )


# -- grids --------------------------------------------------------------------------------------


def test_spans_are_expanded_and_two_header_rows_found() -> None:
    grid = parse_table(FAB_TABLE)
    assert (grid.n_rows, grid.n_cols, grid.header_rows) == (5, 6, 2)
    assert grid.rows[0] == ("序号", "晶圆尺寸", "厂区", "产能", "产能", "工艺节点")
    assert grid.rows[1] == ("序号", "晶圆尺寸", "厂区", "规划产能", "当前产能", "工艺节点")
    assert [row[1] for row in grid.data_rows] == ["8英寸", "8英寸", "8英寸"]
    assert grid.rows[3] == ("2", "8英寸", "中芯天津（T1）", "18.0", "16.2", "0.35μm-90nm")
    assert column_labels(grid) == [
        "序号",
        "晶圆尺寸",
        "厂区",
        "产能 规划产能",
        "产能 当前产能",
        "工艺节点",
    ]


def test_linearised_rows_put_each_value_next_to_its_header() -> None:
    grid = parse_table(FAB_TABLE)
    text = linearise(grid)
    lines = text.split("\n")
    assert lines[0] == "序号 | 晶圆尺寸 | 厂区 | 产能 规划产能 | 产能 当前产能 | 工艺节点"
    assert lines[2] == (
        "2: 晶圆尺寸 8英寸; 厂区 中芯天津（T1）; 产能 规划产能 18.0; "
        "产能 当前产能 16.2; 工艺节点 0.35μm-90nm"
    )
    assert len(lines) == 1 + 3


def test_th_and_thead_mark_header_rows() -> None:
    html = (
        "<table><thead><tr><td>Item</td><td>2019</td></tr></thead>"
        "<tr><th>Segment</th><th>Revenue</th></tr>"
        "<tr><td>Freight</td><td>1,200</td></tr></table>"
    )
    grid = parse_table(html)
    assert grid.header_rows == 2
    assert column_labels(grid) == ["Item Segment", "2019 Revenue"]


def test_year_and_unit_rows_are_headers_numbers_are_data() -> None:
    html = (
        "<table><tr><td>项目</td><td>2023A</td><td>2024E</td></tr>"
        "<tr><td></td><td>亿元</td><td>亿元</td></tr>"
        "<tr><td>营业收入</td><td>452.5</td><td>578.0</td></tr>"
        "<tr><td>增长率</td><td>-8.6%</td><td>27.7%</td></tr></table>"
    )
    grid = parse_table(html)
    assert grid.header_rows == 2
    assert linearise_row(grid.data_rows[1], column_labels(grid)) == (
        "增长率: 2023A 亿元 -8.6%; 2024E 亿元 27.7%"
    )


def test_text_only_table_keeps_its_rows_as_data() -> None:
    """A glossary (no numbers anywhere) has one header row, not four swallowed data rows."""
    rows = [("术语 Terms", "定义 Definitions")] + [
        (f"术语{n}", f"这是第{n}个术语的定义，说明其含义与适用范围") for n in range(1, 9)
    ]
    html = "<table>" + "".join(f"<tr><td>{a}</td><td>{b}</td></tr>" for a, b in rows) + "</table>"
    grid = parse_table(html)
    assert grid.n_rows == 9
    assert grid.header_rows == 1
    assert column_labels(grid) == ["术语 Terms", "定义 Definitions"]


def test_empty_and_broken_bodies_do_not_raise() -> None:
    assert parse_table("").n_rows == 0
    assert parse_table("<table></table>").n_rows == 0
    assert parse_table("not html at all").n_rows == 0
    grid = parse_table("<table><tr><td>a<td>1<tr><td>b<td>2")  # unclosed tags
    assert grid.rows == (("a", "1"), ("b", "2"))


def test_hostile_spans_are_capped() -> None:
    start = time.perf_counter()
    grid = parse_table(
        '<table><tr><td colspan="1000000" rowspan="1000000">x</td>'
        '<td colspan="-5">y</td><td colspan="abc">z</td></tr></table>'
    )
    assert time.perf_counter() - start < 3
    # spans are capped at 100; a span that is not a positive number counts as 1, its cell kept
    assert (grid.n_cols, grid.n_rows) == (100 + 2, 100)
    assert grid.rows[0][-3:] == ("x", "y", "z") and grid.rows[-1] == ("x",) * 100 + ("", "")


def test_script_style_and_attributes_are_not_cell_text() -> None:
    grid = parse_table(
        '<table><tr><td onmouseover="x()">A<script>alert(1)</script></td>'
        "<td><style>.a{}</style><img src=x onerror=alert(2)>1</td></tr></table>"
    )
    assert grid.rows == (("A", "1"),)


def test_grid_to_html_escapes_cell_text() -> None:
    html = grid_to_html(Grid((("<b>h</b>",), ("<script>x</script> & y",)), header_rows=1))
    assert "<script>" not in html and "&lt;script&gt;" in html and "&amp; y" in html
    assert html.startswith("<table><tr><th>")


# -- table chunks -------------------------------------------------------------------------------


def test_tatqa_like_table_chunk(counter) -> None:  # type: ignore[no-untyped-def]
    path = TEST_DATA / "tatqa_like_content_list.json"
    raw = json.loads(path.read_text(encoding="utf-8"))
    chunks = chunk_document(load_path(path, 10**9)[0].document, counter)
    (table,) = [c for c in chunks if c.type == "table"]
    assert table.item_indices == (3,) and raw[3]["type"] == "table"
    assert table.pages == (0,)
    assert table.caption == "Table 3: Revenue by segment (in thousands)"
    assert table.footnote == "Source: Northwind segment filings"
    assert (table.n_rows, table.n_cols, table.header_rows) == (4, 3, 1)
    assert table.text == (
        "2019 | 2018\n"
        "Freight: 2019 $ 12,340; 2018 $ 10,115\n"
        "Warehousing: 2019 4,210; 2018 4,480\n"
        "Total: 2019 $ 16,550; 2018 $ 14,595"
    )
    assert table.caption in table.search_text and table.footnote in table.search_text
    assert "Item 7. Management's Discussion and Analysis" in table.search_text  # heading path
    assert table.context == raw[2]["text"]  # the paragraph introducing the table
    assert table.table_html == raw[3]["table_body"]
    assert (table.parent_table_id, table.subtable_index, table.subtable_count) == ("", 0, 0)


def test_sample_fab_table_chunks(counter) -> None:  # type: ignore[no-untyped-def]
    raw = json.loads(SAMPLE_CONTENT_LIST.read_text(encoding="utf-8"))
    chunks = chunk_document(load_path(SAMPLE_CONTENT_LIST, 10**9)[0].document, counter)
    fab = [c for c in chunks if c.caption == "表6：中芯国际产线一览"]
    assert fab
    for chunk in fab:
        assert chunk.n_cols == 9 and chunk.header_rows == 2
        assert chunk.footnote == " ".join(raw[55]["table_footnote"])
        assert chunk.context.startswith("公司目前拥有三座8英寸晶圆厂")
        assert chunk.text.split("\n")[0] == (
            "序号 | 晶圆尺寸 | 厂区 | 类型 | 地点 | 产能 规划产能 | 产能 当前产能 | 状态 | 工艺节点"
        )
    lines = [line for c in fab for line in c.text.split("\n")[1:]]
    assert len(lines) == 12  # every fab line once, in order
    assert [line.split(":")[0] for line in lines] == [str(n) for n in range(1, 13)]
    sn1 = next(line for line in lines if "中芯南方（SN1）" in line)
    assert "晶圆尺寸 12英寸" in sn1 and "工艺节点 14nmFinFET" in sn1 and "地点 上海" in sn1
    assert sum(c.n_rows - c.header_rows for c in fab) == 12


def test_table_without_body_is_caption_and_footnote(counter) -> None:  # type: ignore[no-untyped-def]
    items = [
        Item(
            index=0,
            kind="table",
            page=2,
            caption=("表9：未识别的表格",),
            footnote=("数据来源：公司公告",),
            image_path="images/t.jpg",
        )
    ]
    (chunk,) = chunk_document(_doc(items), counter)
    assert chunk.text == "表9：未识别的表格\n数据来源：公司公告"
    assert (chunk.n_rows, chunk.n_cols, chunk.table_html) == (0, 0, "")
    assert chunk.image_path == "images/t.jpg" and chunk.pages == (2,)


def _big_table(rows: int) -> str:
    head = "<tr><td>季度</td><td>营收（亿元）</td><td>毛利率（%）</td><td>产能利用率（%）</td></tr>"
    body = "".join(
        f"<tr><td>{2019 + n // 4}Q{n % 4 + 1}</td><td>{100 + n * 1.5:.1f}</td>"
        f"<td>{20 + n % 7}.{n % 10}</td><td>{70 + n % 25}.{n % 9}</td></tr>"
        for n in range(rows)
    )
    return f"<table>{head}{body}</table>"


def test_big_table_splits_into_subtables_repeating_the_header(counter) -> None:  # type: ignore[no-untyped-def]
    items = [
        Item(index=0, kind="heading", text="季度财务数据", level=1, page=5),
        Item(index=1, kind="text", text="下表列出公司历年季度经营数据。", page=5),
        Item(
            index=2,
            kind="table",
            page=5,
            table_body=_big_table(60),
            caption=("表7：季度财务数据",),
            footnote=("数据来源：Wind",),
        ),
    ]
    limit = 150
    chunks = chunk_document(_doc(items, "big"), counter, ChunkingOptions(table_chunk_tokens=limit))
    subs = [c for c in chunks if c.type == "table"]
    assert len(subs) >= 3
    head = "季度 | 营收（亿元） | 毛利率（%） | 产能利用率（%）"
    seen: list[str] = []
    for n, chunk in enumerate(subs, start=1):
        assert chunk.parent_table_id == "big#table2"
        assert (chunk.subtable_index, chunk.subtable_count) == (n, len(subs))
        lines = chunk.text.split("\n")
        assert lines[0] == head
        seen.extend(line.split(":")[0] for line in lines[1:])
        assert counter.count(chunk.text) <= limit
        assert chunk.table_html.startswith("<table><tr><th>季度</th><th>营收（亿元）</th>")
        assert chunk.table_html.count("<th>") == 4  # the header row, repeated in each part
        assert chunk.n_rows == len(lines) - 1 + 1 and chunk.n_cols == 4 and chunk.header_rows == 1
        assert chunk.caption == "表7：季度财务数据" and "数据来源：Wind" in chunk.search_text
        assert chunk.item_indices[-1] == 2 and chunk.pages == (5,)
        assert chunk.context == "下表列出公司历年季度经营数据。"
    # every data row exactly once, in order
    assert seen == [f"{2019 + n // 4}Q{n % 4 + 1}" for n in range(60)]


def test_small_table_is_not_split(counter) -> None:  # type: ignore[no-untyped-def]
    items = [Item(index=0, kind="table", table_body=_big_table(3), caption=("表1：小表",))]
    (chunk,) = chunk_document(_doc(items), counter)
    assert (chunk.parent_table_id, chunk.subtable_index, chunk.subtable_count) == ("", 0, 0)
    assert chunk.n_rows == 4 and chunk.text.count("\n") == 3


def test_wide_glossary_table_is_not_split_into_one_row_parts(counter) -> None:  # type: ignore[no-untyped-def]
    """A text-only table must not turn its first rows into a huge repeated header."""
    rows = [("术语 Terms", "定义 Definitions")] + [
        (f"术语{n} Term {n}", "本产品标准中的定义说明，" * 6) for n in range(1, 13)
    ]
    html = "<table>" + "".join(f"<tr><td>{a}</td><td>{b}</td></tr>" for a, b in rows) + "</table>"
    items = [Item(index=0, kind="table", table_body=html)]
    chunks = chunk_document(_doc(items), counter)
    data_rows = sum(c.n_rows - c.header_rows for c in chunks)
    assert data_rows == 12
    assert all(c.header_rows == 1 for c in chunks)


def test_markdown_and_content_list_tables_agree(counter) -> None:  # type: ignore[no-untyped-def]
    body = "<table><tr><td>指标</td><td>2024A</td></tr><tr><td>营收</td><td>578.0</td></tr></table>"
    from_json = load_bytes(
        json.dumps(
            [{"type": "table", "table_body": body, "table_caption": ["表1：指标"]}],
            ensure_ascii=False,
        ).encode(),
        "a.json",
        10**9,
    )[0].document
    from_md = load_bytes(f"表1：指标\n\n{body}\n".encode(), "a.md", 10**9)[0].document
    (a,) = chunk_document(from_json, counter)
    (b,) = chunk_document(from_md, counter)
    assert (a.text, a.caption, a.n_rows, a.n_cols) == (b.text, b.caption, b.n_rows, b.n_cols)


def _first_table(chunks: list[Chunk]) -> Chunk:
    return next(c for c in chunks if c.type == "table")


def test_table_context_is_cut_to_context_chars(counter) -> None:  # type: ignore[no-untyped-def]
    items = [
        Item(index=0, kind="text", text="长" * 500),
        Item(index=1, kind="table", table_body=_big_table(2)),
    ]
    chunk = _first_table(chunk_document(_doc(items), counter, ChunkingOptions(context_chars=50)))
    assert chunk.context == "长" * 50 + "…"


def test_svolt_tables_have_their_item_index(mineru_fixtures: Path, counter) -> None:  # type: ignore[no-untyped-def]
    path = mineru_fixtures / "svolt_battery_datasheet_zh_en" / "svolt_content_list.json"
    raw = json.loads(path.read_text(encoding="utf-8"))
    chunks = [
        c for c in chunk_document(load_path(path, 10**9)[0].document, counter) if c.type == "table"
    ]
    tables = {i for i, e in enumerate(raw) if e["type"] == "table"}
    for chunk in chunks:
        assert len(set(chunk.item_indices) & tables) == 1
    assert {i for c in chunks for i in c.item_indices} & tables == tables


def test_quoted_values_are_the_cells_a_sentence_quotes() -> None:
    from rag_app.text.table_quotes import cell_value, quoted_values

    values = quoted_values(
        ["毛利率: 2025E 21.8%; 2026E 23.5% [Source 1]", "Revenue rose 1,234.5 in 2024"]
    )
    # numbers as cells hold them, "label: value" values, and no bare year (a column, not a value)
    assert {"21.8", "23.5", "1234.5"} <= values
    assert "2024" not in values and "1" not in values
    assert cell_value(" 1,234.5% ") == "1234.5"


def test_label_value_table_has_no_header_row() -> None:
    """A company's particulars (label | value pairs, no numbers) are all data: the first pair
    is not a header repeated before every other value."""
    rows = [
        ("公司的中文名称", "江苏澄远智能装备股份有限公司"),
        ("公司的中文简称", "澄远智能"),
        ("公司的外文名称", "Jiangsu Chengyuan Intelligent Equipment Co., Ltd."),
        ("公司的法定代表人", "周启明"),
        ("公司注册地址", "江苏省常州市武进区常武中路18号"),
    ]
    html = "<table>" + "".join(f"<tr><td>{a}</td><td>{b}</td></tr>" for a, b in rows) + "</table>"
    grid = parse_table(html)
    assert grid.header_rows == 0
    assert linearise_row(grid.data_rows[1], column_labels(grid)) == "公司的中文简称: 澄远智能"
    two_rows = "<table><tr><td>电芯温度</td><td>充电制度</td></tr><tr><td>&lt; -20℃</td><td>不允许充电</td></tr></table>"
    assert parse_table(two_rows).header_rows == 1
