"""The Evaluate page's runs: the list (kept current while one is running), the open run's
metrics, its questions, and one question drilled into (its answer drawn as the Ask page drew it:
hits, prompt, citations and their check, from the saved turn the run kept)."""

from __future__ import annotations

from dataclasses import asdict

import pandas as pd
import streamlit as st

from rag_app.chat.saved_turns import turn_from_json
from rag_app.evals.export import csv_bytes, json_bytes
from rag_app.evals.scoring import QuestionResult, RunMetrics
from rag_app.evals.store import EvalRun, EvalStore
from rag_app.index.library import Library
from ui.i18n import t, type_label
from ui.render_saved import render_saved
from ui.sanitize import escape_label

# How often the list is read again while a run is active (seconds).
POLL_S = 1.0
# The metrics drawn as a run's headline, in this order; the rest are in the table.
HEADLINE = (
    "passed",
    "recall_at_k",
    "answer_holds",
    "em",
    "declined_unanswerable",
    "latency_ms_p50",
)
_COUNT_OF = {
    "recall_at_1": "n_gold",
    "recall_at_3": "n_gold",
    "recall_at_k": "n_gold",
    "mrr": "n_gold",
    "answer_holds": "n_expected",
    "em": "n_expected",
    "f1": "n_expected",
    "declined_unanswerable": "n_unanswerable",
    "routing_right": "n_routing",
}


def status_label(run: EvalRun) -> str:
    return t("eval_status_" + run.status)


def run_label(run: EvalRun) -> str:
    return t(
        "eval_run_label",
        id=run.id,
        set=run.set_name,
        mode=t("mode_" + run.settings.mode),
        status=status_label(run),
    )


def metric_text(name: str, value: float | int | None) -> str:
    if value is None:
        return "—"
    if name.startswith("n") or name.startswith("latency"):
        return f"{value:g}"
    if name in ("em", "f1"):
        return f"{value:.1f}"
    if name == "mrr":
        return f"{value:.3f}"
    return f"{100 * value:.1f}%"


def _settings_text(run: EvalRun) -> str:
    s = run.settings
    return " · ".join(
        [
            t("mode_" + s.mode),
            t("pmode_" + s.prompt_mode),
            f"top-k {s.top_k or '—'}",
            t("eval_scope_" + s.scope),
            t("eval_answerer_offline") if s.answerer == "offline" else s.answerer,
        ]
    )


def render_runs(store: EvalStore, lib: Library, kb: str) -> None:
    """The runs of ``kb`` and the open one; read again every POLL_S while any is active."""
    active = any(run.active for run in store.runs(kb, limit=20))
    _runs_fragment(store, lib, kb, active)


def _runs_fragment(store: EvalStore, lib: Library, kb: str, active: bool) -> None:
    @st.fragment(run_every=POLL_S if active else None)
    def draw() -> None:
        runs = store.runs(kb)
        if active and not any(run.active for run in runs):
            st.rerun()  # the last one finished: the whole page again, without the polling
        _draw_runs(store, lib, runs)

    draw()


def _draw_runs(store: EvalStore, lib: Library, runs: list[EvalRun]) -> None:
    st.markdown(f"#### {t('eval_runs')}")
    if not runs:
        st.caption(t("eval_runs_empty"))
        return
    for run in runs:
        if run.active:
            done = run.n_done / run.n_total if run.n_total else 0.0
            bar, button = st.columns([6, 1], vertical_alignment="center")
            bar.progress(
                done, text=t("eval_progress", id=run.id, done=run.n_done, total=run.n_total)
            )
            if button.button(
                t("eval_cancel"),
                key=f"eval_cancel_{run.id}",
                icon="⏹️",
                disabled=not _may_run(run),
            ):
                store.request_cancel(run.id)
                st.toast(t("eval_cancelling"), icon="⏹️")
    st.dataframe(runs_table(runs), hide_index=True, width="stretch")
    ids = [run.id for run in runs]
    if st.session_state.get("eval_run") not in ids:
        st.session_state["eval_run"] = ids[0]
    chosen = st.selectbox(
        t("eval_open_run"),
        ids,
        index=ids.index(st.session_state["eval_run"]),
        format_func=lambda i: run_label(next(r for r in runs if r.id == i)),
        # keyed by what it lists: a run's status changing draws its label anew
        key=f"eval_open_{hash(tuple(run_label(r) for r in runs))}",
    )
    st.session_state["eval_run"] = chosen
    run = next(r for r in runs if r.id == chosen)
    render_run(store, lib, run)


