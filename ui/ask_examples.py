"""The sample's example questions on the Ask page, in the user's language: read from the
sample's question set (each entry says its ``lang``), with English questions of our own before
the set's two, shown as buttons that ask them."""

from __future__ import annotations

import json

import streamlit as st

from ui import resources
from ui.i18n import lang, t

# English questions over the bundled sample (assets/sample_report): the set has two only. Each
# is answered from the report by the offline answerer, a figure and its [Source N] first
# (tests/ui/test_ui_apptest.py asks them).
OWN_EXAMPLES: dict[str, tuple[str, ...]] = {
    "en": (
        "What was SMIC's revenue in 2024?",
        "What is SMIC's forecast P/E for 2026?",
        "What was SMIC's gross margin in 2024?",
        "What was SMIC's capacity utilization in Q2 2024?",
        "How much capital expenditure does the report expect SMIC to spend in 2025?",
        "What is SMIC's target price?",
    ),
}


@st.cache_data(show_spinner=False)
def example_questions(path: str, language: str = "zh") -> list[str]:
    """The example questions in ``language``: ours, then the question set's (an entry without
    a ``lang`` is Chinese); none when the set cannot be read."""
    try:
        with open(path, encoding="utf-8") as handle:
            entries = json.load(handle)
        asked = [
            entry["question"]
            for entry in entries
            if entry.get("question") and entry.get("lang", "zh") == language
        ]
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return []
    return list(dict.fromkeys([*OWN_EXAMPLES.get(language, ()), *asked]))


def ask_example(question: str) -> None:
    st.session_state["pending_question"] = question


def render_examples(expanded: bool) -> None:
    """The examples in two columns under an expander (none shown when the set is missing)."""
    examples = example_questions(str(resources.SAMPLE_QUESTIONS), lang())
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
            help=example,  # a long example is cut on its button: whole on hover
        )
