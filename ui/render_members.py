"""The Library page's Members section (issue 28; the rules: ``rag_app.access``): who owns the
knowledge base and the user's own role; for its admins the members (users and groups of the
sign-in's claims) with their roles, one added or removed; a shared knowledge base claimed by an
editor. Shown only when permissions are enforced (sign-in configured)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from rag_app.access import ROLES, AccessDenied, at_least
from ui import state
from ui.i18n import t
from ui.permissions import denial_text, role_text
from ui.sanitize import escape_label

KINDS = ("user", "group")


def members_section(kb: str) -> None:
    access = state.access()
    if not access.enforced or access.store is None:
        return
    who = state.principal()
    role = access.role(kb, who)
    owner = access.store.owner(kb)
    with st.container(border=True, key="members"):
        st.markdown(f"**👥 {t('members_section')}**", help=t("members_help"))
        st.caption(t("members_your_role", role=role_text(role)))
        if owner is None:
            st.caption(t("members_shared"))
            if who.name and at_least(role, "editor"):
                st.button(
                    t("members_claim"),
                    icon="🏷️",
                    help=t("members_claim_help"),
                    on_click=claim_kb,
                    args=(kb,),
                    key="members_claim",
                )
        else:
            st.caption(t("members_owner", owner=escape_label(owner)))
        if role != "admin":
            return
        members = access.store.members(kb)
        if members:
            st.dataframe(
                pd.DataFrame(
                    [
                        {
                            t("members_col_name"): m.name,
                            t("members_col_kind"): t(f"kind_{m.kind}"),
                            t("members_col_role"): role_text(m.role),
                        }
                        for m in members
                    ]
                ),
                hide_index=True,
                width="stretch",
            )
        else:
            st.caption(t("members_none"))
        name, kind, given, add = st.columns([3, 1.2, 1.2, 1.4], vertical_alignment="bottom")
        name.text_input(t("members_name"), key="members_name")
        kind.selectbox(
            t("members_kind"), KINDS, format_func=lambda k: t(f"kind_{k}"), key="members_kind"
        )
        given.selectbox(t("members_role"), ROLES, format_func=role_text, key="members_role")
        add.button(
            t("members_add"), icon="➕", on_click=add_member, args=(kb,), key="members_add_button"
        )
        if members:
            labels = {f"{m.kind}:{m.name}": f"{m.name} ({t(f'kind_{m.kind}')})" for m in members}
            pick, remove = st.columns([4, 1.4], vertical_alignment="bottom")
            pick.selectbox(
                t("members_remove_pick"), list(labels), format_func=labels.get, key="members_pick"
            )
            remove.button(
                t("members_remove"),
                icon="➖",
                on_click=remove_member,
                args=(kb,),
                key="members_remove_button",
            )


def add_member(kb: str) -> None:
    name = (st.session_state.get("members_name") or "").strip()
    role = st.session_state.get("members_role") or "reader"
    if not name:
        st.session_state["flash"] = ("error", t("members_need_name"))
        return
    try:
        kind = st.session_state.get("members_kind") or "user"
        state.access().grant(kb, state.principal(), name, role, kind)
    except AccessDenied as refused:
        st.session_state["flash"] = ("error", denial_text(refused))
        return
    st.session_state["flash"] = (
        "success",
        t("members_added", name=escape_label(name), role=role_text(role)),
    )
    st.session_state["members_name"] = ""


def remove_member(kb: str) -> None:
    picked = st.session_state.get("members_pick") or ""
    kind, _, name = picked.partition(":")
    try:
        state.access().revoke(kb, state.principal(), name, kind)
    except AccessDenied as refused:
        st.session_state["flash"] = ("error", denial_text(refused))
        return
    st.session_state["flash"] = ("success", t("members_removed", name=escape_label(name)))
    st.session_state.pop("members_pick", None)


def claim_kb(kb: str) -> None:
    try:
        state.access().claim(kb, state.principal())
    except AccessDenied as refused:
        st.session_state["flash"] = ("error", denial_text(refused))
        return
    st.session_state["flash"] = ("success", t("members_claimed", kb=kb))
