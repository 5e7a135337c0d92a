"""The Compare page's result: where smart and hybrid differ and why (a summary line with the
routing's reason, each mode's top hits with how their places changed), and each mode's column
with its answer, citation check, sources and timings (ui/compare_diff.py computes the diff; the
run: ui/compare_run.py; this module only words and draws them)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd
import streamlit as st

from rag_app.index.library import Library
from rag_app.models import Hit, Routing
from ui.compare_diff import HitsDiff, Place, diff_hits
from ui.i18n import labelled, reason_text, t, type_label
from ui.render import worded
from ui.render_citations import render_answer_text, render_citation_check
from ui.render_hits import TYPE_ICONS, chunk_title, preferred_type, render_routing
from ui.render_sources import render_sources
from ui.render_timings import render_timings
from ui.sanitize import escape_label, escape_markdown_text

MODES = ("smart", "hybrid")
TOP_HITS = 8
_ARROWS = {"up": "↑", "down": "↓"}


def change_label(place: Place) -> str:
    """How a hit's place changed from hybrid to smart: ``↑ 5→2``, ``↓ 1→3``, ``=``, or found by
    one mode only (★)."""
    change = place.change
    if change in ("smart_only", "hybrid_only"):
        return t(f"change_{change}")
    if change == "same":
        return "="
    return f"{_ARROWS[change]} {place.hybrid}→{place.smart}"


def diff_summary(diff: HitsDiff, routing: Routing | None) -> tuple[str, str]:
    """The summary line and the line saying why, e.g. ("智能模式优先表格（置信度 0.91）：3 处排名
    变化，1 条仅智能找到", "原因：…"); identical tops say so, with the routing's reason."""
    preferred = preferred_type(routing)
    why = (
        labelled("routing_reason", reason_text((routing.why,), routing.reason))
        if routing is not None
        else ""
    )
    if diff.identical:
        line = t("diff_same", n=len(diff.smart))
        if preferred:  # preferred, yet hybrid had already ranked that type first
            line += t("reason_separator") + t("diff_same_preferred", type=type_label(preferred))
        return line, why
    head = (
        t("diff_preferred", type=type_label(preferred), confidence=routing.confidence)
        if preferred and routing is not None
        else t("diff_unrouted")
    )
    counts = [t("diff_moved", n=len(diff.moved))]
    if diff.smart_only:
        counts.append(t("diff_smart_only", n=len(diff.smart_only)))
    if diff.hybrid_only:
        counts.append(t("diff_hybrid_only", n=len(diff.hybrid_only)))
    return head + t("colon") + t("diff_separator").join(counts), why


def render_diff_summary(diff: HitsDiff, routing: Routing | None) -> None:
    line, why = diff_summary(diff, routing)
    st.markdown("⚖️ **" + escape_label(line) + "**")
    if why:
        st.caption(escape_label(why))


def _row_style(row: pd.Series, changes: Sequence[str]) -> list[str]:
    position = int(row.name)  # type: ignore[arg-type]
    change = changes[position] if position < len(changes) else ""
    if change in ("smart_only", "hybrid_only"):
        colour = "background-color: rgba(46, 160, 67, 0.16)"
    elif change in ("up", "down"):
        colour = "background-color: rgba(255, 190, 0, 0.16)"
    else:
        colour = ""
    return [colour] * len(row)


def compare_hits_table(
    hits: Sequence[Hit], doc_names: Mapping[str, str], places: Sequence[Place]
) -> pd.DataFrame:
    """A mode's top hits with how each one's place changed (``places`` in the same order; a
    hit without one, when the other mode failed, has an empty change)."""
    return pd.DataFrame(
        [
            {
                t("col_rank"): hit.rank,
                t("col_change"): change_label(places[n]) if n < len(places) else "",
                t("col_type"): f"{TYPE_ICONS.get(hit.chunk.type, '')} {type_label(hit.chunk.type)}",
                t("col_score"): round(hit.score, 3),
                t("col_doc"): doc_names.get(hit.chunk.doc_id, hit.chunk.doc_id),
                t("col_page"): ", ".join(str(p + 1) for p in hit.chunk.pages),
                t("col_strategy"): hit.strategy,
                t("col_preview"): chunk_title(hit.chunk, 40),
            }
            for n, hit in enumerate(hits)
        ]
    )


def render_compare_hits(
    hits: Sequence[Hit], doc_names: Mapping[str, str], places: Sequence[Place]
) -> None:
    """The table, rows that moved shaded amber and rows only this mode found shaded green."""
    frame = compare_hits_table(hits, doc_names, places)
    changes = [p.change for p in places]
    styled = (
        frame.style.apply(_row_style, axis=1, changes=changes).format(precision=3)
        if len(frame)
        else frame
    )
    st.dataframe(styled, hide_index=True, width="stretch")


def render_comparison(comparison: Mapping[str, Any], lib: Library) -> None:
    """The question compared, where the modes' hits differ, and a column per mode."""
    kb_of = comparison["kb"]
    doc_names = {d.doc_id: d.name for d in lib.documents(kb_of)}
    label = t("compare_question") + t("colon").strip()
    st.markdown(f"**{label}** {escape_markdown_text(comparison['question'])}")
    smart, hybrid = (comparison[m].get("answer") for m in MODES)
    places: dict[str, tuple[Place, ...]] = {m: () for m in MODES}
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


def render_column(
    mode: str,
    result: Mapping[str, Any],
    lib: Library,
    kb: str,
    doc_names: Mapping[str, str],
    places: Sequence[Place],
) -> None:
    """One mode's routing, top hits, prompt size, answer, citation check, sources, timings."""
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
    render_answer_text(worded(answer), prefix=mode)
    render_citation_check(answer, prefix=mode)
    st.markdown(f"**{t('sources')}**")
    render_sources(answer, lib, kb, doc_names, prefix=mode)
    render_timings(answer, options)
