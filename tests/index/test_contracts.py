"""The index's contracts (``rag_app.protocols``), each run against every implementation
(haystack's ``DocumentStoreBaseTests``).

A ``...Contract`` class holds the tests every implementation of one protocol must pass and an
abstract factory fixture; each ``Test...`` subclass supplies its implementation through that
fixture and adds the tests only it needs. The LLM contract is ``tests/answer/test_contract.py``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pytest

from rag_app.index.embedder import HashEmbedder, SentenceTransformerEmbedder
from rag_app.index.keywords import BM25Index
from rag_app.index.store import ChromaStore
from rag_app.models import NO_FILTER, Chunk, ChunkType, SearchFilter
from rag_app.protocols import Embedder, KeywordIndex, TokenCounter, VectorStore
from rag_app.text.tokens import CharCounter, TiktokenCounter, load_cl100k
from tests.conftest import REPO_ROOT

# --- Embedder --------------------------------------------------------------------------------

ZH_QUERY = "中芯国际2023年的营业收入是多少？"
EN_QUERY = "What was the company's revenue in 2023?"
# Two related passages (one per query, each in the query's language) and two unrelated ones.
PASSAGES = (
    "中芯国际2023年营业收入为63.2亿美元，同比下降8.6%。",
    "今天天气晴朗，适合去公园散步。",
    "The company's revenue in 2023 was 6.3 billion dollars.",
    "The mountain trail was covered in snow all winter.",
)
RELATED = {ZH_QUERY: 0, EN_QUERY: 2}


class EmbedderContract:
    """The tests every ``Embedder`` passes. Subclasses define the ``embedder`` fixture."""

    @pytest.fixture
    def embedder(self) -> Embedder:
        raise NotImplementedError("each implementation's class supplies its embedder")

    def test_is_an_embedder_with_a_name_and_a_dimension(self, embedder: Embedder) -> None:
        assert isinstance(embedder, Embedder)
        assert isinstance(embedder.name, str) and embedder.name.strip()
        assert isinstance(embedder.dimension, int) and embedder.dimension > 0

    @pytest.mark.parametrize("side", ["embed_passages", "embed_queries"])
    def test_rows_are_unit_float32_vectors_of_the_dimension(
        self, embedder: Embedder, side: str
    ) -> None:
        vectors = getattr(embedder, side)([ZH_QUERY, EN_QUERY, PASSAGES[0]])
        assert isinstance(vectors, np.ndarray)
        assert vectors.dtype == np.float32
        assert vectors.shape == (3, embedder.dimension)
        assert np.linalg.norm(vectors, axis=1) == pytest.approx([1.0, 1.0, 1.0], abs=1e-5)

    @pytest.mark.parametrize("side", ["embed_passages", "embed_queries"])
    def test_a_text_gets_the_same_vector_alone_in_a_batch_and_again(
        self, embedder: Embedder, side: str
    ) -> None:
        # Batched with texts of other lengths (padding) and asked twice: one vector per text.
        embed = getattr(embedder, side)
        alone = embed([PASSAGES[0]])[0]
        batched = embed([PASSAGES[3], PASSAGES[0], "短"])[1]
        again = embed([PASSAGES[0]])[0]
        others = embed([PASSAGES[1]])[0]
        np.testing.assert_allclose(batched, alone, atol=1e-5)
        np.testing.assert_allclose(again, alone, atol=1e-5)
        assert float(np.dot(others, alone)) < 0.99  # ... and another text gets another vector

    def test_a_query_is_nearest_to_its_related_passage(self, embedder: Embedder) -> None:
        # A constant (or random) vector cannot pass: each query must score its own passage
        # strictly above every other one.
        queries = embedder.embed_queries(list(RELATED))
        passages = embedder.embed_passages(list(PASSAGES))
        similarity = queries @ passages.T
        for row, (query, related) in enumerate(RELATED.items()):
            others = [float(s) for n, s in enumerate(similarity[row]) if n != related]
            assert float(similarity[row, related]) > max(others), (query, similarity[row])

    @pytest.mark.parametrize("side", ["embed_passages", "embed_queries"])
    def test_no_texts_give_no_rows(self, embedder: Embedder, side: str) -> None:
        vectors = getattr(embedder, side)([])
        assert vectors.shape == (0, embedder.dimension)
        assert vectors.dtype == np.float32


class TestHashEmbedder(EmbedderContract):
    @pytest.fixture
    def embedder(self) -> HashEmbedder:
        return HashEmbedder()


@pytest.mark.slow
class TestSentenceTransformerEmbedder(EmbedderContract):
    """The built multilingual-e5-small (skipped when ``rag-app setup`` has not built it)."""

    @pytest.fixture
    def embedder(self, real_embedder: SentenceTransformerEmbedder) -> SentenceTransformerEmbedder:
        return real_embedder

    def test_queries_and_passages_are_embedded_apart(self, embedder: Embedder) -> None:
        # e5's "query: " and "passage: " prefixes: the same text is a different vector.
        as_query = embedder.embed_queries([PASSAGES[0]])[0]
        as_passage = embedder.embed_passages([PASSAGES[0]])[0]
        assert float(np.abs(as_query - as_passage).max()) > 1e-3


# --- VectorStore -----------------------------------------------------------------------------

KB = "研报库"
DIM = 8


def unit(*weights: float) -> np.ndarray:
    vector = np.zeros(DIM, dtype=np.float32)
    vector[: len(weights)] = weights
    return vector / np.linalg.norm(vector)


def chunk(chunk_id: str, doc_id: str, chunk_type: ChunkType) -> Chunk:
    return Chunk(chunk_id, doc_id, chunk_type, f"text of {chunk_id}", "", (0,), (1,))


# Chunks with their vectors and their cosine similarity to QUERY (= the first axis).
QUERY = unit(1.0)
STORED = (
    (chunk("a1", "a", "text"), unit(1.0), 1.0),
    (chunk("a2", "a", "table"), unit(1.0, 0.5), 1 / np.sqrt(1.25)),
    (chunk("b1", "b", "text"), unit(1.0, 2.0), 1 / np.sqrt(5)),
    (chunk("b2", "b", "table"), unit(0.0, 0.0, 1.0), 0.0),
    (chunk("c1", "c", "image"), unit(-1.0), -1.0),
)
NEAREST_FIRST = [c.chunk_id for c, _, _ in STORED]


def fill(store: VectorStore, kb: str = KB) -> None:
    store.upsert(kb, [c for c, _, _ in STORED], np.stack([v for _, v, _ in STORED]))


def found_ids(found: Sequence[tuple[str, float]]) -> list[str]:
    return [chunk_id for chunk_id, _ in found]


class VectorStoreContract:
    """The tests every ``VectorStore`` passes. Subclasses define ``open_store``: a function
    that opens the store kept at a path."""

    @pytest.fixture
    def open_store(self) -> Callable[[Path], VectorStore]:
        raise NotImplementedError("each implementation's class supplies how to open its store")

    @pytest.fixture
    def store(self, open_store: Callable[[Path], VectorStore], tmp_path: Path) -> VectorStore:
        return open_store(tmp_path / "vectors")

    def test_is_a_vector_store(self, store: VectorStore) -> None:
        assert isinstance(store, VectorStore)

    def test_holds_what_was_added_per_knowledge_base(self, store: VectorStore) -> None:
        fill(store)
        assert store.count(KB) == len(STORED)
        assert store.count("another") == 0
        assert store.query("another", QUERY, 3, NO_FILTER) == []

    def test_query_returns_the_nearest_first_with_cosine_similarities(
        self, store: VectorStore
    ) -> None:
        fill(store)
        found = store.query(KB, QUERY, len(STORED), NO_FILTER)
        assert found_ids(found) == NEAREST_FIRST
        assert [s for _, s in found] == pytest.approx([s for _, _, s in STORED], abs=1e-4)
        assert all(isinstance(s, float) for _, s in found)

    def test_query_returns_at_most_k(self, store: VectorStore) -> None:
        fill(store)
        assert found_ids(store.query(KB, QUERY, 2, NO_FILTER)) == NEAREST_FIRST[:2]
        assert store.query(KB, QUERY, 0, NO_FILTER) == []

    @pytest.mark.parametrize(
        ("search_filter", "expected"),
        [
            (SearchFilter(doc_ids=("b",)), ["b1", "b2"]),
            (SearchFilter(doc_ids=("c", "a")), ["a1", "a2", "c1"]),
            (SearchFilter(types=("table",)), ["a2", "b2"]),
            (SearchFilter(types=("table", "image")), ["a2", "b2", "c1"]),
            (SearchFilter(types=("table",), doc_ids=("b",)), ["b2"]),
            (SearchFilter(types=("image",), doc_ids=("a",)), []),
        ],
    )
    def test_a_filter_keeps_only_its_documents_and_types_nearest_first(
        self, store: VectorStore, search_filter: SearchFilter, expected: list[str]
    ) -> None:
        fill(store)
        assert found_ids(store.query(KB, QUERY, len(STORED), search_filter)) == expected

    def test_upserting_a_known_id_replaces_its_vector(self, store: VectorStore) -> None:
        fill(store)
        moved = unit(0.0, 0.0, 0.0, 1.0)
        store.upsert(KB, [STORED[0][0]], moved.reshape(1, -1))
        assert store.count(KB) == len(STORED)
        assert found_ids(store.query(KB, moved, 1, NO_FILTER)) == ["a1"]
        assert found_ids(store.query(KB, QUERY, len(STORED), NO_FILTER))[0] == "a2"

    def test_vectors_gives_the_stored_vectors_of_known_ids(self, store: VectorStore) -> None:
        fill(store)
        vectors = store.vectors(KB, ["b1", "missing", "a2"])
        assert sorted(vectors) == ["a2", "b1"]
        np.testing.assert_allclose(vectors["b1"], STORED[2][1], atol=1e-6)
        np.testing.assert_allclose(vectors["a2"], STORED[1][1], atol=1e-6)
        assert store.vectors(KB, []) == {}

    def test_deleted_ids_are_gone(self, store: VectorStore) -> None:
        fill(store)
        store.delete_ids(KB, ["a1", "missing"])
        assert store.count(KB) == len(STORED) - 1
        assert found_ids(store.query(KB, QUERY, len(STORED), NO_FILTER)) == NEAREST_FIRST[1:]
        assert store.vectors(KB, ["a1"]) == {}

    def test_a_deleted_document_takes_all_its_chunks(self, store: VectorStore) -> None:
        fill(store)
        store.delete_document(KB, "a")
        assert found_ids(store.query(KB, QUERY, len(STORED), NO_FILTER)) == ["b1", "b2", "c1"]
        assert store.count(KB) == 3

    def test_a_dropped_knowledge_base_is_empty_and_others_stay(self, store: VectorStore) -> None:
        fill(store)
        fill(store, "kept")
        store.drop(KB)
        store.drop("never-made")
        assert store.count(KB) == 0
        assert store.query(KB, QUERY, 3, NO_FILTER) == []
        assert found_ids(store.query("kept", QUERY, 2, NO_FILTER)) == NEAREST_FIRST[:2]

    def test_all_ids_lists_every_stored_id_of_the_knowledge_base(self, store: VectorStore) -> None:
        fill(store)
        fill(store, "other")
        store.delete_ids("other", ["a1"])
        assert sorted(store.all_ids(KB)) == sorted(NEAREST_FIRST)
        assert sorted(store.all_ids("other")) == sorted(NEAREST_FIRST[1:])
        assert store.all_ids("never-made") == []

    def test_knowledge_bases_lists_those_stored_and_forgets_dropped_ones(
        self, store: VectorStore
    ) -> None:
        fill(store)
        fill(store, "kept")
        assert {KB, "kept"} <= set(store.knowledge_bases())
        store.drop(KB)
        assert "kept" in store.knowledge_bases() and KB not in store.knowledge_bases()

    def test_reopening_the_same_path_keeps_the_data(
        self, open_store: Callable[[Path], VectorStore], tmp_path: Path
    ) -> None:
        first = open_store(tmp_path / "kept")
        fill(first)
        first.delete_ids(KB, ["c1"])
        del first
        again = open_store(tmp_path / "kept")
        assert again.count(KB) == len(STORED) - 1
        assert found_ids(again.query(KB, QUERY, 9, NO_FILTER)) == NEAREST_FIRST[:-1]
        assert open_store(tmp_path / "elsewhere").count(KB) == 0  # the data is the path's


# Opens a Chroma folder in a fresh process and prints what it finds there.
_READ_IN_NEW_PROCESS = """
import json, sys
from pathlib import Path
import numpy as np
from rag_app.index.store import ChromaStore
from rag_app.models import NO_FILTER
store = ChromaStore(Path(sys.argv[1]))
vector = np.asarray(json.loads(sys.argv[2]), dtype=np.float32)
print(json.dumps({"count": store.count(sys.argv[3]), "found": store.query(sys.argv[3], vector, 9, NO_FILTER)}))
"""


class TestChromaStore(VectorStoreContract):
    @pytest.fixture
    def open_store(self) -> Callable[[Path], VectorStore]:
        return ChromaStore

    def test_another_process_reads_what_was_written(self, tmp_path: Path) -> None:
        # In one process ChromaStore shares one client per folder, so reopening there cannot
        # show that the data reached the disk; a new process can.
        fill(ChromaStore(tmp_path / "chroma"))
        run = subprocess.run(
            [
                sys.executable,
                "-c",
                _READ_IN_NEW_PROCESS,
                str(tmp_path / "chroma"),
                json.dumps(QUERY.tolist()),
                KB,
            ],
            capture_output=True,
            text=True,
            cwd=REPO_ROOT,
            timeout=120,
            check=True,
        )
        seen = json.loads(run.stdout.strip().splitlines()[-1])
        assert seen["count"] == len(STORED)
        assert [chunk_id for chunk_id, _ in seen["found"]] == NEAREST_FIRST


# --- KeywordIndex ----------------------------------------------------------------------------

# Analyzer-style tokens given directly, so the contract does not depend on segmentation. The
# chunk holding both query tokens is neither first nor last in the index.
KEYWORD_IDS = ["weather", "quarterly", "annual", "capacity"]
KEYWORD_TOKENS = [
    ["天气", "晴朗", "公园"],
    ["中芯国际", "2024q1", "毛利率", "季度", "13.7"],
    ["中芯国际", "盈利预测", "2024", "毛利率", "18.6"],
    ["中芯南方", "产能", "晶圆"],
]
BOTH = ["2024", "毛利率"]  # annual holds both, quarterly one, the others none


class KeywordIndexContract:
    """The tests every ``KeywordIndex`` passes. Subclasses define ``build_index`` (ids and
    their tokens -> an index) and ``load_index`` (folder and generation -> the saved index, or
    None when absent or of another generation)."""

    @pytest.fixture
    def build_index(self) -> Callable[[Sequence[str], Sequence[Sequence[str]]], KeywordIndex]:
        raise NotImplementedError("each implementation's class supplies how to build its index")

    @pytest.fixture
    def load_index(self) -> Callable[[Path, int], KeywordIndex | None]:
        raise NotImplementedError("each implementation's class supplies how to load its index")

    @pytest.fixture
    def index(
        self, build_index: Callable[[Sequence[str], Sequence[Sequence[str]]], KeywordIndex]
    ) -> KeywordIndex:
        return build_index(KEYWORD_IDS, KEYWORD_TOKENS)

    def test_is_a_keyword_index_over_the_given_ids_in_order(self, index: KeywordIndex) -> None:
        assert isinstance(index, KeywordIndex)
        assert list(index.ids) == KEYWORD_IDS

    def test_search_ranks_the_chunk_holding_the_query_tokens_first(
        self, index: KeywordIndex
    ) -> None:
        found = index.search(BOTH, 10)
        assert found_ids(found) == ["annual", "quarterly"]  # only chunks that score above 0
        assert found[0][1] > found[1][1] > 0

    def test_scores_follow_the_ids(self, index: KeywordIndex) -> None:
        scores = index.scores(["产能"])
        assert scores.shape == (len(KEYWORD_IDS),)
        assert [float(s) > 0 for s in scores] == [i == "capacity" for i in KEYWORD_IDS]
        both = index.scores(BOTH)
        assert both[KEYWORD_IDS.index("annual")] > both[KEYWORD_IDS.index("quarterly")] > 0

    def test_search_returns_at_most_k(self, index: KeywordIndex) -> None:
        assert found_ids(index.search(BOTH, 1)) == ["annual"]
        assert sorted(found_ids(index.search(["中芯国际"], 10))) == ["annual", "quarterly"]

    def test_allowed_restricts_the_candidates(self, index: KeywordIndex) -> None:
        assert found_ids(index.search(BOTH, 10, {"quarterly", "capacity"})) == ["quarterly"]
        assert index.search(BOTH, 10, set()) == []
        assert found_ids(index.search(BOTH, 10, set(KEYWORD_IDS))) == ["annual", "quarterly"]

    @pytest.mark.parametrize("query", [[], ["不存在的词"]])
    def test_an_empty_or_unknown_query_finds_nothing(
        self, index: KeywordIndex, query: list[str]
    ) -> None:
        assert index.search(query, 10) == []
        assert index.scores(query).tolist() == [0.0] * len(KEYWORD_IDS)

    def test_an_empty_index_finds_nothing(
        self, build_index: Callable[[Sequence[str], Sequence[Sequence[str]]], KeywordIndex]
    ) -> None:
        empty = build_index([], [])
        assert list(empty.ids) == []
        assert empty.search(BOTH, 10) == []
        assert empty.scores(BOTH).shape == (0,)

    def test_a_saved_index_loads_for_its_generation_only(
        self,
        index: KeywordIndex,
        load_index: Callable[[Path, int], KeywordIndex | None],
        tmp_path: Path,
    ) -> None:
        folder = tmp_path / "keywords"
        index.save(folder, 7)
        loaded = load_index(folder, 7)
        assert isinstance(loaded, KeywordIndex)
        assert list(loaded.ids) == KEYWORD_IDS
        expected = index.search(BOTH, 10)
        found = loaded.search(BOTH, 10)
        assert found_ids(found) == found_ids(expected) == ["annual", "quarterly"]
        assert [s for _, s in found] == pytest.approx([s for _, s in expected])
        assert load_index(folder, 8) is None  # stale: the catalogue moved on
        assert load_index(folder, 6) is None
        assert load_index(tmp_path / "absent", 7) is None

    def test_saving_again_replaces_the_saved_index(
        self,
        build_index: Callable[[Sequence[str], Sequence[Sequence[str]]], KeywordIndex],
        load_index: Callable[[Path, int], KeywordIndex | None],
        tmp_path: Path,
    ) -> None:
        folder = tmp_path / "keywords"
        build_index(KEYWORD_IDS, KEYWORD_TOKENS).save(folder, 1)
        build_index(["capacity"], [["中芯南方", "产能"]]).save(folder, 2)
        assert load_index(folder, 1) is None
        loaded = load_index(folder, 2)
        assert loaded is not None and list(loaded.ids) == ["capacity"]
        assert found_ids(loaded.search(["产能"], 5)) == ["capacity"]

    def test_an_empty_index_round_trips(
        self,
        build_index: Callable[[Sequence[str], Sequence[Sequence[str]]], KeywordIndex],
        load_index: Callable[[Path, int], KeywordIndex | None],
        tmp_path: Path,
    ) -> None:
        build_index([], []).save(tmp_path / "empty", 3)
        loaded = load_index(tmp_path / "empty", 3)
        assert loaded is not None and list(loaded.ids) == []
        assert loaded.search(BOTH, 10) == []


class TestBM25Index(KeywordIndexContract):
    @pytest.fixture
    def build_index(self) -> Callable[[Sequence[str], Sequence[Sequence[str]]], KeywordIndex]:
        return BM25Index

    @pytest.fixture
    def load_index(self) -> Callable[[Path, int], KeywordIndex | None]:
        return BM25Index.load


# --- TokenCounter ----------------------------------------------------------------------------

# Chinese, English, numbers, markup, a character outside the BMP (several cl100k tokens).
TOKEN_TEXT = (
    "中芯国际2023年营业收入为63.2亿美元，同比下降8.6%。"
    "Revenue fell 8.6% to $6.32bn in FY2023; 𠮷野家 <td>3.5</td> 🙂 end"
)


class TokenCounterContract:
    """The tests every ``TokenCounter`` passes. Subclasses define the ``token_counter`` fixture."""

    @pytest.fixture
    def token_counter(self) -> TokenCounter:
        raise NotImplementedError("each implementation's class supplies its counter")

    def test_is_a_token_counter_with_a_name(self, token_counter: TokenCounter) -> None:
        assert isinstance(token_counter, TokenCounter)
        assert isinstance(token_counter.name, str) and token_counter.name.strip()

    def test_nothing_counts_zero_and_text_counts_more(self, token_counter: TokenCounter) -> None:
        assert token_counter.count("") == 0
        assert token_counter.count("a") >= 1
        assert token_counter.count(TOKEN_TEXT) > token_counter.count(TOKEN_TEXT[:20]) > 0

    def test_count_grows_with_the_prefix_at_word_boundaries(
        self, token_counter: TokenCounter
    ) -> None:
        # Prefixes that end where a word does (before a space, after punctuation): BPE may
        # count a cut inside a word as more ("Reven" takes two tokens more than "Revenue" in
        # cl100k), so those are not prefixes this contract speaks of.
        cuts = [n for n, ch in enumerate(TOKEN_TEXT) if ch == " "]
        cuts += [n + 1 for n, ch in enumerate(TOKEN_TEXT) if ch in "，。;"]
        counts = [token_counter.count(TOKEN_TEXT[:n]) for n in sorted({*cuts, len(TOKEN_TEXT)})]
        assert counts == sorted(counts)
        assert counts[0] < counts[-1]

    def test_truncate_gives_the_longest_prefix_within_the_limit(
        self, token_counter: TokenCounter
    ) -> None:
        total = token_counter.count(TOKEN_TEXT)
        lengths = []
        for limit in (1, 2, 5, 13, total // 2, total - 1):
            cut = token_counter.truncate(TOKEN_TEXT, limit)
            assert TOKEN_TEXT.startswith(cut)
            assert token_counter.count(cut) <= limit
            # Longest: one more character would not fit.
            assert token_counter.count(TOKEN_TEXT[: len(cut) + 1]) > limit, (limit, cut)
            lengths.append(len(cut))
        assert lengths == sorted(lengths) and lengths[0] < lengths[-1] < len(TOKEN_TEXT)

    def test_truncate_keeps_text_that_fits_and_gives_nothing_for_no_room(
        self, token_counter: TokenCounter
    ) -> None:
        total = token_counter.count(TOKEN_TEXT)
        assert token_counter.truncate(TOKEN_TEXT, total) == TOKEN_TEXT
        assert token_counter.truncate(TOKEN_TEXT, total + 10) == TOKEN_TEXT
        assert token_counter.truncate(TOKEN_TEXT, 0) == ""
        assert token_counter.truncate("", 5) == ""


@pytest.fixture(scope="module")
def cl100k() -> TiktokenCounter:
    return load_cl100k()  # parsing the BPE file takes about 0.25 s: once per module


class TestTiktokenCounter(TokenCounterContract):
    @pytest.fixture
    def token_counter(self, cl100k: TiktokenCounter) -> TiktokenCounter:
        return cl100k


class TestCharCounter(TokenCounterContract):
    @pytest.fixture
    def token_counter(self) -> CharCounter:
        return CharCounter()
