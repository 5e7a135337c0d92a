"""The Ask page's saved conversations in the sidebar: a new one started, one opened, and for
the open one: renamed, exported as Markdown (sources cited) and deleted after a confirmation.
The open conversation's id is kept in the page's address (``?c=``)."""

from __future__ import annotations

import re

import streamlit as st

from rag_app.chat.export import to_markdown
from ui import resources, state
from ui.i18n import lang, t
from ui.render_saved import short
from ui.sanitize import escape_label


def new_conversation() -> None:
    state.open_conversation(None)
    st.query_params.pop("c", None)


def open_saved(conversation_id: str) -> None:
    owner, store = state.conversation_owner(), resources.conversation_store()
    found = store.get(owner, conversation_id) if owner is not None and store else None
    if found is None or not state.may_see(found.info.kb):  # its knowledge base no longer theirs
        st.session_state["_conversation_note"] = "conv_not_found"
        new_conversation()
        return
    state.open_conversation(found.info.id, found.turns, found.info.kb)
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
    # Those of a knowledge base the user may no longer see (a membership revoked) are hidden.
    saved = store.list(owner, limit=50)
    seen = {kb: state.may_see(kb) for kb in {info.kb for info in saved}}
    listed = [info for info in saved if seen[info.kb]]
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
    if opened is None or not state.may_see(opened.info.kb):
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


def keep_in_address() -> None:
    """The open conversation's id in the page's address: a reload (or the address kept after a
    restart) opens it again. Set again after a visit to another page cleared it."""
    opened = st.session_state.get("conversation")
    if opened and st.query_params.get("c") != opened:
        st.query_params["c"] = opened
