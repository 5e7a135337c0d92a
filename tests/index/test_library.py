"""The library: catalogue + Chroma vectors + BM25 keywords kept in step through every change.

Real Chroma in tmp_path, the deterministic HashEmbedder, the real jieba/bm25s keyword index.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from rag_app.config import Settings
from rag_app.index.embedder import HashEmbedder
from rag_app.index.keywords import BM25Index
from rag_app.index.library import Library
from rag_app.index.store import collection_name
from rag_app.ingest import ChunkingOptions, chunk_document, load_path
from rag_app.models import IngestReport, Progress, SearchFilter
from rag_app.retrieve import make_retriever
from rag_app.understand.analysis import analyse_query
from tests.conftest import REPO_ROOT, SAMPLE_CONTENT_LIST, TEST_DATA

KB = "default"
TATQA_LIKE = TEST_DATA / "tatqa_like_content_list.json"


def _chroma(library: Library, kb: str = KB) -> dict:
    collection = library.store.client.get_collection(collection_name(kb))
    return collection.get(include=["metadatas", "embeddings"])


def _chroma_ids(library: Library, kb: str = KB) -> set[str]:
    return set(_chroma(library, kb)["ids"])


def _catalogue_ids(library: Library, kb: str = KB) -> set[str]:
    return {c.chunk_id for c in library.chunks(kb)}


def _ingest(library: Library, *paths: Path, kb: str = KB) -> None:
    for report in library.ingest_paths(list(paths), kb):
        assert report.status == "ingested", report


def _versioned(word: str, sections: int) -> list[dict]:
    items: list[dict] = []
    for n in range(sections):
        items.append(
            {"type": "text", "text": f"Section {n} {word}", "text_level": 1, "page_idx": n}
        )
        items.append(
            {
                "type": "text",
                "text": f"Paragraph {n} about {word} and capacity growth.",
                "page_idx": n,
            }
        )
    return items


def test_ingest_fills_catalogue_vectors_and_keywords(library: Library) -> None:
    (report,) = library.ingest_paths([SAMPLE_CONTENT_LIST])
    assert report.status == "ingested" and report.doc_id == "smic_report"
    chunks = library.chunks(KB)
    (info,) = library.documents(KB)
    assert report.n_chunks == info.n_chunks == len(chunks) == library.store.count(KB)
    assert dict(info.type_counts) == {
        t: sum(c.type == t for c in chunks) for t in ("text", "table", "image")
    }
    assert report.type_counts == info.type_counts
    assert info.pages == 7 and info.name == "smic_report_content_list.json"
    assert info.size_bytes == SAMPLE_CONTENT_LIST.stat().st_size
    assert info.content_hash == hashlib.sha256(SAMPLE_CONTENT_LIST.read_bytes()).hexdigest()
    stored = _chroma(library)
    assert set(stored["ids"]) == _catalogue_ids(library)
    by_id = {c.chunk_id: c for c in chunks}
    for chunk_id, meta in zip(stored["ids"], stored["metadatas"], strict=True):
        chunk = by_id[chunk_id]
        assert meta["doc_id"] == "smic_report" and meta["type"] == chunk.type
        assert meta["page"] == (chunk.page if chunk.page is not None else -1)
    top, score = library.keyword_search(KB, "中芯南方 工艺节点", 1)[0]
    assert top.caption == "表6：中芯国际产线一览" and score > 0
    # dense search is the five chunks whose text's vector is nearest the query's, by cosine
    query = "中芯国际产线一览 工艺节点"
    embedder = HashEmbedder()
    q = embedder.embed_queries([query])[0]
    cosine = {c.chunk_id: float(q @ embedder.embed_passages([c.search_text])[0]) for c in chunks}
    nearest = sorted(cosine, key=lambda cid: -cosine[cid])[:5]
    dense = library.dense_search(KB, query, 5)
    assert [c.chunk_id for c, _ in dense] == nearest
    for chunk, s in dense:
        assert s == pytest.approx(cosine[chunk.chunk_id], abs=1e-4)


def test_delete_removes_from_catalogue_vectors_keywords_and_assets(library: Library) -> None:
    _ingest(library, SAMPLE_CONTENT_LIST, TATQA_LIKE)
    assets = library.asset_path(
        KB, "smic_report", next(c.image_path for c in library.chunks(KB) if c.type == "image")
    )
    assert assets is not None and assets.is_file()  # so that its removal below means something
    assert {c.doc_id for c, _ in library.keyword_search(KB, "中芯南方 工艺节点 产能", 10)} == {
        "smic_report"
    }
    generation = library.catalogue.generation(KB)

    assert library.delete_document(KB, "smic_report") is True
    assert [d.doc_id for d in library.documents(KB)] == ["tatqa_like"]
    assert {c.doc_id for c in library.chunks(KB)} == {"tatqa_like"}
    assert _chroma_ids(library) == _catalogue_ids(library)
    assert library.store.count(KB) == len(library.chunks(KB, "tatqa_like"))
    assert library.keyword_search(KB, "中芯南方 工艺节点 产能", 10) == []
    assert {c.doc_id for c, _ in library.dense_search(KB, "中芯国际 产能", 20)} == {"tatqa_like"}
    assert not assets.exists()
    assert library.catalogue.generation(KB) == generation + 1
    for name in ("dense", "bm25", "rrf", "hybrid"):
        hits = make_retriever(name, library, KB).retrieve(
            analyse_query("中芯国际产线 freight revenue"), 10
        )
        assert hits and all(h.chunk.doc_id == "tatqa_like" for h in hits), name

    assert library.delete_document(KB, "smic_report") is False
    assert library.catalogue.generation(KB) == generation + 1


def test_reingest_identical_content_is_a_duplicate_and_changes_nothing(library: Library) -> None:
    _ingest(library, SAMPLE_CONTENT_LIST)
    before = (
        library.documents(KB),
        library.chunks(KB),
        library.catalogue.generation(KB),
        _chroma_ids(library),
    )
    (again,) = library.ingest_paths([SAMPLE_CONTENT_LIST])
    assert again.status == "duplicate" and again.doc_id == "smic_report"
    assert "identical content" in again.message
    # the same bytes under another name are the same document
    (renamed,) = library.ingest_bytes(
        [("copy_content_list.json", SAMPLE_CONTENT_LIST.read_bytes())]
    )
    assert renamed.status == "duplicate" and renamed.doc_id == "smic_report"
    after = (
        library.documents(KB),
        library.chunks(KB),
        library.catalogue.generation(KB),
        _chroma_ids(library),
    )
    assert after == before


def test_reingest_of_a_file_chunked_differently_now_re_indexes_it(
    library: Library, counter
) -> None:  # type: ignore[no-untyped-def]
    # A library indexed by an older version (here: other chunk limits) picks up this version's
    # chunking when the file is uploaded again, instead of calling it a duplicate.
    _ingest(library, SAMPLE_CONTENT_LIST)
    before = library.chunks(KB)
    library.settings = replace(library.settings, text_chunk_tokens=60, latin_text_chunk_tokens=60)
    (again,) = library.ingest_paths([SAMPLE_CONTENT_LIST])
    assert again.status == "ingested" and "replaced the earlier version" in again.message
    after = library.chunks(KB)
    doc = load_path(SAMPLE_CONTENT_LIST, 10**9)[0].document
    rechunked = chunk_document(
        doc, counter, ChunkingOptions(text_chunk_tokens=60, latin_text_chunk_tokens=60)
    )
    assert [(c.chunk_id, c.text) for c in after] == [(c.chunk_id, c.text) for c in rechunked]
    assert len(after) > len(before)
    assert len(library.documents(KB)) == 1
    assert set(_chroma_ids(library)) == {c.chunk_id for c in after}
    (third,) = library.ingest_paths([SAMPLE_CONTENT_LIST])
    assert third.status == "duplicate"


def test_reingest_changed_content_replaces_without_stale_chunks(
    library: Library, ingest_json
) -> None:
    first = ingest_json(_versioned("alphaword", 6), "report_content_list.json")
    assert first.status == "ingested" and first.n_chunks == 6
    old_ids = _catalogue_ids(library)

    second = ingest_json(
        _versioned("betaword", 2), "report_content_list.json", on_conflict="replace"
    )
    assert second.status == "ingested" and second.doc_id == "report"
    assert "replaced" in second.message and second.n_chunks == 2
    (info,) = library.documents(KB)
    assert info.n_chunks == 2
    new_ids = _catalogue_ids(library)
    assert len(new_ids) == 2 and _chroma_ids(library) == new_ids
    assert library.store.count(KB) == 2
    assert not any("alphaword" in c.search_text for c in library.chunks(KB))
    assert library.keyword_search(KB, "alphaword", 10) == []
    assert {c.chunk_id for c, _ in library.keyword_search(KB, "betaword", 10)} == new_ids
    dense = library.dense_search(KB, "Paragraph 5 about alphaword and capacity growth.", 10)
    assert {c.chunk_id for c, _ in dense} <= new_ids
    assert all("alphaword" not in c.text for c, _ in dense)
    assert old_ids - new_ids  # there were stale ids to remove
    # stored vectors are the new content's, not the old
    stored = _chroma(library)
    expected = {c.chunk_id: c.search_text for c in library.chunks(KB)}
    embedder = HashEmbedder()
    for chunk_id, vector in zip(stored["ids"], stored["embeddings"], strict=True):
        np.testing.assert_allclose(
            vector, embedder.embed_passages([expected[chunk_id]])[0], atol=1e-5
        )


def test_failed_write_leaves_nothing_behind(
    library: Library, ingest_json, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise RuntimeError("disk full")

    monkeypatch.setattr(library.catalogue, "add_document", broken)
    report = ingest_json(_versioned("gammaword", 3), "gamma_content_list.json")
    assert report.status == "rejected" and "disk full" in report.message
    assert library.documents(KB) == [] and library.store.count(KB) == 0


def test_failed_replace_keeps_the_previous_version_searchable(
    library: Library, ingest_json, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A replace that fails half-way must not leave the old chunks with the new vectors."""
    assert ingest_json(_versioned("alphaword", 3), "report_content_list.json").status == "ingested"
    old_chunks = library.chunks(KB)

    def broken(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise RuntimeError("disk full")

    monkeypatch.setattr(library.catalogue, "add_document", broken)
    report = ingest_json(
        _versioned("betaword", 3), "report_content_list.json", on_conflict="replace"
    )
    assert report.status == "rejected"
    monkeypatch.undo()
    assert library.chunks(KB) == old_chunks
    assert _chroma_ids(library) == {c.chunk_id for c in old_chunks}
    stored = _chroma(library)
    expected = {c.chunk_id: c.search_text for c in old_chunks}
    embedder = HashEmbedder()
    for chunk_id, vector in zip(stored["ids"], stored["embeddings"], strict=True):
        np.testing.assert_allclose(
            vector,
            embedder.embed_passages([expected[chunk_id]])[0],
            atol=1e-5,
            err_msg=f"vector of {chunk_id} is not its text's",
        )


def test_restart_keeps_documents_and_loads_the_keyword_index(
    settings: Settings,
    counter,
    monkeypatch: pytest.MonkeyPatch,  # type: ignore[no-untyped-def]
) -> None:
    first = Library(settings, embedder=HashEmbedder(), counter=counter)
    _ingest(first, SAMPLE_CONTENT_LIST, TATQA_LIKE)
    keyword_before = first.keyword_search(KB, "中芯南方 工艺节点", 5)  # builds and saves
    dense_before = first.dense_search(KB, "freight revenue 2019", 5)
    generation = first.catalogue.generation(KB)

    second = Library(settings, embedder=HashEmbedder(), counter=counter)
    assert second.documents(KB) == first.documents(KB)
    assert second.chunks(KB) == first.chunks(KB)
    saved = BM25Index.load(second.keyword_dir(KB), generation)
    assert saved is not None and sorted(saved.ids) == sorted(_catalogue_ids(first))

    def no_rebuild(self, ids, tokens):  # type: ignore[no-untyped-def]
        raise AssertionError("the keyword index was rebuilt instead of loaded")

    monkeypatch.setattr(BM25Index, "__init__", no_rebuild)
    assert [
        (c.chunk_id, round(s, 4)) for c, s in second.keyword_search(KB, "中芯南方 工艺节点", 5)
    ] == [(c.chunk_id, round(s, 4)) for c, s in keyword_before]
    assert [c.chunk_id for c, _ in second.dense_search(KB, "freight revenue 2019", 5)] == [
        c.chunk_id for c, _ in dense_before
    ]
    assert second.snapshot(KB).generation == generation


def test_restart_without_a_saved_index_rebuilds_it(settings: Settings, counter) -> None:  # type: ignore[no-untyped-def]
    first = Library(settings, embedder=HashEmbedder(), counter=counter)
    _ingest(first, TATQA_LIKE)
    second = Library(settings, embedder=HashEmbedder(), counter=counter)
    generation = second.catalogue.generation(KB)
    assert BM25Index.load(second.keyword_dir(KB), generation) is None  # nothing saved yet
    hits = second.keyword_search(KB, "warehousing revenue", 3)
    # first the short paragraph that says "Warehousing revenue" (the table only has the words)
    phrase = [c.chunk_id for c in second.chunks(KB) if "Warehousing revenue" in c.text]
    assert [c.chunk_id for c, _ in hits[:1]] == phrase
    saved = BM25Index.load(second.keyword_dir(KB), generation)
    assert saved is not None and sorted(saved.ids) == sorted(_catalogue_ids(second))


def test_stale_saved_keyword_index_is_not_used(library: Library, ingest_json) -> None:
    ingest_json(_versioned("alphaword", 2), "a_content_list.json")
    a_ids = _catalogue_ids(library)
    assert {c.chunk_id for c, _ in library.keyword_search(KB, "alphaword", 5)} == a_ids
    ingest_json(_versioned("betaword", 2), "b_content_list.json")
    generation = library.catalogue.generation(KB)
    folder = library.keyword_dir(KB)
    old = BM25Index.load(folder, generation - 1)  # saved by the first search ...
    assert old is not None and sorted(old.ids) == sorted(a_ids)
    assert BM25Index.load(folder, generation) is None  # ... and stale now
    assert {c.doc_id for c, _ in library.keyword_search(KB, "betaword", 5)} == {"b"}
    new = BM25Index.load(folder, generation)
    assert new is not None and sorted(new.ids) == sorted(_catalogue_ids(library))


def test_knowledge_bases_are_isolated(library: Library) -> None:
    _ingest(library, SAMPLE_CONTENT_LIST, kb="研报库")
    _ingest(library, TATQA_LIKE, kb="annual")
    _ingest(library, SAMPLE_CONTENT_LIST, kb="annual")  # duplicates are per knowledge base
    assert {"研报库", "annual"} <= set(library.knowledge_bases())
    assert [d.doc_id for d in library.documents("研报库")] == ["smic_report"]
    assert sorted(d.doc_id for d in library.documents("annual")) == ["smic_report", "tatqa_like"]
    assert library.keyword_search("研报库", "warehousing freight", 5) == []
    assert {c.doc_id for c, _ in library.dense_search("研报库", "freight revenue", 50)} == {
        "smic_report"
    }
    n_sample = len(library.chunks("研报库"))
    assert library.store.count("annual") == n_sample + len(library.chunks("annual", "tatqa_like"))

    def fab_search() -> list[tuple[str, float]]:
        return [(c.chunk_id, s) for c, s in library.keyword_search("研报库", "中芯南方", 3)]

    fab = fab_search()
    assert len(fab) == 3
    library.delete_document("annual", "smic_report")
    assert library.store.count("研报库") == n_sample
    assert fab_search() == fab  # the other knowledge base's copy is untouched
    assert library.keyword_search("annual", "中芯南方", 3) == []

    library.delete_kb("annual")
    assert "annual" not in library.knowledge_bases()
    assert library.documents("annual") == [] and library.store.count("annual") == 0
    assert [d.doc_id for d in library.documents("研报库")] == ["smic_report"]
    assert fab_search() == fab


@pytest.mark.parametrize("name", ["   ", "a/b", "a\\b", "x" * 65])
def test_bad_knowledge_base_names_are_refused(library: Library, name: str) -> None:
    with pytest.raises(ValueError):
        library.ingest_paths([TATQA_LIKE], name)


def test_same_doc_id_twice_in_one_batch(library: Library) -> None:
    one = json.dumps([{"type": "text", "text": "first version"}]).encode()
    two = json.dumps([{"type": "text", "text": "second version"}]).encode()
    reports = library.ingest_bytes([("x_content_list.json", one), ("x.json", two)])
    assert [r.status for r in reports] == ["ingested", "conflict"]
    assert "is also the document x" in reports[1].message
    assert "first version" in library.chunks(KB)[0].text


def test_progress_reports_each_stage_to_completion(library: Library) -> None:
    events: list[Progress] = []
    reports = library.ingest_paths([SAMPLE_CONTENT_LIST, TATQA_LIKE], progress=events.append)
    n_chunks = sum(r.n_chunks for r in reports)
    stages = [e.stage for e in events]
    assert {"chunk", "embed", "index"} <= set(stages)
    assert stages.index("chunk") < stages.index("embed") < stages.index("index")
    for stage in ("chunk", "embed", "index"):
        mine = [e for e in events if e.stage == stage]
        assert mine[-1].done == mine[-1].total, (stage, mine[-1])
        assert [e.done for e in mine] == sorted(e.done for e in mine)  # never goes back
        assert all(0 <= e.done <= e.total for e in mine)
    embed = [e for e in events if e.stage == "embed"]
    assert embed[0].done == 0 and embed[-1].total == n_chunks
    assert [e for e in events if e.stage == "index"][-1].total == 2


def test_concurrent_searches_while_ingesting(library: Library) -> None:
    _ingest(library, SAMPLE_CONTENT_LIST)
    docs = sorted((REPO_ROOT / "assets" / "broker_eval" / "docs").glob("*_content_list.json"))
    assert docs
    errors: list[BaseException] = []
    searches = [0, 0]
    done = threading.Event()

    def search(slot: int) -> None:
        try:
            queries = ["中芯国际产能利用率", "营业收入 同比增长", "毛利率", "工艺节点"]
            n = 0
            while not done.is_set() or n < 3:
                query = queries[n % len(queries)]
                for name in ("bm25", "dense", "rrf"):
                    hits = make_retriever(name, library, KB).retrieve(analyse_query(query), 5)
                    assert all(h.chunk.chunk_id and h.rank == i for i, h in enumerate(hits, 1))
                filtered = library.keyword_search(KB, query, 5, SearchFilter(types=("table",)))
                assert all(c.type == "table" for c, _ in filtered)
                n += 1
            searches[slot] = n
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=search, args=(slot,)) for slot in (0, 1)]
    for thread in threads:
        thread.start()
    try:
        reports = library.ingest_paths(docs)
    finally:
        done.set()
        for thread in threads:
            thread.join(timeout=60)
    assert not errors, errors
    assert all(not t.is_alive() for t in threads)
    assert all(r.status == "ingested" for r in reports), reports
    assert min(searches) >= 3
    assert len(library.documents(KB)) == 1 + len(docs)
    assert _chroma_ids(library) == _catalogue_ids(library)
    start = time.perf_counter()
    found = {c.doc_id for c, _ in library.keyword_search(KB, "宁德时代", 3)}
    assert time.perf_counter() - start < 5
    assert found and found <= {r.doc_id for r in reports}  # the new documents are searchable


