"""Questions asked while the sample is still imported into 示例 (ui/startup.py): held, shown
with the import's progress under them, and answered one by one once the sample is in
(app.py's sample_progress.follow runs the page again then)."""

from __future__ import annotations

import streamlit as st

from ui import sample_progress
from ui.sanitize import escape_markdown_text
from ui.startup import SampleStatus


def next_question(
    question: str | None, kb: str | None, importing: bool, has_docs: bool
) -> str | None:
    """The question to answer in this run: none while the sample is imported (``question`` is
    held meanwhile); once it is in, the first held question of this base, the next after it
    (each answer ends with a rerun); those of another base are dropped."""
    held: list[tuple[str, str | None]] = st.session_state.setdefault("held_questions", [])
    if question and importing:
        held.append((question, kb))
        return None
    if held and not importing:
        waiting = [(q, base) for q, base in held if base == kb and has_docs]
        if question:
            waiting.append((question, kb))
        st.session_state["held_questions"] = waiting[1:]
        return waiting[0][0] if waiting else None
    return question


def render_held(sample: SampleStatus) -> None:
    """Each held question with a note that it is answered once the sample is in."""
    for waiting_question, _ in st.session_state.get("held_questions", []):
        with st.chat_message("user"):
            st.markdown(escape_markdown_text(waiting_question))
        with st.chat_message("assistant"):
            sample_progress.held_note(sample)
