"""对比 / Compare: one question answered with smart and with hybrid retrieval, side by side,
with where their hits differ and why (the diff: ui/compare_diff.py, drawn by ui/render_compare.py)."""

from __future__ import annotations

import streamlit as st

from ui import resources, state
from ui.compare_diff import diff_hits
from ui.i18n import t
from ui.render import answer_doc_names
from ui.render_citations import render_answer_text, render_citation_check
from ui.render_compare import render_compare_hits, render_diff_summary
from ui.render_hits import render_routing
from ui.render_sources import render_sources
from ui.render_stream import stream_answer
from ui.render_timings import render_timings
from ui.sanitize import escape_markdown_text

MODES = ("smart", "hybrid")
TOP_HITS = 8


def render_column(mode: str, result: dict, lib, kb: str, doc_names, places) -> None:  # type: ignore[no-untyped-def]
    answer, options = result.get("answer"), result["options"]
    doc_names = {**doc_names, **result.get("doc_names", {})}
    if answer is None:
        st.error(t("ask_failed", error=result.get("failure", "")), icon="⚠️")
        return
    render_routing(answer.retrieval)
    st.markdown(f"**{t('hits_title', n=min(TOP_HITS, len(answer.hits)))}**")
    render_compare_hits(answer.hits[:TOP_HITS], doc_names, places)
    if answer.prompt is not None:
        report = answer.prompt.report
        a, b, c = st.columns(3)
        a.metric(t("prompt_tokens"), f"{report.prompt_tokens:,}")
        b.metric(
            t("context_limit", limit=f"{report.context_limit:,}"), f"{report.context_tokens:,}"
        )
        c.metric(t("window_total", window=f"{report.context_window:,}"), f"{report.total_tokens:,}")
    st.markdown(f"**{t('answer')}**")
    render_answer_text(answer, prefix=mode)
    render_citation_check(answer, prefix=mode)
    st.markdown(f"**{t('sources')}**")
    render_sources(answer, lib, kb, doc_names, prefix=mode)
    render_timings(answer, options)


lib = resources.library()
kb = state.current_kb(lib)

with st.sidebar:
    kbs = lib.knowledge_bases()
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
    resources.wait_for_model()
    pipe = state.pipeline()
    known = {d.doc_id: d.name for d in lib.documents(kb)}  # kept with the answers (see ask.py)
    results = {}
    columns = st.columns(2, gap="large")
    for column, mode in zip(columns, MODES, strict=True):
        with column:
            st.markdown(f"#### {t('mode_' + mode)} · {mode}")
            options = state.ask_options(kb, mode=mode)
            # a follow-up of the Ask page's open conversation is understood from it here too
            answer, failure = stream_answer(
                pipe, question.strip(), options, state.conversation_history()
            )
            results[mode] = {
                "answer": answer,
                "failure": failure,
                "options": options,
                "doc_names": answer_doc_names(answer, lib, kb, known),
            }
    st.session_state["compare"] = {"question": question.strip(), "kb": kb, **results}
    st.rerun()

comparison = st.session_state.get("compare")
if comparison:
    kb_of = comparison["kb"]
    doc_names = {d.doc_id: d.name for d in lib.documents(kb_of)}
    label = t("compare_question") + t("colon").strip()
    st.markdown(f"**{label}** {escape_markdown_text(comparison['question'])}")
    smart, hybrid = (comparison[m].get("answer") for m in MODES)
    places: dict[str, tuple] = {m: () for m in MODES}
    if smart is not None and hybrid is not None:
        diff = diff_hits(smart.hits, hybrid.hits, TOP_HITS)
        places = {"smart": diff.smart, "hybrid": diff.hybrid}
        render_diff_summary(diff, smart.retrieval.routing)
        shared = {h.chunk.chunk_id for h in smart.hits} & {h.chunk.chunk_id for h in hybrid.hits}
        st.caption("🔗 " + t("shared_hits", n=len(shared)))
    columns = st.columns(2, gap="large", border=True)
    for column, mode in zip(columns, MODES, strict=True):
        with column:
            st.markdown(f"#### {'🧭' if mode == 'smart' else '🔀'} {t('mode_' + mode)}")
            render_column(mode, comparison[mode], lib, kb_of, doc_names, places[mode])
elif has_docs:
    st.caption(t("compare_empty"))
