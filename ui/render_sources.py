"""Source cards: each source the prompt held, as a reader sees it (text with the cited quotes
highlighted, a table with the quoted cells marked, a figure), under the answer lines citing it.

Document content is escaped or sanitised before it reaches ``unsafe_allow_html``. Each card holds
``<span id="source-N">``, the target of the answer's citation links (``ui.render_citations``).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping, Sequence

import streamlit as st

from rag_app.index.library import Library
from rag_app.models import Answer, Chunk, Hit
from rag_app.text.latex import latex_to_text
from rag_app.text.table_quotes import quoted_cells
from rag_app.text.table_rows import row_cells, split_rows
from ui.i18n import labelled, t, type_label
from ui.render_citations import anchor_id, answer_sources, citing_lines, quote_html, quotes_sources
from ui.render_hits import TYPE_ICONS, chunk_title
from ui.sanitize import escape_label, escape_text, sanitize_table_html


def page_label(chunk: Chunk) -> str:
    """1-based pages for display (``page_idx`` 0 is page 1)."""
    if not chunk.pages:
        return ""
    first, last = min(chunk.pages) + 1, max(chunk.pages) + 1
    return t("page", page=first if first == last else f"{first}–{last}")


# chunks --------------------------------------------------------------------------------------
_BULLET = re.compile(r"^\s*(?:[-*+•]\s+|\d{1,3}[.)、]\s*)")


def _phrases_for(sentences: Sequence[str]) -> list[str]:
    """Exact quotes worth highlighting: the cited sentences as written, without bullets or a
    trailing ellipsis (the offline answerer quotes sources verbatim)."""
    out = []
    for sentence in sentences:
        phrase = _BULLET.sub("", sentence).strip().rstrip("…").strip()
        if len(phrase) >= 6:
            out.append(phrase)
    return out


def highlight_html(text: str, phrases: Sequence[str]) -> str:
    """``text`` escaped for HTML, with each occurrence of ``phrases`` wrapped in ``<mark>``."""
    spans: list[tuple[int, int]] = []
    for phrase in phrases:
        start = text.find(phrase)
        if start >= 0:
            spans.append((start, start + len(phrase)))
    spans.sort()
    out, position = [], 0
    for start, end in spans:
        if start < position:
            continue
        out.append(escape_text(text[position:start]))
        out.append("<mark>" + escape_text(text[start:end]) + "</mark>")
        position = end
    out.append(escape_text(text[position:]))
    return "".join(out)


_CELL = re.compile(r"<(td|th)((?:\s[^>]*)?)>(.*?)</\1>", re.S)


def highlight_table(table_html: str, quotes: Sequence[str]) -> str:
    """Sanitised table HTML with the cells the quotes give marked, in the rows they quote.

    Each of ``quotes`` is one statement (an answer line, clauses and all): a cell is marked
    where it holds a value the statement gives (one of its numbers, or a ``label: value``
    value, how the offline answerer and most models quote a row) and its row is the one, among
    those holding that value, the statement quotes most of (``quoted_cells``): a label repeated
    in the table is marked in the row quoted, not in every row it names."""
    safe = sanitize_table_html(table_html)
    parsed = split_rows(safe)
    if parsed is None:
        return safe
    marked = quoted_cells([row_cells(segment) for segment in parsed.segments], quotes)
    if not marked:
        return safe
    segments = [_mark_row(segment, r, marked) for r, segment in enumerate(parsed.segments)]
    return parsed.prefix + "".join(segments) + parsed.suffix


def _mark_row(segment: str, r: int, marked: set[tuple[int, int]]) -> str:
    """Row ``r``'s segment with its cells in ``marked`` given the hit class (cells counted in
    order, as ``row_cells`` reads them)."""
    cells = itertools.count()

    def mark(match: re.Match[str]) -> str:
        if (r, next(cells)) not in marked:
            return match.group(0)
        tag, attrs, body = match.groups()
        return f'<{tag}{attrs} class="rag-hit">{body}</{tag}>'

    return _CELL.sub(mark, segment)


def render_chunk(
    chunk: Chunk,
    lib: Library,
    kb: str,
    cited: Sequence[str] = (),
    statements: Sequence[str] | None = None,
) -> None:
    """A chunk as a reader sees it: text (escaped, quotes highlighted), a table (sanitised) or
    a figure (the stored image, or its caption when the file is missing).

    ``cited`` are the sentences citing it, as written; ``statements`` the answer lines they
    make up, whose rows a table marks (when not given, the sentences are read as one)."""
    if chunk.heading_path and chunk.type in ("text", "qa"):
        path = " › ".join(chunk.heading_path)
        st.markdown(f'<div class="rag-meta">{escape_text(path)}</div>', unsafe_allow_html=True)
    if chunk.type == "table" and chunk.table_html:
        if chunk.caption:
            caption = escape_text(latex_to_text(chunk.caption))
            st.markdown(f"<div><b>{caption}</b></div>", unsafe_allow_html=True)
        quotes = [" ".join(cited)] if statements is None else statements
        body = highlight_table(latex_to_text(chunk.table_html), quotes)
        st.markdown(f'<div class="rag-table">{body}</div>', unsafe_allow_html=True)
        if chunk.footnote:
            st.markdown(
                f'<div class="rag-meta">{escape_text(latex_to_text(chunk.footnote))}</div>',
                unsafe_allow_html=True,
            )
        return
    if chunk.type == "image":
        image = lib.asset_path(kb, chunk.doc_id, chunk.image_path)
        if image is not None:
            st.image(str(image), caption=latex_to_text(chunk.caption) or None, width=560)
        else:
            caption = latex_to_text(chunk.caption) or chunk.image_path or "—"
            st.markdown(
                f'<div class="rag-src"><b>🖼️ {escape_text(caption)}</b></div>',
                unsafe_allow_html=True,
            )
            st.caption(t("image_missing"))
        detail = latex_to_text(chunk.description or "")
        if detail:
            st.markdown(
                f'<div class="rag-src">{highlight_html(detail, _phrases_for(cited))}</div>',
                unsafe_allow_html=True,
            )
        if chunk.footnote:
            st.markdown(
                f'<div class="rag-meta">{escape_text(latex_to_text(chunk.footnote))}</div>',
                unsafe_allow_html=True,
            )
        return
    # MinerU's inline math ("$\\geq 1 9 6 ~ \\mathrm{A h}$") shown as the text it stands for.
    st.markdown(
        f'<div class="rag-src">{highlight_html(latex_to_text(chunk.text), _phrases_for(cited))}</div>',
        unsafe_allow_html=True,
    )


# source cards --------------------------------------------------------------------------------
def part_note(parts: Sequence[Hit]) -> str:
    """Which part of a document's table a card shows ("子表 1+3/3"), or "" when it shows a
    whole table: a table split into sub-tables at ingestion (for the embedder's window) and
    merged back from all of them is the document's one table, drawn as the document has it."""
    indices = sorted({p.chunk.subtable_index for p in parts if p.chunk.subtable_index})
    count = max((p.chunk.subtable_count for p in parts), default=0)
    if not indices or not count or indices == list(range(1, count + 1)):
        return ""
    return t("subtable", i="+".join(str(i) for i in indices), n=count)


def render_sources(
    answer: Answer, lib: Library, kb: str, doc_names: Mapping[str, str], prefix: str = ""
) -> None:
    sources = answer_sources(answer)
    if not sources:
        st.caption(t("no_sources"))
        return
    citing = citing_lines(answer)
    for source in sources:
        chunk = source.hit.chunk
        lines = citing.get(source.number, [])
        flagged = any(not line.supported for line in lines)
        parts = [
            f"**[Source {source.number}]**",
            f"{TYPE_ICONS.get(chunk.type, '')} {type_label(chunk.type)}",
            escape_label(doc_names.get(chunk.doc_id, chunk.doc_id)),
        ]
        if page_label(chunk):
            parts.append(page_label(chunk))
        parts.append(escape_label(chunk_title(chunk)))
        label = " · ".join(parts) + (" ⚠️" if flagged else "")
        with st.expander(label, expanded=False):
            st.markdown(
                f'<span class="rag-anchor" id="{anchor_id(prefix, source.number)}"></span>',
                unsafe_allow_html=True,
            )
            notes = []
            if source.status == "cut":
                notes.append("✂️ " + t("source_cut"))
            if note := part_note(source.parts):
                notes.append(note)
            if chunk.type in ("table", "image") and chunk.heading_path:
                notes.append(labelled("section_path", " › ".join(chunk.heading_path)))
            if notes:
                st.markdown(
                    f'<div class="rag-meta">{escape_text(" · ".join(notes))}</div>',
                    unsafe_allow_html=True,
                )
            if lines:
                st.markdown(
                    f'<div class="rag-meta">{t("cited_by")}</div>'
                    + "".join(quote_html(line, literal=quotes_sources(answer)) for line in lines),
                    unsafe_allow_html=True,
                )
            render_chunk(
                chunk,
                lib,
                kb,
                [s for line in lines for s in line.sentences],
                [line.text for line in lines],
            )
