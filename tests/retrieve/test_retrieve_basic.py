"""Retrievers (dense, bm25, rrf, hybrid) over a real library, and the pure fusion functions."""

from __future__ import annotations

import copy
import math
from dataclasses import replace

import pytest

from rag_app.index.library import Library
from rag_app.models import Chunk, Hit, SearchFilter, Signal
from rag_app.retrieve import fuse_rrf, fuse_scores, make_retriever
from rag_app.retrieve.basic import to_hits
from rag_app.understand.analysis import analyse_query
from tests.conftest import SAMPLE_CONTENT_LIST, TEST_DATA, hash_library

KB = "default"
NAMES = ("dense", "bm25", "rrf", "hybrid")
# Words from every document and type: the sample report (zh), the tatqa-like page (en), the sheet.
MIXED_QUERY = "中芯国际 产线 工艺节点 营收 freight revenue segment 血压 头晕"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory, counter) -> Library:  # type: ignore[no-untyped-def]
    """One read-only library per module: the sample report, the tatqa-like page, a Q&A sheet."""
    return hash_library(
        tmp_path_factory.mktemp("retrieve"),
        counter,
        [
            SAMPLE_CONTENT_LIST,
            TEST_DATA / "tatqa_like_content_list.json",
            TEST_DATA / "qa_examples.csv",
        ],
    )


def _check_ranked(hits: list[Hit], k: int) -> None:
    assert 0 < len(hits) <= k
    assert [h.rank for h in hits] == list(range(1, len(hits) + 1))
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert len({h.chunk.chunk_id for h in hits}) == len(hits)
    for hit in hits:
        assert hit.signals, hit
        for name, signal in hit.signals:
            assert isinstance(signal, Signal) and math.isfinite(signal.score)
            if name in ("dense", "bm25"):
                assert signal.rank >= 1
        assert hit.signal("dense") is not None or hit.signal("bm25") is not None


@pytest.mark.parametrize("name", NAMES)
def test_retrievers_return_ranked_hits_with_signals(corpus: Library, name: str) -> None:
    retriever = make_retriever(name, corpus, KB)
    hits = retriever.retrieve(analyse_query("中芯国际产线一览 工艺节点"), 8)
    _check_ranked(hits, 8)
    assert any(h.chunk.caption == "表6：中芯国际产线一览" for h in hits[:3]), [
        h.chunk.chunk_id for h in hits
    ]


@pytest.mark.parametrize("name", ("dense", "bm25"))
def test_single_signal_hits_carry_their_own_score_and_rank(corpus: Library, name: str) -> None:
    hits = make_retriever(name, corpus, KB).retrieve(analyse_query(MIXED_QUERY), 10)
    _check_ranked(hits, 10)
    for hit in hits:
        assert [n for n, _ in hit.signals] == [name] and hit.strategy == name
        assert hit.signal(name) == Signal(score=hit.score, rank=hit.rank)


def test_bm25_scores_match_the_library_keyword_search(corpus: Library) -> None:
    hits = make_retriever("bm25", corpus, KB).retrieve(analyse_query("中芯南方 工艺节点"), 5)
    raw = corpus.keyword_search(KB, "中芯南方 工艺节点", 5)
    assert [(h.chunk.chunk_id, h.score) for h in hits] == [(c.chunk_id, s) for c, s in raw]


def test_rrf_signals_are_those_of_the_underlying_lists(corpus: Library) -> None:
    query = "中芯国际 产能利用率 2024年"
    dense = {
        h.chunk.chunk_id: h
        for h in make_retriever("dense", corpus, KB).retrieve(analyse_query(query), 50)
    }
    bm25 = {
        h.chunk.chunk_id: h
        for h in make_retriever("bm25", corpus, KB).retrieve(analyse_query(query), 50)
    }
    hits = make_retriever("rrf", corpus, KB).retrieve(analyse_query(query), 10)
    _check_ranked(hits, 10)
    for hit in hits:
        cid = hit.chunk.chunk_id
        expected = 0.0
        for signal_name, source in (("dense", dense), ("bm25", bm25)):
            if cid in source:
                assert hit.signal(signal_name) == source[cid].signal(signal_name)
                expected += 1 / (60 + source[cid].rank)
            else:
                assert hit.signal(signal_name) is None
        assert hit.score == pytest.approx(expected)
        assert hit.strategy == "rrf"


def test_hybrid_hits_report_dense_and_bm25_evidence(corpus: Library) -> None:
    query = "中芯南方 工艺节点"
    hits = make_retriever("hybrid", corpus, KB).retrieve(analyse_query(query), 10)
    _check_ranked(hits, 10)
    assert hits[0].chunk.caption == "表6：中芯国际产线一览"
    assert hits[0].signal("bm25") is not None and hits[0].signal("dense") is not None
    bm25 = {c.chunk_id: s for c, s in corpus.keyword_search(KB, query, 1000)}
    dense = {c.chunk_id: s for c, s in corpus.dense_search(KB, query, 1000)}
    for hit in hits:
        cid = hit.chunk.chunk_id
        if hit.signal("bm25") is not None:
            assert hit.signal("bm25").score == pytest.approx(bm25[cid], rel=1e-4)
        else:
            assert cid not in bm25
        if hit.signal("dense") is not None:
            assert hit.signal("dense").score == pytest.approx(dense[cid], abs=1e-4)


