"""Files -> Documents: dispatch by kind, check sizes and archive paths, report clearly.

Every loader either returns whole Documents or raises IngestError; nothing is half-parsed.
"""

from __future__ import annotations

import hashlib
import posixpath
import re
import zipfile
import zlib
from dataclasses import dataclass, field
from io import BytesIO
from pathlib import Path

from rag_app.ingest.content_list import parse_content_list, parse_content_list_data
from rag_app.ingest.errors import IngestError
from rag_app.ingest.guards import clean_items, decode_text, read_json
from rag_app.ingest.markdown import parse_markdown
from rag_app.ingest.sheets import is_sheet_json, parse_sheet_json, parse_sheet_table
from rag_app.models import Document, Item
from rag_app.stage_settings import DEFAULT_INPUT_LIMITS, InputLimits

SUPPORTED = (".json", ".md", ".markdown", ".zip", ".xlsx", ".xls", ".csv")
_IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp")
# A document id names folders and appears in every chunk id; past this it is cut.
MAX_DOC_ID_CHARS = 200


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
    stem = "".join(ch for ch in stem if ch.isprintable()).strip()[:MAX_DOC_ID_CHARS].strip()
    # "." and ".." would name the folder above a document's images.
    return stem if stem.strip(".") else "document"


def load_path(
    path: Path,
    max_bytes: int,
    max_zip_bytes: int | None = None,
    limits: InputLimits = DEFAULT_INPUT_LIMITS,
) -> list[LoadedDocument]:
    """Load a file from disk, refusing it before reading when it is over its size limit."""
    if not path.exists():
        raise IngestError(f"{path}: no such file")
    if path.is_dir():
        raise IngestError(f"{path}: is a folder; give the files in it")
    size = path.stat().st_size
    _check_size(path.name, size, _limit(path.name, max_bytes, max_zip_bytes))
    return load_bytes(path.read_bytes(), path.name, max_bytes, max_zip_bytes, limits)


def _limit(name: str, max_bytes: int, max_zip_bytes: int | None) -> int:
    if name.lower().endswith(".zip") and max_zip_bytes:
        return max_zip_bytes
    return max_bytes


def _check_size(name: str, size: int, max_bytes: int) -> None:
    if size > max_bytes:
        raise IngestError(
            f"{name}: {size / 1e6:.1f} MB is over the {max_bytes / 1e6:.0f} MB limit per file "
            "(setting max_file_bytes); split the document or raise the limit",
            key="too_big",
            values={"size": f"{size / 1e6:.1f}", "limit": f"{max_bytes / 1e6:.0f}"},
        )


def load_bytes(
    data: bytes,
    name: str,
    max_bytes: int,
    max_zip_bytes: int | None = None,
    limits: InputLimits = DEFAULT_INPUT_LIMITS,
) -> list[LoadedDocument]:
    """Parse an uploaded file's bytes into one or more Documents (a zip may hold several).

    Raises IngestError, and nothing else, for any input it cannot take: its message names the
    file (and the item or archive member, where one is at fault). Repairs made on the way (text
    that cannot be encoded, page numbers that are not pages, image paths outside the folder)
    are the documents' warnings. ``limits`` are what an archive or workbook may expand to.
    """
    _check_size(name, len(data), _limit(name, max_bytes, max_zip_bytes))
    lower = name.lower()
    if not lower.endswith(SUPPORTED):
        raise IngestError(
            f"{name}: unsupported file type; expected one of {', '.join(SUPPORTED)}",
            key="unsupported_type",
            values={"types": ", ".join(SUPPORTED)},
        )
    if not data.strip():
        raise IngestError(f"{name}: the file is empty", key="empty_file")
    digest = hashlib.sha256(data).hexdigest()
    if lower.endswith(".zip"):
        return _load_zip(data, name, max_bytes, limits)
    if lower.endswith(".xlsx"):
        _check_workbook(data, name, limits)
    if lower.endswith((".xlsx", ".xls", ".csv")):
        items, warnings = parse_sheet_table(data, name)
        return [_loaded(name, "sheet", items, warnings, digest, len(data))]
    if lower.endswith((".md", ".markdown")):
        items = parse_markdown(decode_text(data, name))
        if not items:
            raise IngestError(f"{name}: no content in the markdown", key="markdown_empty")
        return [_loaded(name, "markdown", items, [], digest, len(data))]
    raw = read_json(decode_text(data, name), name)
    if is_sheet_json(raw):
        items, warnings = parse_sheet_json(raw, name)
        return [_loaded(name, "sheet", items, warnings, digest, len(data))]
    items, warnings = parse_content_list_data(raw, name)
    return [_loaded(name, "content_list", items, warnings, digest, len(data))]


