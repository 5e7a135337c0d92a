"""Tiny builder for MinerU-style ``content_list`` documents (new schema).

Used by the sample report (``sample/``) and the broker set (``broker/``). A ``Doc``
collects items page by page in reading order, lays out plausible ``bbox`` values on MinerU's
0-1000 page grid, remembers a *key* for any item so that gold evidence can be looked up by name,
and renders the MinerU-style Markdown of the same content. Standard library only.
"""

from __future__ import annotations

import hashlib
import html
import math
import re
from typing import Any

PAGE_TOP = 62
PAGE_BOTTOM = 925
GAP = 9
LINE_H = 21
CHAR_W = 16.5  # a CJK character on the 0-1000 grid; ASCII counts half

# Columns on the 0-1000 grid: the full text block, and the cover page's main column and sidebar.
COLUMNS = {"full": (70, 930), "main": (70, 640), "side": (665, 930)}


def fake_img_path(seed: str, ext: str = "jpg") -> str:
    """A MinerU-looking image path (sha256 name) that is stable for a given seed string."""
    return f"images/{hashlib.sha256(seed.encode('utf-8')).hexdigest()}.{ext}"


def _cell(c) -> str:
    if isinstance(c, dict):
        attrs = ""
        if c.get("rs", 1) > 1:
            attrs += f' rowspan="{c["rs"]}"'
        if c.get("cs", 1) > 1:
            attrs += f' colspan="{c["cs"]}"'
        return f"<td{attrs}>{html.escape(str(c['t']), quote=False)}</td>"
    return f"<td>{html.escape(str(c), quote=False)}</td>"


def html_table(rows, wrap: bool = False) -> str:
    """Rows of cells -> MinerU table HTML (<table><tr><td>, no thead/th).

    A cell is a string or ``{"t": text, "rs": rowspan, "cs": colspan}``; cells covered by a span
    are simply not written (as in MinerU output). ``wrap`` adds the ``<html><body>`` wrapper that
    some MinerU versions write.
    """
    body = (
        "<table>"
        + "".join("<tr>" + "".join(_cell(c) for c in r) + "</tr>" for r in rows)
        + "</table>"
    )
    return f"<html><body>{body}</body></html>" if wrap else body


