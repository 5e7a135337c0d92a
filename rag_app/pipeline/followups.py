"""The question as a conversation means it: a follow-up made standalone before retrieval.

``understand`` is what the pipeline, the evaluation and any client use: with a configured model
(and ``FollowUpSettings.model_rewrite``) the model rewrites the follow-up within a time limit
(rag_app.answer.rewrite); otherwise, or when that fails, what the earlier questions named carries
over (rag_app.understand.followup), with the library's report subjects as the names it knows.
"""

from __future__ import annotations

from collections.abc import Sequence

from rag_app.answer.base import LLM
from rag_app.answer.rewrite import RewriteFailed, rewrite_question
from rag_app.config import Settings
from rag_app.index.library import Library
from rag_app.models import Understood
from rag_app.understand.followup import standalone


def understand(
    question: str,
    earlier: Sequence[str],
    library: Library,
    kb: str,
    settings: Settings,
    llm: LLM | None = None,
) -> Understood:
    """``question`` made standalone from the ``earlier`` user questions (oldest first) of its
    conversation; ``llm`` None (or the offline answerer) means no model rewrite."""
    options = settings.followup
    earlier = (
        [q for q in earlier if q.strip()][-options.history_turns :] if options.history_turns else []
    )
    if not earlier:
        return Understood(question)
    note = ""
    if llm is not None and options.model_rewrite:
        try:
            text = rewrite_question(llm, question, earlier, options.rewrite_timeout_s)
        except RewriteFailed as exc:
            note = str(exc)
        else:
            return Understood(text, "model" if text != question else "")
    if options.carry_over:
        subjects = _subjects(library, kb)
        resolution = standalone(question, earlier, subjects, options.max_ellipsis_chars)
        if resolution.changed:
            return Understood(resolution.text, "carried", resolution.carried, note)
    return Understood(question, "", (), note)


def _subjects(library: Library, kb: str) -> set[str]:
    from rag_app.retrieve.subjects import subjects_by_document

    if kb not in library.knowledge_bases():
        return set()
    return {word for words in subjects_by_document(library, kb).values() for word in words}
