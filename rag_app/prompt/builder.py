"""``build_prompt``: from a question, hits and history to the exact chat messages to send."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from rag_app.models import Hit, Reason
from rag_app.prompt.budget import REPLY_PRIMING, TOKENS_PER_MESSAGE, Section, fit_to_budget
from rag_app.prompt.history import Turn
from rag_app.prompt.templates import get_template
from rag_app.protocols import TokenCounter
from rag_app.stage_settings import DEFAULT_PROMPT_SETTINGS, Language, Mode, PromptSettings
from rag_app.understand.analysis import QueryAnalysis


@dataclass(frozen=True)
class Source:
    """``[Source number]`` of the prompt.

    ``hit`` is what the block shows (for merged sub-tables, a hit whose chunk is the merged
    table); ``parts`` are the retrieved hits it stands for. ``status`` is ``cut`` when only the
    start of it fitted; ``text`` is the block exactly as the model sees it.
    """

    number: int
    hit: Hit
    parts: tuple[Hit, ...]
    status: Literal["kept", "cut"]
    text: str


@dataclass(frozen=True)
class PromptReport:
    """Where the tokens went: each section with its count, status and reason, and the totals.

    ``prompt_tokens`` is the exact count of the messages as sent, chat formatting included; the
    sections' ``tokens`` add up to it plus the reserve.
    """

    sections: tuple[Section, ...]
    prompt_tokens: int
    context_tokens: int
    history_tokens: int
    answer_reserve: int
    context_budget: int
    context_limit: int
    history_budget: int
    history_limit: int
    context_window: int
    counter: str

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.answer_reserve

    @property
    def fits(self) -> bool:
        return self.total_tokens <= self.context_window

    def by_kind(self, kind: str) -> tuple[Section, ...]:
        return tuple(s for s in self.sections if s.kind == kind)

    def render(self) -> str:
        """A plain-text table of the sections and totals, for logs, the CLI and golden files."""
        lines = [f"{'section':<58} {'tokens':>6} {'full':>6}  status   reason"]
        for s in self.sections:
            label = s.name if s.source is None else f"[Source {s.source}] {s.name}"
            lines.append(f"{label:<58} {s.tokens:>6} {s.full_tokens:>6}  {s.status:<8} {s.reason}")
        lines.append(
            f"prompt {self.prompt_tokens} + reserve {self.answer_reserve} = {self.total_tokens} "
            f"of window {self.context_window} ({self.counter})"
        )
        lines.append(
            f"context {self.context_tokens}/{self.context_limit} "
            f"(budget {self.context_budget}); "
            f"history {self.history_tokens}/{self.history_limit} (budget {self.history_budget})"
        )
        return "\n".join(lines)


@dataclass(frozen=True)
class PromptResult:
    """Everything about one prompt: the messages to send and how they were made.

    ``messages`` are ``{"role", "content"}`` dicts in order (system, earlier turns, the user
    message with sources and question); pass ``chat_messages()`` to a client. ``sources`` are
    numbered as in the context; ``context`` is the sources' text as embedded in the user message.
    """

    messages: tuple[Mapping[str, str], ...]
    sources: tuple[Source, ...]
    context: str
    question: str
    language: Language
    mode: Mode
    max_tokens: int  # the answer reserve, to send as the completion limit
    report: PromptReport

    def chat_messages(self) -> list[dict[str, str]]:
        """A fresh list of plain dicts, the shape OpenAI-compatible clients take."""
        return [dict(message) for message in self.messages]

    def source(self, number: int) -> Source:
        """``[Source number]``; raises KeyError for a number the prompt does not have."""
        for source in self.sources:
            if source.number == number:
                return source
        raise KeyError(number)

    def render(self) -> str:
        """The messages as reviewable text, one ``=== role ===`` header each."""
        return "\n\n".join(f"=== {m['role']} ===\n{m['content']}" for m in self.messages) + "\n"


def build_prompt(
    query: QueryAnalysis,
    hits: Sequence[Hit],
    history: Sequence[Turn] = (),
    settings: PromptSettings = DEFAULT_PROMPT_SETTINGS,
    *,
    counter: TokenCounter | None = None,
    doc_names: Mapping[str, str] | None = None,
    note: str = "",
) -> PromptResult:
    """Build the chat messages for the question ``query`` (its analysis: the text sent, its
    language and the match terms that pick the excerpts) over the retrieved ``hits``.

    ``history`` holds earlier turns, oldest first (``turns_from_messages`` converts chat
    messages). ``settings`` gives the mode, system prompt and budgets; ``counter`` defaults to
    the process's cl100k counter (``rag_app.text.tokens.get_token_counter``); ``doc_names`` maps a
    chunk's ``doc_id`` to the file name shown in its label. The prompt's language follows the
    question (at ``settings.min_cjk_share``) unless ``settings.language`` fixes it. ``note`` is
    an instruction for the model that is not part of the question (what the library check found
    missing, what a revision must fix): sent as its own paragraph after the question, counted
    with the instructions, and never read when excerpts are picked.

    With no hits the prompt is still complete and tells the model there are no sources. Raises
    ``ValueError`` for an empty question.
    """
    question = query.text.strip()
    if not question:
        raise ValueError("the question is empty")
    if counter is None:
        from rag_app.text.tokens import get_token_counter

        counter = get_token_counter()
    language: Language = (
        query.language_at(settings.min_cjk_share)
        if settings.language == "auto"
        else settings.language
    )
    template = get_template(settings.mode, language)
    system = (settings.system_prompt or "").strip() or template.system

    has_sources = bool(hits)
    fitted = fit_to_budget(
        hits,
        question,
        history,
        counter=counter,
        settings=settings,
        language=language,
        system=system,
        instructions=template.instructions(has_sources, note),
        doc_names=doc_names,
        terms=query.terms,
    )
    context = fitted.layout.text
    messages: list[Mapping[str, str]] = [{"role": "system", "content": system}]
    for turn in fitted.history:
        messages.append({"role": "user", "content": turn.user})
        messages.append({"role": "assistant", "content": turn.assistant})
    messages.append(
        {"role": "user", "content": template.render_user(context, fitted.question, note)}
    )

    prompt_tokens = REPLY_PRIMING + sum(
        TOKENS_PER_MESSAGE + counter.count(m["content"]) for m in messages
    )
    counted = sum(s.tokens for s in fitted.sections if s.kind != "reserve")
    sections = list(fitted.sections)
    sections.insert(
        len(sections) - 1,
        Section(
            "formatting",
            "chat formatting",
            prompt_tokens - counted,
            "kept",
            f"{TOKENS_PER_MESSAGE} per message, {REPLY_PRIMING} to prime the reply, and joins",
            prompt_tokens - counted,
            why=Reason(
                "formatting", (("per", str(TOKENS_PER_MESSAGE)), ("priming", str(REPLY_PRIMING)))
            ),
        ),
    )
    cut_ids = {s.chunk_id for s in fitted.sections if s.kind == "source" and s.status == "cut"}
    sources = tuple(
        Source(
            number=i + 1,
            hit=entry.candidate.hit,
            parts=entry.candidate.parts,
            status="cut" if entry.candidate.chunk.chunk_id in cut_ids else "kept",
            text=fitted.layout.blocks[i],
        )
        for i, entry in enumerate(fitted.layout.entries)
    )
    report = PromptReport(
        sections=tuple(sections),
        prompt_tokens=prompt_tokens,
        context_tokens=fitted.context_tokens,
        history_tokens=fitted.history_tokens,
        answer_reserve=settings.answer_reserve,
        context_budget=settings.context_budget,
        context_limit=fitted.context_limit,
        history_budget=settings.history_budget,
        history_limit=fitted.history_limit,
        context_window=settings.context_window,
        counter=getattr(counter, "name", type(counter).__name__),
    )
    return PromptResult(
        messages=tuple(messages),
        sources=sources,
        context=context,
        question=fitted.question,
        language=language,
        mode=settings.mode,
        max_tokens=settings.answer_reserve,
        report=report,
    )
