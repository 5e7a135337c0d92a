"""Sub-tables of the sample report's tables draw their header as the document does (spans kept,
each label once), and merged back from all their parts they are the document's one table
(issue 26 item 3)."""

from __future__ import annotations

import json
import re

import pytest

from rag_app.ingest import chunk_document, load_path
from rag_app.models import Chunk
from rag_app.prompt.tables import merge_table_chunks
from rag_app.text.table_rows import split_rows
from rag_app.text.tables import parse_table
from tests.conftest import SAMPLE_CONTENT_LIST

# The sample's tables with a two-row header of spanned labels, split at ingestion.
SPANNED = ("表1", "表4", "表5", "表6", "表7")


@pytest.fixture(scope="module")
def sample_tables(counter) -> dict[str, tuple[str, list[Chunk]]]:  # type: ignore[no-untyped-def]
    """Per table number: the document's table HTML and its chunks."""
    raw = json.loads(SAMPLE_CONTENT_LIST.read_text(encoding="utf-8"))
    chunks = chunk_document(load_path(SAMPLE_CONTENT_LIST, 10**9)[0].document, counter)
    out = {}
    for entry in raw:
        if entry.get("type") == "table" and entry.get("table_caption"):
            caption = entry["table_caption"][0]
            number = caption.split("：")[0]
            out[number] = (entry["table_body"], [c for c in chunks if c.caption == caption])
    return out


def _header(html: str, rows: int) -> str:
    parsed = split_rows(html)
    assert parsed is not None
    return "".join(parsed.rows[:rows])


def _labels(header: str) -> list[str]:
    return re.findall(r"<t[hd][^>]*>([^<]*)</t[hd]>", header)


@pytest.mark.parametrize("number", SPANNED)
def test_sub_tables_draw_the_header_with_each_label_once(sample_tables, number: str) -> None:  # type: ignore[no-untyped-def]
    original, parts = sample_tables[number]
    assert len(parts) > 1 and all(p.parent_table_id for p in parts)  # split for the embedder
    document = parse_table(original)
    for part in parts:
        assert part.header_rows == document.header_rows == 2
        labels = _labels(_header(part.table_html, 2))
        assert len(labels) == len(set(labels)), labels  # no label drawn twice
        assert labels == _labels(_header(original, 2))  # the document's header cells
        assert parse_table(part.table_html).rows[:2] == document.rows[:2]


def test_the_earnings_header_keeps_its_rowspan_and_colspans(sample_tables) -> None:  # type: ignore[no-untyped-def]
    _, parts = sample_tables["表1"]
    for part in parts:
        assert part.table_html.startswith(
            '<table><tr><th rowspan="2">项目</th><th colspan="3">实际值</th>'
            '<th colspan="2">预测值</th></tr>'
            "<tr><th>2022A</th><th>2023A</th><th>2024A</th><th>2025E</th><th>2026E</th></tr>"
        )


@pytest.mark.parametrize("number", (*SPANNED, "表3"))
def test_all_parts_merged_are_the_documents_table(sample_tables, number: str) -> None:  # type: ignore[no-untyped-def]
    original, parts = sample_tables[number]
    merged = merge_table_chunks(parts)
    assert parse_table(merged.table_html).rows == parse_table(original).rows
    assert merged.n_rows == parse_table(original).n_rows
    header = _header(merged.table_html, merged.header_rows)
    assert merged.table_html.count(header) == 1  # the header once, not once per part
