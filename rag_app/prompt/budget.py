"""Fitting sources, history and the question into the token budget.

Order of priority: the system message, the instructions and the question are always sent (the
question is cut only if it alone would overflow the model's window); then sources, in score
order, up to ``context_budget`` (seed 001's context builder); then earlier turns, newest first,
up to ``history_budget`` (seed 002). ``answer_reserve`` tokens stay free for the answer.

Every decision is recorded as a ``Section`` with its token count, its status (kept / cut /
dropped) and the reason, so a prompt can be explained after the fact. The steps live beside
this module: ``candidates`` (score order, duplicates, merged sub-tables), ``sources`` (whole,
excerpt, cut or drop), ``cutting`` (rows, text, excerpts), ``history_budget`` and ``sections``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from rag_app.models import Hit
from rag_app.prompt.candidates import merge_subtables
from rag_app.prompt.format import ContextEntry, ContextLayout
from rag_app.prompt.history import Turn
from rag_app.prompt.history_budget import fit_history
from rag_app.prompt.sections import (
    REPLY_PRIMING,
    TOKENS_PER_MESSAGE,
    Section,
    reason_key,
    whole_section,
)
from rag_app.prompt.sources import fit_sources
from rag_app.protocols import TokenCounter
from rag_app.stage_settings import DEFAULT_PROMPT_SETTINGS, Language, PromptSettings
from rag_app.text.analyzer import QuestionTerms

# Kept importable from here, where they were defined before the budget was split in steps.
__all__ = [
    "REPLY_PRIMING",
    "TOKENS_PER_MESSAGE",
    "BudgetResult",
    "Section",
    "fit_to_budget",
    "merge_subtables",
]


@dataclass(frozen=True)
class BudgetResult:
    """What fits: the sources (laid out and numbered), the earlier turns, the question."""

    layout: ContextLayout
    history: tuple[Turn, ...]  # kept turns, oldest first; the newest may have a cut answer
    question: str
    sections: tuple[Section, ...]
    context_tokens: int
    history_tokens: int
    context_limit: int  # min(context_budget, what the window leaves for sources)
    history_limit: int  # min(history_budget, what the window leaves after the sources)
    prompt_limit: int  # context_window - answer_reserve

    @property
    def entries(self) -> tuple[ContextEntry, ...]:
        return self.layout.entries


def fit_to_budget(
    hits: Sequence[Hit],
    question: str,
    history: Sequence[Turn] = (),
    *,
    counter: TokenCounter,
    settings: PromptSettings = DEFAULT_PROMPT_SETTINGS,
    language: Language = "zh",
    system: str = "",
    instructions: str = "",
    doc_names: Mapping[str, str] | None = None,
    terms: QuestionTerms | None = None,
) -> BudgetResult:
    """Choose what goes into the prompt within the token budget.

    Takes the retrieved ``hits`` (any order; they are taken by score), the ``question``, the
    earlier ``history`` (oldest first), the ``system`` message and the ``instructions`` (the user
    message's fixed text) whose sizes count against the model's window, and ``doc_names``
    mapping ``doc_id`` to the file name shown in source labels (the doc_id when missing), and
    the question's match ``terms`` when the caller has analysed it (used while the question is
    sent whole).

    Sub-tables of one table are merged before anything is counted. Sources enter in score order
    while the laid-out context stays within the limit; one that does not fit is dropped and the
    next ones are still tried; the best source is cut (tables by rows) rather than dropped when
    it alone is too long. Earlier turns enter newest first while they fit; the newest turn's
    answer is cut rather than dropped; once a turn does not fit, all older ones are dropped.

    Returns a ``BudgetResult``; raises ``ValueError`` when the window cannot hold even the
    system message, the instructions and the reserve.
    """
    system_tokens = counter.count(system)
    instruction_tokens = counter.count(instructions)
    # The window first: system, instructions, question and the two messages' formatting.
    prompt_limit = settings.context_window - settings.answer_reserve
    fixed = system_tokens + instruction_tokens + 2 * TOKENS_PER_MESSAGE + REPLY_PRIMING
    whole_question = question
    question, question_section = _fit_question(question, fixed, counter, settings)
    room = prompt_limit - fixed - question_section.tokens

    # Sources, in score order, within min(context_budget, room).
    context_limit = max(0, min(settings.context_budget, room))
    sources = fit_sources(
        hits,
        question,
        context_limit,
        counter=counter,
        settings=settings,
        language=language,
        doc_names=doc_names or {},
        terms=terms if question == whole_question else None,
    )
    room -= sources.tokens

    # Earlier turns, newest first, within min(history_budget, what is left of the window).
    turns = fit_history(history, room, counter=counter, settings=settings, language=language)

    system_section, instructions_section, reserve_section = _always_sent(
        system_tokens, instruction_tokens, settings
    )
    sections = (
        system_section,
        instructions_section,
        *sources.sections,
        *turns.sections,
        question_section,
        reserve_section,
    )
    return BudgetResult(
        layout=sources.layout,
        history=turns.turns,
        question=question,
        sections=sections,
        context_tokens=sources.tokens,
        history_tokens=turns.tokens,
        context_limit=context_limit,
        history_limit=turns.limit,
        prompt_limit=prompt_limit,
    )


def _always_sent(
    system_tokens: int, instruction_tokens: int, settings: PromptSettings
) -> tuple[Section, Section, Section]:
    """The sections of the system message, the instructions and the answer reserve."""
    template = f"{settings.mode} template: task, headings, answer requirements"
    reserve = "kept free for the answer (the LLM's max_tokens)"
    return (
        whole_section("system", "system", system_tokens, "always sent", reason_key("always_sent")),
        whole_section(
            "instructions",
            "instructions",
            instruction_tokens,
            template,
            reason_key("template", mode=settings.mode),
        ),
        whole_section(
            "reserve", "answer reserve", settings.answer_reserve, reserve, reason_key("reserve")
        ),
    )


def _fit_question(
    question: str, fixed: int, counter: TokenCounter, settings: PromptSettings
) -> tuple[str, Section]:
    """The question as sent and its section: cut only when it alone exceeds the room the window
    leaves after the ``fixed`` tokens (system, instructions, formatting) and the reserve.

    Raises ``ValueError`` when the window leaves no room for it at all."""
    room = settings.context_window - settings.answer_reserve - fixed
    if room <= 0:
        raise ValueError(
            f"context_window {settings.context_window} leaves no room for the question after the "
            f"system message, instructions ({fixed} tokens) and answer_reserve "
            f"{settings.answer_reserve}"
        )
    full = counter.count(question)
    if full <= room:
        return question, whole_section(
            "question", "question", full, "always sent", reason_key("always_sent")
        )
    question = counter.truncate(question, room)
    reason = f"the question alone exceeds the room the window leaves ({room} tokens)"
    section = Section(
        "question",
        "question",
        counter.count(question),
        "cut",
        reason,
        full,
        why=reason_key("question_cut", room=room),
    )
    return question, section
