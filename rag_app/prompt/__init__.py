"""Prompt building: sources formatted and grouped by type, fitted to a token budget, wrapped in
a mode's template (simple / advanced / precise), in the question's language."""

from rag_app.prompt.budget import BudgetResult, fit_to_budget
from rag_app.prompt.builder import PromptReport, PromptResult, Source, build_prompt
from rag_app.prompt.candidates import merge_subtables
from rag_app.prompt.format import Candidate, ContextEntry, ContextLayout, layout_context
from rag_app.prompt.history import Turn, turns_from_messages
from rag_app.prompt.sections import Section
from rag_app.prompt.templates import NOT_FOUND, PromptTemplate, get_template
from rag_app.stage_settings import MODES, Language, Mode, PromptSettings

__all__ = [
    "BudgetResult",
    "Candidate",
    "ContextEntry",
    "ContextLayout",
    "Language",
    "MODES",
    "Mode",
    "NOT_FOUND",
    "PromptReport",
    "PromptResult",
    "PromptSettings",
    "PromptTemplate",
    "Section",
    "Source",
    "Turn",
    "build_prompt",
    "fit_to_budget",
    "get_template",
    "layout_context",
    "merge_subtables",
    "turns_from_messages",
]
