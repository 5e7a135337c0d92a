"""The Ask page's sidebar: the knowledge base, the documents to search, the query and prompt
modes, which answerer is in use, and the saved conversations (ui/conversation_sidebar.py)."""

from __future__ import annotations

import streamlit as st

from rag_app.index.library import Library
from rag_app.prompt import MODES
from ui import state
from ui.conversation_sidebar import conversations_sidebar
from ui.i18n import t


def ask_sidebar(lib: Library, kb: str | None) -> None:
    with st.sidebar:
        kbs = state.visible_kbs(lib)
        if kbs:
            state.bound(st.selectbox, t("kb"), "kb", where="ask", options=kbs)
        if kb:
            _doc_filter(lib, kb)
        state.bound(
            st.segmented_control,
            t("query_mode"),
            "mode",
            where="ask",
            options=["smart", "hybrid"],
            format_func=lambda m: t("mode_" + m),
            required=True,
            help=t("query_mode_help"),
        )
        state.bound(
            st.segmented_control,
            t("prompt_mode"),
            "prompt_mode",
            where="ask",
            options=list(MODES),
            format_func=lambda m: t("pmode_" + m),
            required=True,
            help=t("prompt_mode_help"),
        )
        provider = state.provider_settings()
        if provider is None:
            st.info(t("answerer_offline"), icon="📴")
        else:
            st.caption("🤖 " + t("answerer_llm", name=provider.model))
        st.divider()
        conversations_sidebar()


def _doc_filter(lib: Library, kb: str) -> None:
    """The documents of ``kb`` to search (none chosen: all), a deleted one dropped."""
    docs = {d.doc_id: d.name for d in lib.documents(kb)}
    chosen = st.session_state["doc_filter"].get(kb, [])
    valid = [d for d in chosen if d in docs]
    if valid != chosen:  # a document was deleted meanwhile
        st.session_state["doc_filter"] = {**st.session_state["doc_filter"], kb: valid}
        st.session_state.pop(f"_w_doc_filter.{kb}__ask", None)
    if kb not in st.session_state["doc_filter"]:
        st.session_state["doc_filter"] = {**st.session_state["doc_filter"], kb: []}
    state.bound(
        st.multiselect,
        t("docs_filter"),
        "doc_filter",
        field=kb,
        where="ask",
        options=list(docs),
        format_func=lambda d: docs.get(d, d),
        placeholder=t("docs_filter_placeholder"),
    )
