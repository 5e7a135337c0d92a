"""The library's own knobs (``IndexSettings``): keyword scoring, how ingestion and the repair
of missing vectors batch their work, and what a process keeps in memory."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class IndexSettings:
    # BM25 parameters: k1 1.2 / b 0.75 are the classic defaults (Robertson); measured on
    # crud_zh_dev with these tokens, they beat bm25s's 1.5 (r@1 0.725 vs 0.705).
    bm25_k1: float = 1.2
    bm25_b: float = 0.75
    # Texts per encoder call during ingestion and when re-embedding missing vectors: large
    # enough to keep batches full, small enough that progress moves every few seconds on 2 cores.
    embed_group: int = 64
    # Rounds of repair and scan again (``rag-app check --repair``): a repair can uncover more
    # (chunk rows of an unlisted document removed, their vectors are then unowned); a few at most.
    repair_rounds: int = 3
    # Chunks kept parsed per knowledge base: the candidates of recent questions (a question
    # reads a few hundred).
    cached_chunks: int = 20000
    # Chunks whose vector the store lacked are asked for again after this many seconds (a
    # repair in another process may have re-embedded them without a new generation).
    absent_retry_s: float = 30.0

    def __post_init__(self) -> None:
        if self.bm25_k1 < 0 or not 0.0 <= self.bm25_b <= 1.0:
            raise ValueError("bm25_k1 must be >= 0 and bm25_b between 0 and 1")
        if self.embed_group < 1 or self.repair_rounds < 0 or self.cached_chunks < 0:
            raise ValueError("embed_group must be >= 1, repair_rounds and cached_chunks >= 0")
