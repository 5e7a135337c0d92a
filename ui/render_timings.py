"""An answer's timings per stage, the answerer and modes it ran with, and its token usage."""

from __future__ import annotations

import streamlit as st

from rag_app.answer import ExtractiveAnswerer
from rag_app.models import Answer, AskOptions
from ui.i18n import ms, t
from ui.sanitize import escape_label


def answerer_label(answerer: str, fallback_from: str = "") -> str:
    """Who answered, in the user's language: the offline answerer by what it is (and the model
    that failed, when it answered in its place), a model by its name."""
    if answerer != ExtractiveAnswerer.name:
        return answerer
    if fallback_from:
        return t("answerer_fallback", model=fallback_from)
    return t("answerer_offline_name")


def render_timings(answer: Answer, options: AskOptions | None = None) -> None:
    order = (
        "retrieve_ms",
        "prompt_ms",
        "first_token_ms",
        "generate_ms",
        "cite_ms",
        "self_rag_ms",
        "series_ms",
        "total_ms",
    )
    values = dict(answer.timings)
    parts = [f"{t('t_' + k)} {ms(values[k])}" for k in order if k in values]
    line = "⏱ " + " · ".join(parts)
    meta = [answerer_label(answer.answerer, answer.fallback_from)]
    if options is not None:
        meta += [t("mode_" + options.mode), t("pmode_" + options.prompt_mode)]
    line += "  \n🤖 " + " · ".join(escape_label(m) for m in meta)
    if answer.usage is not None:
        line += " · " + t(
            "usage",
            p=answer.usage.prompt_tokens,
            c=answer.usage.completion_tokens,
            est=t("usage_estimated") if answer.usage.estimated else "",
        )
    st.caption(line)
