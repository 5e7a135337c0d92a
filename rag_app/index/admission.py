"""Which loaded files become documents, under which id, replacing what: decided before anything
is written.

A file whose document id is already taken is never silently written over. The cases, in order:
- the markdown MinerU writes beside a content list is that content list's duplicate (the list has
  the pages and item types);
- the same bytes as a document already held (or earlier in the batch) are a duplicate; under the
  same id they are re-indexed when this version's chunking cuts them differently;
- a content list (pages) for a document held as markdown (no pages) replaces it: an upgrade;
- any other different file under a taken id follows ``on_conflict``: ``ask`` reports a conflict
  and writes nothing, ``replace`` replaces the document and says what changed, ``keep_both``
  keeps the new file beside it under the next free id, listed under that name (``report (2)``).
A file that cannot be chunked is rejected with its own message; the rest of the batch goes on.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from rag_app.index.catalogue import Catalogue
from rag_app.ingest import IngestError, LoadedDocument
from rag_app.models import Chunk, Document, DocumentInfo, IngestReport

_log = logging.getLogger(__name__)

OnConflict = Literal["ask", "replace", "keep_both"]
ON_CONFLICT: tuple[OnConflict, ...] = ("ask", "replace", "keep_both")


@dataclass(frozen=True)
class Admitted:
    """A file to write: its (possibly renamed) document, its chunks, and what the report adds
    (what it replaced and what changed, or the id it was kept under). ``file_name`` is the
    uploaded file's name when the document is listed under another (kept beside)."""

    entry: LoadedDocument
    chunks: list[Chunk]
    note: str = ""
    file_name: str = ""


def admit(
    loaded: Sequence[LoadedDocument | IngestReport],
    catalogue: Catalogue,
    kb: str,
    chunk: Callable[[Document], list[Chunk]],
    on_conflict: OnConflict = "ask",
) -> list[Admitted | IngestReport]:
    """One decision per loaded entry, in order: a report (nothing to write) or an ``Admitted``."""
    if on_conflict not in ON_CONFLICT:
        raise ValueError(f"on_conflict must be one of {', '.join(ON_CONFLICT)}")
    held = {d.doc_id: d for d in catalogue.documents(kb)}
    by_hash = {d.content_hash: d for d in held.values()}
    # MinerU writes a content list and a markdown of one PDF into one folder, under one name.
    content_lists = {
        e.document.doc_id: e.document.name
        for e in loaded
        if isinstance(e, LoadedDocument) and e.document.source_format == "content_list"
    }
    batch_ids: dict[str, str] = {}
    batch_hashes: dict[str, str] = {}
    out: list[Admitted | IngestReport] = []
    for entry in loaded:
        if isinstance(entry, IngestReport):
            out.append(entry)
            continue
        decision = _decide(
            entry, held, by_hash, content_lists, batch_ids, batch_hashes, on_conflict
        )
        if isinstance(decision, IngestReport):
            out.append(decision)
            continue
        doc = decision.entry.document
        chunks = _chunks(doc, chunk)
        if isinstance(chunks, IngestReport):
            out.append(chunks)
            continue
        same = held.get(doc.doc_id)
        if same is not None and same.content_hash == doc.content_hash:
            if catalogue.chunks(kb, doc.doc_id) == chunks:
                out.append(_duplicate(doc, same))
                continue
        if not chunks:
            out.append(_rejected(doc, "no searchable content after parsing"))
            continue
        batch_ids[doc.doc_id] = doc.name
        batch_hashes[doc.content_hash] = doc.doc_id
        out.append(dataclasses.replace(decision, chunks=chunks))
    return out


