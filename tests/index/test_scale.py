"""Growth with the library: per-document work is done once per document, and the scale table
(``rag_app.evaluation.bench_scale``) measures what ``../shared/checks/scale`` does."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from rag_app.evaluation.bench_scale import measure, table
from rag_app.index.library import Library
from rag_app.models import Chunk
from rag_app.retrieve.signals import per_document
from tests.conftest import SAMPLE_CONTENT_LIST, TEST_DATA

KB = "default"


def test_per_document_work_is_done_once_per_document_version(library: Library, ingest_json):  # type: ignore[no-untyped-def]
    built: list[str] = []

    def build(chunks: list[Chunk]) -> int:
        built.append(chunks[0].doc_id)
        return len(chunks)

    library.ingest_paths([SAMPLE_CONTENT_LIST])
    first = per_document("count", library, KB, build)
    assert first == {"smic_report": len(library.chunks(KB, "smic_report"))}
    ingest_json([{"type": "text", "text": "Capacity growth.", "page_idx": 0}], "c.json")
    second = per_document("count", library, KB, build)
    assert built == ["smic_report", "c"]  # the first document was not built again
    assert list(second) == ["c", "smic_report"]  # documents in id order
    library.delete_document(KB, "c")
    assert per_document("count", library, KB, build) == first and len(built) == 2


def test_the_scale_table_measures_each_size(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    shutil.copy(SAMPLE_CONTENT_LIST, docs / "smic_content_list.json")
    shutil.copy(TEST_DATA / "tatqa_like_content_list.json", docs / "tatqa_content_list.json")
    questions = tmp_path / "questions.jsonl"
    questions.write_text(
        "\n".join(json.dumps({"question": q}) for q in ("中芯国际的产能", "warehousing revenue"))
    )
    rows = measure(docs, questions, [10, 60], tmp_path / "data")
    assert [r.chunks >= s for r, s in zip(rows, [10, 60])] == [True, True]
    assert rows[0].chunks < rows[1].chunks
    assert all(r.ingest_s_per_1k > 0 and r.smart_p50_p95[0] > 0 for r in rows)
    assert table(rows).count("\n") == 3
