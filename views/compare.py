"""对比 / Compare: one question answered with smart and with hybrid retrieval, side by side,
with where their hits differ and why (the run: ui/compare_run.py; the diff: ui/compare_diff.py,
drawn by ui/render_compare.py)."""

from __future__ import annotations

import streamlit as st

from ui import resources, state
from ui.compare_run import run_comparison
from ui.i18n import t
from ui.render_compare import render_comparison

lib = resources.library()
state.current_kb(lib)  # one gone meanwhile: the fallback, before its selectbox

with st.sidebar:
    kbs = state.visible_kbs(lib)
    if kbs:
        state.bound(st.selectbox, t("kb"), "kb", where="compare", options=kbs)
    state.bound(
        st.segmented_control,
        t("prompt_mode"),
        "prompt_mode",
        where="compare",
        options=["simple", "advanced", "precise"],
        format_func=lambda m: t("pmode_" + m),
        required=True,
        help=t("prompt_mode_help"),
    )
    if state.provider_settings() is None:
        st.info(t("answerer_offline"), icon="📴")
kb = state.current_kb(lib)

st.markdown(f"## ⚖️ {t('compare_title')}")
st.caption(t("compare_caption"))

has_docs = bool(kb and lib.documents(kb))
if not has_docs:
    st.info(t("kb_empty", kb=kb) if kb else t("no_kb"), icon="📚")
    st.page_link("views/library.py", label=t("go_library"), icon="📚")

with st.form("compare_form", border=False):
    left, right = st.columns([5, 1], vertical_alignment="bottom")
    question = left.text_input(
        t("compare_question"), key="compare_question", placeholder=t("chat_placeholder")
    )
    run = right.form_submit_button(
        t("compare_run"), type="primary", width="stretch", disabled=not has_docs
    )

if run and question.strip() and kb and has_docs:
    run_comparison(lib, kb, question.strip())

comparison = st.session_state.get("compare")
if comparison:
    render_comparison(comparison, lib)
elif has_docs:
    st.caption(t("compare_empty"))
