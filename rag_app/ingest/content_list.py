"""MinerU ``content_list.json`` -> typed Items.

Handles the schemas seen in real MinerU outputs: the old one (``img_caption``/``img_footnote``,
tables without ``table_body``) and the new one (``image_caption``, ``bbox``, ``discarded`` page
furniture, ``equation`` with ``text_format``, ``list`` with ``list_items``, ``code`` with
``code_body``, ``chart`` with ``content``). Each item keeps its position in the list as written,
because gold evidence and citations point at that position.
"""

from __future__ import annotations

import math
import re
from typing import Any

from rag_app.ingest.errors import IngestError
from rag_app.ingest.guards import decode_text, read_json
from rag_app.models import Item

__all__ = [
    "FURNITURE_TYPES",
    "WRAPPER_KEYS",
    "decode_text",
    "parse_content_list",
    "parse_content_list_data",
]
# The keys some tools wrap a content list under ({"content_list": [...]}).
WRAPPER_KEYS = ("content_list", "items", "data")

# Page furniture: kept out of retrieval (running heads, page numbers, margin notes).
FURNITURE_TYPES = frozenset(
    {
        "header",
        "footer",
        "page_number",
        "page_header",
        "page_footer",
        "page_footnote",
        "discarded",
        "aside_text",
    }
)
_TEXT_TYPES = frozenset(
    {
        "text",
        "title",
        "paragraph",
        "list",
        "equation",
        "interline_equation",
        "code",
        "algorithm",
        "ref_text",
        "phonetic",
    }
)
_VISUAL_TYPES = frozenset({"image", "chart", "figure"})


# A page number past this is not a page (a 1e400 or 2**70 from a broken writer): the item is
# kept with its page unknown. The longest reports MinerU is run on have a few thousand pages.
MAX_PAGE = 1_000_000
_DIGITS = re.compile(r"[0-9]{1,12}")


def parse_content_list(data: bytes, name: str) -> tuple[list[Item], list[str]]:
    """Parse a content list's bytes into Items plus warnings.

    Raises IngestError when the file is not JSON, not a list of objects, or has items whose fields
    have the wrong types (listed by index), so that nothing is half-ingested.
    """
    return parse_content_list_data(read_json(decode_text(data, name), name), name)


def parse_content_list_data(raw: Any, name: str) -> tuple[list[Item], list[str]]:
    """``parse_content_list`` for JSON already read (``guards.read_json``)."""
    if isinstance(raw, dict):
        # Some tools wrap the list: {"content_list": [...]} or {"items": [...]}.
        for key in WRAPPER_KEYS:
            if isinstance(raw.get(key), list):
                raw = raw[key]
                break
    if not isinstance(raw, list):
        raise IngestError(
            f"{name}: a content list must be a JSON list of items, got {type(raw).__name__}",
            key="content_list_not_list",
            values={"kind": type(raw).__name__},
        )
    if not raw:
        raise IngestError(f"{name}: the content list has no items", key="content_list_empty")
    items: list[Item] = []
    errors: list[str] = []
    warnings: list[str] = []
    unknown: dict[str, int] = {}
    odd_pages: list[int] = []
    for index, entry in enumerate(raw):
        try:
            item = _to_item(index, entry, odd_pages)
        except _BadItem as exc:
            errors.append(f"item {index}: {exc}")
            continue
        if item is None:
            continue
        if item.kind == "unknown":
            # An item type we do not know: its text is kept (as text) rather than lost.
            unknown[str(entry.get("type"))] = unknown.get(str(entry.get("type")), 0) + 1
            if not item.text:
                continue
            item = Item(index=item.index, kind="text", text=item.text, page=item.page)
        items.append(item)
    if errors:
        raise IngestError(
            f"{name}: {len(errors)} malformed item(s)",
            details=tuple(errors),
            key="malformed_items",
            values={"n": len(errors)},
        )
    for kind, count in sorted(unknown.items()):
        warnings.append(f"{count} item(s) of unknown type '{kind}': text kept, rest skipped")
    if odd_pages:
        shown = ", ".join(str(i) for i in odd_pages[:10])
        more = f" (+{len(odd_pages) - 10} more)" if len(odd_pages) > 10 else ""
        warnings.append(
            f"page_idx not a page number (NaN, infinite, negative or past {MAX_PAGE:,}) in "
            f"{len(odd_pages)} item(s), read as an unknown page: item {shown}{more}"
        )
    if not any(item.kind != "heading" or item.text for item in items):
        raise IngestError(
            f"{name}: no content items (only page furniture or empty items)",
            key="no_content_items",
        )
    return items, warnings


