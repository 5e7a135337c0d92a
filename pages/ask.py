"""问答 / Ask: a multi-turn chat over a knowledge base, answers streamed with their evidence."""

from __future__ import annotations

import json

import streamlit as st

from rag_app.prompt import MODES, Turn
from ui import state
from ui.i18n import t
from ui.render import LATEST_TURN, render_answer, scroll_to_question, stream_answer
from ui.sanitize import escape_markdown_text


@st.cache_data(show_spinner=False)
def example_questions(path: str) -> list[str]:
    try:
        with open(path, encoding="utf-8") as handle:
            return [entry["question"] for entry in json.load(handle) if entry.get("question")]
    except (OSError, ValueError, KeyError, TypeError):
        return []


def ask_example(question: str) -> None:
    st.session_state["pending_question"] = question


def clear_chat() -> None:
    st.session_state["turns"] = []


def sidebar(lib, kb: str | None) -> None:  # type: ignore[no-untyped-def]
    with st.sidebar:
        kbs = lib.knowledge_bases()
        if kbs:
            state.bound(st.selectbox, t("kb"), "kb", where="ask", options=kbs)
        if kb:
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
        if st.session_state["turns"]:
            st.button(t("clear_chat"), icon="🧹", on_click=clear_chat, width="stretch")


lib = state.library()
kb = state.current_kb(lib)
sidebar(lib, kb)
kb = state.current_kb(lib)

st.markdown(f"## 💬 {t('ask_title')}")
st.caption(t("ask_caption"))

has_docs = bool(kb and lib.documents(kb))
if not kb:
    st.info(t("no_kb"), icon="📚")
    st.page_link("pages/library.py", label=t("go_library"), icon="📚")
elif not has_docs:
    st.info(t("kb_empty", kb=kb), icon="📚")
    st.page_link("pages/library.py", label=t("go_library"), icon="📚")

# In st.bottom, not at the top level: a top-level chat input makes Streamlit keep the view
# pinned to the page's end, so a section opened after an answer pushed its own title out of the
# window and the reader could not stay where they were. The input still sits at the window's
# bottom; a new question is scrolled into view by scroll_to_question instead.
with st.bottom:
    typed = st.chat_input(t("chat_placeholder"), key="question", disabled=not has_docs)
question = typed or st.session_state.pop("pending_question", None)
asking = bool(question and kb and has_docs)

turns: list[state.ChatTurn] = st.session_state["turns"]
if kb == state.SAMPLE_KB and has_docs:
    examples = example_questions(str(state.SAMPLE_QUESTIONS))
    if examples:
        # Closed already while the first question is answered: closing it afterwards would
        # move that question up, out of the place it was scrolled to.
        box = st.expander(f"💡 {t('examples')}", expanded=not turns and not asking)
        columns = box.columns(2)
        for i, example in enumerate(examples):
            columns[i % 2].button(
                example,
                key=f"example_{i}",
                on_click=ask_example,
                args=(example,),
                width="stretch",
            )

for i, turn in enumerate(turns):
    latest = i == len(turns) - 1
    prefix = "" if latest else f"t{i + 1}"
    with st.container(key=LATEST_TURN if latest and not asking else None):
        with st.chat_message("user"):
            st.markdown(escape_markdown_text(turn.question))
        with st.chat_message("assistant"):
            if turn.answer is None:
                st.error(t("ask_failed", error=turn.failure), icon="⚠️")
            else:
                render_answer(turn.answer, lib, turn.options.kb, turn.options, prefix)

if asking and question and kb:
    options = state.ask_options(kb)
    history = [
        Turn(x.question, x.answer.text)
        for x in turns
        if x.answer is not None and x.answer.text.strip()
    ]
    with st.container(key=LATEST_TURN):
        with st.chat_message("user"):
            st.markdown(escape_markdown_text(question))
        scroll_to_question()
        with st.chat_message("assistant"):
            state.wait_for_model()
            answer, failure = stream_answer(state.pipeline(), question, options, history)
    turns.append(state.ChatTurn(question, options, answer, failure))
    st.rerun()
