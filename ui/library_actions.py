"""The Library page's actions, run as its buttons' callbacks: a knowledge base created or
deleted, a document deleted, a deletion's confirmation asked for or cancelled, and a file held
back by a conflict ingested again as the user chose. What happened is left in ``flash`` for the
page's next run to show; an upload's results go when the library they describe changes."""

from __future__ import annotations

import streamlit as st

from rag_app.access import AccessDenied, Role
from rag_app.index.admission import OnConflict
from ui import ingestion, resources, state
from ui.i18n import t
from ui.permissions import denial_text


def denied(kb: str, need: Role, action: str) -> bool:
    """Whether this user may not ``action`` in ``kb`` (issue 28): the denial is audited and
    left in ``flash``. The controls are disabled already; this is the check that counts."""
    try:
        state.access().require(kb, state.principal(), need, action)
    except AccessDenied as refused:
        st.session_state["flash"] = ("error", denial_text(refused))
        return True
    return False


def resolve_conflict(kb: str, name: str, on_conflict: OnConflict) -> None:
    """Ingest a file held back by a conflict again, replacing or keeping both as chosen."""
    if denied(kb, "editor", "upload"):
        return
    held = st.session_state.get("ingest_held") or {}
    data = held.pop(name, None)
    results = st.session_state.get("ingest_results") or []
    if data is None:
        st.session_state["flash"] = ("info", t("conflict_gone"))
        return
    (outcome,) = ingestion.ingest_files(
        resources.library(), kb, [(name, data)], on_conflict=on_conflict
    )
    st.session_state["ingest_results"] = [outcome if r[0] == name else r for r in results]


def clear_results() -> None:
    """Forget the last upload's results and the files a conflict held back: they describe a
    library that has since changed (a deletion) or another knowledge base."""
    st.session_state["ingest_results"] = []
    st.session_state.pop("ingest_held", None)
    st.session_state.pop("ingest_kb", None)


def ask_confirm(kind: str, target: str) -> None:
    st.session_state["confirm_delete"] = (kind, target)


def cancel_confirm() -> None:
    st.session_state.pop("confirm_delete", None)


def create_kb() -> None:
    name = (st.session_state.get("new_kb_name") or "").strip()
    if not name:
        return
    lib, access, who = resources.library(), state.access(), state.principal()
    if access.enforced and not who.name:  # a visitor: a knowledge base nobody could manage
        st.session_state["flash"] = ("error", t("access_sign_in_to_create"))
        return
    if name in lib.knowledge_bases():
        st.session_state["flash"] = ("info", t("kb_exists", kb=name))
    else:
        try:
            lib.create_kb(name)
        except ValueError as exc:
            st.session_state["flash"] = ("error", str(exc))
            return
        access.created(name, who)  # its maker's alone until they add members
        st.session_state["flash"] = ("success", t("kb_created", kb=name))
    clear_results()
    state.set_kb(name)
    st.session_state["new_kb_name"] = ""


def delete_kb(kb: str) -> None:
    if denied(kb, "admin", "delete knowledge base"):
        st.session_state.pop("confirm_delete", None)
        return
    resources.library().delete_kb(kb)
    state.access().deleted(kb)  # a new one of its name starts anew
    st.session_state.pop("confirm_delete", None)
    clear_results()
    st.session_state["flash"] = ("success", t("kb_deleted", kb=kb))
    st.session_state["turns"] = [x for x in st.session_state["turns"] if x.options.kb != kb]
    state.set_kb(None)


def delete_doc(kb: str, doc_id: str, name: str) -> None:
    if denied(kb, "editor", "delete document"):
        st.session_state.pop("confirm_delete", None)
        return
    found = resources.library().delete_document(kb, doc_id)
    st.session_state.pop("confirm_delete", None)
    clear_results()
    # Another session may have deleted it a moment before: say so rather than claim it.
    st.session_state["flash"] = (
        ("success", t("doc_deleted", name=name)) if found else ("info", t("doc_gone", name=name))
    )
    st.session_state.pop("preview_doc", None)
