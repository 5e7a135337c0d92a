"""The sample's example questions on the Ask page: read from the sample's question set, shown
as buttons that ask them."""

from __future__ import annotations

import json

import streamlit as st

from ui import resources
from ui.i18n import t


@st.cache_data(show_spinner=False)
def example_questions(path: str) -> list[str]:
    try:
        with open(path, encoding="utf-8") as handle:
            return [entry["question"] for entry in json.load(handle) if entry.get("question")]
    except (OSError, ValueError, KeyError, TypeError):
        return []


def ask_example(question: str) -> None:
    st.session_state["pending_question"] = question


def render_examples(expanded: bool) -> None:
    """The examples in two columns under an expander (none shown when the set is missing)."""
    examples = example_questions(str(resources.SAMPLE_QUESTIONS))
    if not examples:
        return
    box = st.expander(f"💡 {t('examples')}", expanded=expanded)
    columns = box.columns(2)
    for i, example in enumerate(examples):
        columns[i % 2].button(
            example,
            key=f"example_{i}",
            on_click=ask_example,
            args=(example,),
            width="stretch",
        )
