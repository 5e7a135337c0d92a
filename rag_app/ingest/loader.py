"""Files -> Documents: dispatch by kind, check sizes and archive paths, report clearly.

Every loader either returns whole Documents or raises IngestError; nothing is half-parsed.
"""

from __future__ import annotations

import hashlib
import json
import posixpath
import re
import zipfile
import zlib
from dataclasses import dataclass, field
from io import BytesIO
from pathlib import Path

from rag_app.ingest.content_list import decode_text, parse_content_list
from rag_app.ingest.errors import IngestError
from rag_app.ingest.markdown import parse_markdown
from rag_app.ingest.sheets import is_sheet_json, parse_sheet_json, parse_sheet_table
from rag_app.models import Document, Item

SUPPORTED = (".json", ".md", ".markdown", ".zip", ".xlsx", ".xls", ".csv")
_IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp")
# Zip bombs: refuse archives that expand past this many bytes or entries.
MAX_ZIP_EXPANDED_BYTES = 500 * 1024 * 1024
MAX_ZIP_ENTRIES = 20_000


@dataclass(frozen=True)
class LoadedDocument:
    """A parsed Document plus warnings and the image files that came with it (path -> bytes)."""

    document: Document
    warnings: tuple[str, ...] = ()
    assets: dict[str, bytes] = field(default_factory=dict)


def doc_id_from_name(name: str) -> str:
    """A document's id: its file name without extension and without a trailing ``_content_list``."""
    stem = Path(name).name
    for suffix in SUPPORTED:
        if stem.lower().endswith(suffix):
            stem = stem[: -len(suffix)]
            break
    stem = re.sub(r"_content_list(_v\d+)?$", "", stem)
    stem = stem.strip() or "document"
    return stem


def load_path(path: Path, max_bytes: int, max_zip_bytes: int | None = None) -> list[LoadedDocument]:
    """Load a file from disk, refusing it before reading when it is over its size limit."""
    if not path.exists():
        raise IngestError(f"{path}: no such file")
    if path.is_dir():
        raise IngestError(f"{path}: is a folder; give the files in it")
    size = path.stat().st_size
    _check_size(path.name, size, _limit(path.name, max_bytes, max_zip_bytes))
    return load_bytes(path.read_bytes(), path.name, max_bytes, max_zip_bytes)


def _limit(name: str, max_bytes: int, max_zip_bytes: int | None) -> int:
    if name.lower().endswith(".zip") and max_zip_bytes:
        return max_zip_bytes
    return max_bytes


def _check_size(name: str, size: int, max_bytes: int) -> None:
    if size > max_bytes:
        raise IngestError(
            f"{name}: {size / 1e6:.1f} MB is over the {max_bytes / 1e6:.0f} MB limit per file "
            "(setting max_file_bytes); split the document or raise the limit"
        )


def load_bytes(
    data: bytes, name: str, max_bytes: int, max_zip_bytes: int | None = None
) -> list[LoadedDocument]:
    """Parse an uploaded file's bytes into one or more Documents (a zip may hold several)."""
    _check_size(name, len(data), _limit(name, max_bytes, max_zip_bytes))
    lower = name.lower()
    if not lower.endswith(SUPPORTED):
        raise IngestError(f"{name}: unsupported file type; expected one of {', '.join(SUPPORTED)}")
    if not data.strip():
        raise IngestError(f"{name}: the file is empty")
    digest = hashlib.sha256(data).hexdigest()
    if lower.endswith(".zip"):
        return _load_zip(data, name, max_bytes)
    if lower.endswith((".xlsx", ".xls", ".csv")):
        items, warnings = parse_sheet_table(data, name)
        return [_loaded(name, "sheet", items, warnings, digest, len(data))]
    if lower.endswith((".md", ".markdown")):
        items = parse_markdown(decode_text(data, name))
        if not items:
            raise IngestError(f"{name}: no content in the markdown")
        return [_loaded(name, "markdown", items, [], digest, len(data))]
    text = decode_text(data, name)
    try:
        raw = json.loads(text)
    except json.JSONDecodeError:
        raw = None  # parse_content_list reports the position
    if raw is not None and is_sheet_json(raw):
        items, warnings = parse_sheet_json(raw, name)
        return [_loaded(name, "sheet", items, warnings, digest, len(data))]
    items, warnings = parse_content_list(data, name)
    return [_loaded(name, "content_list", items, warnings, digest, len(data))]