_FILTERS = [
    ("tables", SearchFilter(types=("table",)), lambda c: c.type == "table"),
    ("images", SearchFilter(types=("image",)), lambda c: c.type == "image"),
    ("qa", SearchFilter(types=("qa",)), lambda c: c.type == "qa"),
    ("text+table", SearchFilter(types=("text", "table")), lambda c: c.type in ("text", "table")),
    ("doc", SearchFilter(doc_ids=("tatqa_like",)), lambda c: c.doc_id == "tatqa_like"),
    (
        "two docs",
        SearchFilter(doc_ids=("tatqa_like", "qa_examples")),
        lambda c: c.doc_id in ("tatqa_like", "qa_examples"),
    ),
    (
        "doc+type",
        SearchFilter(types=("text",), doc_ids=("smic_report",)),
        lambda c: c.type == "text" and c.doc_id == "smic_report",
    ),
]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize(
    ("label", "search_filter", "allowed"), _FILTERS, ids=[f[0] for f in _FILTERS]
)
def test_filters_hold_for_every_retriever(
    corpus: Library,
    name: str,
    label: str,
    search_filter: SearchFilter,
    allowed,  # type: ignore[no-untyped-def]
) -> None:
    hits = make_retriever(name, corpus, KB).retrieve(analyse_query(MIXED_QUERY), 10, search_filter)
    assert hits, f"{name} found nothing for filter {label}"
    assert all(allowed(h.chunk) for h in hits), [(h.chunk.doc_id, h.chunk.type) for h in hits]
    if name in ("dense", "bm25"):
        # not just any allowed chunks: the best ones, as the unfiltered ranking orders them
        search = corpus.dense_search if name == "dense" else corpus.keyword_search
        ranked = [c.chunk_id for c, _ in search(KB, MIXED_QUERY, 1000) if allowed(c)]
        assert [h.chunk.chunk_id for h in hits] == ranked[:10]


@pytest.mark.parametrize("name", NAMES)
def test_filter_on_an_unknown_document_finds_nothing(corpus: Library, name: str) -> None:
    hits = make_retriever(name, corpus, KB).retrieve(
        analyse_query(MIXED_QUERY), 10, SearchFilter(doc_ids=("no_such_doc",))
    )
    assert hits == []


@pytest.mark.parametrize("name", NAMES)
def test_empty_knowledge_base_gives_no_hits(library: Library, name: str) -> None:
    assert make_retriever(name, library, "empty").retrieve(analyse_query("中芯国际"), 5) == []


def test_query_without_known_words(corpus: Library) -> None:
    assert make_retriever("bm25", corpus, KB).retrieve(analyse_query("zzzqqq xxyyzz"), 5) == []
    dense = make_retriever("dense", corpus, KB).retrieve(analyse_query("zzzqqq xxyyzz"), 5)
    assert len(dense) == 5  # dense always ranks something
    rrf = make_retriever("rrf", corpus, KB).retrieve(analyse_query("zzzqqq xxyyzz"), 5)
    assert [h.chunk.chunk_id for h in rrf] == [h.chunk.chunk_id for h in dense]
    assert all(h.signal("bm25") is None for h in rrf)


def test_k_limits_the_hits(corpus: Library) -> None:
    for name in NAMES:
        assert len(make_retriever(name, corpus, KB).retrieve(analyse_query(MIXED_QUERY), 3)) == 3


def test_unknown_retriever_name() -> None:
    with pytest.raises(ValueError, match="unknown retriever"):
        make_retriever("magic", None, KB)


# -- fusion: pure functions on hand-made lists --------------------------------------------------


def _chunk(chunk_id: str) -> Chunk:
    return Chunk(
        chunk_id=chunk_id,
        doc_id="d",
        type="text",
        text=chunk_id,
        search_text=chunk_id,
        item_indices=(0,),
    )


def _list(signal: str, pairs: list[tuple[str, float]]) -> list[Hit]:
    return to_hits([(_chunk(cid), score) for cid, score in pairs], signal)


@pytest.fixture
def lists() -> dict[str, list[Hit]]:
    return {
        "dense": _list("dense", [("a", 0.9), ("b", 0.8), ("c", 0.7)]),
        "bm25": _list("bm25", [("c", 12.0), ("a", 7.0), ("d", 1.0)]),
    }


def _frozen_view(lists: dict[str, list[Hit]]) -> dict[str, list[tuple[int, Hit]]]:
    return {name: [(id(h), copy.deepcopy(h)) for h in hits] for name, hits in lists.items()}


