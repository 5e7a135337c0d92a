"""A turn restored from a saved conversation, drawn as the live answer was: the understood
question (理解为), the answer with its linked citations and ⚠️ marks, the citation check, the
source cards (their chunks read from the library again, or the saved excerpt when gone), the
retrieval details, the prompt inspector and the timings. The answer is rebuilt from the saved
turn (``rag_app.chat.saved_turns.restored_answer``) and handed to the same render functions; a turn
saved before the details were kept shows what it has and says the rest was not kept.
"""

from __future__ import annotations

from collections.abc import Mapping

import streamlit as st

from rag_app.chat.conversations import SavedSource, SavedTurn, restored_answer, source_chunk
from rag_app.index.library import Library
from rag_app.models import Answer, Chunk
from ui.i18n import t
from ui.render import worded
from ui.render_citations import render_answer_text, render_citation_check
from ui.render_feedback import render_feedback
from ui.render_hits import chunk_title, render_retrieval
from ui.render_prompt import render_prompt
from ui.render_series import render_series
from ui.render_sources import Card, render_cards, subtable_note
from ui.render_timings import answerer_label, render_timings
from ui.sanitize import escape_label


def short(title: str, limit: int = 28) -> str:
    return title if len(title) <= limit else title[: limit - 1] + "…"


def render_saved(saved: SavedTurn, lib: Library, prefix: str) -> None:
    """Everything a saved turn's answer showed, in the live answer's reading order."""
    answer = restored_answer(saved)
    render_answer_text(worded(answer), prefix)
    if saved.checked:
        render_citation_check(answer, prefix)
    render_series(saved.series, prefix, dict(saved.doc_names))
    render_feedback(saved.audit_id, prefix)
    render_saved_sources(saved, answer, lib, prefix)
    kb = saved.options.kb
    if saved.has_details:
        doc_names = {d.doc_id: d.name for d in lib.documents(kb)} | dict(saved.doc_names)
        doc_names |= {s.doc_id: s.doc_name for s in saved.sources}
        render_retrieval(answer, doc_names)
        render_prompt(answer)
        render_timings(answer, saved.options)
        st.caption("🗂️ " + t("conv_restored_all"))
        return
    meta = [
        answerer_label(saved.answerer, saved.fallback_from),
        t("mode_" + saved.options.mode),
        t("pmode_" + saved.options.prompt_mode),
    ]
    st.caption("🗂️ " + t("conv_restored") + "  \n🤖 " + " · ".join(escape_label(m) for m in meta))


def render_saved_sources(saved: SavedTurn, answer: Answer, lib: Library, prefix: str) -> None:
    """The saved turn's source cards, drawn as the live answer's were (``render_cards``): each
    chunk as the library has it now (merged sub-tables joined again), its section and part, the
    lines citing it and their quotes marked; the saved excerpt when it is gone."""
    st.markdown(
        f"**{t('sources')}** · <span class='rag-meta'>"
        f"{t('sources_caption', n=len(saved.sources))}</span>",
        unsafe_allow_html=True,
    )
    if not saved.sources:
        st.caption(t("no_sources"))
    chunks: dict[tuple[str, str], dict[str, Chunk]] = {}
    kb = saved.options.kb
    cards = []
    for source in saved.sources:
        key = (kb, source.doc_id)
        if key not in chunks:
            chunks[key] = {c.chunk_id: c for c in lib.chunks(kb, source.doc_id)}
        cards.append(saved_card(source, chunks[key]))
    render_cards(answer, cards, lib, kb, prefix)


def saved_card(source: SavedSource, chunks: Mapping[str, Chunk]) -> Card:
    """A saved source's card; its chunk as the library has it (``chunks`` by id, its
    document's). A turn saved before the section and the sub-tables were kept reads them off
    the library's chunks."""
    chunk = source_chunk(source, chunks)
    section, subtables, count = source.section, source.subtables, source.subtable_count
    if chunk is not None and not (section or count):
        parts = [chunks[p] for p in source.part_ids if p in chunks] or [chunk]
        section = chunk.heading_path
        subtables = tuple(p.subtable_index for p in parts if p.subtable_index)
        count = max(p.subtable_count for p in parts)
    return Card(
        number=source.number,
        type=source.type,
        doc_name=source.doc_name,
        pages=source.pages,
        title=chunk_title(chunk) if chunk is not None else short(source.title, 36),
        chunk=chunk,
        status=source.status,
        part=subtable_note(subtables, count),
        section=tuple(section),
        excerpt=source.excerpt,
    )
