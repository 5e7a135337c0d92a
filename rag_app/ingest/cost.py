"""What a document costs to ingest, told before it is paid: its chunks, estimated from its size.

Encoding the chunks is most of ingestion's time, so a document's chunk count is its cost. A
document over ``ChunkingOptions.max_chunks_per_document`` is refused with its size, its chunks,
the time they would take and the setting to raise; the estimate needs no tokenizer, so a file
far over the limit is refused in milliseconds.
"""

from __future__ import annotations

from rag_app.ingest.errors import IngestError
from rag_app.models import Document

# Ingestion's pace on this project's 2-core machine, encoding most of the time: 10.8 chunks/s
# (`make bench`, docs/EVALUATION.md). Used only to say how long a refused file would take.
EMBED_CHUNKS_PER_SECOND = 10.8
# cl100k tokens per UTF-8 byte, estimated without tokenizing: Chinese prose is about 1.06 tokens
# a character (3 bytes), English 0.29 a character (rag_app/text/tokens.py), so 0.3 a byte for both
# (it under-counts Chinese, which the count after chunking catches); a table's HTML is mostly
# markup, of which its linearised rows keep about half.
_TOKENS_PER_BYTE = 0.3
_TABLE_TOKENS_PER_BYTE = 0.15
_TEXTUAL = frozenset({"text", "list", "equation", "code"})


def estimate_chunks(doc: Document, text_limit: int, table_chunk_tokens: int) -> int:
    """About how many chunks ``doc`` makes, from its sizes alone (no tokenizing, linear)."""
    text_bytes = 0
    chunks = 0
    for item in doc.items:
        if item.kind in _TEXTUAL:
            text_bytes += len(item.text.encode("utf-8", "replace"))
        elif item.kind == "table":
            size = len(item.table_body.encode("utf-8", "replace"))
            chunks += max(1, round(size * _TABLE_TOKENS_PER_BYTE / max(1, table_chunk_tokens)))
        elif item.kind in ("image", "qa"):
            chunks += 1
    return chunks + round(text_bytes * _TOKENS_PER_BYTE / max(1, text_limit))


def too_many(doc: Document, chunks: int, limit: int, *, estimated: bool) -> IngestError:
    """The refusal of a document making ``chunks`` chunks, over ``limit``."""
    seconds = chunks / EMBED_CHUNKS_PER_SECOND
    took = f"{seconds / 60:.0f} minutes" if seconds >= 90 else f"{seconds:.0f} s"
    size = (
        f"{doc.size_bytes / 1e6:.1f} MB"
        if doc.size_bytes >= 100_000
        else f"{doc.size_bytes:,} bytes"
    )
    return IngestError(
        f"{doc.name}: {size} makes {'about ' if estimated else ''}{chunks:,} chunks, over the "
        f"limit of {limit:,} per document (setting max_chunks_per_document, environment "
        f"RAG_APP_MAX_CHUNKS_PER_DOCUMENT); embedding it would take about {took} at "
        f"{EMBED_CHUNKS_PER_SECOND:g} chunks/s. Split the document or raise the limit",
        key="too_many_chunks_estimated" if estimated else "too_many_chunks",
        values={"chunks": f"{chunks:,}", "limit": f"{limit:,}"},
    )
