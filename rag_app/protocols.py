"""Contracts between stages. Each has one or more implementations and one shared contract test
(``tests/index/test_contracts.py``; the ``LLM`` contract, with its request and events, lives in
``rag_app/answer/base.py`` and is tested in ``tests/answer/test_contract.py``)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np

from rag_app.models import Chunk, SearchFilter


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors (rows), queries and passages apart.

    Models such as e5 want different prefixes for the two; an embedder applies its own.
    """

    name: str

    @property
    def dimension(self) -> int: ...

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray: ...

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray: ...


@runtime_checkable
class VectorStore(Protocol):
    """Chunk vectors kept per knowledge base (``kb``), searched by cosine similarity.

    Vectors are always given (the store never embeds). Ids are chunk ids; a filter restricts by
    the chunk's type and document, which the store keeps beside each vector.
    """

    def upsert(self, kb: str, chunks: Sequence[Chunk], vectors: np.ndarray) -> None:
        """Store ``vectors`` (one row per chunk, in order), replacing those of known ids."""
        ...

    def delete_ids(self, kb: str, ids: Sequence[str]) -> None:
        """Remove these chunk ids (unknown ones are ignored)."""
        ...

    def delete_document(self, kb: str, doc_id: str) -> None:
        """Remove every chunk of one document."""
        ...

    def query(
        self, kb: str, vector: np.ndarray, k: int, search_filter: SearchFilter
    ) -> list[tuple[str, float]]:
        """At most ``k`` (chunk id, cosine similarity) within the filter, nearest first."""
        ...

    def vectors(self, kb: str, ids: Sequence[str]) -> dict[str, np.ndarray]:
        """The stored vectors of those ``ids`` that exist."""
        ...

    def all_ids(self, kb: str) -> list[str]:
        """Every chunk id the knowledge base holds a vector for (the consistency check's
        side of the comparison with the catalogue)."""
        ...

    def knowledge_bases(self) -> list[str]:
        """The knowledge bases the store has a place for (possibly empty; a dropped one is
        not listed)."""
        ...

    def count(self, kb: str) -> int:
        """How many vectors the knowledge base holds."""
        ...

    def drop(self, kb: str) -> None:
        """Forget the knowledge base (nothing happens when it holds nothing)."""
        ...


@runtime_checkable
class KeywordIndex(Protocol):
    """A keyword (BM25) index over a fixed list of chunk ids and their analyzer tokens.

    Immutable: when chunks change, a new index is built (or loaded by its class for the catalogue's
    generation) rather than this one edited, so readers can share it.
    """

    @property
    def ids(self) -> Sequence[str]:
        """The indexed chunk ids, in the order ``scores`` follows."""
        ...

    @property
    def holds_chinese(self) -> bool:
        """Whether any chunk's tokens are Chinese words."""
        ...

    def holds(self, term: str) -> bool:
        """Whether a chunk's tokens hold ``term``."""
        ...

    def scores(self, query_tokens: Sequence[str]) -> np.ndarray:
        """The score of every chunk, in ``ids`` order; all zeros for an empty index or query."""
        ...

    def search(
        self, query_tokens: Sequence[str], k: int, allowed: set[str] | None = None
    ) -> list[tuple[str, float]]:
        """At most ``k`` (chunk id, score) with a positive score, among ``allowed`` ids if
        given, best first."""
        ...

    def save(self, folder: Path, generation: int) -> None:
        """Write the index to ``folder``, marked with the catalogue's ``generation``."""
        ...


@runtime_checkable
class TokenCounter(Protocol):
    """Counts and cuts text in the tokens of the prompt's budget."""

    name: str

    def count(self, text: str) -> int: ...

    def truncate(self, text: str, max_tokens: int) -> str: ...
