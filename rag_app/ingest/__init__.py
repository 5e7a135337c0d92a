"""Ingestion: files -> Documents (typed Items) -> Chunks."""

from rag_app.ingest.chunking import ChunkingOptions, chunk_document
from rag_app.ingest.errors import IngestError
from rag_app.ingest.loader import SUPPORTED, LoadedDocument, doc_id_from_name, load_bytes, load_path

__all__ = [
    "SUPPORTED",
    "ChunkingOptions",
    "IngestError",
    "LoadedDocument",
    "chunk_document",
    "doc_id_from_name",
    "load_bytes",
    "load_path",
]
