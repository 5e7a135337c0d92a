"""👍 / 👎 and a note under an answer (issue 27), stored with its audit record: the Audit page
lists and filters them and turns them into evaluation rows."""

from __future__ import annotations

import streamlit as st

from ui import resources, state
from ui.i18n import t


def render_feedback(audit_id: int, prefix: str) -> None:
    """The thumbs and the note of the answer whose audit record is ``audit_id``; nothing for
    an answer with no record (a log that cannot be written)."""
    log = resources.audit_log()
    if not audit_id or log is None:
        return
    left, right = st.columns([1, 6], vertical_alignment="center")
    with left:
        thumbs = st.feedback("thumbs", key=f"{prefix}feedback_{audit_id}")
    note = right.text_input(
        t("feedback_note"),
        key=f"{prefix}feedback_note_{audit_id}",
        placeholder=t("feedback_note_hint"),
        label_visibility="collapsed",
    )
    if thumbs is None:
        return
    rating = 1 if thumbs == 1 else -1
    given = f"feedback_given_{audit_id}"
    if st.session_state.get(given) != (rating, note):
        log.give_feedback(audit_id, rating, note, user=state.current_user())
        st.session_state[given] = (rating, note)
    st.caption(t("feedback_saved"))