class _BadItem(ValueError):
    pass


def _short(value: Any) -> str:
    shown = repr(value)
    return shown if len(shown) <= 40 else shown[:37] + "..."


def _str(entry: dict[str, Any], key: str) -> str:
    value = entry.get(key)
    if value is None:
        return ""
    if isinstance(value, float) and not math.isfinite(value):
        return ""  # NaN / Infinity: no text
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    if not isinstance(value, str):
        raise _BadItem(f"'{key}' should be text, got {type(value).__name__}")
    return value.strip()


def _strs(entry: dict[str, Any], *keys: str) -> tuple[str, ...]:
    for key in keys:
        value = entry.get(key)
        if value is None:
            continue
        if isinstance(value, str):
            return (value.strip(),) if value.strip() else ()
        if isinstance(value, list) and all(
            isinstance(v, (str, int, float)) and not isinstance(v, bool) for v in value
        ):
            texts = (v if isinstance(v, str) else str(v) if math.isfinite(v) else "" for v in value)
            return tuple(t.strip() for t in texts if t.strip())
        raise _BadItem(f"'{key}' should be a list of text, got {type(value).__name__}")
    return ()


def _page(entry: dict[str, Any], index: int, odd_pages: list[int]) -> int | None:
    """The item's page: a whole number, or digits given as text ("3"); a number that is not a
    page (NaN, infinite, negative, absurdly large) is an unknown page, noted in ``odd_pages``;
    any other type is a malformed item."""
    value = entry.get("page_idx")
    if value is None:
        return None
    if isinstance(value, str) and _DIGITS.fullmatch(value.strip()):
        value = int(value.strip())
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _BadItem(f"'page_idx' should be a page number, got {_short(value)}")
    if not math.isfinite(value) or value < 0 or value > MAX_PAGE:
        odd_pages.append(index)
        return None
    return int(value)


def _to_item(index: int, entry: Any, odd_pages: list[int]) -> Item | None:
    if not isinstance(entry, dict):
        raise _BadItem(f"should be an object, got {type(entry).__name__}")
    kind = entry.get("type")
    if kind is None:
        raise _BadItem("has no 'type'")
    if not isinstance(kind, str):
        raise _BadItem(f"'type' should be text, got {type(kind).__name__}")
    kind = kind.strip().lower()
    page = _page(entry, index, odd_pages)
    if kind in FURNITURE_TYPES:
        return None
    if kind in _TEXT_TYPES:
        text = _str(entry, "text")
        if kind == "list":
            listed = _strs(entry, "list_items")
            text = "\n".join(listed) if listed else text
        elif kind in ("code", "algorithm"):
            text = _str(entry, "code_body") or text
            caption = _strs(entry, "code_caption")
            if caption:
                text = "\n".join((*caption, text))
        elif kind in ("equation", "interline_equation"):
            kind = "equation"
        level = entry.get("text_level")
        if isinstance(level, float) and level.is_integer() and 0 <= level <= 100:
            level = int(level)
        if level is not None and (isinstance(level, bool) or not isinstance(level, int)):
            raise _BadItem(f"'text_level' should be a whole number, got {_short(level)}")
        if isinstance(level, int):
            level = max(0, min(level, 100))  # a heading level past 100 is not one more
        if not text:
            return None
        if kind in ("text", "title") and (level or kind == "title"):
            return Item(index=index, kind="heading", text=text, page=page, level=int(level or 1))
        return Item(
            index=index,
            kind="text" if kind in ("title", "paragraph") else kind,
            text=text,
            page=page,
        )
    if kind == "table":
        body = _str(entry, "table_body") or _str(entry, "html")
        return Item(
            index=index,
            kind="table",
            page=page,
            table_body=body,
            caption=_strs(entry, "table_caption"),
            footnote=_strs(entry, "table_footnote"),
            image_path=_str(entry, "img_path"),
            text=_str(entry, "text"),
        )
    if kind in _VISUAL_TYPES:
        prefix = "chart" if kind == "chart" else "image"
        return Item(
            index=index,
            kind="image",
            page=page,
            caption=_strs(entry, f"{prefix}_caption", "img_caption", "image_caption"),
            footnote=_strs(entry, f"{prefix}_footnote", "img_footnote", "image_footnote"),
            image_path=_str(entry, "img_path"),
            description=_str(entry, "content") or _str(entry, "description") or _str(entry, "text"),
        )
    if isinstance(entry.get("text"), str) and entry["text"].strip():
        return Item(index=index, kind="unknown", text=entry["text"].strip(), page=page)
    return Item(index=index, kind="unknown", page=page)
