"""评测 / Evaluate: a question set run through the pipeline on a knowledge base with chosen
settings, in the background (it survives a reload), its metrics and each question's answer, and
two runs compared (the sets: ui/eval_sets.py; the runs: ui/eval_runs.py; the comparison:
ui/eval_compare.py; the work: rag_app/evals/)."""

from __future__ import annotations

import streamlit as st

from ui import resources, state
from ui.eval_compare import render_compare
from ui.eval_runs import render_runs
from ui.eval_sets import render_run_form, render_set_picker
from ui.i18n import t

lib = resources.library()
runner = resources.eval_runner()
state.current_kb(lib)  # one gone meanwhile: the fallback, before its selectbox

with st.sidebar:
    kbs = state.visible_kbs(lib)
    if kbs:
        state.bound(st.selectbox, t("kb"), "kb", where="evaluate", options=kbs)
kb = state.current_kb(lib)

st.markdown(f"## 🧪 {t('eval_title')}")
st.caption(t("eval_caption"))
if runner is None:
    st.error(t("eval_unavailable"))
    st.stop()
if not kb or not lib.documents(kb):
    st.info(t("kb_empty", kb=kb) if kb else t("no_kb"), icon="📚")
    st.page_link("views/library.py", label=t("go_library"))
    st.stop()

runs_tab, compare_tab = st.tabs([t("eval_tab_runs"), t("eval_tab_compare")])
with runs_tab:
    st.markdown(f"#### {t('eval_sets')}")
    chosen = render_set_picker(runner, lib, kb)
    if chosen is not None:  # a run asks questions: any reader of the knowledge base may
        render_run_form(runner, lib, kb, chosen)
    st.divider()
    render_runs(runner.store, lib, kb)
with compare_tab:
    render_compare(runner.store, lib, kb)
