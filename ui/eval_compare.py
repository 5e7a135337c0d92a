"""The Evaluate page's comparison of two runs: regressions and improvements first, each question
openable before and after, then every metric's change."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from rag_app.evals.compare import QuestionChange, RunComparison, compare_runs
from rag_app.evals.store import EvalStore
from rag_app.index.library import Library
from ui.eval_runs import (
    delta_text,
    metric_text,
    pick_question,
    render_metrics,
    render_question,
    run_label,
)
from ui.i18n import t


def render_compare(store: EvalStore, lib: Library, kb: str) -> None:
    st.caption(t("eval_compare_caption"))
    runs = [r for r in store.runs(kb) if r.metrics is not None and not r.active]
    if len(runs) < 2:
        st.info(t("eval_compare_need"), icon="⚖️")
        return
    ids = [r.id for r in runs]
    labels = {r.id: run_label(r) for r in runs}
    # the pair just started side by side, else the two newest (older as the baseline)
    pair = st.session_state.get("eval_compare")
    before_id, after_id = pair if pair and set(pair) <= set(ids) else (ids[1], ids[0])
    left, right = st.columns(2)
    before_id = int(
        left.selectbox(t("eval_before"), ids, index=ids.index(before_id), format_func=labels.get)
        or before_id
    )
    after_id = int(
        right.selectbox(t("eval_after"), ids, index=ids.index(after_id), format_func=labels.get)
        or after_id
    )
    st.session_state["eval_compare"] = (before_id, after_id)
    comparison = compare_runs(store, before_id, after_id)
    before = next(r for r in runs if r.id == before_id)
    after = next(r for r in runs if r.id == after_id)
    if after.metrics is not None:
        render_metrics(after.metrics, against=before.metrics)
    st.markdown(
        "**"
        + t(
            "eval_counts",
            **{c: comparison.count(c) for c in ("regressed", "improved", "changed", "same")},
        )
        + "**"
    )
    if comparison.only_before or comparison.only_after:
        st.caption(
            t(
                "eval_only_one",
                before=len(comparison.only_before),
                after=len(comparison.only_after),
            )
        )
    shown = [c for c in comparison.changes if c.change != "same"] or list(comparison.changes)
    st.dataframe(changes_table(shown), hide_index=True, width="stretch")
    picked = pick_question(
        [f"{t('eval_change_' + c.change)} · {c.id} · {c.question}" for c in shown],
        f"eval_change_{before_id}_{after_id}",
    )
    if picked is not None:
        change = shown[picked]
        was, now = st.tabs([labels[before_id], labels[after_id]])
        with was:
            render_question(store, lib, before_id, change.before_position, change.before)
        with now:
            render_question(store, lib, after_id, change.after_position, change.after)
    st.dataframe(metrics_table(comparison), hide_index=True, width="stretch")


def changes_table(shown: list[QuestionChange]) -> pd.DataFrame:
    def flag(passed: bool) -> str:
        return "✅" if passed else "❌"

    return pd.DataFrame(
        [
            {
                t("eval_col_change"): t("eval_change_" + c.change),
                t("eval_col_id"): c.id,
                t("eval_col_question"): c.question,
                t("eval_before"): f"{flag(c.before.passed)} {c.before.short}".strip(),
                t("eval_after"): f"{flag(c.after.passed)} {c.after.short}".strip(),
                t("eval_col_rank"): f"{c.before.rank or '—'} → {c.after.rank or '—'}",
            }
            for c in shown
        ]
    )


def metrics_table(comparison: RunComparison) -> pd.DataFrame:
    arrows = {True: "🟢", False: "🔴", None: ""}  # better, worse
    return pd.DataFrame(
        [
            {
                t("eval_col_metric"): t("eval_metric_" + m.name),
                t("eval_before"): metric_text(m.name, m.before),
                t("eval_after"): metric_text(m.name, m.after),
                t("eval_col_delta"): f"{delta_text(m.name, m.after, m.before) or ''} "
                f"{arrows[m.better]}".strip(),
            }
            for m in comparison.metrics
        ]
    )
