"""Row-level handling of a table's HTML: shape, cutting to the first rows, merging sub-tables.

Parsers (MinerU and the like) write tables as one ``<table>`` with ``<tr>`` rows; a table too
long for one chunk is split by rows into sub-tables that each repeat the header rows. Regular
expressions are enough for that shape; nothing here needs a full HTML parser.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from rag_app.models import Chunk

_ROW = re.compile(r"<tr\b[^>]*>.*?</tr\s*>", re.S | re.I)
_CELL = re.compile(r"<t[dh]\b([^>]*)>", re.I)
_COLSPAN = re.compile(r"""colspan\s*=\s*["']?(\d+)""", re.I)
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class TableRows:
    """A table's HTML cut into ``prefix + "".join(segments) + suffix``.

    Each segment ends with one ``<tr>...</tr>`` row; whatever stood between it and the previous
    row (``</thead><tbody>`` for instance) stays at the segment's start, so joining the segments
    back gives the original HTML exactly.
    """

    prefix: str
    segments: tuple[str, ...]
    suffix: str

    @property
    def rows(self) -> tuple[str, ...]:
        return tuple(_ROW.search(segment).group(0) for segment in self.segments)  # type: ignore[union-attr]

    def html(self, n_rows: int | None = None) -> str:
        """The table with only its first ``n_rows`` rows (all when None), still well closed."""
        segments = self.segments if n_rows is None else self.segments[:n_rows]
        return self.prefix + "".join(segments) + self.suffix


def split_rows(html: str) -> TableRows | None:
    """Cut table HTML into rows, or None when it has no ``<tr>`` rows."""
    matches = list(_ROW.finditer(html))
    if not matches:
        return None
    segments = []
    start = matches[0].start()
    for match in matches:
        segments.append(html[start : match.end()])
        start = match.end()
    return TableRows(html[: matches[0].start()], tuple(segments), html[matches[-1].end() :])


def table_shape(html: str) -> tuple[int, int]:
    """(rows, columns) of table HTML; columns count ``colspan``. (0, 0) without rows."""
    parsed = split_rows(html)
    if parsed is None:
        return 0, 0
    n_cols = 0
    for row in parsed.rows:
        width = 0
        for attrs in _CELL.findall(row):
            span = _COLSPAN.search(attrs)
            width += int(span.group(1)) if span else 1
        n_cols = max(n_cols, width)
    return len(parsed.segments), n_cols


def _same_row(a: str, b: str) -> bool:
    return _SPACE.sub("", a) == _SPACE.sub("", b)


def merge_table_chunks(parts: list[Chunk]) -> Chunk:
    """Join sub-tables of one table (in ``subtable_index`` order) back into one table chunk.

    The first part's rows come first, header included; each later part contributes its rows
    minus the header rows it repeats (``header_rows`` of them, or its first row when that equals
    the first part's first row and ``header_rows`` is unknown). Caption and context come from
    the first part that has them, the footnote from the last. The result keeps
    ``parent_table_id`` and ``subtable_count``; its ``chunk_id`` is the parent table's id.
    """
    if not parts:
        raise ValueError("no sub-tables to merge")
    parts = sorted(parts, key=lambda chunk: chunk.subtable_index)
    first = parts[0]
    if len(parts) == 1:
        return first
    base = split_rows(first.table_html)
    html, text_parts = first.table_html, [first.text]
    if base is not None:
        header = base.rows[: first.header_rows] if first.header_rows else base.rows[:1]
        segments = list(base.segments)
        for part in parts[1:]:
            parsed = split_rows(part.table_html)
            if parsed is None:
                continue
            rows = list(parsed.rows)
            if (
                header
                and len(rows) >= len(header)
                and all(
                    _same_row(row, head)
                    for row, head in zip(rows[: len(header)], header, strict=True)
                )
            ):
                rows = rows[len(header) :]
            segments.extend(rows)
        html = base.prefix + "".join(segments) + base.suffix
    text_parts += [part.text for part in parts[1:]]
    n_rows, n_cols = table_shape(html)
    pages = sorted({page for part in parts for page in part.pages})
    indices: list[int] = []
    for part in parts:
        indices.extend(i for i in part.item_indices if i not in indices)
    return replace(
        first,
        chunk_id=first.parent_table_id or first.chunk_id,
        text="\n".join(t for t in text_parts if t),
        search_text="\n".join(part.search_text for part in parts if part.search_text),
        item_indices=tuple(indices),
        pages=tuple(pages),
        table_html=html,
        caption=next((p.caption for p in parts if p.caption), ""),
        footnote=next((p.footnote for p in reversed(parts) if p.footnote), ""),
        context=next((p.context for p in parts if p.context), ""),
        n_rows=n_rows or sum(p.n_rows for p in parts),
        n_cols=n_cols or max(p.n_cols for p in parts),
        subtable_index=0,
    )
