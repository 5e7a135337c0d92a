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
        chart = pd.DataFrame(
            [
                {
                    "section": f"{i + 1:02d} " + section_label(s, chunks),
                    t("tokens_sent"): s.tokens,
                    t("tokens_not_sent"): max(0, s.full_tokens - s.tokens),
                }
                for i, s in enumerate(report.sections)
            ]
        )
        st.bar_chart(
            chart,
            x="section",
            y=[t("tokens_sent"), t("tokens_not_sent")],
            horizontal=True,
            stack=True,
            sort=False,
            color=["#3b7dd8", "#e4572e"],
            x_label="",
            y_label="tokens",
            height=max(240, 30 * len(chart) + 60),
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
