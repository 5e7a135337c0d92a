"""The prompt inspector: the token budget (totals, tokens per section and why each section was
kept, cut or dropped) and the exact messages sent, as the core's prompt report gives them."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import pandas as pd
import streamlit as st

from rag_app.models import Answer, Chunk
from ui.i18n import TEXTS, reason_text, t, type_label
from ui.render_hits import chunk_title, display_units, fitted_columns, text_width


def render_token_totals(report: Any) -> None:
    """The prompt's token totals as metrics: used (and the limit in the label)."""
    cols = st.columns(5)
    cols[0].metric(t("prompt_tokens"), f"{report.prompt_tokens:,}")
    cols[1].metric(
        t("context_limit", limit=f"{report.context_limit:,}"), f"{report.context_tokens:,}"
    )
    cols[2].metric(
        t("history_limit", limit=f"{report.history_limit:,}"), f"{report.history_tokens:,}"
    )
    cols[3].metric(t("answer_reserve"), f"{report.answer_reserve:,}")
    cols[4].metric(
        t("window_total", window=f"{report.context_window:,}"), f"{report.total_tokens:,}"
    )


def _source_parts(section: Any, chunks: Mapping[str, Chunk]) -> tuple[str, str, str]:
    """A source section's (type, title, sub-tables merged): from its label, else (a turn saved
    before sections had labels) from its chunk and its name."""
    label = section.label
    if label is not None and label.key == "part_source":
        return label.value("type"), label.value("title"), label.value("merged")
    chunk = chunks.get(section.chunk_id)
    merged = re.search(r"sub-tables (\S+) merged", section.name)
    return (
        chunk.type if chunk is not None else "",
        chunk_title(chunk, 60) if chunk is not None else section.chunk_id,
        merged.group(1) if merged else "",
    )


def section_label(section: Any, chunks: Mapping[str, Chunk], details: bool = True) -> str:
    """A prompt section's name in the user's language: ``[来源 1] 表9：…（表格）`` for a source
    (``✗ 未发送 …`` when it was not sent; the type only with ``details``), ``历史对话 第 1/2 轮``
    for a history turn, the kind's label for the rest."""
    if section.kind == "source":
        kind, title, merged = _source_parts(section, chunks)
        head = t("source_marker", n=section.source) if section.source else t("part_not_sent")
        tail = ""
        if details and merged:
            tail = t("part_source_merged", type=type_label(kind), parts=merged)
        elif details and kind:
            tail = t("part_source_type", type=type_label(kind))
        return f"{head} {title}{tail}"
    if section.kind == "history":
        label = section.label
        turn = re.fullmatch(r"history turn (\d+)/(\d+)", section.name)
        if label is not None and label.key == "part_history":
            return t("part_history", turn=label.value("turn"), turns=label.value("turns"))
        if turn is not None:
            return t("part_history", turn=turn.group(1), turns=turn.group(2))
        return t("part_history_any")
    key = f"part_{section.kind}"
    return t(key) if key in TEXTS else section.name


def kind_label(kind: str) -> str:
    key = f"kind_{kind}"
    return t(key) if key in TEXTS else kind


def role_label(role: str) -> str:
    key = f"role_{role}"
    return t(key) if key in TEXTS else role


def sections_frame(report: Any, chunks: Mapping[str, Chunk] | None = None) -> pd.DataFrame:
    status = {"kept": t("status_kept"), "cut": t("status_cut"), "dropped": t("status_dropped")}
    chunks = chunks or {}
    return pd.DataFrame(
        [
            {
                t("col_section"): section_label(s, chunks),
                t("col_kind"): kind_label(s.kind),
                t("col_tokens"): s.tokens,
                t("col_full"): s.full_tokens,
                t("col_status"): status.get(s.status, s.status),
                t("col_reason"): reason_text((s.why,), s.reason) if s.why else s.reason,
                t("col_chunk_id"): s.chunk_id,
            }
            for s in report.sections
        ]
    )


# The widest the sections table's first column gets pinned: the rest stays in view beside it.
SECTION_COLUMN_PX = 420


def sections_columns(frame: pd.DataFrame) -> dict[str, Any]:
    """The sections table's text columns sized to their content (the table scrolls sideways
    rather than cut a name or a reason short: the grid has no tooltip on a cell), with what
    each holds on hovering its header. The section's name stays pinned on the left when it is
    narrow enough to leave the rest in view."""
    helps = {t("col_reason"): t("col_reason_help"), t("col_chunk_id"): t("col_chunk_id_help")}
    section = t("col_section")
    columns = fitted_columns(frame, (t("col_kind"), t("col_reason"), t("col_chunk_id")), helps)
    width = text_width([section, *frame[section]])
    columns[section] = st.column_config.TextColumn(
        section, width=width, pinned=width <= SECTION_COLUMN_PX
    )
    return columns


# The budget chart's colours: tokens sent, tokens of a section that did not fit.
SENT_COLOUR, NOT_SENT_COLOUR = "#3b7dd8", "#e4572e"
# A section's label beside its bar wraps at about this many narrow characters (a wide one counts
# two) into at most ``LABEL_LINES`` lines, ~250 px at the axis' 11 px font; the label's full
# text is in the bar's tooltip.
LABEL_UNITS, LABEL_LINES = 44, 3
LABEL_LIMIT_PX = 280  # per line: what the wrap leaves always fits
LINE_PX = 13