def html_to_text(s: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", s))


def text_units(s: str) -> float:
    return sum(0.5 if ord(ch) < 128 else 1.0 for ch in s)


def _lines(text: str, width: float) -> int:
    per_line = max(1.0, width / CHAR_W)
    return max(1, math.ceil(text_units(text) / per_line))


class Doc:
    """A content list under construction."""

    def __init__(self, doc_id: str, header: str, footer: str = "请务必阅读正文之后的免责条款部分"):
        self.doc_id = doc_id
        self.header = header
        self.footer = footer
        self.items: list[dict] = []
        self.keys: dict[str, int] = {}
        self.page = -1
        self._page_start = 0
        self._y: dict[str, float] = {}
        self._pending_page_furniture: list[dict] = []

    # ---------------------------------------------------------------- pages
    def new_page(self, header: str | None = None) -> None:
        if self.page >= 0:
            self._close_page()
        self.page += 1
        self._page_start = len(self.items)
        self._y = {k: PAGE_TOP for k in COLUMNS}
        hdr = header if header is not None else self.header
        if hdr:
            self._raw(
                {"type": "discarded", "text": hdr, "bbox": [70, 24, 560, 41], "page_idx": self.page}
            )

    def _close_page(self) -> None:
        # Fit the page: if the estimated heights overflow, squeeze this page's y coordinates.
        body = [it for it in self.items[self._page_start :] if it["type"] != "discarded"]
        if body:
            y_max = max(it["bbox"][3] for it in body)
            if y_max > PAGE_BOTTOM:
                f = (PAGE_BOTTOM - PAGE_TOP) / (y_max - PAGE_TOP)
                for it in body:
                    b = it["bbox"]
                    it["bbox"] = [
                        b[0],
                        round(PAGE_TOP + (b[1] - PAGE_TOP) * f),
                        b[2],
                        round(PAGE_TOP + (b[3] - PAGE_TOP) * f),
                    ]
                if f < 0.7:
                    print(f"  warning: {self.doc_id} page {self.page} squeezed by {f:.2f}")
        if self.footer:
            self._raw(
                {
                    "type": "discarded",
                    "text": self.footer,
                    "bbox": [70, 947, 520, 962],
                    "page_idx": self.page,
                }
            )
        self._raw(
            {
                "type": "discarded",
                "text": str(self.page + 1),
                "bbox": [880, 947, 930, 962],
                "page_idx": self.page,
            }
        )

    def finish(self) -> list[dict]:
        if self.page >= 0 and not (
            self.items
            and self.items[-1]["type"] == "discarded"
            and self.items[-1]["text"] == str(self.page + 1)
        ):
            self._close_page()
        return self.items

    # ---------------------------------------------------------------- items
    def _raw(self, item: dict, key: str | None = None) -> int:
        idx = len(self.items)
        self.items.append(item)
        if key:
            if key in self.keys:
                raise ValueError(f"{self.doc_id}: duplicate key {key!r}")
            self.keys[key] = idx
        return idx

    def _place(self, height: float, col: str) -> list[int]:
        x0, x1 = COLUMNS[col]
        y0 = self._y[col]
        y1 = y0 + height
        self._y[col] = y1 + GAP
        if col == "full":  # a full-width block pushes both cover columns down too
            self._y["main"] = self._y["side"] = max(
                self._y["main"], self._y["side"], self._y["full"]
            )
        elif col in ("main", "side"):
            self._y["full"] = max(self._y["main"], self._y["side"])
        return [x0, round(y0), x1, round(y1)]

    def skip(self, height: float, col: str = "full") -> None:
        self._y[col] += height

    def heading(self, text: str, level: int = 1, key: str | None = None, col: str = "full") -> int:
        x0, x1 = COLUMNS[col]
        h = (26 if level == 1 else 22) * _lines(text, x1 - x0)
        bbox = self._place(h, col)
        bbox[2] = min(x1, x0 + round(text_units(text) * (19 if level == 1 else 17)) + 4)
        return self._raw(
            {
                "type": "text",
                "text": text,
                "text_level": level,
                "bbox": bbox,
                "page_idx": self.page,
            },
            key,
        )

    def para(self, text: str, key: str | None = None, col: str = "full") -> int:
        x0, x1 = COLUMNS[col]
        bbox = self._place(LINE_H * _lines(text, x1 - x0), col)
        return self._raw({"type": "text", "text": text, "bbox": bbox, "page_idx": self.page}, key)

    def table(
        self,
        caption: str | list[str],
        rows,
        footnotes: list[str] | None = None,
        key: str | None = None,
        col: str = "full",
        img_path: str | None = None,
        wrap: bool = False,
        row_h: float = 20.0,
    ) -> int:
        caps = [caption] if isinstance(caption, str) else list(caption)
        foots = list(footnotes or [])
        if caps:
            self.skip(22 * len(caps), col)
        n_rows = len(rows)
        bbox = self._place(row_h * n_rows + 6, col)
        self.skip(18 * len(foots), col)
        item = {
            "type": "table",
            "img_path": img_path
            if img_path is not None
            else fake_img_path(f"{self.doc_id}/table/{len(self.items)}"),
            "table_caption": caps,
            "table_footnote": foots,
            "table_body": html_table(rows, wrap),
            "bbox": bbox,
            "page_idx": self.page,
        }
        return self._raw(item, key)

    def image(
        self,
        caption: str | list[str],
        footnotes: list[str] | None = None,
        img_path: str | None = None,
        content: str | None = None,
        key: str | None = None,
        height: float = 230,
        col: str = "full",
    ) -> int:
        caps = [caption] if isinstance(caption, str) else list(caption)
        foots = list(footnotes or [])
        bbox = self._place(height, col)
        self.skip(22 * len(caps) + 18 * len(foots), col)
        item: dict[str, Any] = {
            "type": "image",
            "img_path": img_path
            if img_path is not None
            else fake_img_path(f"{self.doc_id}/image/{len(self.items)}"),
            "image_caption": caps,
            "image_footnote": foots,
        }
        if content:
            item["content"] = content
        item["bbox"] = bbox
        item["page_idx"] = self.page
        return self._raw(item, key)

    def index(self, key: str) -> int:
        return self.keys[key]


# -------------------------------------------------------------------- markdown
def to_markdown(items: list[dict]) -> str:
    """MinerU-style Markdown: headings with '#', tables as caption + HTML + footnote, images as
    ``![](path)`` followed by caption and footnote; discarded page furniture is left out."""
    out: list[str] = []
    for it in items:
        t = it["type"]
        if t == "discarded":
            continue
        if t == "text":
            lvl = it.get("text_level", 0)
            out.append(("#" * lvl + " " if lvl else "") + it["text"])
        elif t == "table":
            block = [c for c in it.get("table_caption", [])]
            block.append(it.get("table_body", ""))
            block += it.get("table_footnote", [])
            out.append("\n\n".join(block))
        elif t == "image":
            lines = (
                [f"![]({it['img_path']})"]
                + it.get("image_caption", [])
                + it.get("image_footnote", [])
            )
            out.append("  \n".join(lines))
        elif t == "equation":
            out.append(it.get("text", ""))
    return "\n\n".join(out) + "\n"


# -------------------------------------------------------------------- evidence helpers
SEARCH_FIELDS = (
    "text",
    "table_body",
    "table_caption",
    "table_footnote",
    "image_caption",
    "image_footnote",
    "content",
)


def item_search_text(item: dict) -> str:
    parts: list[str] = []
    for f in SEARCH_FIELDS:
        v = item.get(f)
        if isinstance(v, list):
            parts.extend(v)
        elif isinstance(v, str):
            parts.append(v)
    return "\n".join(parts)


_NUMERIC = re.compile(r"^[-−+]?[\d.,]+%?$")


def contains_answer(item_or_text, answer: str) -> bool:
    """Verbatim containment; numeric answers must not be part of a longer number
    ("16.2" does not match "116.2" or "16.25")."""
    s = item_or_text if isinstance(item_or_text, str) else item_search_text(item_or_text)
    if _NUMERIC.match(answer):
        return re.search(r"(?<![\d.,])" + re.escape(answer) + r"(?![\d]|[.,]\d)", s) is not None
    return answer in s
