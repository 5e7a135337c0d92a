"""Sub-tables of one table joined back: a table too long for one chunk is split by rows into
sub-tables that each repeat the header rows; the prompt shows it whole again when it fits."""

from __future__ import annotations

from dataclasses import replace

from rag_app.models import Chunk
from rag_app.text.table_rows import same_row, split_rows, table_shape


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
                    same_row(row, head)
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
