"""Source cards: each source the prompt held, as a reader sees it (text with the cited quotes
highlighted, a table with the quoted cells marked, a figure), under the answer lines citing it.

Document content is escaped or sanitised before it reaches ``unsafe_allow_html``. Each card holds
``<span id="source-N">``, the target of the answer's citation links (``ui.render_citations``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import streamlit as st

from rag_app.index.library import Library
from rag_app.models import Answer, Chunk, Hit
from rag_app.text.latex import latex_to_text
from rag_app.text.table_quotes import quoted_cell_ids
from rag_app.text.tables import TableTooLarge, grid_to_html, join_cut_spans, parse_table
from ui.i18n import labelled, t, type_label
from ui.render_citations import (
    CheckedLine,
    anchor_id,
    answer_sources,
    citing_lines,
    marker,
    quote_html,
    quotes_sources,
)
from ui.render_hits import TYPE_ICONS, chunk_title
from ui.render_traced import (
    CardTargets,
    card_targets,
    cell_ids,
    computed_style,
    sentence_spans,
    unplaced,
)
from ui.sanitize import escape_label, escape_text, sanitize_table_html


def page_label(chunk: Chunk) -> str:
    """1-based pages for display (``page_idx`` 0 is page 1)."""
    return pages_label(chunk.pages)


def pages_label(pages: Sequence[int]) -> str:
    if not pages:
        return ""
    first, last = min(pages) + 1, max(pages) + 1
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


def highlight_html(
    text: str, phrases: Sequence[str], targets: Mapping[str, str] | None = None
) -> str:
    """``text`` escaped for HTML, with each occurrence of ``phrases`` wrapped in ``<mark>`` and
    each sentence of ``targets`` (sentence -> element id: a traced number's place) in a span
    with that id."""
    spans: list[tuple[int, int]] = []
    for phrase in phrases:
        start = text.find(phrase)
        if start >= 0:
            spans.append((start, start + len(phrase)))
    spans.sort()
    kept: list[tuple[int, int]] = []
    for span in spans:
        if not kept or span[0] >= kept[-1][1]:
            kept.append(span)
    out, position = [], 0
    for start, end, element in sentence_spans(text, targets or {}):
        out.append(_marked(text, position, start, kept))
        out.append(f'<span class="rag-at" id="{element}">{_marked(text, start, end, kept)}</span>')
        position = end
    out.append(_marked(text, position, len(text), kept))
    return "".join(out)


def _marked(text: str, start: int, end: int, spans: Sequence[tuple[int, int]]) -> str:
    """``text[start:end]`` escaped, the parts of it within ``spans`` in ``<mark>``."""
    out, position = [], start
    for a, b in spans:
        a, b = max(a, start), min(b, end)
        if a >= b:
            continue
        out.append(escape_text(text[position:a]))
        out.append("<mark>" + escape_text(text[a:b]) + "</mark>")
        position = b
    out.append(escape_text(text[position:end]))
    return "".join(out)


def highlight_table(
    table_html: str,
    quotes: Sequence[str],
    header_rows: int = 0,
    joined: bool = False,
    targets: CardTargets | None = None,
) -> str:
    """The table drawn from its grid (``grid_to_html``: escaped text, the document's spans)
    with the cells the quotes give marked, in the rows they quote.

    Each of ``quotes`` is one statement (an answer line, clauses and all): a cell is marked
    where it holds a value the statement gives (one of its numbers, or a ``label: value``
    value, how the offline answerer and most models quote a row) and its row is the one, among
    those holding that value, the statement quotes most of (``quoted_cell_ids``): a label
    repeated in the table is marked in the row quoted, not in every row it names. ``joined``:
    the table is joined back from sub-tables, a span cut between them drawn once
    (``join_cut_spans``). ``targets``: the cells traced numbers link to get their element ids
    (``ui.render_traced``). A table too large to read as a grid is drawn as written, unmarked."""
    safe = sanitize_table_html(table_html)
    try:
        grid = parse_table(safe, header_rows, strict=True)
    except TableTooLarge:
        return safe
    if not grid.n_rows:
        return safe
    if joined:
        grid = join_cut_spans(grid)
    marked = quoted_cell_ids(grid, quotes)
    classes = dict.fromkeys(marked, "rag-hit")
    return grid_to_html(grid, classes=classes, element_ids=cell_ids(grid, targets))


def render_chunk(
    chunk: Chunk,
    lib: Library,
    kb: str,
    cited: Sequence[str] = (),
    statements: Sequence[str] | None = None,
    targets: CardTargets | None = None,
) -> list[str]:
    """A chunk as a reader sees it: text (escaped, quotes highlighted), a table (sanitised) or
    a figure (the stored image, or its caption when the file is missing); the HTML drawn.

    ``cited`` are the sentences citing it, as written; ``statements`` the answer lines they
    make up, whose rows a table marks (when not given, the sentences are read as one).
    ``targets``: the places of it the answer's traced numbers link to, given their ids."""
    drawn: list[str] = []

    def draw(html: str) -> None:
        drawn.append(html)
        st.markdown(html, unsafe_allow_html=True)

    def text_of(part: str, text: str, phrases: Sequence[str] = ()) -> str:
        sentences = targets.sentences([part]) if targets is not None else {}
        return highlight_html(text, phrases, sentences)

    if chunk.heading_path and chunk.type in ("text", "qa"):
        path = " › ".join(chunk.heading_path)
        draw(f'<div class="rag-meta">{escape_text(path)}</div>')
    if chunk.type == "table" and chunk.table_html:
        if chunk.caption:
            draw(f"<div><b>{text_of('caption', latex_to_text(chunk.caption))}</b></div>")
        quotes = [" ".join(cited)] if statements is None else statements
        # merged back from sub-tables (``merge_table_chunks``): the parts' cut spans joined
        joined = bool(chunk.subtable_count) and not chunk.subtable_index
        body = highlight_table(
            latex_to_text(chunk.table_html), quotes, chunk.header_rows, joined, targets
        )
        draw(f'<div class="rag-table">{body}</div>')
        if chunk.footnote:
            draw(
                f'<div class="rag-meta">{text_of("footnote", latex_to_text(chunk.footnote))}</div>'
            )
        return drawn
    if chunk.type == "image":
        image = lib.asset_path(kb, chunk.doc_id, chunk.image_path)
        if image is not None:
            st.image(str(image), caption=latex_to_text(chunk.caption) or None, width=560)
        else:
            caption = latex_to_text(chunk.caption) or chunk.image_path or "—"
            draw(f'<div class="rag-src"><b>🖼️ {text_of("caption", caption)}</b></div>')
            st.caption(t("image_missing"))
        detail = latex_to_text(chunk.description or "")
        if detail:
            draw(
                f'<div class="rag-src">{text_of("description", detail, _phrases_for(cited))}</div>'
            )
        if chunk.footnote:
            draw(
                f'<div class="rag-meta">{text_of("footnote", latex_to_text(chunk.footnote))}</div>'
            )
        return drawn
    # MinerU's inline math ("$\\geq 1 9 6 ~ \\mathrm{A h}$") shown as the text it stands for.
    draw(
        f'<div class="rag-src">{text_of("text", latex_to_text(chunk.text), _phrases_for(cited))}</div>'
    )
    return drawn


# source cards --------------------------------------------------------------------------------
@dataclass(frozen=True)
class Card:
    """What a source card shows of ``[Source number]`` besides the lines citing it: from the
    prompt's source for a live answer (``live_card``), from a saved turn's for a restored one
    (``ui.render_saved``), so both draw alike. ``pages`` are 0-based, as in ``Chunk``."""

    number: int
    type: str
    doc_name: str
    pages: tuple[int, ...]
    title: str
    chunk: Chunk | None  # None when its document is gone: the excerpt stands in
    status: str = "kept"  # "cut" when only its start fitted in the prompt
    part: str = ""  # which part of a document's table it shows (``part_note``)
    section: tuple[str, ...] = ()
    excerpt: str = ""


def subtable_note(indices: Sequence[int], count: int) -> str:
    """Which part of a document's table a card shows ("子表 1+3/3"), or "" when it shows a
    whole table: a table split into sub-tables at ingestion (for the embedder's window) and
    merged back from all of them is the document's one table, drawn as the document has it."""
    shown = sorted(set(indices))
    if not shown or not count or shown == list(range(1, count + 1)):
        return ""
    return t("subtable", i="+".join(str(i) for i in shown), n=count)


def part_note(parts: Sequence[Hit]) -> str:
    """``subtable_note`` of the retrieved sub-tables a prompt's source stands for."""
    indices = [p.chunk.subtable_index for p in parts if p.chunk.subtable_index]
    return subtable_note(indices, max((p.chunk.subtable_count for p in parts), default=0))


def live_card(source: Any, doc_names: Mapping[str, str]) -> Card:
    """The card of a prompt's source (``rag_app.prompt.builder.Source``)."""
    chunk = source.hit.chunk
    return Card(
        number=source.number,
        type=chunk.type,
        doc_name=doc_names.get(chunk.doc_id, chunk.doc_id),
        pages=tuple(chunk.pages),
        title=chunk_title(chunk),
        chunk=chunk,
        status=str(source.status),
        part=part_note(source.parts),
        section=tuple(chunk.heading_path),
    )


def render_sources(
    answer: Answer, lib: Library, kb: str, doc_names: Mapping[str, str], prefix: str = ""
) -> None:
    sources = answer_sources(answer)
    if not sources:
        st.caption(t("no_sources"))
        return
    render_cards(answer, [live_card(s, doc_names) for s in sources], lib, kb, prefix)


def render_cards(
    answer: Answer, cards: Sequence[Card], lib: Library, kb: str, prefix: str = ""
) -> None:
    """Each card under the answer lines citing it (the answer's citation check)."""
    citing = citing_lines(answer)
    for card in cards:
        targets = card_targets(answer.citations, card.number, prefix)
        lines = citing.get(card.number, [])
        render_card(card, lines, lib, kb, prefix, quotes_sources(answer), targets)


def render_card(
    card: Card,
    lines: Sequence[CheckedLine],
    lib: Library,
    kb: str,
    prefix: str = "",
    literal: bool = False,
    targets: CardTargets | None = None,
) -> None:
    """One source card: a header (number, type, document, pages, title, ⚠️ when a line citing
    it is flagged), its notes (cut, the part of a table, the section), the lines citing it and
    its chunk with their quotes marked, and the places of it the answer's traced numbers link
    to (``targets``). ``literal``: the lines are document text."""
    parts = [
        f"**{marker(card.number)}**",
        f"{TYPE_ICONS.get(card.type, '')} {type_label(card.type)}",
        escape_label(card.doc_name),
    ]
    if card.pages:
        parts.append(pages_label(card.pages))
    if card.title:
        parts.append(escape_label(card.title))
    flagged = any(not line.supported for line in lines)
    with st.expander(" · ".join(parts) + (" ⚠️" if flagged else ""), expanded=False):
        computed = computed_style(targets) if targets is not None else ""
        st.markdown(
            f'<span class="rag-anchor" id="{anchor_id(prefix, card.number)}"></span>' + computed,
            unsafe_allow_html=True,
        )
        notes = []
        if card.status == "cut":
            notes.append("✂️ " + t("source_cut"))
        if card.part:
            notes.append(card.part)
        if card.section and (card.type in ("table", "image") or card.chunk is None):
            notes.append(labelled("section_path", " › ".join(card.section)))
        if notes:
            st.markdown(
                f'<div class="rag-meta">{escape_text(" · ".join(notes))}</div>',
                unsafe_allow_html=True,
            )
        if lines:
            st.markdown(
                f'<div class="rag-meta">{t("cited_by")}</div>'
                + "".join(quote_html(line, literal=literal) for line in lines),
                unsafe_allow_html=True,
            )
        if card.chunk is None:
            st.caption(t("conv_source_gone"))
            st.markdown(
                f'<div class="rag-src">{escape_text(card.excerpt)}</div>' + unplaced(targets, ()),
                unsafe_allow_html=True,
            )
            return
        drawn = render_chunk(
            card.chunk,
            lib,
            kb,
            [s for line in lines for s in line.sentences],
            [line.text for line in lines],
            targets,
        )
        rest = unplaced(targets, drawn)
        if rest:  # places its chunk no longer holds: the link still opens the card
            st.markdown(rest, unsafe_allow_html=True)
