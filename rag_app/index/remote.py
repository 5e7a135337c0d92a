"""The shared server's registry: what is not a chunk vector but must be shared all the same.

One Chroma collection (``rag_app_registry``) on the server holds, per knowledge base, a record
naming it with a *version* (a fresh random token written by every change, so a reader compares
one small record to learn whether anything changed), one record per document (its catalogue
row as JSON) and, for documents with images, one record of the images (base64 JSON, when they
fit ``ChromaSettings.asset_max_bytes``). Records carry a one-number placeholder vector: Chroma
wants a vector per record, and nothing here is searched by similarity.
"""

from __future__ import annotations

import base64
import json
import uuid
from dataclasses import asdict
from typing import Any

from rag_app.models import DocumentInfo

REGISTRY = "rag_app_registry"
_PLACEHOLDER = [1.0]


def _kb_id(kb: str) -> str:
    return f"kb:{kb}"


def _doc_id(kb: str, doc_id: str) -> str:
    return f"doc:{kb}:{doc_id}"


def _assets_id(kb: str, doc_id: str) -> str:
    return f"assets:{kb}:{doc_id}"


def stamp(info: DocumentInfo) -> str:
    """Which version of a document a row is: its content and when it was written."""
    return f"{info.content_hash}|{info.ingested_at}"


def info_to_json(info: DocumentInfo) -> str:
    return json.dumps(asdict(info), ensure_ascii=False)


def info_from_json(text: str) -> DocumentInfo:
    data = json.loads(text)
    data["type_counts"] = tuple(tuple(pair) for pair in data.get("type_counts") or ())
    return DocumentInfo(**data)


class Registry:
    """Knowledge bases, their versions, document rows and images on the shared server."""

    def __init__(self, client: Any) -> None:
        self._client = client
        self._collection = client.get_or_create_collection(
            REGISTRY, embedding_function=None, metadata={"rag_app": "registry"}
        )

    # knowledge bases ----------------------------------------------------------------------------
    def versions(self) -> dict[str, str]:
        """Every knowledge base on the server with its current version."""
        got = self._collection.get(where={"kind": "kb"}, include=["metadatas"])
        return {
            str(m["kb"]): str(m.get("version", ""))
            for m in got["metadatas"] or []
            if m and "kb" in m
        }

    def version(self, kb: str) -> str | None:
        """The knowledge base's version, None when the server does not list it."""
        got = self._collection.get(ids=[_kb_id(kb)], include=["metadatas"])
        metas = got["metadatas"] or []
        return str(metas[0].get("version", "")) if metas and metas[0] else None

    def bump(self, kb: str) -> str:
        """Mark the knowledge base changed (and listed); returns its new version."""
        version = uuid.uuid4().hex
        self._collection.upsert(
            ids=[_kb_id(kb)],
            embeddings=[_PLACEHOLDER],
            metadatas=[{"kind": "kb", "kb": kb, "version": version}],
        )
        return version

    def ensure_kb(self, kb: str) -> None:
        if self.version(kb) is None:
            self.bump(kb)

    def drop_kb(self, kb: str) -> None:
        """Forget the knowledge base, its document rows and images (its vectors are the
        journal's to drop)."""
        self._collection.delete(where={"kb": kb})

    # documents ----------------------------------------------------------------------------------
    def stamps(self, kb: str) -> dict[str, str]:
        """Every document of ``kb`` on the server with its stamp (which version of it), read
        from the records' metadata alone: what a replica compares before pulling anything."""
        got = self._collection.get(
            where={"$and": [{"kind": "doc"}, {"kb": kb}]}, include=["metadatas"]
        )
        return {
            str(m["doc_id"]): str(m.get("stamp", ""))
            for m in got["metadatas"] or []
            if m and "doc_id" in m
        }

    def documents(self, kb: str, doc_ids: list[str]) -> dict[str, DocumentInfo]:
        """The rows of those documents (that are listed)."""
        if not doc_ids:
            return {}
        got = self._collection.get(ids=[_doc_id(kb, d) for d in doc_ids], include=["documents"])
        out = {}
        for text in got["documents"] or []:
            if text:
                info = info_from_json(text)
                out[info.doc_id] = info
        return out

    def put_document(
        self, kb: str, info: DocumentInfo, assets: dict[str, bytes], limit: int
    ) -> bool:
        """Write a document's row (and its images, when they fit ``limit`` bytes) and a new
        version of the knowledge base, in one request; returns whether the images went too.
        Images too large to share leave the replicas without them (``assets_dir`` is kept, so
        a replica knows to look, and finds none)."""
        shared = bool(assets) and sum(len(b) for b in assets.values()) <= limit
        if assets and not shared:  # an older version's images must not stand in for these
            self._collection.delete(ids=[_assets_id(kb, info.doc_id)])
        ids = [_doc_id(kb, info.doc_id), _kb_id(kb)]
        metadatas: list[dict[str, Any]] = [
            {"kind": "doc", "kb": kb, "doc_id": info.doc_id, "stamp": stamp(info)},
            {"kind": "kb", "kb": kb, "version": uuid.uuid4().hex},
        ]
        documents = [info_to_json(info), ""]
        if shared:
            images = {k: base64.b64encode(v).decode("ascii") for k, v in assets.items()}
            ids.insert(0, _assets_id(kb, info.doc_id))
            metadatas.insert(0, {"kind": "assets", "kb": kb, "doc_id": info.doc_id})
            documents.insert(0, json.dumps(images))
        # the rows and the new version in one request
        self._collection.upsert(
            ids=ids,
            embeddings=[_PLACEHOLDER] * len(ids),
            metadatas=metadatas,  # type: ignore[arg-type]
            documents=documents,
        )
        return shared

    def delete_document(self, kb: str, doc_id: str) -> None:
        self._collection.delete(ids=[_doc_id(kb, doc_id), _assets_id(kb, doc_id)])
        self.bump(kb)

    def assets(self, kb: str, doc_id: str) -> dict[str, bytes]:
        got = self._collection.get(ids=[_assets_id(kb, doc_id)], include=["documents"])
        docs = got["documents"] or []
        if not docs or not docs[0]:
            return {}
        return {k: base64.b64decode(v) for k, v in json.loads(docs[0]).items()}
