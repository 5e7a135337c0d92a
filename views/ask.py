"""问答 / Ask: a multi-turn chat over a knowledge base, answers streamed with their evidence
(the parts: ui/ask_sidebar.py, ui/conversation_sidebar.py, ui/ask_examples.py,
ui/held_questions.py, ui/chat_turns.py)."""

from __future__ import annotations

import streamlit as st

from ui import resources, sample_progress, state
from ui.ask_examples import render_examples
from ui.ask_sidebar import ask_sidebar
from ui.chat_turns import answer_question, render_turns
from ui.conversation_sidebar import keep_in_address
from ui.held_questions import next_question, render_held
from ui.i18n import t

lib = resources.library()
ask_sidebar(lib, state.current_kb(lib))
kb = state.current_kb(lib)
keep_in_address()

st.markdown(f"## 💬 {t('ask_title')}")
st.caption(t("ask_caption"))
note = st.session_state.pop("_conversation_note", None)
if note:
    st.info(t(note), icon="🗂️")

# While the sample is imported into 示例 in the background (ui/startup.py), the page works: a
# question asked meanwhile is held, with the import's progress under it, and answered once the
# sample is in (ui/held_questions.py).
sample = resources.sample_status()
importing = kb == resources.SAMPLE_KB and sample.importing
has_docs = bool(kb and lib.documents(kb)) and not importing
if not kb:
    st.info(t("no_kb"), icon="📚")
    st.page_link("views/library.py", label=t("go_library"), icon="📚")
elif importing:
    sample_progress.progress_bar(sample)
elif not has_docs:
    if kb == resources.SAMPLE_KB and sample.state == "failed":
        sample_progress.failure(sample)
    st.info(t("kb_empty", kb=kb), icon="📚")
    st.page_link("views/library.py", label=t("go_library"), icon="📚")

# In st.bottom, not at the top level: a top-level chat input makes Streamlit keep the view
# pinned to the page's end, so a section opened after an answer pushed its own title out of the
# window and the reader could not stay where they were. The input still sits at the window's
# bottom; a new question is scrolled into view by scroll_to_question instead.
with st.bottom:
    typed = st.chat_input(
        t("chat_placeholder"), key="question", disabled=not (has_docs or importing)
    )
question = next_question(
    typed or st.session_state.pop("pending_question", None), kb, importing, has_docs
)
asking = bool(question and kb and has_docs)

turns: list[state.ChatTurn] = st.session_state["turns"]
if kb == resources.SAMPLE_KB and has_docs:
    # Closed already while the first question is answered: closing it afterwards would move
    # that question up, out of the place it was scrolled to.
    render_examples(expanded=not turns and not asking)

render_turns(turns, lib, asking)
if importing:
    render_held(sample)
if asking and question and kb:
    answer_question(lib, kb, question, turns)
