"""The Ask page's conversation: its turns drawn (a live answer, a saved one drawn again as it
was shown, or the failure), and a new question answered as it streams, then kept in the
session and saved as it completes."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from rag_app.chat.conversations import saved_turn
from rag_app.index.library import Library
from ui import resources, state
from ui.i18n import t
from ui.render import LATEST_TURN, answer_doc_names, render_answer, scroll_to_question
from ui.render_saved import render_saved
from ui.render_stream import stream_answer
from ui.sanitize import escape_markdown_text


def render_turns(turns: Sequence[state.ChatTurn], lib: Library, asking: bool) -> None:
    """Every turn, the newest in the ``LATEST_TURN`` container unless a new one is asked."""
    for i, turn in enumerate(turns):
        latest = i == len(turns) - 1
        prefix = "" if latest else f"t{i + 1}"
        with st.container(key=LATEST_TURN if latest and not asking else None):
            with st.chat_message("user"):
                st.markdown(escape_markdown_text(turn.question))
            with st.chat_message("assistant"):
                if turn.answer is None and turn.saved is not None and turn.saved.answered:
                    render_saved(turn.saved, lib, prefix)
                elif turn.answer is None:
                    st.error(t("ask_failed", error=turn.failure), icon="⚠️")
                else:
                    render_answer(
                        turn.answer,
                        lib,
                        turn.options.kb,
                        turn.options,
                        prefix,
                        doc_names=dict(turn.doc_names),
                    )


def answer_question(lib: Library, kb: str, question: str, turns: list[state.ChatTurn]) -> None:
    """Stream the answer to ``question`` under it, add the turn to ``turns``, save it (a reload
    or a restart keeps it; the conversation's id goes into the address) and run the page
    again."""
    options = state.ask_options(kb)
    # The documents' names as the question starts: a document deleted while it is answered
    # (by another user) keeps its name on this answer's cards.
    known = {d.doc_id: d.name for d in lib.documents(kb)}
    history = state.conversation_history(turns)
    with st.container(key=LATEST_TURN):
        with st.chat_message("user"):
            st.markdown(escape_markdown_text(question))
        scroll_to_question()
        with st.chat_message("assistant"):
            resources.wait_for_model()
            answer, failure = stream_answer(state.pipeline(), question, options, history)
    names = answer_doc_names(answer, lib, kb, known)
    saved = saved_turn(question, options, answer, failure, names)
    turn = state.ChatTurn(question, options, answer, failure, tuple(names.items()), saved)
    turns.append(turn)
    saved_id = state.save_turn(turn)  # as it completes: a reload or a restart keeps it
    if saved_id:
        st.query_params["c"] = saved_id
    st.rerun()