def _loaded(
    name: str,
    source_format: str,
    items: list[Item],
    warnings: list[str],
    digest: str,
    size: int,
    assets: dict[str, bytes] | None = None,
    doc_name: str | None = None,
) -> LoadedDocument:
    doc = Document(
        doc_id=doc_id_from_name(doc_name or name),
        name=Path(name).name,
        source_format=source_format,
        items=tuple(items),
        content_hash=digest,
        size_bytes=size,
    )
    return LoadedDocument(doc, tuple(warnings), assets or {})


def _safe_member(name: str) -> str:
    """A zip member's normalised relative path; raises on absolute paths or ``..`` escapes."""
    cleaned = name.replace("\\", "/")
    if cleaned.startswith("/") or re.match(r"^[A-Za-z]:", cleaned):
        raise IngestError(f"unsafe path in archive: {name!r} (absolute)")
    norm = posixpath.normpath(cleaned)
    if norm == ".." or norm.startswith("../") or "/../" in f"/{norm}/":
        raise IngestError(f"unsafe path in archive: {name!r} (leaves the folder)")
    return norm


def _load_zip(data: bytes, name: str, max_bytes: int) -> list[LoadedDocument]:
    try:
        archive = zipfile.ZipFile(BytesIO(data))
    except zipfile.BadZipFile:
        raise IngestError(f"{name}: not a valid zip archive") from None
    with archive:
        infos = [i for i in archive.infolist() if not i.is_dir()]
        if len(infos) > MAX_ZIP_ENTRIES:
            raise IngestError(f"{name}: {len(infos)} files in the archive, over {MAX_ZIP_ENTRIES}")
        if sum(i.file_size for i in infos) > MAX_ZIP_EXPANDED_BYTES:
            raise IngestError(
                f"{name}: the archive expands past {MAX_ZIP_EXPANDED_BYTES // 10**6} MB"
            )
        members: dict[str, zipfile.ZipInfo] = {}
        for info in infos:
            try:
                path = _safe_member(info.filename)
            except IngestError as exc:
                raise IngestError(f"{name}: {exc.message}; the archive was not ingested") from None
            if (info.external_attr >> 16) & 0o170000 == 0o120000:
                raise IngestError(f"{name}: symbolic link {info.filename!r} in archive")
            if "__MACOSX" in path.split("/"):
                continue
            members[path] = info
        lists = sorted(p for p in members if p.lower().endswith("_content_list.json"))
        if not lists:
            lists = sorted(
                p
                for p in members
                if p.lower().endswith(".json")
                and not p.lower().endswith(("_middle.json", "_model.json", "layout.json"))
            )
        markdowns = sorted(p for p in members if p.lower().endswith((".md", ".markdown")))
        sources = lists or markdowns[:1]
        if not sources:
            raise IngestError(f"{name}: no content_list.json or .md in the archive")
        out = []
        encrypted = [p for p, i in members.items() if i.flag_bits & 0x1]
        if encrypted:
            raise IngestError(
                f"{name}: the archive is encrypted ({encrypted[0]}); upload an unencrypted zip"
            )

        def read(path: str) -> bytes:
            try:
                return archive.read(members[path])
            except (
                zipfile.BadZipFile,
                RuntimeError,
                NotImplementedError,
                EOFError,
                zlib.error,
            ) as exc:
                raise IngestError(
                    f"{name}: cannot read {path!r} from the archive ({exc})"
                ) from None

        for source in sources:
            raw = read(source)
            _check_size(source, len(raw), max_bytes)
            folder = posixpath.dirname(source)
            if source.lower().endswith(".json"):
                items, warnings = parse_content_list(raw, f"{name}:{source}")
            else:
                items, warnings = parse_markdown(decode_text(raw, source)), []
            assets = {}
            for path in members:
                if path.lower().endswith(_IMAGE_SUFFIXES) and (
                    not folder or path.startswith(folder + "/")
                ):
                    assets[posixpath.relpath(path, folder or ".")] = read(path)
            missing = sorted(
                {i.image_path for i in items if i.image_path and i.image_path not in assets}
            )
            warnings = list(warnings)
            if missing:
                warnings.append(f"{len(missing)} image(s) referenced but not in the archive")
            digest = hashlib.sha256(raw + b"".join(assets[k] for k in sorted(assets))).hexdigest()
            out.append(
                _loaded(
                    name,
                    "zip",
                    items,
                    warnings,
                    digest,
                    len(data),
                    assets,
                    doc_name=posixpath.basename(source),
                )
            )
        return out
