"""问答 / Ask: a multi-turn chat over a knowledge base, answers streamed with their evidence."""

from __future__ import annotations

import json
import re

import streamlit as st

from rag_app.chat.conversations import saved_turn
from rag_app.chat.export import to_markdown
from rag_app.prompt import MODES
from ui import resources, sample_progress, state
from ui.i18n import lang, t
from ui.render import LATEST_TURN, answer_doc_names, render_answer, scroll_to_question
from ui.render_saved import render_saved, short
from ui.render_stream import stream_answer
from ui.sanitize import escape_label, escape_markdown_text


@st.cache_data(show_spinner=False)
def example_questions(path: str) -> list[str]:
    try:
        with open(path, encoding="utf-8") as handle:
            return [entry["question"] for entry in json.load(handle) if entry.get("question")]
    except (OSError, ValueError, KeyError, TypeError):
        return []


def ask_example(question: str) -> None:
    st.session_state["pending_question"] = question


# saved conversations -------------------------------------------------------------------------
def new_conversation() -> None:
    state.open_conversation(None)
    st.query_params.pop("c", None)


def open_saved(conversation_id: str) -> None:
    owner, store = state.conversation_owner(), resources.conversation_store()
    found = store.get(owner, conversation_id) if owner is not None and store else None
    if found is None:
        st.session_state["_conversation_note"] = "conv_not_found"
        new_conversation()
        return
    state.open_conversation(found.info.id, found.turns)
    st.query_params["c"] = found.info.id


def rename_open(conversation_id: str) -> None:
    owner, store = state.conversation_owner(), resources.conversation_store()
    title = st.session_state.get(f"conv_title_{conversation_id}", "")
    if owner is not None and store is not None:
        store.rename(owner, conversation_id, title)


def delete_open(conversation_id: str) -> None:
    owner, store = state.conversation_owner(), resources.conversation_store()
    if owner is not None and store is not None:
        store.delete(owner, conversation_id)
    new_conversation()
    st.session_state["_conversation_note"] = "conv_deleted"


def conversations_sidebar() -> None:
    """The user's saved conversations, most recently active first; for the open one: rename,
    export (Markdown, sources cited) and delete (after a confirmation)."""
    st.button(t("conv_new"), icon="➕", on_click=new_conversation, width="stretch", key="conv_new")
    owner, store = state.conversation_owner(), resources.conversation_store()
    if owner is None:
        st.caption(t("conv_sign_in"))
        st.button(t("conv_sign_in_button"), on_click=st.login, key="conv_sign_in")
        return
    if store is None:
        return
    st.markdown(f"**{t('conv_title')}**")
    listed = store.list(owner, limit=50)
    if not listed:
        st.caption(t("conv_none"))
    current = st.session_state.get("conversation")
    with st.container(key="conversations", gap="small"):
        for info in listed:
            st.button(
                escape_label(short(info.title)),  # the user's own words, shown as written
                key=f"conv_{info.id}",
                help=escape_label(info.title),
                on_click=open_saved,
                args=(info.id,),
                type="primary" if info.id == current else "tertiary",
                width="stretch",
            )
    opened = store.get(owner, current) if current else None
    if opened is None:
        return
    title = opened.info.title
    rename, export, delete = st.columns(3)
    with rename.popover("✏️", help=t("conv_rename")):
        st.text_input(t("conv_rename_label"), value=title, key=f"conv_title_{opened.info.id}")
        st.button(
            t("conv_rename_save"), key="conv_rename", on_click=rename_open, args=(opened.info.id,)
        )
    export.download_button(
        "⬇️",
        data=to_markdown(opened, lang()),
        file_name=re.sub(r'[\\/:*?"<>|\s]+', "_", short(title, 40)) + ".md",
        mime="text/markdown",
        help=t("conv_export"),
        key="conv_export",
        on_click="ignore",
    )
    with delete.popover("🗑️", help=t("conv_delete")):
        st.markdown(t("conv_delete_confirm", title=escape_label(title)))
        st.button(
            t("conv_delete_yes"),
            key="conv_delete",
            type="primary",
            on_click=delete_open,
            args=(opened.info.id,),
        )


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
        st.divider()
        conversations_sidebar()


lib = resources.library()
kb = state.current_kb(lib)
sidebar(lib, kb)
kb = state.current_kb(lib)
# The open conversation's id in the page's address: a reload (or the address kept after a
# restart) opens it again. Set again here after a visit to another page cleared it.
opened = st.session_state.get("conversation")
if opened and st.query_params.get("c") != opened:
    st.query_params["c"] = opened

st.markdown(f"## 💬 {t('ask_title')}")
st.caption(t("ask_caption"))
note = st.session_state.pop("_conversation_note", None)
if note:
    st.info(t(note), icon="🗂️")

# While the sample is imported into 示例 in the background (ui/startup.py), the page works: a
# question asked meanwhile is held, with the import's progress under it, and answered once the
# sample is in (app.py's sample_progress.follow runs the page again then).
sample = resources.sample_status()
importing = kb == resources.SAMPLE_KB and sample.importing
has_docs = bool(kb and lib.documents(kb)) and not importing
if not kb:
    st.info(t("no_kb"), icon="📚")
    st.page_link("views/library.py", label=t("go_library"), icon="📚")
elif importing:
    sample_progress.progress_bar(sample)
elif not has_docs:
    if kb == resources.SAMPLE_KB and sample.state == "failed":
        sample_progress.failure(sample)
    st.info(t("kb_empty", kb=kb), icon="📚")
    st.page_link("views/library.py", label=t("go_library"), icon="📚")

# In st.bottom, not at the top level: a top-level chat input makes Streamlit keep the view
# pinned to the page's end, so a section opened after an answer pushed its own title out of the
# window and the reader could not stay where they were. The input still sits at the window's
# bottom; a new question is scrolled into view by scroll_to_question instead.
with st.bottom:
    typed = st.chat_input(
        t("chat_placeholder"), key="question", disabled=not (has_docs or importing)
    )
question = typed or st.session_state.pop("pending_question", None)
held: list[tuple[str, str]] = st.session_state.setdefault("held_questions", [])
if question and importing:
    held.append((question, kb))
    question = None
elif held and not importing:
    # Once the sample is in: the first held question of this base now, the next after it
    # (each answer ends with a rerun); those of another base are dropped.
    waiting = [(q, base) for q, base in held if base == kb and has_docs]
    if question:
        waiting.append((question, kb))
    st.session_state["held_questions"] = waiting[1:]
    question = waiting[0][0] if waiting else None
asking = bool(question and kb and has_docs)

turns: list[state.ChatTurn] = st.session_state["turns"]
if kb == resources.SAMPLE_KB and has_docs:
    examples = example_questions(str(resources.SAMPLE_QUESTIONS))
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

if importing:
    for waiting_question, _ in held:
        with st.chat_message("user"):
            st.markdown(escape_markdown_text(waiting_question))
        with st.chat_message("assistant"):
            sample_progress.held_note(sample)

if asking and question and kb:
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
