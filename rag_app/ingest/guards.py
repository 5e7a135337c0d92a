"""Guards at the ingest boundary: what a hostile or broken file must not get past.

- text files are decoded as UTF-8, UTF-16/32 (by their byte-order mark, or UTF-16 without one
  when every other byte is NUL) or GB18030, else refused;
- JSON is read once; nesting too deep for the reader, numbers too long to convert and other
  reader failures are refused with the file's name, never raised as Python errors;
- every text of every Item is cleaned: lone surrogates (``"\\ud800"`` in JSON) cannot be encoded
  as UTF-8 (the tokenizer, SQLite and Chroma all fail on them) and become U+FFFD; control
  characters (NUL, bell...) are dropped; each with a warning naming the items;
- an image path that is absolute, leaves the document's folder, holds control characters or is
  too long for a file system is dropped with a warning (the item stays, without its image).
"""

from __future__ import annotations

import json
import posixpath
import re
from dataclasses import replace
from typing import Any

from rag_app.ingest.errors import IngestError
from rag_app.models import Item

_BOMS = (
    (b"\xef\xbb\xbf", "utf-8-sig"),
    (b"\xff\xfe\x00\x00", "utf-32"),
    (b"\x00\x00\xfe\xff", "utf-32"),
    (b"\xff\xfe", "utf-16"),
    (b"\xfe\xff", "utf-16"),
)
_SURROGATE = re.compile("[\ud800-\udfff]")
# C0 controls but tab, line feed and carriage return; DEL. Never text, and NUL breaks paths.
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_BAD = re.compile("[\ud800-\udfff\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
# A path a file system takes: 255 bytes per part (ext4, NTFS), 1024 in all (a page's images are
# "images/<64 hex>.jpg" in MinerU's output, far shorter).
MAX_IMAGE_PATH = 1024
_MAX_PATH_PART = 255


def decode_text(data: bytes, name: str) -> str:
    """Decode a text file; raises IngestError naming the file when it is empty or not text.

    UTF-8 (with or without BOM), UTF-16/32 with a BOM, UTF-16 without one (every other byte NUL
    in its first kilobyte), else GB18030 (common for Chinese files).
    """
    if not data.strip():
        raise IngestError(f"{name}: the file is empty", key="empty_file")
    encodings = [enc for bom, enc in _BOMS if data.startswith(bom)][:1]
    if not encodings:
        head = data[:1024]
        if len(head) >= 4 and head[1::2].count(0) > len(head) // 4 and not head[0::2].count(0):
            encodings = ["utf-16-le"]
        elif len(head) >= 4 and head[0::2].count(0) > len(head) // 4 and not head[1::2].count(0):
            encodings = ["utf-16-be"]
        else:
            encodings = ["utf-8", "gb18030"]
    for encoding in encodings:
        try:
            text = data.decode(encoding)
        except UnicodeDecodeError:
            continue
        if not text.strip():
            raise IngestError(f"{name}: the file is empty", key="empty_file")
        return text
    raise IngestError(
        f"{name}: not a text file in UTF-8 or GB18030 (nor UTF-16/32)", key="not_text"
    )


def read_json(text: str, name: str) -> Any:
    """Parse JSON text; raises IngestError naming the file (and the position) when it cannot.

    NaN and Infinity are read as floats (Python writes them; the fields that hold them say what
    they become). A structure nested deeper than the reader's recursion allows (about a
    thousand levels; no content list needs more than three) is refused, as is a number of more
    than 4300 digits (Python's own limit on converting them).
    """
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        # json's own words for the problem ("Unterminated string starting at") go in as
        # ``problem``: a short, fixed set a UI can word in its language.
        raise IngestError(
            f"{name}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})",
            key="bad_json",
            values={"line": exc.lineno, "column": exc.colno, "problem": exc.msg},
        ) from None
    except RecursionError:
        raise IngestError(
            f"{name}: the JSON is nested too deeply (over about a thousand levels); a content "
            "list is a list of flat items",
            key="json_too_deep",
        ) from None
    except ValueError as exc:  # an integer of more than 4300 digits
        raise IngestError(
            f"{name}: not valid JSON ({_first_line(exc)})", key="json_number_too_long"
        ) from None


def _first_line(exc: BaseException) -> str:
    return str(exc).split(";")[0].strip()


def clean_items(items: list[Item]) -> tuple[list[Item], list[str]]:
    """Items whose texts encode and whose image paths stay inside the document's folder, plus a
    warning per kind of repair naming the items repaired (by index)."""
    surrogates: list[int] = []
    controls: list[int] = []
    paths: list[str] = []
    out: list[Item] = []
    for item in items:
        changes: dict[str, Any] = {}
        found: set[str] = set()
        for key in ("text", "table_body", "description"):
            value = getattr(item, key)
            if _BAD.search(value):
                changes[key] = _clean(value, found)
        for key in ("caption", "footnote"):
            values = getattr(item, key)
            if any(_BAD.search(v) for v in values):
                changes[key] = tuple(_clean(v, found) for v in values)
        if any(_BAD.search(k) or _BAD.search(v) for k, v in item.fields):
            changes["fields"] = tuple((_clean(k, found), _clean(v, found)) for k, v in item.fields)
        if item.image_path:
            path, problem = safe_image_path(item.image_path)
            if problem:
                shown = _clean(item.image_path, set())[:60]
                paths.append(f"item {item.index} ({shown!r}: {problem})")
                changes["image_path"] = path
        if "surrogate" in found:
            surrogates.append(item.index)
        if "control" in found:
            controls.append(item.index)
        out.append(replace(item, **changes) if changes else item)
    warnings = []
    if surrogates:
        warnings.append(
            "text that cannot be encoded (lone surrogates) replaced with U+FFFD in "
            + _which(surrogates)
        )
    if controls:
        warnings.append("control characters (NUL and the like) removed from " + _which(controls))
    if paths:
        shown = "; ".join(paths[:3]) + (f" (+{len(paths) - 3} more)" if len(paths) > 3 else "")
        warnings.append(f"img_path dropped (the image is not kept) for {shown}")
    return out, warnings


def _clean(value: str, found: set[str]) -> str:
    if _SURROGATE.search(value):
        found.add("surrogate")
        value = _SURROGATE.sub("\ufffd", value)
    if _CONTROL.search(value):
        found.add("control")
        value = _CONTROL.sub("", value)
    return value


def _which(indices: list[int]) -> str:
    shown = ", ".join(str(i) for i in indices[:10])
    more = f" (+{len(indices) - 10} more)" if len(indices) > 10 else ""
    return f"{len(indices)} item(s): item {shown}{more}"


def safe_image_path(path: str) -> tuple[str, str]:
    """(the path to keep, the problem) for an item's image path: ("", why) when it is absolute,
    leaves the document's folder, holds control characters or is too long; (path, "") when
    it is fine."""
    if _BAD.search(path):
        return "", "control characters"
    cleaned = path.strip().replace("\\", "/")
    if cleaned.startswith("/") or re.match(r"^[A-Za-z]:", cleaned):
        return "", "absolute"
    norm = posixpath.normpath(cleaned)
    if norm == ".." or norm.startswith("../"):
        return "", "leaves the document's folder"
    if len(norm.encode("utf-8")) > MAX_IMAGE_PATH or any(
        len(part.encode("utf-8")) > _MAX_PATH_PART for part in norm.split("/")
    ):
        return "", "too long"
    return path, ""
