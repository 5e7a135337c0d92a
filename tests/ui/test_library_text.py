"""The Library page's words (ui/library_text.py): each uploaded file's result lines, an
upload's stage and outcome, sizes."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import streamlit as st

from rag_app.models import IngestReport, Progress
from ui.library_text import outcome_text, result_lines, size_text, stage_text


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
