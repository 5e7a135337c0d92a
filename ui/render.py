"""Rendering one answer, composed from its parts, and the page-wide CSS and scrolling.

Everything shown comes from the ``Answer`` the pipeline returned (the UI computes nothing about
retrieval or support). The parts, each a module: the answer text and its citation check
(``render_citations``), the source cards (``render_sources``), the retrieval trace
(``render_hits``), the prompt inspector (``render_prompt``), the timings (``render_timings``);
the streamed answer is ``render_stream``.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import replace

import streamlit as st

from rag_app.index.library import Library
from rag_app.models import Answer, AskOptions
from ui.i18n import model_error_text, rewrite_note_text, t
from ui.render_citations import answer_sources, render_answer_text, render_citation_check
from ui.render_feedback import render_feedback
from ui.render_hits import render_retrieval
from ui.render_prompt import render_prompt
from ui.render_series import render_series
from ui.render_sources import render_sources
from ui.render_timings import render_timings

# The key of the container holding the Ask page's newest question and answer (see CSS).
LATEST_TURN = "latest_turn"


CSS = """
<style>
/* A citation jump lands the card's title in view, not just above the window; a new question
   brought into view lands below the header too. */
.rag-anchor, [data-testid="stChatMessage"] {scroll-margin-top: 4rem;}
/* Holds only a script (scroll_to_question): no box, so no gap between the messages. */
.st-key-scroll_to_question {display: none;}
/* The newest turn is at least about a window tall, so its question can be scrolled to the top
   of the window however short the answer is (and stays there when the answer is redrawn). */
