"""The keyword index grows by segments and marks deletions: every score stays the one a fresh
bm25s index over the same chunks gives (so rankings do not move), and the saved form reloads."""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from pathlib import Path

import bm25s
import numpy as np
import pytest

from rag_app.index.keywords import BM25Index
from rag_app.index.library import Library
from rag_app.stage_settings import IndexSettings
from rag_app.text.analyzer import index_tokens
from tests.conftest import SAMPLE_CONTENT_LIST, TEST_DATA

KB = "default"
WORDS = [f"w{n}" for n in range(40)] + ["营收", "毛利率", "2024q2", "产能"]


def _reference(tokens: Sequence[Sequence[str]], query: Sequence[str]) -> np.ndarray:
    """What the index computed before it was incremental: bm25s over every chunk, rebuilt."""
    if not tokens:
        return np.zeros(0, dtype=np.float32)
    index = bm25s.BM25(k1=IndexSettings().bm25_k1, b=IndexSettings().bm25_b)
    index.index([list(t) if t else ["<empty>"] for t in tokens], show_progress=False)
    known = [t for t in query if t in index.vocab_dict]
    if not known:
        return np.zeros(len(tokens), dtype=np.float32)
    return np.asarray(index.get_scores(known), dtype=np.float32)


def _random_changes(seed: int) -> list[tuple[list[str], list[str], list[list[str]]]]:
    rng = random.Random(seed)
    live: set[str] = set()
    steps = []
    for step in range(30):
        removed = rng.sample(sorted(live), min(len(live), rng.randint(0, 4)))
        added = [f"d{step}_{n}" for n in range(rng.randint(0, 7))]
        tokens = [[rng.choice(WORDS) for _ in range(rng.randint(0, 12))] for _ in added]
        live = (live - set(removed)) | set(added)
        steps.append((removed, added, tokens))
    return steps


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_adds_and_deletes_score_exactly_as_a_rebuild(seed: int) -> None:
    rng = random.Random(seed)
    index = BM25Index.empty()
    held: dict[str, list[str]] = {}
    for removed, added, tokens in _random_changes(seed):
        for chunk_id in removed:
            del held[chunk_id]
        held.update(zip(added, tokens))
        order = sorted(held, key=lambda i: (len(i), i))  # any order the catalogue gives
        index = index.updated(removed, added, tokens, order=order)
        assert index.ids == order
        for _ in range(4):
            query = [rng.choice([*WORDS, "absent"]) for _ in range(rng.randint(1, 5))]
            expected = _reference([held[i] for i in order], query)
            assert np.array_equal(index.scores(query), expected), query  # bit for bit
    assert index.segments <= 6  # merged as it grew


def test_a_query_token_twice_counts_twice_like_bm25s() -> None:
    tokens = [["营收", "增长"], ["营收"], ["产能", "产能", "增长"]]
    index = BM25Index(["a", "b", "c"], tokens)
    query = ["营收", "营收", "增长"]
    assert np.array_equal(index.scores(query), _reference(tokens, query))


def test_saved_segments_reload_with_the_same_scores(tmp_path: Path) -> None:
    index = BM25Index.empty()
    for removed, added, tokens in _random_changes(7):
        index = index.updated(removed, added, tokens)
    index = index.ordered(sorted(index.ids))
    index.save(tmp_path, 5, {"docs": {"x": "1"}})
    again = BM25Index.load(tmp_path, 5)
    assert again is not None and again.ids == index.ids
    query = ["w1", "w2", "营收"]
    assert np.array_equal(again.scores(query), index.scores(query))
    assert BM25Index.load(tmp_path, 4) is None  # another generation's
    found = BM25Index.load_any(tmp_path)
    assert found is not None and found[1]["docs"] == {"x": "1"}
    # each save writes only segments it lacks and removes those no manifest names
    more = index.updated([], ["new"], [["w1"]], order=[*index.ids, "new"])
    more.save(tmp_path, 6)
    names = {p.name for p in tmp_path.iterdir()}
    assert names == {"ids.json"} | {f"seg-{n}.npz" for n in json.loads(
        (tmp_path / "ids.json").read_text())["segments"]}  # fmt: skip


def test_a_missing_segment_file_means_no_saved_index(tmp_path: Path) -> None:
    index = BM25Index(["a", "b"], [["w1"], ["w2"]])
    index.save(tmp_path, 1)
    next(tmp_path.glob("seg-*.npz")).unlink()
    assert BM25Index.load(tmp_path, 1) is None