def test_the_sample_is_seeded_once_and_re_indexed_when_chunking_changed(library: Library) -> None:
    from ui import resources

    def seed() -> tuple[IngestReport, ...]:
        return resources.seed_sample(library)

    (first,) = seed()
    assert first.status == "ingested"
    assert seed() == ()  # unchanged: nothing to do
    library.settings = replace(library.settings, text_chunk_tokens=60, latin_text_chunk_tokens=60)
    (again,) = seed()
    assert again.status == "ingested" and "replaced the earlier version" in again.message
    # a user who deleted the sample from a knowledge base holding other reports keeps it deleted
    _ingest(library, TATQA_LIKE, kb=resources.SAMPLE_KB)
    assert library.delete_document(resources.SAMPLE_KB, again.doc_id)
    assert seed() == ()


# -- a MinerU folder: a content list and the markdown of the same PDF ----------------------------


def _sample_pair() -> tuple[Path, Path]:
    from tests.conftest import SAMPLE_MD

    return SAMPLE_CONTENT_LIST, SAMPLE_MD


def test_the_markdown_beside_a_content_list_never_replaces_it(library: Library) -> None:
    content_list, markdown = _sample_pair()
    (first,) = library.ingest_paths([content_list])
    before = {d.doc_id: d for d in library.documents("default")}[first.doc_id]
    (second,) = library.ingest_paths([markdown])
    after = {d.doc_id: d for d in library.documents("default")}[first.doc_id]
    assert second.status == "duplicate" and second.doc_id == first.doc_id
    assert content_list.name in second.message and "content list is kept" in second.message
    assert after == before and after.source_format == "content_list" and after.pages > 1


def test_in_one_batch_the_content_list_wins_whatever_the_order(library: Library) -> None:
    content_list, markdown = _sample_pair()
    reports = library.ingest_paths([markdown, content_list])
    assert [(r.name, r.status) for r in reports] == [
        (markdown.name, "duplicate"),
        (content_list.name, "ingested"),
    ]
    (info,) = library.documents("default")
    assert info.source_format == "content_list" and info.pages > 1


def test_a_content_list_after_its_markdown_brings_the_pages_back(library: Library) -> None:
    content_list, markdown = _sample_pair()
    (first,) = library.ingest_paths([markdown])
    assert first.status == "ingested"
    assert library.documents("default")[0].source_format == "markdown"
    (second,) = library.ingest_paths([content_list])
    assert second.status == "ingested" and "replaced the earlier version" in second.message
    (info,) = library.documents("default")
    assert info.source_format == "content_list" and info.pages > 1
