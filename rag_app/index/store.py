"""Vectors in a persistent Chroma store: one collection per knowledge base.

Chroma's default embedding function downloads a model, so none is ever given to it: vectors are
always passed in (RECIPES). Scores returned are cosine similarities (1 - cosine distance).
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from rag_app.models import Chunk, SearchFilter

_clients: dict[str, Any] = {}
_clients_lock = threading.Lock()
# Chroma refuses larger add() batches; its own limit is about 5k on this build.
_ADD_BATCH = 1000
# Ids per get() when listing a whole collection.
_GET_PAGE = 10000


def _client(path: Path):  # type: ignore[no-untyped-def]
    """One PersistentClient per folder per process (Chroma wants exactly one)."""
    key = str(path.resolve())
    with _clients_lock:
        if key not in _clients:
            import chromadb
            from chromadb.config import Settings as ChromaSettings

            path.mkdir(parents=True, exist_ok=True)
            _clients[key] = chromadb.PersistentClient(
                path=key, settings=ChromaSettings(anonymized_telemetry=False)
            )
        return _clients[key]


def collection_name(kb: str) -> str:
    """Chroma names allow [a-zA-Z0-9._-], 3-512 chars; knowledge-base names may be Chinese."""
    return "kb_" + hashlib.sha1(kb.encode("utf-8")).hexdigest()[:16]


def where_clause(search_filter: SearchFilter) -> dict[str, Any] | None:
    parts: list[dict[str, Any]] = []
    if search_filter.types:
        parts.append({"type": {"$in": list(search_filter.types)}})
    if search_filter.doc_ids:
        parts.append({"doc_id": {"$in": list(search_filter.doc_ids)}})
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else {"$and": parts}


class ChromaStore:
    """The VectorStore implementation over Chroma."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._client = _client(path)

    def _collection(self, kb: str):  # type: ignore[no-untyped-def]
        return self._client.get_or_create_collection(
            collection_name(kb),
            embedding_function=None,
            configuration={"hnsw": {"space": "cosine"}},
            metadata={"kb": kb},
        )

    def upsert(self, kb: str, chunks: Sequence[Chunk], vectors: np.ndarray) -> None:
        collection = self._collection(kb)
        for start in range(0, len(chunks), _ADD_BATCH):
            part = chunks[start : start + _ADD_BATCH]
            collection.upsert(
                ids=[c.chunk_id for c in part],
                embeddings=vectors[start : start + len(part)],
                metadatas=[
                    {
                        "doc_id": c.doc_id,
                        "type": c.type,
                        "page": c.page if c.page is not None else -1,
                    }
                    for c in part
                ],
            )

    def delete_ids(self, kb: str, ids: Sequence[str]) -> None:
        if ids:
            collection = self._collection(kb)
            for start in range(0, len(ids), _ADD_BATCH):
                collection.delete(ids=list(ids[start : start + _ADD_BATCH]))

    def delete_document(self, kb: str, doc_id: str) -> None:
        self._collection(kb).delete(where={"doc_id": doc_id})

    def query(
        self, kb: str, vector: np.ndarray, k: int, search_filter: SearchFilter
    ) -> list[tuple[str, float]]:
        """Top ``k`` (chunk id, cosine similarity) within the filter."""
        collection = self._collection(kb)
        if k <= 0 or collection.count() == 0:
            return []
        result = collection.query(
            query_embeddings=np.asarray(vector, dtype=np.float32).reshape(1, -1),
            n_results=k,
            where=where_clause(search_filter),
            include=["distances"],
        )
        ids = result["ids"][0]
        distances = result["distances"][0] if result.get("distances") else [1.0] * len(ids)
        return [(chunk_id, 1.0 - float(d)) for chunk_id, d in zip(ids, distances)]

    def vectors(self, kb: str, ids: Sequence[str]) -> dict[str, np.ndarray]:
        """Stored vectors of the given chunk ids (those that exist)."""
        if not ids:
            return {}
        result = self._collection(kb).get(ids=list(ids), include=["embeddings"])
        embeddings = result.get("embeddings")
        if embeddings is None:
            return {}
        return {i: np.asarray(v, dtype=np.float32) for i, v in zip(result["ids"], embeddings)}

    def all_ids(self, kb: str) -> list[str]:
        """Every chunk id the knowledge base holds a vector for (read in pages)."""
        collection = self._collection(kb)
        ids: list[str] = []
        while True:
            page = collection.get(include=[], limit=_GET_PAGE, offset=len(ids))["ids"]
            ids.extend(page)
            if len(page) < _GET_PAGE:
                return ids

    def knowledge_bases(self) -> list[str]:
        """The knowledge bases that have a collection here (empty ones too)."""
        names = []
        for collection in self._client.list_collections():
            kb = (collection.metadata or {}).get("kb")
            if isinstance(kb, str) and collection.name == collection_name(kb):
                names.append(kb)
        return sorted(names)

    def count(self, kb: str) -> int:
        return int(self._collection(kb).count())

    def drop(self, kb: str) -> None:
        try:
            self._client.delete_collection(collection_name(kb))
        except Exception:  # absent already: nothing to drop
            pass
