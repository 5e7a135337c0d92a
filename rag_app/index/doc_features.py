"""What retrieval reads of each document besides its chunks, computed once per document version.

Structure tokens of its tables and figures, the tables its paragraphs introduce and its subject
were features of the whole knowledge base, rebuilt from every chunk after each upload; each
depends only on the chunks of one document, so they are computed when the document is written
(or first seen) and kept with it: an upload costs its own document, not the library.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from rag_app.models import Chunk
from rag_app.text.analyzer import index_tokens
from rag_app.text.phrasing import introduces_what_follows
from rag_app.text.subjects import document_subjects
from rag_app.text.tables import column_labels, parse_table


@dataclass(frozen=True)
class DocFeatures:
    """``structure``: table / figure chunk id -> tokens of its caption, column headers, row
    labels (or a figure's description) and the document title, in chunk order;
    ``introduced``: text chunk id -> the tables it introduces; ``subject``: the leading name
    of the document's title (empty when none); ``captions``: table / figure chunk id -> its
    caption and the caption's tokens (those with a caption; smart mode's routing reads them)."""

    structure: dict[str, frozenset[str]]
    introduced: dict[str, tuple[str, ...]]
    subject: frozenset[str]
    captions: dict[str, tuple[str, frozenset[str]]]


def describe(chunks: Sequence[Chunk]) -> DocFeatures:
    """The features of one document from its chunks, in their order."""
    doc_id = chunks[0].doc_id if chunks else ""
    subjects = document_subjects(chunks)
    return DocFeatures(
        structure=_structure_tokens(chunks),
        introduced=_introduced_tables(chunks),
        subject=subjects.get(doc_id, frozenset()),
        captions={
            c.chunk_id: (c.caption, frozenset(index_tokens(c.caption)))
            for c in chunks
            if c.type in ("table", "image") and c.caption
        },
    )


def features_to_json(features: DocFeatures) -> str:
    return json.dumps(
        {
            "structure": {i: sorted(t) for i, t in features.structure.items()},
            "introduced": features.introduced,
            "subject": sorted(features.subject),
            "captions": {i: [c, sorted(t)] for i, (c, t) in features.captions.items()},
        },
        ensure_ascii=False,
    )


def features_from_json(data: str) -> DocFeatures:
    """Features stored by ``features_to_json``; raises ValueError / KeyError when malformed."""
    raw = json.loads(data)
    return DocFeatures(
        structure={i: frozenset(t) for i, t in raw["structure"].items()},
        introduced={i: tuple(t) for i, t in raw["introduced"].items()},
        subject=frozenset(raw["subject"]),
        captions={i: (c, frozenset(t)) for i, (c, t) in raw["captions"].items()},
    )


def _structure_tokens(chunks: Sequence[Chunk]) -> dict[str, frozenset[str]]:
    title = next((c.heading_path[0] for c in chunks if c.heading_path), "")
    out: dict[str, frozenset[str]] = {}
    for chunk in chunks:
        if chunk.type == "table":
            parts = [chunk.caption]
            if chunk.table_html:
                grid = parse_table(chunk.table_html)
                parts.extend(column_labels(grid))
                parts.extend(row[0] for row in grid.data_rows if row)
        elif chunk.type == "image":
            parts = [chunk.caption, chunk.description[:200]]
        else:
            continue
        parts.append(title)
        out[chunk.chunk_id] = frozenset(index_tokens(" ".join(p for p in parts if p)))
    return out


def _introduced_tables(chunks: Sequence[Chunk]) -> dict[str, tuple[str, ...]]:
    """For each text chunk, the tables it introduces: those whose context paragraph (the one
    just before the table, kept on the table chunk) is part of that text chunk."""
    texts = [c for c in chunks if c.type == "text"]
    found: dict[str, list[str]] = {}
    seen_tables: set[str] = set()
    for chunk in sorted(chunks, key=lambda c: c.subtable_index):
        paragraph = chunk.context.strip() if chunk.type == "table" else ""
        if len(paragraph) < 8 or not introduces_what_follows(paragraph):
            continue
        if chunk.parent_table_id:
            # A table split by rows is introduced once: its first part carries the lift (the
            # prompt merges whatever parts come back into one table).
            if chunk.parent_table_id in seen_tables:
                continue
            seen_tables.add(chunk.parent_table_id)
        paragraph = paragraph.removesuffix("…").strip()
        for text in texts:
            if paragraph in text.text:
                found.setdefault(text.chunk_id, []).append(chunk.chunk_id)
                break
    return {text_id: tuple(tables) for text_id, tables in found.items()}
