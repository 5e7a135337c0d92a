"""A turn restored from a saved conversation, drawn as the live answer was: the understood
question (理解为), the answer with its linked citations and ⚠️ marks, the citation check, the
source cards (their chunks read from the library again, or the saved excerpt when gone), the
retrieval details, the prompt inspector and the timings. The answer is rebuilt from the saved
turn (``rag_app.chat.saved_turns.restored_answer``) and handed to the same render functions; a turn
saved before the details were kept shows what it has and says the rest was not kept.
"""

from __future__ import annotations

import streamlit as st

from rag_app.chat.conversations import SavedTurn, restored_answer, source_chunk
from rag_app.index.library import Library
from rag_app.models import Chunk
from ui.i18n import t, type_label
from ui.render import worded
from ui.render_citations import anchor_id, render_answer_text, render_citation_check
from ui.render_feedback import render_feedback
from ui.render_hits import TYPE_ICONS, render_retrieval
from ui.render_prompt import render_prompt
from ui.render_series import render_series
from ui.render_sources import render_chunk
from ui.render_timings import answerer_label, render_timings
from ui.sanitize import escape_label, escape_text


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
    render_saved_sources(saved, lib, prefix)
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


def render_saved_sources(saved: SavedTurn, lib: Library, prefix: str) -> None:
    """The saved turn's source cards: each chunk as the library has it now (merged sub-tables
    joined again), the sentences citing it highlighted; the saved excerpt when it is gone."""
    st.markdown(
        f"**{t('sources')}** · <span class='rag-meta'>"
        f"{t('sources_caption', n=len(saved.sources))}</span>",
        unsafe_allow_html=True,
    )
    if not saved.sources:
        st.caption(t("no_sources"))
    chunks: dict[tuple[str, str], dict[str, Chunk]] = {}
    kb = saved.options.kb
    for source in saved.sources:
        key = (kb, source.doc_id)
        if key not in chunks:
            chunks[key] = {c.chunk_id: c for c in lib.chunks(kb, source.doc_id)}
        chunk = source_chunk(source, chunks[key])
        citing = [s for s in saved.sentences if source.number in s.cited]
        parts = [
            f"**[Source {source.number}]**",
            f"{TYPE_ICONS.get(source.type, '')} {type_label(source.type)}",
            escape_label(source.doc_name),
        ]
        if source.pages:
            first, last = min(source.pages) + 1, max(source.pages) + 1
            parts.append(t("page", page=first if first == last else f"{first}–{last}"))
        if source.title:
            parts.append(escape_label(short(source.title, 36)))
        flagged = any(s.flagged for s in citing)
        with st.expander(" · ".join(parts) + (" ⚠️" if flagged else ""), expanded=False):
            st.markdown(
                f'<span class="rag-anchor" id="{anchor_id(prefix, source.number)}"></span>',
                unsafe_allow_html=True,
            )
            if chunk is not None:
                render_chunk(chunk, lib, kb, [s.text for s in citing])
            else:
                st.caption(t("conv_source_gone"))
                st.markdown(
                    f'<div class="rag-src">{escape_text(source.excerpt)}</div>',
                    unsafe_allow_html=True,
                )