def _check_workbook(data: bytes, name: str, limits: InputLimits) -> None:
    """Refuse a workbook that expands like a zip bomb, or holds more rows than a sheet of
    examples may, before the sheet reader spends seconds inflating it (100k rows: 7 s)."""
    try:
        with zipfile.ZipFile(BytesIO(data)) as archive:
            infos = archive.infolist()
            expanded = sum(i.file_size for i in infos)
            if expanded > limits.max_sheet_expanded_bytes:
                raise IngestError(
                    f"{name}: the workbook expands to {expanded / 1e6:.0f} MB, past the "
                    f"{limits.max_sheet_expanded_bytes / 1e6:.0f} MB a sheet of examples may take",
                    key="workbook_expands",
                    values={
                        "size": f"{expanded / 1e6:.0f}",
                        "limit": f"{limits.max_sheet_expanded_bytes / 1e6:.0f}",
                    },
                )
            rows = sum(
                _count_rows(archive, info)
                for info in infos
                if info.filename.startswith("xl/worksheets/") and info.filename.endswith(".xml")
            )
    except IngestError:
        raise
    except _ZIP_ERRORS:
        return  # not a zip, or a broken one: the sheet reader says what it is
    if rows > limits.max_sheet_rows:
        raise IngestError(
            f"{name}: {rows:,} rows, over the {limits.max_sheet_rows:,} a workbook of examples may "
            "have (each row is a chunk to embed); split the workbook",
            key="workbook_rows",
            values={"rows": f"{rows:,}", "limit": f"{limits.max_sheet_rows:,}"},
        )