def runs_table(runs: list[EvalRun]) -> pd.DataFrame:
    rows = []
    for run in runs:
        m = run.metrics or RunMetrics()
        rows.append(
            {
                t("eval_col_run"): f"#{run.id}",
                t("eval_col_set"): run.set_name,
                t("eval_col_settings"): _settings_text(run),
                t("eval_col_status"): status_label(run),
                t("eval_col_progress"): f"{run.n_done}/{run.n_total}",
                **{
                    t("eval_metric_" + name): metric_text(name, getattr(m, name))
                    for name in HEADLINE
                },
                t("eval_col_created"): run.created.replace("T", " ")[:16],
            }
        )
    return pd.DataFrame(rows)


def render_run(store: EvalStore, lib: Library, run: EvalRun) -> None:
    """One run: its state and actions, its metrics, its questions and the one picked."""
    st.markdown(f"##### {escape_label(run_label(run))}")
    st.caption(_settings_text(run))
    if run.status == "failed":
        st.error(t("eval_failed", error=run.error), icon="🚫")
    if run.status == "interrupted":
        st.info(t("eval_interrupted_help"), icon="⏸️")
    _actions(store, run)
    if run.metrics is not None:
        render_metrics(run.metrics)
    results = store.results(run.id)
    if not results:
        return
    st.markdown(f"#### {t('eval_questions')}")
    show = st.segmented_control(
        t("eval_filter"),
        ["all", "failed", "passed"],
        format_func=lambda f: t("eval_filter_" + f),
        default="all",
        key=f"eval_filter_{run.id}",
    )
    shown = [r for r in results if show in (None, "all") or (r.result.passed == (show == "passed"))]
    st.dataframe(
        question_results_table([r.result for r in shown]), hide_index=True, width="stretch"
    )
    labels = [
        f"{'✅' if r.result.passed else '❌'} {r.result.id} · {r.result.question}" for r in shown
    ]
    picked = pick_question(labels, f"eval_question_{run.id}_{show}")
    if picked is not None:
        stored = shown[picked]
        render_question(store, lib, run.id, stored.position, stored.result)


def pick_question(labels: list[str], key: str) -> int | None:
    """The index of the question picked among ``labels`` in a selectbox (none at first)."""
    picked = st.selectbox(
        t("eval_pick_question"),
        [None, *range(len(labels))],
        format_func=lambda i: "—" if i is None else labels[i],
        key=key,
    )
    return None if picked is None else int(picked)


def _actions(store: EvalStore, run: EvalRun) -> None:
    from ui import resources, state

    a, b, c, d = st.columns(4)
    may = _may_run(run)  # a reader of its knowledge base: the results, not the controls
    if may and run.status in ("interrupted", "cancelled", "failed") and run.n_done < run.n_total:
        # a model's run goes on with the user's model, the one it was started with
        llm = state.llm() if run.settings.answerer != "offline" else None
        missing = run.settings.answerer != "offline" and llm is None
        if a.button(
            t("eval_resume"),
            key=f"eval_resume_{run.id}",
            icon="▶️",
            width="stretch",
            disabled=missing,
            help=t("eval_resume_model", model=run.settings.answerer) if missing else None,
        ):
            runner = resources.eval_runner()
            if runner is not None:
                runner.resume(run.id, llm)
            st.rerun()
    if not run.active and may:
        if b.button(t("eval_delete"), key=f"eval_delete_{run.id}", icon="🗑️", width="stretch"):
            store.delete_run(run.id)
            st.session_state.pop("eval_run", None)
            st.rerun()
    results = store.results(run.id) if not run.active else []
    if results:
        c.download_button(
            t("eval_export_csv"),
            data=csv_bytes(results),
            file_name=f"eval-run-{run.id}.csv",
            mime="text/csv",
            icon="⬇️",
            width="stretch",
        )
        d.download_button(
            t("eval_export_json"),
            data=json_bytes(run, results),
            file_name=f"eval-run-{run.id}.json",
            mime="application/json",
            icon="⬇️",
            width="stretch",
        )


