"""First retrievers: dense (Chroma), bm25 (jieba + bm25s), and their fusions.

Each returns typed Hits that keep every signal's score and rank, so the UI's per-type views and
the evaluation can show why a chunk was found.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from rag_app.index.library import Library
from rag_app.models import NO_FILTER, Chunk, Hit, SearchFilter, Signal
from rag_app.retrieve.fusion import fuse_rrf, fuse_scores
from rag_app.understand.analysis import QueryAnalysis


class Retriever(Protocol):
    """The top ``k`` hits of a question's analysis within a filter (search, eval)."""

    name: str

    def retrieve(
        self, query: QueryAnalysis, k: int, search_filter: SearchFilter = NO_FILTER
    ) -> list[Hit]: ...


def to_hits(found: Sequence[tuple[Chunk, float]], signal: str) -> list[Hit]:
    return [
        Hit(
            chunk=chunk,
            score=score,
            rank=rank,
            strategy=signal,
            signals=((signal, Signal(score=score, rank=rank)),),
        )
        for rank, (chunk, score) in enumerate(found, start=1)
    ]


@dataclass
class DenseRetriever:
    library: Library
    kb: str
    name: str = "dense"

    def retrieve(
        self,
        query: QueryAnalysis,
        k: int,
        search_filter: SearchFilter = NO_FILTER,
        query_vector: np.ndarray | None = None,
    ) -> list[Hit]:
        return to_hits(
            self.library.dense_search(self.kb, query.text, k, search_filter, query_vector),
            "dense",
        )


@dataclass
class BM25Retriever:
    library: Library
    kb: str
    name: str = "bm25"

    def retrieve(
        self, query: QueryAnalysis, k: int, search_filter: SearchFilter = NO_FILTER
    ) -> list[Hit]:
        return to_hits(self.library.keyword_search(self.kb, query.text, k, search_filter), "bm25")


def signal_lists(
    library: Library, kb: str, query: QueryAnalysis, candidates: int, search_filter: SearchFilter
) -> dict[str, list[Hit]]:
    """The dense and the bm25 candidate lists that the fusion baselines combine."""
    return {
        "dense": DenseRetriever(library, kb).retrieve(query, candidates, search_filter),
        "bm25": BM25Retriever(library, kb).retrieve(query, candidates, search_filter),
    }


@dataclass
class RRFRetriever:
    """Naive baseline: equal-weight reciprocal rank fusion of dense and bm25."""

    library: Library
    kb: str
    candidates: int = 50
    rrf_k: int = 60
    name: str = "rrf"

    def retrieve(
        self, query: QueryAnalysis, k: int, search_filter: SearchFilter = NO_FILTER
    ) -> list[Hit]:
        lists = signal_lists(self.library, self.kb, query, self.candidates, search_filter)
        return fuse_rrf(lists, k=self.rrf_k, strategy="rrf")[:k]


@dataclass
class ScoreFusionRetriever:
    """Dense + bm25 fused on normalised scores with weights."""

    library: Library
    kb: str
    candidates: int = 50
    dense_weight: float = 0.5
    bm25_weight: float = 0.5
    name: str = "hybrid"

    def retrieve(
        self, query: QueryAnalysis, k: int, search_filter: SearchFilter = NO_FILTER
    ) -> list[Hit]:
        lists = signal_lists(self.library, self.kb, query, self.candidates, search_filter)
        weights = {"dense": self.dense_weight, "bm25": self.bm25_weight}
        return fuse_scores(lists, weights, strategy=self.name)[:k]