def _count_rows(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> int:
    count, tail = 0, b""
    with archive.open(info) as member:
        while block := member.read(1 << 20):
            joined = tail + block
            count += joined.count(b"<row ") + joined.count(b"<row>")
            tail = joined[-4:]  # a match takes 5 bytes: none lies wholly in the tail
    return count


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
    items, repairs = clean_items(items)
    warnings = [*warnings, *repairs]
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
        raise IngestError(f"unsafe path in archive: {name!r} (absolute)", key="zip_unsafe_path")
    norm = posixpath.normpath(cleaned)
    if norm == ".." or norm.startswith("../") or "/../" in f"/{norm}/":
        raise IngestError(
            f"unsafe path in archive: {name!r} (leaves the folder)", key="zip_unsafe_path"
        )
    return norm


_ZIP_ERRORS = (
    zipfile.BadZipFile,
    zipfile.LargeZipFile,
    RuntimeError,
    NotImplementedError,
    EOFError,
    OSError,
    ValueError,
    zlib.error,
)


def _load_zip(data: bytes, name: str, max_bytes: int, limits: InputLimits) -> list[LoadedDocument]:
    try:
        archive = zipfile.ZipFile(BytesIO(data))
    except _ZIP_ERRORS:
        raise IngestError(f"{name}: not a valid zip archive", key="not_zip") from None
    with archive:
        infos = [i for i in archive.infolist() if not i.is_dir()]
        if len(infos) > limits.max_zip_entries:
            raise IngestError(
                f"{name}: {len(infos)} files in the archive, over {limits.max_zip_entries}",
                key="zip_too_many_files",
                values={"n": len(infos), "limit": limits.max_zip_entries},
            )
        if sum(i.file_size for i in infos) > limits.max_zip_expanded_bytes:
            raise IngestError(
                f"{name}: the archive expands past {limits.max_zip_expanded_bytes // 10**6} MB",
                key="zip_expands",
                values={"limit": limits.max_zip_expanded_bytes // 10**6},
            )
        members = _members(infos, name)
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
            nested = any(p.lower().endswith(".zip") for p in members)
            raise IngestError(
                f"{name}: no content_list.json or .md in the archive"
                + (" (archives inside an archive are not opened)" if nested else ""),
                key="zip_no_source_nested" if nested else "zip_no_source",
            )
        out = []
        encrypted = [p for p, i in members.items() if i.flag_bits & 0x1]
        if encrypted:
            raise IngestError(
                f"{name}: the archive is encrypted ({encrypted[0]}); upload an unencrypted zip",
                key="zip_encrypted",
                values={"member": encrypted[0]},
            )

        def read(path: str) -> bytes:
            try:
                return archive.read(members[path])
            except _ZIP_ERRORS as exc:
                raise IngestError(
                    f"{name}: cannot read {path!r} from the archive ({exc})",
                    key="zip_unreadable",
                    values={"member": path, "problem": exc},
                ) from None

        for source in sources:
            where = f"{name}:{source}"
            expanded = members[source].file_size
            if expanded > max_bytes:
                raise IngestError(
                    f"{name}: {source} expands to {expanded / 1e6:.1f} MB, over the "
                    f"{max_bytes / 1e6:.0f} MB limit per file (setting max_file_bytes)",
                    key="zip_member_too_big",
                    values={
                        "member": source,
                        "size": f"{expanded / 1e6:.1f}",
                        "limit": f"{max_bytes / 1e6:.0f}",
                    },
                )
            raw = read(source)
            folder = posixpath.dirname(source)
            if source.lower().endswith(".json"):
                items, warnings = parse_content_list(raw, where)
            else:
                items, warnings = parse_markdown(decode_text(raw, where)), []
            warnings = list(warnings)
            assets = {}
            too_big = []
            for path in members:
                if path.lower().endswith(_IMAGE_SUFFIXES) and (
                    not folder or path.startswith(folder + "/")
                ):
                    if members[path].file_size > limits.max_image_bytes:
                        too_big.append(path)
                        continue
                    assets[posixpath.relpath(path, folder or ".")] = read(path)
            if too_big:
                warnings.append(
                    f"{len(too_big)} image(s) over {limits.max_image_bytes // 2**20} MB left out "
                    f"({too_big[0]})"
                )
            missing = sorted(
                {i.image_path for i in items if i.image_path and i.image_path not in assets}
            )
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


def _members(infos: list[zipfile.ZipInfo], name: str) -> dict[str, zipfile.ZipInfo]:
    """The archive's files by normalised path; raises IngestError on an unsafe path, a
    symbolic link or a path written twice (which of the two is meant cannot be known)."""
    members: dict[str, zipfile.ZipInfo] = {}
    for info in infos:
        try:
            path = _safe_member(info.filename)
        except IngestError as exc:
            raise IngestError(
                f"{name}: {exc.message}; the archive was not ingested",
                key="zip_unsafe_path",
                values={"member": info.filename},
            ) from None
        if (info.external_attr >> 16) & 0o170000 == 0o120000:
            raise IngestError(
                f"{name}: symbolic link {info.filename!r} in archive",
                key="zip_symlink",
                values={"member": info.filename},
            )
        if "__MACOSX" in path.split("/"):
            continue
        if path in members:
            raise IngestError(
                f"{name}: {info.filename!r} appears twice in the archive; which copy is meant "
                "cannot be told",
                key="zip_member_twice",
                values={"member": info.filename},
            )
        members[path] = info
    return members
