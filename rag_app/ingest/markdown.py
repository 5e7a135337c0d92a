"""Markdown (as MinerU writes it) -> Items: headings, paragraphs, HTML tables, image links.

A caption is the paragraph right before a table (表 3 / Table 3 ...) or right after an image
(图 3 / Fig. 3 ...), as MinerU places them. Item indices are positions in this parsed list.
"""

from __future__ import annotations

import re

from rag_app.models import Item

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_IMAGE = re.compile(r"^!\[([^\]]*)\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)\s*$")
_TABLE_CAPTION = re.compile(r"^\s*(表|table|tab\.)\s*[\dA-Za-z一二三四五六七八九十]", re.I)
_FIGURE_CAPTION = re.compile(r"^\s*(图|fig\.?|figure|chart)\s*[\dA-Za-z一二三四五六七八九十]", re.I)
_SOURCE_NOTE = re.compile(r"^\s*(数据来源|资料来源|来源|source)\s*[:：]", re.I)


def _blocks(text: str) -> list[str]:
    """Split into blocks: blank-line separated, but an HTML table is one block however it wraps."""
    blocks: list[str] = []
    current: list[str] = []
    in_table = False
    for line in text.splitlines():
        stripped = line.strip()
        if in_table:
            current.append(line)
            if "</table>" in stripped.lower():
                blocks.append("\n".join(current))
                current, in_table = [], False
            continue
        if stripped.lower().startswith("<table"):
            if current:
                blocks.append("\n".join(current))
            current = [line]
            if "</table>" in stripped.lower():
                blocks.append("\n".join(current))
                current = []
            else:
                in_table = True
            continue
        if not stripped or _HEADING.match(stripped) or _IMAGE.match(stripped):
            if current:
                blocks.append("\n".join(current))
                current = []
            if stripped:
                blocks.append(stripped)
            continue
        current.append(line)
    if current:
        blocks.append("\n".join(current))
    return [b.strip() for b in blocks if b.strip()]


def parse_markdown(text: str) -> list[Item]:
    """Parse markdown text into Items (no page numbers: markdown has none)."""
    blocks = _blocks(text)
    items: list[Item] = []
    used: set[int] = set()
    for i, block in enumerate(blocks):
        if i in used:
            continue
        heading = _HEADING.match(block)
        image = _IMAGE.match(block)
        if heading:
            items.append(
                Item(
                    index=len(items),
                    kind="heading",
                    text=heading.group(2),
                    level=len(heading.group(1)),
                )
            )
        elif block.lower().startswith("<table"):
            caption: tuple[str, ...] = ()
            if items and items[-1].kind == "text" and _TABLE_CAPTION.match(items[-1].text):
                caption = (items.pop().text,)
            footnote = _take_note(blocks, i + 1, used)
            items.append(
                Item(
                    index=len(items),
                    kind="table",
                    table_body=block,
                    caption=caption,
                    footnote=footnote,
                )
            )
        elif image:
            caption = ()
            notes: list[str] = []
            rest: list[str] = []
            if i + 1 < len(blocks) and _FIGURE_CAPTION.match(blocks[i + 1]):
                # MinerU writes the caption and its 数据来源 line in one block.
                first, *others = [ln.strip() for ln in blocks[i + 1].splitlines() if ln.strip()]
                caption = (first,)
                for line in others:
                    (notes if _SOURCE_NOTE.match(line) else rest).append(line)
                used.add(i + 1)
            elif items and items[-1].kind == "text" and _FIGURE_CAPTION.match(items[-1].text):
                caption = (items.pop().text,)
            alt = image.group(1).strip()
            footnote = tuple(notes) or _take_note(
                blocks, i + 2 if caption and (i + 1) in used else i + 1, used
            )
            items.append(
                Item(
                    index=len(items),
                    kind="image",
                    image_path=image.group(2),
                    caption=caption or ((alt,) if alt else ()),
                    footnote=footnote,
                )
            )
            if rest:
                items.append(Item(index=len(items), kind="text", text="\n".join(rest)))
        else:
            items.append(Item(index=len(items), kind="text", text=block))
    # Re-number: captions popped above leave gaps.
    return [Item(**{**item.__dict__, "index": n}) for n, item in enumerate(items)]


def _take_note(blocks: list[str], j: int, used: set[int]) -> tuple[str, ...]:
    if j < len(blocks) and _SOURCE_NOTE.match(blocks[j]):
        used.add(j)
        return (blocks[j],)
    return ()
