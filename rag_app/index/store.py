"""Vectors in a Chroma store: one collection per knowledge base.

Chroma's default embedding function downloads a model, so none is ever given to it: vectors are
always passed in (RECIPES). Scores returned are cosine similarities (1 - cosine distance).

Embedded by default (a PersistentClient under the data dir). With ``RAG_APP_CHROMA_URL`` the
collections live on a Chroma server shared by every process, and each chunk's record also
carries what a process needs to rebuild its local catalogue from it: the chunk's JSON (the
record's document), its position in its document and its keyword tokens (metadata); see
``rag_app.index.replica`` and docs/SHARED_STORE.md.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import numpy as np

from rag_app.index.catalogue import chunk_to_json
from rag_app.models import Chunk, SearchFilter
from rag_app.text.analyzer import TOKENIZER_VERSION, index_tokens

if TYPE_CHECKING:
    from rag_app.config import ChromaSettings, Settings

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


# Chroma's client auth providers by short name (chromadb.auth; "Token"/"Basic" auth in its docs).
AUTH_PROVIDERS = {
    "token": "chromadb.auth.token_authn.TokenAuthClientProvider",
    "basic": "chromadb.auth.basic_authn.BasicAuthClientProvider",
}


def http_client(chroma: ChromaSettings):  # type: ignore[no-untyped-def]
    """One HttpClient per server URL and credentials per process, with Chroma's client auth.
    Raises ValueError for a URL that is not http(s)://host[:port]."""
    key = "|".join((chroma.url, chroma.auth_provider, chroma.auth_credentials, chroma.auth_header))
    with _clients_lock:
        if key not in _clients:
            import chromadb
            from chromadb.config import Settings as ChromaClientSettings

            parts = urlsplit(chroma.url)
            if parts.scheme not in ("http", "https") or not parts.hostname:
                raise ValueError(f"RAG_APP_CHROMA_URL: {chroma.url!r} is not http(s)://host:port")
            ssl = parts.scheme == "https"
            auth: dict[str, Any] = {}
            if chroma.auth_provider:
                auth["chroma_client_auth_provider"] = AUTH_PROVIDERS.get(
                    chroma.auth_provider.lower(), chroma.auth_provider
                )
                auth["chroma_client_auth_credentials"] = chroma.auth_credentials
                if chroma.auth_header:
                    auth["chroma_auth_token_transport_header"] = chroma.auth_header
            _clients[key] = chromadb.HttpClient(
                host=parts.hostname,
                port=parts.port or (443 if ssl else 80),
                ssl=ssl,
                settings=ChromaClientSettings(anonymized_telemetry=False, **auth),
            )
        return _clients[key]


def open_store(settings: Settings) -> ChromaStore:
    """The library's vector store: on the shared server when ``settings.chroma.url`` is set
    (chunk payloads kept beside the vectors), else embedded under the data dir."""
    if settings.chroma.url:  # with PostgreSQL, the payloads are its (pg_registry.py)
        client = http_client(settings.chroma)
        payloads = not settings.database_url
        return ChromaStore(settings.data_dir / "chroma", client=client, payloads=payloads)
    return ChromaStore(settings.data_dir / "chroma")


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

    def __init__(self, path: Path, client: Any = None, payloads: bool = True) -> None:
        self.path = path
        # A server's client (shared mode): records then carry the chunk payloads too (unless
        # PostgreSQL keeps them).
        self.shared = client is not None
        self._payloads = self.shared and payloads
        self._opened = client
        self._handles: dict[str, Any] = {}

    @property
    def client(self) -> Any:
        """The Chroma client, opened on first use: importing chromadb and opening the folder
        take most of a second, which a page listing documents need not wait for."""
        if self._opened is None:
            self._opened = _client(self.path)
        return self._opened

    def _collection(self, kb: str):  # type: ignore[no-untyped-def]
        """The knowledge base's collection. A folder's handle is kept (opening it again costs
        milliseconds on every query) until ``drop``; a server's is opened each time, since
        another instance may drop it."""
        if not self.shared and kb in self._handles:
            return self._handles[kb]
        collection = self.client.get_or_create_collection(
            collection_name(kb),
            embedding_function=None,
            configuration={"hnsw": {"space": "cosine"}},
            metadata={"kb": kb},
        )
        if not self.shared:
            self._handles[kb] = collection
        return collection

    def upsert(self, kb: str, chunks: Sequence[Chunk], vectors: np.ndarray) -> None:
        collection = self._collection(kb)
        for start in range(0, len(chunks), _ADD_BATCH):
            part = chunks[start : start + _ADD_BATCH]
            metadatas: list[dict[str, Any]] = [
                {"doc_id": c.doc_id, "type": c.type, "page": c.page if c.page is not None else -1}
                for c in part
            ]
            if not self._payloads:
                collection.upsert(
                    ids=[c.chunk_id for c in part],
                    embeddings=vectors[start : start + len(part)],
                    metadatas=metadatas,  # type: ignore[arg-type]
                )
                continue
            for n, (meta, c) in enumerate(zip(metadatas, part)):
                # what a replica needs to rebuild its catalogue rows (rag_app.index.replica)
                meta["seq"] = start + n
                meta["tokens"] = json.dumps(index_tokens(c.search_text), ensure_ascii=False)
                meta["tokenizer"] = TOKENIZER_VERSION
            collection.upsert(
                ids=[c.chunk_id for c in part],
                embeddings=vectors[start : start + len(part)],
                metadatas=metadatas,  # type: ignore[arg-type]
                documents=[chunk_to_json(c) for c in part],
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
        if k <= 0:  # an empty collection answers an empty list (no count(): 29 ms at 100k)
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

    def chunk_records(
        self, kb: str, doc_ids: Sequence[str]
    ) -> dict[str, list[tuple[str, str, dict[str, Any]]]]:
        """Documents' chunk payloads on a shared server, per document id: (chunk id, chunk
        JSON, metadata) in document order; chunks without a payload (embedded) are left out."""
        collection = self._collection(kb)
        out: dict[str, list[tuple[str, str, dict[str, Any]]]] = {d: [] for d in doc_ids}
        offset = 0
        where = {"doc_id": {"$in": list(doc_ids)}}
        while doc_ids:
            page = collection.get(
                where=where,  # type: ignore[arg-type]
                include=["documents", "metadatas"],
                limit=_GET_PAGE,
                offset=offset,
            )
            offset += len(page["ids"])
            for chunk_id, text, meta in zip(
                page["ids"], page["documents"] or [], page["metadatas"] or []
            ):
                if text and meta and meta.get("doc_id") in out:
                    out[str(meta["doc_id"])].append((chunk_id, text, dict(meta)))
            if len(page["ids"]) < _GET_PAGE:
                break
        for records in out.values():
            records.sort(key=lambda record: int(record[2].get("seq", 0)))
        return out

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
        for collection in self.client.list_collections():
            kb = (collection.metadata or {}).get("kb")
            if isinstance(kb, str) and collection.name == collection_name(kb):
                names.append(kb)
        return sorted(names)

    def count(self, kb: str) -> int:
        return int(self._collection(kb).count())

    def drop(self, kb: str) -> None:
        self._handles.pop(kb, None)
        try:
            self.client.delete_collection(collection_name(kb))
        except Exception:  # absent already: nothing to drop
            pass
