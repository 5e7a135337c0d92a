"""Retrieval: per-signal retrievers, fusion, and the strategies built on them.

The smart and hybrid strategies (``strategies``) run in stages: ``signals`` (what a candidate is
judged on), ``recall`` (which candidates are considered), ``scoring`` (their order), and
``subjects`` for questions naming several reports; their knobs are in ``options``.
"""

from rag_app.retrieve.basic import (
    BM25Retriever,
    DenseRetriever,
    Retriever,
    RRFRetriever,
    ScoreFusionRetriever,
)
from rag_app.retrieve.fusion import fuse_rrf, fuse_scores

RETRIEVERS = ("dense", "bm25", "rrf", "fused", "hybrid", "smart")


def make_retriever(name: str, library, kb: str, settings=None) -> Retriever:  # type: ignore[no-untyped-def]
    """The named retriever over a knowledge base; raises ValueError for an unknown name."""
    candidates = settings.retrieval.candidates if settings is not None else 50
    if name == "dense":
        return DenseRetriever(library, kb)
    if name == "bm25":
        return BM25Retriever(library, kb)
    if name == "rrf":
        return RRFRetriever(
            library, kb, candidates=candidates, rrf_k=settings.rrf_k if settings is not None else 60
        )
    if name == "fused":
        return ScoreFusionRetriever(library, kb, candidates=candidates, name="fused")
    if name in ("hybrid", "smart"):
        from rag_app.retrieve.strategies import StrategyRetriever

        return StrategyRetriever(library, kb, name, settings, name=name)
    raise ValueError(f"unknown retriever {name!r}; choose one of {', '.join(RETRIEVERS)}")


__all__ = [
    "RETRIEVERS",
    "BM25Retriever",
    "DenseRetriever",
    "RRFRetriever",
    "Retriever",
    "ScoreFusionRetriever",
    "fuse_rrf",
    "fuse_scores",
    "make_retriever",
]
