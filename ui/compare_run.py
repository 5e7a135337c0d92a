"""The Compare page's run: one question answered with smart and with hybrid retrieval, side by
side as the answers stream, then kept in the session for the page to draw
(ui/render_compare.py)."""

from __future__ import annotations

import streamlit as st

from rag_app.index.library import Library
from ui import resources, state
from ui.i18n import t
from ui.render import answer_doc_names
from ui.render_compare import MODES
from ui.render_stream import stream_answer


def run_comparison(lib: Library, kb: str, question: str) -> None:
    """Answer ``question`` in each mode, store both in ``compare`` and run the page again."""
    resources.wait_for_model()
    pipe = state.pipeline()
    # The documents' names as the question starts, kept with the answers (see chat_turns).
    known = {d.doc_id: d.name for d in lib.documents(kb)}
    results = {}
    columns = st.columns(2, gap="large")
    for column, mode in zip(columns, MODES, strict=True):
        with column:
            st.markdown(f"#### {t('mode_' + mode)} · {mode}")
            options = state.ask_options(kb, mode=mode)
            # a follow-up of the Ask page's open conversation is understood from it here too
            answer, failure = stream_answer(pipe, question, options, state.conversation_history())
            results[mode] = {
                "answer": answer,
                "failure": failure,
                "options": options,
                "doc_names": answer_doc_names(answer, lib, kb, known),
            }
    st.session_state["compare"] = {"question": question, "kb": kb, **results}
    st.rerun()
