"""The files of a folder to ingest, chosen as a MinerU output folder holds them: one document
may be there three times (``X_content_list.json``, ``X.md``, ``X.zip``), beside files that are
no document (the folder's README, a JSON of questions). Each document is taken once, from its
content list (pages and item types; its images beside it come along), else its zip, else its
markdown; what is left out is said with its reason, so nothing goes missing unseen."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from rag_app.ingest.content_list import WRAPPER_KEYS
from rag_app.ingest.loader import SUPPORTED, doc_id_from_name
from rag_app.ingest.sheets import REQUIRED, is_sheet_json

# The order a document's files are preferred in: its content list, its zip, its markdown.
_PREFERRED = (".json", ".zip", ".md", ".markdown")


@dataclass(frozen=True)
class FolderFiles:
    """The files to ingest, and those left out with why."""

    files: tuple[Path, ...]
    skipped: tuple[tuple[Path, str], ...] = ()


def folder_files(folder: Path, max_json_bytes: int) -> FolderFiles:
    """The files under ``folder`` (hidden folders aside) to ingest; a JSON file over
    ``max_json_bytes`` is taken unread (the loader says what it is)."""
    found = sorted(
        p
        for p in folder.rglob("*")
        if p.is_file()
        and p.suffix.lower() in SUPPORTED
        and not any(part.startswith(".") for part in p.relative_to(folder).parts[:-1])
    )
    skipped: list[tuple[Path, str]] = []
    documents: dict[tuple[Path, str], list[Path]] = {}
    for path in found:
        reason = _no_document(path, max_json_bytes)
        if reason:
            skipped.append((path, reason))
        else:
            documents.setdefault((path.parent, doc_id_from_name(path.name)), []).append(path)
    files = []
    for same in documents.values():
        taken, *others = sorted(same, key=_preference)
        files.append(taken)
        skipped += [(p, f"the same document as {taken.name}, which is taken") for p in others]
    return FolderFiles(tuple(sorted(files)), tuple(sorted(skipped)))


def _preference(path: Path) -> tuple[int, str]:
    suffix = path.suffix.lower()
    rank = _PREFERRED.index(suffix) if suffix in _PREFERRED else len(_PREFERRED)
    return rank, path.name


def _no_document(path: Path, max_json_bytes: int) -> str:
    """Why a file in a folder is no document to ingest ("" when it may be one): the folder's
    README, a hidden file, a CSV without a sheet's columns, or a JSON that is neither a content
    list nor a sheet."""
    if path.name.startswith("."):
        return "a hidden file (give it by name to ingest it)"
    if path.stem.lower() == "readme":
        return "the folder's README (give it by name to ingest it)"
    if path.suffix.lower() == ".csv":  # a sheet of examples has its columns in its first line
        with path.open("rb") as handle:
            first = handle.readline(4096).decode("utf-8-sig", "replace")
        if not all(column in first for column in REQUIRED):
            return f"a table without the columns of a sheet of examples ({', '.join(REQUIRED)})"
    named = path.stem.lower().endswith("_content_list")  # as MinerU names one
    if path.suffix.lower() != ".json" or named or path.stat().st_size > max_json_bytes:
        return ""
    try:
        data = json.loads(path.read_bytes())
    except (ValueError, RecursionError):
        return ""  # the loader says what is wrong with it
    if isinstance(data, dict):  # a content list some tools wrap ({"content_list": [...]})
        data = next((data[k] for k in WRAPPER_KEYS if isinstance(data.get(k), list)), data)
    items = data if isinstance(data, list) else []
    if is_sheet_json(data) or not items or not isinstance(items[0], dict) or "type" in items[0]:
        return ""  # a sheet, a content list, or something the loader says what is wrong with
    return "not a MinerU content list (give it by name to ingest it)"
