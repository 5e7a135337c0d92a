"""The answer as it streams: the pipeline's stages in an ``st.status``, its tokens as they come."""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from typing import Any

import streamlit as st

from rag_app.answer import ExtractiveAnswerer
from rag_app.models import Answer, AskOptions
from rag_app.pipeline.ask import Pipeline
from rag_app.prompt import Turn
from ui.i18n import model_error_text, ms, relevance_text, t
from ui.sanitize import escape_label

_log = logging.getLogger(__name__)


def stream_answer(
    pipe: Pipeline, question: str, options: AskOptions, history: Sequence[Turn] = ()
) -> tuple[Answer | None, str]:
    """Run the pipeline, showing its stages in an ``st.status`` and the answer as it streams.

    Returns (Answer, "") or (None, failure message) when the pipeline raised before answering.
    Provider errors do not raise: the Answer keeps the streamed text and carries the error.
    """
    status = st.status(t("stage_retrieving"), expanded=False)
    holder: dict[str, Any] = {}
    # Quoted document text streams as written too (escaping is per character, so per piece).
    literal = pipe.answerer_name == ExtractiveAnswerer.name

    def tokens() -> Iterator[str]:
        for event in pipe.stream(question, options, history):
            if event.kind == "token":
                escaped = literal or holder.get("literal", False)
                yield escape_label(event.text) if escaped else event.text
            elif event.kind == "stage":
                _on_stage(status, event)
                if event.stage == "fallback":
                    # The offline answer quotes document text: stream it escaped, as written.
                    holder["literal"] = True
            elif event.kind == "retry":
                status.warning(t("retrying", text=event.text))
            elif event.kind == "error":
                holder["error"] = model_error_text(event.text, event.data.get("kind", ""))
            elif event.kind == "answer":
                holder["answer"] = event.answer

    try:
        st.write_stream(tokens())
    except Exception as exc:  # noqa: BLE001 - shown to the user; nothing half-saved
        # The exception's class goes to the log; the reader gets its words, or ours.
        _log.warning("the pipeline failed: %s: %s", type(exc).__name__, exc)
        status.update(label=t("stage_failed"), state="error")
        return None, str(exc) or t("stage_failed")
    answer: Answer | None = holder.get("answer")
    if answer is None:
        status.update(label=t("stage_failed"), state="error")
        return None, holder.get("error", t("stage_failed"))
    total = answer.timing("total_ms")
    status.update(
        label=t("stage_done", ms=ms(total)), state="error" if answer.error else "complete"
    )
    return answer, ""


def _on_stage(status: Any, event: Any) -> None:
    stage, data = event.stage, event.data
    if stage == "retrieving":
        status.update(label=t("stage_retrieving"))
    elif stage == "retrieved":
        status.write("✓ " + t("stage_retrieved", n=data.get("hits", 0)))
    elif stage == "expanded":
        status.write("✓ " + t("stage_expanded", n=len(data.get("queries", []))))
    elif stage == "checked":
        status.write("🔎 " + escape_label(data.get("note", "")))
    elif stage == "understood":
        status.write("✓ " + t("understood_as", question=escape_label(data.get("question", ""))))
    elif stage == "building_prompt":
        status.update(label=t("stage_building_prompt"))
    elif stage == "prompt_built":
        status.write("✓ " + t("stage_prompt_built", n=data.get("prompt_tokens", 0)))
    elif stage == "generating":
        status.update(label=t("stage_generating"))
    elif stage == "revising":
        status.update(label=relevance_text("stage_revising"))