def _may_run(run: EvalRun) -> bool:
    """Whether this user may resume, cancel or delete ``run``: their own, or any of a knowledge
    base they edit (issue 28; the API's rule)."""
    from ui import state

    return run.user == state.principal().name or state.allows(run.settings.kb, "editor")


def delta_text(name: str, new: float | None, old: float | None) -> str | None:
    """The change from ``old`` to ``new`` as the metric is written (None when either is
    missing)."""
    if new is None or old is None:
        return None
    change = new - old
    if abs(change) < 1e-9:
        return None  # no arrow for no change
    if name.startswith("latency") or name.startswith("n"):
        return f"{change:+g}"
    if name in ("em", "f1"):
        return f"{change:+.1f}"
    return f"{100 * change:+.1f}%"


def render_metrics(metrics: RunMetrics, against: RunMetrics | None = None) -> None:
    """The headline metrics, each with its count of questions (and its change against
    ``against``), and every metric under a help icon."""
    values = asdict(metrics)
    columns = st.columns(len(HEADLINE))
    for column, name in zip(columns, HEADLINE, strict=True):
        old = getattr(against, name) if against is not None else None
        delta = delta_text(name, values[name], old)
        count = values.get(_COUNT_OF.get(name, "n"))
        column.metric(
            t("eval_metric_" + name),
            metric_text(name, values[name]),
            delta=delta,
            delta_color="inverse" if name.startswith("latency") else "normal",
            help=t("eval_metric_of", n=count) if count is not None else None,
        )
    st.caption(t("eval_metrics_help"))


def question_results_table(results: list[QuestionResult]) -> pd.DataFrame:
    def flag(value: bool | None) -> str:
        return "" if value is None else ("✅" if value else "❌")

    return pd.DataFrame(
        [
            {
                t("eval_col_passed"): flag(r.passed),
                t("eval_col_id"): r.id,
                t("eval_col_question"): r.question,
                t("eval_col_expected"): " | ".join(r.expected)
                or ("" if r.answerable else t("eval_unanswerable_line")),
                t("eval_col_short"): r.short,
                t("eval_col_rank"): str(r.rank)
                if r.rank is not None
                else ("—" if r.has_gold else ""),
                t("eval_col_holds"): flag(r.holds),
                t("eval_metric_em"): "" if r.em is None else f"{100 * r.em:.0f}",
                t("eval_col_declined"): flag(r.declined) if not r.answerable or r.declined else "",
                t("eval_col_routing"): _routing(r),
                t("eval_col_latency"): round(r.latency_ms),
                t("eval_col_error"): r.error,
            }
            for r in results
        ]
    )


def _routing(result: QuestionResult) -> str:
    if result.routing_right is None:
        return type_label(result.routing) if result.routing else ""
    chosen = type_label(result.routing) if result.routing else t("eval_routing_all")
    return f"{'✅' if result.routing_right else '❌'} {chosen}"


def render_question(
    store: EvalStore, lib: Library, run_id: int, position: int, result: QuestionResult
) -> None:
    """One question of a run: what was expected, and its answer drawn whole."""
    with st.container(border=True):
        st.markdown(
            "**"
            + escape_label(t("eval_question_head", id=result.id, question=result.question))
            + "**"
        )
        if result.expected:
            st.caption(escape_label(t("eval_expected_line", expected=" | ".join(result.expected))))
        elif not result.answerable:
            st.caption(t("eval_unanswerable_line"))
        turn = store.turn(run_id, position)
        if not turn:
            st.caption(t("eval_no_turn"))
            return
        render_saved(turn_from_json(turn), lib, prefix=f"ev{run_id}_{position}_")