def wrap_label(text: str, units: int = LABEL_UNITS, lines: int = LABEL_LINES) -> list[str]:
    """``text`` in lines of at most ``units`` (a wide character counts two), broken at a space
    when one is near, at most ``lines`` of them (the last one ending in … when cut)."""
    out: list[str] = []
    rest = text
    while rest and len(out) < lines:
        width, cut = 0, len(rest)
        for i, char in enumerate(rest):
            width += display_units(char)
            if width > units:
                cut = i
                break
        if cut < len(rest):
            space = rest.rfind(" ", 0, cut)
            cut = space if space > cut // 2 else cut
        out.append(rest[:cut].rstrip())
        rest = rest[cut:].lstrip()
    if rest:
        out[-1] = out[-1][:-1] + "…"
    return out


def budget_chart_rows(
    sections: Any, labels: list[str], full: list[str] | None = None
) -> list[dict[str, object]]:
    """Two rows per prompt section (its tokens sent, its tokens not sent), in long form;
    ``section`` is its label beside the bar (lines joined by a newline), ``name`` its whole
    name for the tooltip; ``o`` orders the two within a bar (sent first)."""
    rows: list[dict[str, object]] = []
    full = full or labels
    for section, label, name in zip(sections, labels, full, strict=True):
        cut = max(0, section.full_tokens - section.tokens)
        for part, tokens, order in (
            (t("tokens_sent"), section.tokens, 0),
            (t("tokens_not_sent"), cut, 1),
        ):
            rows.append(
                {"section": label, "name": name, "part": part, "tokens": tokens, "o": order}
            )
    return rows


def budget_chart_spec(labels: list[str]) -> dict[str, Any]:
    """A Vega-Lite spec of the token budget: one stacked bar per section, in prompt order.

    Written as a spec rather than through st.bar_chart: no altair import on a process's first
    answer (0.4 s), and no zoom or pan bound to the wheel (scrolling the page over the chart
    scrolls the page). A label is drawn on its lines (``wrap_label``, joined by newlines), each
    line whole; the tooltip names the section whole, in the user's language."""
    parts = [t("tokens_sent"), t("tokens_not_sent")]
    lines = max((label.count("\n") + 1 for label in labels), default=1)
    return {
        "height": {"step": max(24, lines * LINE_PX + 8)},
        "mark": {"type": "bar"},
        "encoding": {
            "y": {
                "field": "section",
                "type": "nominal",
                "sort": labels,
                "title": None,
                "axis": {
                    "labelLimit": LABEL_LIMIT_PX,
                    "labelExpr": "split(datum.label, '\\n')",
                    "labelLineHeight": LINE_PX,
                },
            },
            "x": {
                "field": "tokens",
                "type": "quantitative",
                "stack": "zero",
                "title": t("chart_tokens"),
            },
            "color": {
                "field": "part",
                "type": "nominal",
                "scale": {"domain": parts, "range": [SENT_COLOUR, NOT_SENT_COLOUR]},
                "legend": {"orient": "bottom", "title": None},
            },
            "order": {"field": "o", "type": "quantitative"},
            "tooltip": [
                {"field": "name", "type": "nominal", "title": t("chart_part")},
                {"field": "part", "type": "nominal", "title": t("chart_sent")},
                {"field": "tokens", "type": "quantitative", "title": t("chart_tokens")},
            ],
        },
    }


def render_prompt(answer: Answer) -> None:
    prompt = answer.prompt
    with st.expander(f"🧾 {t('prompt_inspector')}", expanded=False):
        if prompt is None:
            st.caption(t("no_prompt"))
            return
        report = prompt.report
        render_token_totals(report)
        st.markdown(f"**{t('tokens_by_section')}**")
        chunks = {h.chunk.chunk_id: h.chunk for h in answer.hits}
        chunks.update({s.hit.chunk.chunk_id: s.hit.chunk for s in prompt.sources})
        names = [
            f"{i + 1:02d} " + section_label(s, chunks, details=False)
            for i, s in enumerate(report.sections)
        ]
        labels = ["\n".join(wrap_label(name)) for name in names]
        st.vega_lite_chart(
            budget_chart_rows(report.sections, labels, names),
            budget_chart_spec(labels),
            width="stretch",
        )
        frame = sections_frame(report, chunks)
        st.dataframe(
            frame,
            hide_index=True,
            width="stretch",
            height=min(36 * (len(report.sections) + 1) + 4, 560),
            column_config=sections_columns(frame),
        )
        st.caption(t("counter_note", counter=report.counter))

        st.markdown(f"**{t('messages')}**")
        tabs = st.tabs(
            [f"{i + 1} · {role_label(m['role'])}" for i, m in enumerate(prompt.messages)]
        )
        for tab, message in zip(tabs, prompt.messages, strict=True):
            with tab:
                content = message["content"]
                tall = content.count("\n") + len(content) // 90 > 18
                st.code(content, language=None, wrap_lines=True, height=420 if tall else "content")
