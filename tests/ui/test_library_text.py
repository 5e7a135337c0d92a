"""The Library page's words (ui/library_text.py): each uploaded file's result lines (a
rejection worded from the core's reason key), an upload's stage and outcome, sizes, formats."""

from __future__ import annotations

import ast
from collections.abc import Iterator

import pytest
import streamlit as st

from rag_app.ingest import IngestError, load_bytes
from rag_app.models import IngestReport, Progress
from tests.conftest import REPO_ROOT
from ui.library_text import format_label, outcome_text, result_lines, size_text, stage_text
from ui.strings_library import INGEST_REASONS_ZH


@pytest.fixture(autouse=True)
def english() -> Iterator[None]:
    st.session_state["lang"] = "en"
    yield
    st.session_state.pop("lang", None)


def test_an_ingested_file_says_what_it_replaced_and_where_it_was_kept() -> None:
    report = IngestReport(
        name="report (2)",
        status="ingested",
        doc_id="report-2",
        message="12 chunks (replaced the earlier version); kept beside the document r as r-2",
        type_counts=(("text", 10), ("table", 2)),
        n_chunks=12,
        warnings=("page 3 has no text",),
    )
    [(level, line), (warn_level, warning)] = result_lines("report.pdf", [report])
    assert level == "success" and warn_level == "warning"
    assert line == (
        "✅ report.pdf: imported, 12 chunks (Text 10 · Table 2)"  # kept beside: the user's file
        " · replaced the earlier version · kept as “report-2”"
    )
    assert "page 3 has no text" in warning


def test_conflict_duplicate_and_rejection_have_their_levels() -> None:
    reports = [
        IngestReport(name="a", status="conflict", doc_id="a"),
        IngestReport(name="b", status="duplicate", doc_id="b"),
        IngestReport(name="c", status="rejected", message="not a PDF"),
    ]
    levels = [level for level, _ in result_lines("x.zip", reports)]
    assert levels == ["warning", "info", "error"]
    assert outcome_text("x.zip", reports) == "x.zip · ⚠️ needs a choice"


def test_stages_and_sizes() -> None:
    assert "3" in stage_text(Progress("embed", 3, 10)) and "10" in stage_text(
        Progress("embed", 3, 10)
    )
    assert stage_text(Progress("parse", 0, 0)) == ""
    assert size_text(512) == "512 B" and size_text(1536) == "1.5 KB"


def _bad_json_report() -> IngestReport:
    """The library's report of a content list cut off inside a string at line 13, column 77."""
    lines = ["["] + [f'  {{"type": "text", "text": "para {i}"}},' for i in range(11)]
    lines.append(" " * 67 + '{"text": "a paragraph about wafer capacity, cut off')
    name = "bad_content_list.json"
    try:
        load_bytes("\n".join(lines).encode(), name, 1 << 20)
    except IngestError as exc:
        return exc.report(name)
    raise AssertionError("the bad JSON was taken")


def test_a_rejection_is_worded_in_the_users_language() -> None:
    report = _bad_json_report()
    assert "line 13, column 77: Unterminated string" in report.message  # the core's English
    [(level, english)] = result_lines(report.name, [report])
    assert level == "error"
    # English: the core's words, the file named once
    assert english == (
        "❌ bad_content_list.json: not imported: not valid JSON (line 13, column 77: "
        "Unterminated string starting at)"
    )
    st.session_state["lang"] = "zh"
    [(_, chinese)] = result_lines(report.name, [report])
    assert (
        chinese
        == "❌ bad_content_list.json：未导入，不是有效的 JSON（第 13 行第 77 列：字符串未结束）"
    )
    # a reason without a key (an unexpected failure): the core's English, the name not repeated
    plain = IngestReport(name="a.md", status="rejected", message="a.md: could not be indexed: x")
    assert result_lines("a.md", [plain]) == [("error", "❌ a.md：未导入，could not be indexed: x")]


def test_every_ingest_reason_key_has_a_chinese_wording() -> None:
    """Each key the loaders give (``IngestError(..., key=...)`` in rag_app/ingest) is worded in
    Chinese."""
    keys = set()
    for path in (REPO_ROOT / "rag_app" / "ingest").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "IngestError":
                for keyword in node.keywords:
                    if keyword.arg == "key":  # a constant, or "a" if ... else "b"
                        keys |= {
                            n.value for n in ast.walk(keyword.value) if isinstance(n, ast.Constant)
                        }
    assert len(keys) > 20, keys
    assert keys <= INGEST_REASONS_ZH.keys(), keys - INGEST_REASONS_ZH.keys()


def test_a_duplicate_names_the_document_as_the_list_does() -> None:
    st.session_state["lang"] = "zh"
    report = IngestReport(name="copy_content_list.json", status="duplicate", doc_id="tatqa_like")
    names = {"tatqa_like": "tatqa_like_content_list.json"}
    [(_, line)] = result_lines("copy_content_list.json", [report], names)
    assert "「tatqa_like_content_list.json」" in line and "「tatqa_like」" not in line


def test_formats_are_worded_for_users() -> None:
    assert [format_label(f) for f in ("zip", "content_list", "markdown", "sheet")] == [
        "MinerU zip",
        "MinerU content list",
        "Markdown",
        "Q&A sheet",
    ]
    st.session_state["lang"] = "zh"
    assert format_label("content_list") == "MinerU 内容列表"
    assert format_label("new_kind") == "new_kind"  # a format without a label: as it is
