"""Source cards: each source the prompt held, as a reader sees it (text with the cited quotes
highlighted, a table with the quoted cells marked, a figure), under the answer lines citing it.

Document content is escaped or sanitised before it reaches ``unsafe_allow_html``. Each card holds
``<span id="source-N">``, the target of the answer's citation links (``ui.render_citations``).
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence

import streamlit as st

from rag_app.index.library import Library
from rag_app.models import Answer, Chunk
from rag_app.text.latex import latex_to_text
from rag_app.text.tables import cell_value, quoted_values
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
_TAG = re.compile(r"<[^>]+>")


def highlight_table(table_html: str, sentences: Sequence[str]) -> str:
    """Sanitised table HTML with the cells the cited sentences quote marked: cells equal to one
    of their numbers, or to a value they give as ``label: value`` (how the offline answerer and
    most models quote a row)."""
    values = quoted_values(sentences)
    safe = sanitize_table_html(table_html)
    if not values:
        return safe

    def mark(match: re.Match[str]) -> str:
        tag, attrs, body = match.groups()
        value = cell_value(html.unescape(_TAG.sub("", body)))
        if value in values:
            return f'<{tag}{attrs} class="rag-hit">{body}</{tag}>'
        return match.group(0)

    return _CELL.sub(mark, safe)


def render_chunk(chunk: Chunk, lib: Library, kb: str, cited: Sequence[str] = ()) -> None:
    """A chunk as a reader sees it: text (escaped, quotes highlighted), a table (sanitised) or
    a figure (the stored image, or its caption when the file is missing)."""
    if chunk.heading_path and chunk.type in ("text", "qa"):
        path = " › ".join(chunk.heading_path)
        st.markdown(f'<div class="rag-meta">{escape_text(path)}</div>', unsafe_allow_html=True)
    if chunk.type == "table" and chunk.table_html:
        if chunk.caption:
            caption = escape_text(latex_to_text(chunk.caption))
            st.markdown(f"<div><b>{caption}</b></div>", unsafe_allow_html=True)
        body = highlight_table(latex_to_text(chunk.table_html), cited)
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
            if len(source.parts) > 1:
                notes.append(t("merged_parts", n=len(source.parts)))
            elif chunk.subtable_count:
                notes.append(t("subtable", i=chunk.subtable_index, n=chunk.subtable_count))
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
            render_chunk(chunk, lib, kb, [s for line in lines for s in line.sentences])
