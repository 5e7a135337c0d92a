"""The prompt inspector: the token budget (totals, tokens per section and why each section was
kept, cut or dropped) and the exact messages sent, as the core's prompt report gives them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd
import streamlit as st

from rag_app.models import Answer, Chunk
from ui.i18n import reason_text, t
from ui.render_hits import chunk_title


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


def section_label(section: Any, chunks: Mapping[str, Chunk]) -> str:
    """A short name for a prompt section: its source number and the chunk's title."""
    if section.kind != "source":
        return section.name
    chunk = chunks.get(section.chunk_id)
    title = chunk_title(chunk, 16) if chunk is not None else section.chunk_id
    return (f"S{section.source} · " if section.source else "✗ ") + title


def sections_frame(report: Any) -> pd.DataFrame:
    status = {"kept": t("status_kept"), "cut": t("status_cut"), "dropped": t("status_dropped")}
    return pd.DataFrame(
        [
            {
                t("col_section"): (f"[Source {s.source}] " if s.source else "") + s.name,
                t("col_kind"): s.kind,
                t("col_tokens"): s.tokens,
                t("col_full"): s.full_tokens,
                t("col_status"): status.get(s.status, s.status),
                t("col_reason"): reason_text((s.why,), s.reason) if s.why else s.reason,
            }
            for s in report.sections
        ]
    )


# The budget chart's colours: tokens sent, tokens of a section that did not fit.
SENT_COLOUR, NOT_SENT_COLOUR = "#3b7dd8", "#e4572e"
# The longest section label drawn whole beside its bar (pixels); the full one is in the tooltip.
LABEL_LIMIT_PX = 260


def budget_chart_rows(sections: Any, labels: list[str]) -> list[dict[str, object]]:
    """Two rows per prompt section (its tokens sent, its tokens not sent), in long form; ``o``
    orders the two within a bar (sent first)."""
    rows: list[dict[str, object]] = []
    for section, label in zip(sections, labels, strict=True):
        cut = max(0, section.full_tokens - section.tokens)
        rows.append({"section": label, "part": t("tokens_sent"), "tokens": section.tokens, "o": 0})
        rows.append({"section": label, "part": t("tokens_not_sent"), "tokens": cut, "o": 1})
    return rows


def budget_chart_spec(labels: list[str]) -> dict[str, Any]:
    """A Vega-Lite spec of the token budget: one stacked bar per section, in prompt order.

    Written as a spec rather than through st.bar_chart: no altair import on a process's first
    answer (0.4 s), and no zoom or pan bound to the wheel (scrolling the page over the chart
    scrolls the page). A long label is cut beside its bar and whole in the tooltip."""
    parts = [t("tokens_sent"), t("tokens_not_sent")]
    return {
        "height": {"step": 24},
        "mark": {"type": "bar"},
        "encoding": {
            "y": {
                "field": "section",
                "type": "nominal",
                "sort": labels,
                "title": None,
                "axis": {"labelLimit": LABEL_LIMIT_PX},
            },
            "x": {"field": "tokens", "type": "quantitative", "stack": "zero", "title": "tokens"},
            "color": {
                "field": "part",
                "type": "nominal",
                "scale": {"domain": parts, "range": [SENT_COLOUR, NOT_SENT_COLOUR]},
                "legend": {"orient": "bottom", "title": None},
            },
            "order": {"field": "o", "type": "quantitative"},
            "tooltip": [
                {"field": "section", "type": "nominal"},
                {"field": "part", "type": "nominal"},
                {"field": "tokens", "type": "quantitative"},
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
        labels = [f"{i + 1:02d} " + section_label(s, chunks) for i, s in enumerate(report.sections)]
        st.vega_lite_chart(
            budget_chart_rows(report.sections, labels),
            budget_chart_spec(labels),
            width="stretch",
        )
        st.dataframe(
            sections_frame(report),
            hide_index=True,
            width="stretch",
            height=min(36 * (len(report.sections) + 1) + 4, 560),
        )
        st.caption(t("counter_note", counter=report.counter))

        st.markdown(f"**{t('messages')}**")
        tabs = st.tabs([f"{i + 1} · {m['role']}" for i, m in enumerate(prompt.messages)])
        for tab, message in zip(tabs, prompt.messages, strict=True):
            with tab:
                content = message["content"]
                tall = content.count("\n") + len(content) // 90 > 18
                st.code(content, language=None, wrap_lines=True, height=420 if tall else "content")
