"""A large library's dense search: a type making a good share of it is searched without Chroma's
type filter (whose cost grows with the type's chunks) and its own hits kept; the results are the
filtered search's (a real Chroma in tmp_path, the sample with the hash embedder; exact search of
small libraries turned off, so the sample goes through Chroma's graph as a large one does)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from rag_app.index.embedder import HashEmbedder
from rag_app.index.library import Library
from rag_app.retrieve.strategies import StrategyOptions, retrieve
from tests.conftest import SAMPLE_CONTENT_LIST, hash_library

QUESTIONS = (
    "中芯国际2026年预测市盈率是多少？",
    "中芯南方采用什么工艺节点？",
    "图3显示的季度营收趋势如何？",
)


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory, counter) -> Library:  # type: ignore[no-untyped-def]
    written = hash_library(tmp_path_factory.mktemp("overfetch"), counter, [SAMPLE_CONTENT_LIST])
    graph_only = replace(written.settings, exact_search_max_chunks=0)
    return Library(graph_only, embedder=HashEmbedder(), counter=counter)


def _filters(library: Library, monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, ...]]:
    seen: list[tuple[str, ...]] = []
    query = library.store.query

    def recording(kb, vector, k, search_filter):  # type: ignore[no-untyped-def]
        seen.append(search_filter.types)
        return query(kb, vector, k, search_filter)

    monkeypatch.setattr(library.store, "query", recording)
    return seen


@pytest.mark.parametrize("mode", ["hybrid", "smart"])
def test_overfetching_finds_what_the_type_filter_finds(
    sample: Library, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    small = StrategyOptions()
    assert len(sample.snapshot("default").chunks) < small.overfetch_from_chunks
    wide = replace(small, overfetch_from_chunks=1, overfetch_min_share=0.1, overfetch_margin=4.0)
    for question in QUESTIONS:
        before = retrieve(sample, "default", question, mode=mode, k=10, options=small)
        seen = _filters(sample, monkeypatch)
        after = retrieve(sample, "default", question, mode=mode, k=10, options=wide)
        monkeypatch.undo()
        assert [h.chunk.chunk_id for h in after.hits] == [h.chunk.chunk_id for h in before.hits]
        assert () in seen  # a search without the type filter ran


def test_too_few_of_the_type_falls_back_to_the_filtered_search(
    sample: Library, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a margin far too small: the unfiltered hits hold too few of each type
    narrow = replace(
        StrategyOptions(), overfetch_from_chunks=1, overfetch_min_share=0.0, overfetch_margin=0.01
    )
    seen = _filters(sample, monkeypatch)
    retrieve(sample, "default", QUESTIONS[0], mode="hybrid", k=10, options=narrow)
    assert () in seen and any(types for types in seen)
