"""A document's images on disk: read from beside its file when ingested from a folder, written
into its own folder under the knowledge base's assets, and served from there, never from outside
that folder."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

from rag_app.ingest import LoadedDocument

# Folder names are at most 255 bytes on common file systems; 60 CJK characters are 180 bytes.
_MAX_NAME = 60


def safe_dir(doc_id: str) -> str:
    """The folder name of a document's images: its id where every character is safe in a file
    name; otherwise the cleaned id plus a hash of the id, so that ids differing only in the
    characters cleaned away ("a b", "a_b") never share a folder."""
    cleaned = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in doc_id) or "doc"
    if cleaned == doc_id and len(doc_id) <= _MAX_NAME and doc_id not in (".", ".."):
        return cleaned
    return (
        f"{cleaned[:_MAX_NAME]}-{hashlib.sha1(doc_id.encode('utf-8', 'replace')).hexdigest()[:8]}"
    )


def stored_asset(root: Path, folder_name: str, relative: str) -> Path | None:
    """The stored image ``relative`` in the document folder ``folder_name`` under ``root``, if
    it is there and inside that folder; None otherwise."""
    if not relative or not folder_name:
        return None
    folder = (root / Path(folder_name).name).resolve()
    path = (folder / relative).resolve()
    if folder not in path.parents or not path.is_file():
        return None
    return path


def write_assets(root: Path, doc_id: str, assets: dict[str, bytes]) -> Path:
    """Replace a document's image folder under ``root`` with ``assets``; returns the folder."""
    folder = root / safe_dir(doc_id)
    shutil.rmtree(folder, ignore_errors=True)
    for relative, data in assets.items():
        target = (folder / relative).resolve()
        if folder.resolve() not in target.parents:
            continue  # loader already refused such paths; never write outside the folder
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return folder


def with_disk_assets(doc: LoadedDocument, folder: Path, max_image_bytes: int) -> LoadedDocument:
    """Images a content list refers to, read from beside it on disk (when not in a zip); one of
    ``max_image_bytes`` or more is left out (a figure, not a data dump)."""
    if doc.assets:
        return doc
    assets = {}
    root = folder.resolve()
    for item in doc.document.items:
        if not item.image_path:
            continue
        path = (folder / item.image_path).resolve()
        if root in path.parents and path.is_file() and path.stat().st_size < max_image_bytes:
            assets[item.image_path] = path.read_bytes()
    if not assets:
        return doc
    return LoadedDocument(doc.document, doc.warnings, assets)