def _full_rebuild(library: Library) -> BM25Index:
    chunks = library.chunks(KB)  # catalogue order
    return BM25Index([c.chunk_id for c in chunks], [index_tokens(c.search_text) for c in chunks])


QUERIES = ["中芯国际 营业收入", "warehousing revenue 2019", "capacity growth", "毛利率"]


def _assert_like_a_rebuild(library: Library) -> None:
    snap = library.snapshot(KB)
    rebuilt = _full_rebuild(library)
    assert list(snap.keywords.ids) == list(rebuilt.ids) == list(snap.chunks)
    for query in QUERIES:
        tokens = index_tokens(query)
        assert np.array_equal(snap.keywords.scores(tokens), rebuilt.scores(tokens)), query


def test_library_uploads_and_deletes_keep_scores_of_a_rebuild(library: Library, ingest_json):  # type: ignore[no-untyped-def]
    library.ingest_paths([SAMPLE_CONTENT_LIST])
    _assert_like_a_rebuild(library)
    library.ingest_paths([TEST_DATA / "tatqa_like_content_list.json"])
    ingest_json([{"type": "text", "text": "Capacity growth of 2024.", "page_idx": 0}], "c.json")
    _assert_like_a_rebuild(library)
    assert library.delete_document(KB, "smic_report")
    _assert_like_a_rebuild(library)


def test_an_upload_adds_a_segment_of_its_own_chunks(library: Library, ingest_json, monkeypatch):  # type: ignore[no-untyped-def]
    library.ingest_paths([SAMPLE_CONTENT_LIST])
    library.snapshot(KB)
    built: list[int] = []
    import rag_app.index.keywords as keywords

    real = keywords.build_segment
    monkeypatch.setattr(keywords, "build_segment", lambda i, t: built.append(len(i)) or real(i, t))
    whole = library.catalogue.chunks

    def one_document_only(kb: str, doc_id: str | None = None):  # type: ignore[no-untyped-def]
        assert doc_id is not None, "an upload read every chunk of the library"
        return whole(kb, doc_id)

    monkeypatch.setattr(library.catalogue, "chunks", one_document_only)
    report = ingest_json([{"type": "text", "text": "Capacity growth.", "page_idx": 0}], "c.json")
    snap = library.snapshot(KB)
    assert built == [report.n_chunks]  # only the new document's chunks were indexed
    assert snap.chunks.doc_chunk_ids("c") and snap.chunks.type_of(snap.chunks.ids[0])


def test_a_reopened_library_loads_and_catches_up_with_another_writer(
    settings, counter, monkeypatch
):  # type: ignore[no-untyped-def]
    from rag_app.index.embedder import HashEmbedder

    first = Library(settings, embedder=HashEmbedder(), counter=counter)
    first.ingest_paths([SAMPLE_CONTENT_LIST], KB)
    first.snapshot(KB)  # saved
    other = Library(settings, embedder=HashEmbedder(), counter=counter)  # "another process"
    other.ingest_paths([TEST_DATA / "tatqa_like_content_list.json"], KB)
    _assert_like_a_rebuild(first)  # the first catches up on what the other wrote

    def no_rebuild(self, ids, tokens):  # type: ignore[no-untyped-def]
        raise AssertionError("the keyword index was rebuilt instead of loaded")

    monkeypatch.setattr(BM25Index, "__init__", no_rebuild)
    again = Library(settings, embedder=HashEmbedder(), counter=counter)
    snap = again.snapshot(KB)
    assert snap.generation == again.catalogue.generation(KB)
    monkeypatch.undo()
    _assert_like_a_rebuild(again)


def test_features_stored_in_an_older_form_are_computed_again(settings, counter):  # type: ignore[no-untyped-def]
    from rag_app.index.embedder import HashEmbedder

    first = Library(settings, embedder=HashEmbedder(), counter=counter)
    first.ingest_paths([SAMPLE_CONTENT_LIST], KB)
    expected = first.snapshot(KB).features
    first.catalogue._db.execute("UPDATE features SET data = '{\"structure\": {}}'")
    again = Library(settings, embedder=HashEmbedder(), counter=counter)
    assert again.snapshot(KB).features == expected
    stored = again.catalogue.features(KB, ["smic_report"])["smic_report"]
    assert "captions" in stored  # and kept for the next start
