"""Uploads on the Library page (ui/ingestion.py): a batch with MinerU's markdown beside its
content list embeds the content list only, whatever order the files came in."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from rag_app.index.library import Library
from tests.conftest import SAMPLE_CONTENT_LIST, SAMPLE_DIR
from ui import ingestion


class _Counting:
    """The library's embedder, counting the passages it is asked to encode."""

    def __init__(self, inner) -> None:  # type: ignore[no-untyped-def]
        self.inner = inner
        self.passages = 0
        self.name = inner.name
        self.dimension = inner.dimension

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        self.passages += len(texts)
        return self.inner.embed_passages(texts)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self.inner.embed_queries(texts)


def test_markdown_before_its_content_list_is_never_embedded(library: Library) -> None:
    counting = _Counting(library.embedder)
    library._embedder = counting
    markdown = (SAMPLE_DIR / "smic_report.md").read_bytes()
    content_list = SAMPLE_CONTENT_LIST.read_bytes()
    other = b"# Other\n\nA paragraph of another report about wafer capacity in 2024.\n"
    files = [
        ("smic_report.md", markdown),
        ("other.md", other),
        ("smic_report_content_list.json", content_list),
    ]
    seen: list[int] = []

    results = ingestion.ingest_files(
        library, "default", files, on_progress=lambda i, _p: seen.append(i)
    )

    assert [name for name, _ in results] == [name for name, _ in files]  # the files' order
    statuses = {name: [r.status for r in reports] for name, reports in results}
    assert statuses == {
        "smic_report.md": ["duplicate"],
        "other.md": ["ingested"],
        "smic_report_content_list.json": ["ingested"],
    }
    docs = {d.doc_id: d for d in library.documents("default")}
    assert docs["smic_report"].source_format == "content_list"
    # only the content list's and the other report's chunks were encoded, once each
    assert counting.passages == docs["smic_report"].n_chunks + docs["other"].n_chunks
    assert seen[0] == 2  # the content list's progress came first, under its own position


def test_order_without_pairs_is_kept() -> None:
    files = [("b.md", b""), ("a_content_list.json", b""), ("c.zip", b"")]
    assert ingestion._content_lists_first(files) == [0, 1, 2]
    paired = [
        ("a.md", b""),
        ("b.md", b""),
        ("a_content_list.json", b""),
        ("b_content_list.json", b""),
    ]
    assert ingestion._content_lists_first(paired) == [2, 0, 3, 1]
