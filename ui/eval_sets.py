"""The Evaluate page's question sets: pick a saved one, add one (an upload, the sample's set, or
the answers rated on the Ask page), see its questions; and the form that starts a run of it."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pandas as pd
import streamlit as st

from rag_app.chat.feedback_rows import feedback_rows
from rag_app.evals.question_sets import (
    EvalQuestion,
    QuestionSetError,
    questions_of,
    read_question_set,
)
from rag_app.evals.runner import EvalRunner, unknown_documents
from rag_app.evals.store import QuestionSet, RunSettings
from rag_app.index.library import Library
from ui import resources, state
from ui.i18n import reason_text, t
from ui.sanitize import escape_label

ACCEPTED = ["jsonl", "json", "csv", "tsv", "xlsx"]


def render_set_picker(runner: EvalRunner, lib: Library, kb: str) -> QuestionSet | None:
    """The chosen set (added here or saved before), its questions shown; None when there is
    none yet."""
    store = runner.store
    # with sign-in, a user's sets are their own (and the shared ones)
    owner = state.principal().name if state.access().enforced else None
    with st.expander(t("eval_set_add"), icon="➕", expanded=not store.sets(owner)):
        _add_set(runner, lib)
    sets = store.sets(owner)
    if not sets:
        st.info(t("eval_no_set"), icon="🧪")
        return None
    ids = [s[0] for s in sets]
    labels = {i: t("eval_set_label", id=i, name=name, n=n) for i, name, n, _ in sets}
    if st.session_state.get("eval_set") not in ids:
        st.session_state["eval_set"] = ids[0]
    chosen = state.bound(
        st.selectbox, t("eval_set_pick"), "eval_set", options=ids, format_func=labels.get
    )
    questions = store.question_set(int(chosen))
    if questions is None:
        return None
    missing = unknown_documents(questions.questions, lib, kb)
    if missing:
        st.warning(
            t("eval_set_unknown_docs", n=len(missing), kb=kb, docs="、".join(missing[:5])),
            icon="⚠️",
        )
    st.dataframe(
        question_table(questions.questions),
        hide_index=True,
        width="stretch",
        height=min(38 + 35 * len(questions.questions), 300),
    )
    return questions


def question_table(questions: tuple[EvalQuestion, ...]) -> pd.DataFrame:
    rows = []
    for q in questions:
        where = ""
        if q.items:
            where = t("eval_where_items", items=", ".join(map(str, q.items)))
        elif q.pages:
            where = t("eval_where_pages", pages=", ".join(map(str, q.pages)))
        rows.append(
            {
                t("eval_col_id"): q.id,
                t("eval_col_question"): q.question,
                t("eval_col_expected"): " | ".join(q.expected),
                t("eval_col_document"): q.document,
                t("eval_col_where"): where,
                t("eval_col_history"): sum(1 for role, _ in q.history if role == "user"),
                t("eval_col_answerable"): t("eval_yes") if q.answerable else t("eval_no"),
            }
        )
    return pd.DataFrame(rows)


def _add_set(runner: EvalRunner, lib: Library) -> None:
    st.caption(t("eval_set_format"))
    # A new key after each import empties the uploader (the file is in the store now).
    key = f"eval_upload_{st.session_state.get('eval_upload_n', 0)}"
    upload = st.file_uploader(t("eval_set_upload"), type=ACCEPTED, key=key)
    if upload is not None:
        _keep(runner, upload.name, lambda: read_question_set(upload.getvalue(), upload.name))
    left, right = st.columns(2)
    if left.button(t("eval_set_sample"), icon="📋", width="stretch"):
        sample = resources.SAMPLE_EVAL_SET
        _keep(runner, sample.name, lambda: read_question_set(sample.read_bytes(), sample.name))
    log = resources.audit_log()
    rated = feedback_rows(log.records(rated=0, limit=2000), lib.chunks) if log else []
    if right.button(
        t("eval_set_feedback", n=len(rated)),
        icon="👍",
        width="stretch",
        disabled=not rated,
        help=t("eval_set_feedback_help"),
    ):
        name = t("eval_set_feedback_name", time=f"{datetime.now():%m-%d %H:%M}")
        _keep(runner, name, lambda: questions_of(enumerate(rated, start=1)))


def _keep(runner: EvalRunner, name: str, read: Any) -> None:
    try:
        questions = read()
    except QuestionSetError as exc:
        why = reason_text([exc.reason], str(exc))
        st.error(t("eval_set_bad", name=escape_label(name), why=why), icon="🚫")
        return
    set_id = runner.store.add_set(name, questions, user=state.principal().name)
    st.session_state["eval_upload_n"] = st.session_state.get("eval_upload_n", 0) + 1
    state.choose("eval_set", set_id)
    st.toast(t("eval_set_added", id=set_id, n=len(questions)), icon="✅")
    st.rerun()


def render_run_form(runner: EvalRunner, lib: Library, kb: str, chosen: QuestionSet) -> None:
    """How to run the set (mode, prompt mode, top-k, scope, answerer) and the buttons that
    start one run, or a smart and a hybrid run to compare."""
    st.markdown(f"#### {t('eval_run_settings')}")
    a, b, c = st.columns([2, 3, 2], vertical_alignment="bottom")
    mode = a.segmented_control(
        t("eval_mode"),
        ["smart", "hybrid"],
        format_func=lambda m: t("mode_" + m),
        default="smart",
        key="eval_mode",
    )
    prompt_mode = b.segmented_control(
        t("prompt_mode"),
        ["simple", "advanced", "precise"],
        format_func=lambda m: t("pmode_" + m),
        default="advanced",
        key="eval_prompt_mode",
    )
    top_k = c.number_input(
        t("eval_top_k"), min_value=1, max_value=50, value=lib.settings.top_k, key="eval_top_k"
    )
    d, e = st.columns(2)
    scope = d.radio(
        t("eval_scope"),
        ["kb", "doc"],
        format_func=lambda s: t("eval_scope_" + s),
        horizontal=True,
        key="eval_scope",
    )
    provider = state.provider_settings()
    answerers = ["offline", "model"] if provider is not None else ["offline"]
    answerer = e.radio(
        t("eval_answerer"),
        answerers,
        format_func=lambda a: t("eval_answerer_" + a, model=provider.model if provider else ""),
        horizontal=True,
        key="eval_answerer",
    )
    settings = RunSettings(
        kb=kb,
        mode=mode or "smart",
        prompt_mode=prompt_mode or "advanced",
        top_k=int(top_k),
        scope=scope or "kb",
        answerer=provider.model if answerer == "model" and provider else "offline",
    )
    llm = state.llm() if answerer == "model" else None
    left, right = st.columns(2)
    started: list[int] = []
    if left.button(t("eval_start"), type="primary", icon="▶️", width="stretch"):
        started.append(runner.start(chosen.id, settings, llm, user=state.principal().name))
    if right.button(t("eval_start_both"), icon="⚖️", width="stretch"):
        for each in ("smart", "hybrid"):
            started.append(
                runner.start(
                    chosen.id, _with_mode(settings, each), llm, user=state.principal().name
                )
            )
        st.session_state["eval_compare"] = (started[0], started[1])
    if started:
        st.session_state["eval_run"] = started[-1]
        st.toast(t("eval_started", id=", #".join(map(str, started))), icon="▶️")
        st.rerun()


def _with_mode(settings: RunSettings, mode: str) -> RunSettings:
    from dataclasses import replace

    return replace(settings, mode=mode)