.st-key-latest_turn {min-height: calc(100dvh - 10rem);}
.rag-src {line-height: 1.75; font-size: 0.95rem; white-space: normal; word-break: break-word;}
.rag-src mark, .rag-table td.rag-hit, .rag-table th.rag-hit {background: #fff1b8; padding: 0 2px; border-radius: 3px;}
/* A traced number's place, once its link is followed (ui/render_traced.py): the cell itself,
   or the sentence, marked apart from the quoted ones; the link reads as a number, underlined. */
.rag-table td:target, .rag-table th:target, .rag-src span.rag-at:target, .rag-meta span.rag-at:target {background: #ffd8a8; outline: 2px solid #e8590c; outline-offset: -1px; scroll-margin-top: 5rem; scroll-margin-bottom: 5rem;}
.rag-src span.rag-at:target mark {background: transparent;}
[class*="st-key-answer_"] a[href*="-cell-"], [class*="st-key-answer_"] a[href*="-text-"], [class*="st-key-answer_"] a[href*="-calc-"] {color: inherit; text-decoration: underline dotted #e8590c; text-underline-offset: 3px;}
/* A wide table scrolls inside its card; a long text cell wraps within a column of at most
   18em rather than stretching the table (issue 14), while a figure stays on one line. */
.rag-table {overflow-x: auto; max-width: 100%; margin: 0.25rem 0 0.5rem 0;}
.rag-table table {border-collapse: collapse; font-size: 0.85rem; min-width: 60%; max-width: none;}
.rag-table td, .rag-table th {border: 1px solid rgba(49, 51, 63, 0.18); padding: 4px 8px; text-align: center; vertical-align: top; white-space: normal; overflow-wrap: anywhere; word-break: normal; min-width: 4.5em; max-width: 18em;}
.rag-table td:first-child {text-align: left;}
.rag-table tr:first-child td, .rag-table th {background: rgba(49, 51, 63, 0.05); font-weight: 600;}
.rag-meta {color: rgba(49, 51, 63, 0.6); font-size: 0.82rem; margin-bottom: 0.35rem;}
.rag-quote {border-left: 3px solid #d9d9d9; padding-left: 0.6rem; margin: 0.2rem 0; font-size: 0.88rem;}
.rag-bad {border-left-color: #f5a623;}
/* Models write Markdown headings; inside an answer they should not outshout the page title. */
[class*="st-key-answer_"] h1, [class*="st-key-answer_"] h2 {font-size: 1.3rem !important; padding: 0.6rem 0 0.3rem 0 !important;}
[class*="st-key-answer_"] h3, [class*="st-key-answer_"] h4 {font-size: 1.1rem !important; padding: 0.5rem 0 0.2rem 0 !important;}
/* The sidebar's choices (the three prompt modes) on one line of its 300 px: narrower padding,
   and a label never broken inside its button. */
[data-testid="stSidebar"] [data-testid="stButtonGroup"] button {padding-left: 0.55rem; padding-right: 0.55rem; white-space: nowrap;}
</style>
"""


def inject_css() -> None:
    st.markdown(CSS, unsafe_allow_html=True)


# With the chat input in st.bottom the view no longer follows the page's end (that following is
# what pushed a section just opened out of the window), so a new question, drawn at the end,
# is brought to the top of the window once. A constant script: nothing user-written goes in.
# `run` differs per question, so a re-mount of the same element does not scroll again.
_SCROLL_TO_QUESTION = """<script>
(() => {
  const run = "%s";
  if (window.__ragScrolledFor === run) return;
  window.__ragScrolledFor = run;
  const avatars = document.querySelectorAll('[data-testid="stChatMessageAvatarUser"]');
  const message = avatars[avatars.length - 1]?.closest('[data-testid="stChatMessage"]');
  message?.scrollIntoView({block: "start", behavior: "smooth"});
})();
</script>"""


def scroll_to_question() -> None:
    """Scroll the newest question to the top of the window (call right after drawing it)."""
    with st.container(key="scroll_to_question"):
        st.html(_SCROLL_TO_QUESTION % uuid.uuid4().hex, unsafe_allow_javascript=True)


def answer_doc_names(
    answer: Answer | None, lib: Library, kb: str, known: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The names of the documents an answer's hits and sources come from: as ``known`` gives
    them (the library when the question was asked), else as the library has them now (a
    document imported meanwhile). Kept with the answer, so a document deleted since still shows
    its name on the answer's cards, not its id."""
    if answer is None:
        return {}
    wanted = {h.chunk.doc_id for h in answer.hits}
    wanted |= {s.hit.chunk.doc_id for s in answer_sources(answer)}
    names = {d.doc_id: d.name for d in lib.documents(kb) if d.doc_id in wanted}
    names.update({d: n for d, n in (known or {}).items() if d in wanted})
    return names


def worded(answer: Answer) -> Answer:
    """The answer to draw: what the core says of a model's failure (in both languages, with a
    detail) and of a rewrite not used (in English), in the user's language only."""
    changes: dict[str, object] = {}
    if answer.error:
        changes["error"] = model_error_text(answer.error, answer.error_kind)
    understood = answer.understood
    if understood is not None and understood.note:
        changes["understood"] = replace(understood, note=rewrite_note_text(understood.note))
    return replace(answer, **changes) if changes else answer  # type: ignore[arg-type]


def render_answer(
    answer: Answer,
    lib: Library,
    kb: str,
    options: AskOptions | None = None,
    prefix: str = "",
    details: bool = True,
    doc_names: Mapping[str, str] | None = None,
) -> None:
    """Everything about one answer, in reading order. ``doc_names`` (``answer_doc_names``, kept
    from when the answer was made) name its documents even if one was deleted since."""
    doc_names = {d.doc_id: d.name for d in lib.documents(kb)} | dict(doc_names or {})
    render_answer_text(worded(answer), prefix)
    render_citation_check(answer, prefix)
    render_series(answer.series, prefix, doc_names)
    render_feedback(answer.audit_id, prefix)
    sources = answer_sources(answer)
    st.markdown(
        f"**{t('sources')}** · <span class='rag-meta'>{t('sources_caption', n=len(sources))}"
        "</span>",
        unsafe_allow_html=True,
    )
    render_sources(answer, lib, kb, doc_names, prefix)
    if details:
        render_retrieval(answer, doc_names)
        render_prompt(answer)
    render_timings(answer, options)