def test_fuse_rrf_orders_by_reciprocal_rank(lists: dict[str, list[Hit]]) -> None:
    fused = fuse_rrf(lists, k=60)
    # a: 1/61 + 1/62; c: 1/63 + 1/61; b: 1/62; d: 1/63
    assert [h.chunk.chunk_id for h in fused] == ["a", "c", "b", "d"]
    assert [h.rank for h in fused] == [1, 2, 3, 4]
    assert fused[0].score == pytest.approx(1 / 61 + 1 / 62)
    assert fused[3].score == pytest.approx(1 / 63)
    a = fused[0]
    assert a.signal("dense") == Signal(0.9, 1) and a.signal("bm25") == Signal(7.0, 2)
    assert fused[2].signal("bm25") is None
    assert a.strategy == "rrf" and "bm25" in a.note and "dense" in a.note


def test_fuse_rrf_weights_and_k(lists: dict[str, list[Hit]]) -> None:
    weighted = fuse_rrf(lists, k=60, weights={"bm25": 3.0})
    assert [h.chunk.chunk_id for h in weighted] == ["c", "a", "d", "b"]
    assert weighted[2].score == pytest.approx(3.0 / 63)
    small_k = fuse_rrf(lists, k=1)
    assert small_k[0].score == pytest.approx(1 / 2 + 1 / 3)


def test_fuse_rrf_ties_break_by_chunk_id() -> None:
    fused = fuse_rrf({"x": _list("x", [("b", 1.0)]), "y": _list("y", [("a", 1.0)])})
    assert [h.chunk.chunk_id for h in fused] == ["a", "b"]
    assert fused[0].score == fused[1].score


def test_fuse_scores_normalises_each_list(lists: dict[str, list[Hit]]) -> None:
    fused = fuse_scores(lists, {"dense": 0.6, "bm25": 0.4}, strategy="fused")
    # dense: a 1, b .5, c 0; bm25: c 1, a (7-1)/11, d 0
    expected = {"a": 0.6 + 0.4 * 6 / 11, "c": 0.4, "b": 0.3, "d": 0.0}
    assert [h.chunk.chunk_id for h in fused] == ["a", "c", "b", "d"]
    for hit in fused:
        assert hit.score == pytest.approx(expected[hit.chunk.chunk_id])
        assert hit.strategy == "fused"
    assert fused[0].signal("dense") == Signal(0.9, 1)


def test_fuse_scores_edge_cases() -> None:
    one = fuse_scores({"dense": _list("dense", [("a", 0.3)]), "bm25": []})
    assert [(h.chunk.chunk_id, h.score) for h in one] == [("a", 1.0)]
    flat = fuse_scores({"dense": _list("dense", [("a", 0.5), ("b", 0.5)])})
    assert [h.score for h in flat] == [1.0, 1.0]
    assert fuse_scores({}) == [] and fuse_rrf({}) == []


@pytest.mark.parametrize(
    ("fuse", "expected"),
    [
        (
            lambda ls: fuse_rrf(ls, k=60, weights={"bm25": 2.0}),
            # c: 1/63 + 2/61; a: 1/61 + 2/62; d: 2/63; b: 1/62
            [("c", 1 / 63 + 2 / 61), ("a", 1 / 61 + 2 / 62), ("d", 2 / 63), ("b", 1 / 62)],
        ),
        (
            lambda ls: fuse_scores(ls, {"dense": 0.7, "bm25": 0.3}),
            # dense: a 1, b .5, c 0; bm25: c 1, a (7-1)/11, d 0
            [("a", 0.7 + 0.3 * 6 / 11), ("b", 0.35), ("c", 0.3), ("d", 0.0)],
        ),
    ],
    ids=["rrf", "scores"],
)
def test_fusion_is_pure(lists: dict[str, list[Hit]], fuse, expected) -> None:  # type: ignore[no-untyped-def]
    before = _frozen_view(lists)
    first = fuse(lists)
    second = fuse(lists)
    after = _frozen_view(lists)
    assert after == before  # same objects, same values, same order
    inputs = {id(h) for hits in lists.values() for h in hits}
    assert not inputs & {id(h) for h in first}  # new Hit objects
    # the second call is not thrown off by the first: both give the fusion worked out above
    for fused in (first, second):
        assert [h.chunk.chunk_id for h in fused] == [cid for cid, _ in expected]
        assert [h.score for h in fused] == pytest.approx([score for _, score in expected])


def test_fused_hits_record_the_weight_of_their_list() -> None:
    """A list's name, not its hits' strategy, is what ``weights`` refers to."""
    tables = [replace(h, strategy="dense") for h in _list("dense", [("t1", 0.9), ("t2", 0.5)])]
    texts = _list("bm25", [("x1", 5.0)])
    fused = fuse_rrf({"tables": tables, "texts": texts}, weights={"tables": 2.0, "texts": 0.5})
    by_id = {h.chunk.chunk_id: h for h in fused}
    assert by_id["t1"].score == pytest.approx(2.0 / 61)
    assert by_id["t1"].weight == 2.0
    assert by_id["x1"].weight == 0.5