def _decide(
    entry: LoadedDocument,
    held: dict[str, DocumentInfo],
    by_hash: dict[str, DocumentInfo],
    content_lists: dict[str, str],
    batch_ids: dict[str, str],
    batch_hashes: dict[str, str],
    on_conflict: OnConflict,
) -> Admitted | IngestReport:
    doc = entry.document
    if doc.source_format == "markdown":
        kept = content_lists.get(doc.doc_id)
        if kept is None and doc.doc_id in held and held[doc.doc_id].source_format != "markdown":
            kept = held[doc.doc_id].name if _has_pages(held[doc.doc_id]) else None
        if kept is not None:
            return IngestReport(
                name=doc.name,
                status="duplicate",
                doc_id=doc.doc_id,
                message=f"the markdown MinerU writes beside {kept}: the content list is kept (it "
                "has the pages and item types); nothing was replaced",
            )
    same = by_hash.get(doc.content_hash)
    if same is not None and same.doc_id != doc.doc_id:
        return _duplicate(doc, same)
    if doc.content_hash in batch_hashes:
        return IngestReport(
            name=doc.name,
            status="duplicate",
            doc_id=batch_hashes[doc.content_hash],
            message=f"identical content is earlier in this batch as {batch_hashes[doc.content_hash]}",
        )
    if doc.doc_id in batch_ids:
        if on_conflict == "keep_both":
            return _kept_beside(entry, held, batch_ids)
        return IngestReport(
            name=doc.name,
            status="conflict" if on_conflict == "ask" else "rejected",
            doc_id=doc.doc_id,
            message=f"another file in this batch ({batch_ids[doc.doc_id]}) is also the document "
            f"{doc.doc_id}; nothing was written for this one",
        )
    old = held.get(doc.doc_id)
    if old is None or old.content_hash == doc.content_hash:
        return Admitted(entry, [])
    if old.source_format == "markdown" and _pages(doc) and not _has_pages(old):
        return Admitted(entry, [], note=f"the markdown version is replaced: {_changes(old, doc)}")
    if on_conflict == "replace":
        return Admitted(entry, [], note=f"what changed: {_changes(old, doc)}")
    if on_conflict == "keep_both":
        return _kept_beside(entry, held, batch_ids)
    return IngestReport(
        name=doc.name,
        status="conflict",
        doc_id=doc.doc_id,
        message=f"a different file is already the document {doc.doc_id} ({old.name}, "
        f"{old.source_format}, {old.pages} pages, ingested {old.ingested_at}); nothing was "
        "written: replace it or keep both",
    )


def _kept_beside(
    entry: LoadedDocument, held: dict[str, DocumentInfo], batch_ids: dict[str, str]
) -> Admitted:
    doc = entry.document
    n = 2
    while f"{doc.doc_id} ({n})" in held or f"{doc.doc_id} ({n})" in batch_ids:
        n += 1
    # Listed under the id it is kept as, the name the user is told: under the file's name it
    # would be listed, picked and confirmed as the same name as the document it is kept beside.
    kept = f"{doc.doc_id} ({n})"
    renamed = dataclasses.replace(doc, doc_id=kept, name=kept)
    return Admitted(
        LoadedDocument(renamed, entry.warnings, entry.assets),
        [],
        note=f"kept beside the document {doc.doc_id} as {renamed.doc_id}",
        file_name=doc.name,
    )


def _chunks(doc: Document, chunk: Callable[[Document], list[Chunk]]) -> list[Chunk] | IngestReport:
    try:
        return chunk(doc)
    except IngestError as exc:
        return exc.report(doc.name, doc.doc_id)
    except Exception as exc:  # noqa: BLE001 - one file's failure is its own report
        _log.exception("chunking %s failed", doc.name)
        return _rejected(doc, f"could not be read ({type(exc).__name__}: {exc})")


def _pages(doc: Document) -> int:
    pages = [item.page for item in doc.items if item.page is not None]
    return max(pages) + 1 if pages else 0


def _has_pages(info: DocumentInfo) -> bool:
    return info.pages > 0


def _changes(old: DocumentInfo, doc: Document) -> str:
    parts = []
    if old.source_format != doc.source_format:
        parts.append(f"format {old.source_format} -> {doc.source_format}")
    if old.pages != _pages(doc):
        parts.append(f"pages {old.pages} -> {_pages(doc)}")
    if old.n_items != len(doc.items):
        parts.append(f"items {old.n_items} -> {len(doc.items)}")
    if old.name != doc.name:
        parts.append(f"file {old.name} -> {doc.name}")
    return ", ".join(parts) or "the content"


def _duplicate(doc: Document, same: DocumentInfo) -> IngestReport:
    return IngestReport(
        name=doc.name,
        status="duplicate",
        doc_id=same.doc_id,
        message=f"identical content is already in the library as {same.doc_id}",
        n_chunks=same.n_chunks,
        type_counts=same.type_counts,
    )


def _rejected(doc: Document, message: str) -> IngestReport:
    return IngestReport(name=doc.name, status="rejected", doc_id=doc.doc_id, message=message)
