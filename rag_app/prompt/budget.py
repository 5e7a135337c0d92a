"""Fitting sources, history and the question into the token budget.

Order of priority: the system message, the instructions and the question are always sent (the
question is cut only if it alone would overflow the model's window); then sources, in score
order, up to ``context_budget`` (seed 001's context builder); then earlier turns, newest first,
up to ``history_budget`` (seed 002). ``answer_reserve`` tokens stay free for the answer.

Every decision is recorded as a ``Section`` with its token count, its status (kept / cut /
dropped) and the reason, so a prompt can be explained after the fact.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from rag_app.models import Chunk, Hit, Reason
from rag_app.prompt.excerpt import Unit, best_first, table_units, text_units
from rag_app.prompt.format import (
    LABELS,
    Candidate,
    ContextEntry,
    ContextLayout,
    format_body,
    format_source,
    format_table_body,
    format_text_excerpt,
    layout_context,
)
from rag_app.prompt.history import Turn, strip_citations
from rag_app.prompt.settings import DEFAULT_PROMPT_SETTINGS, Language, PromptSettings
from rag_app.prompt.tables import merge_table_chunks, split_rows
from rag_app.protocols import TokenCounter
from rag_app.terms import QuestionTerms, question_terms

Status = Literal["kept", "cut", "dropped"]
SectionKind = Literal[
    "system",
    "instructions",
    "source",
    "context_framing",
    "history",
    "question",
    "formatting",
    "reserve",
]

# Chat formatting cost per message and for priming the reply, as OpenAI's cookbook counts it
# for cl100k chat models ("How to count tokens with tiktoken": 3 per message + 1 for the role,
# 3 for the reply). Only used to keep the whole prompt inside ``context_window``.
TOKENS_PER_MESSAGE = 4
REPLY_PRIMING = 3


@dataclass(frozen=True)
class Section:
    """One part of the prompt and what the budget did with it.

    ``tokens`` is what it takes in the prompt as sent (0 when dropped); ``full_tokens`` what it
    would have taken whole. ``source`` is its ``[Source N]`` number when it made it in.
    """

    kind: SectionKind
    name: str
    tokens: int
    status: Status
    reason: str
    full_tokens: int = 0
    chunk_id: str = ""
    source: int | None = None
    why: Reason | None = None  # ``reason`` as a key and values, for the UI's languages


def _why(key: str, **values: object) -> Reason:
    return Reason(key, tuple((k, str(v)) for k, v in values.items()))


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


def merge_subtables(hits: Sequence[Hit]) -> tuple[list[Candidate], list[Section]]:
    """Order hits by score and merge sub-tables of one table into one candidate.

    Hits are sorted by score, highest first (stable, so equal scores keep their given order).
    Sub-tables sharing ``(doc_id, parent_table_id)`` become one candidate at the position of the
    best-scoring part, with rows in ``subtable_index`` order and the header once; its hit takes
    the best part's score, rank and signals. A hit whose chunk already appeared is dropped; the
    returned sections record those duplicates.
    """
    ordered = sorted(hits, key=lambda hit: -hit.score)
    seen: set[str] = set()
    groups: dict[tuple[str, str], list[Hit]] = {}
    slots: list[tuple[str, str] | Hit] = []
    dropped: list[Section] = []
    for hit in ordered:
        chunk = hit.chunk
        if chunk.chunk_id in seen:
            dropped.append(
                Section(
                    "source",
                    f"source {chunk.chunk_id}",
                    0,
                    "dropped",
                    "duplicate: the same chunk was retrieved twice; the better-scored copy is used",
                    chunk_id=chunk.chunk_id,
                    why=_why("duplicate"),
                )
            )
            continue
        seen.add(chunk.chunk_id)
        if chunk.type == "table" and chunk.parent_table_id:
            key = (chunk.doc_id, chunk.parent_table_id)
            if key not in groups:
                groups[key] = []
                slots.append(key)
            groups[key].append(hit)
        else:
            slots.append(hit)
    candidates = []
    for slot in slots:
        if isinstance(slot, Hit):
            candidates.append(Candidate(slot, (slot,)))
            continue
        parts = tuple(sorted(groups[slot], key=lambda hit: hit.chunk.subtable_index))
        best = groups[slot][0]
        if len(parts) == 1:
            candidates.append(Candidate(best, parts))
            continue
        merged_chunk = merge_table_chunks([hit.chunk for hit in parts])
        note = f"merged sub-tables {'+'.join(str(h.chunk.subtable_index) for h in parts)}"
        merged = replace(
            best, chunk=merged_chunk, note=(best.note + "; " if best.note else "") + note
        )
        candidates.append(Candidate(merged, parts))
    return candidates, dropped


def _table_context(chunk: Chunk) -> str:
    if chunk.type != "table" or not chunk.context:
        return ""
    return chunk.context.strip().removesuffix("…").strip()


def _context_shown(chunk: Chunk, chosen: Sequence[ContextEntry]) -> bool:
    """Is this table's introducing paragraph already the text of a chosen source?"""
    paragraph = _table_context(chunk)
    return bool(paragraph) and any(
        e.candidate.chunk.type == "text" and paragraph in e.candidate.chunk.text for e in chosen
    )


def _without_shown_context(
    entry: ContextEntry, new: Chunk, lang: Language, settings: PromptSettings
) -> ContextEntry:
    """``entry`` re-rendered without its table context when the ``new`` text source holds it."""
    paragraph = _table_context(entry.candidate.chunk)
    if not paragraph or new.type != "text" or paragraph not in new.text:
        return entry
    if entry.body != format_body(entry.candidate, lang, settings.table_format):
        return entry  # already without it, or cut to fit: keep as it is
    body = format_body(entry.candidate, lang, settings.table_format, with_context=False)
    return replace(entry, body=body)


def _describe(candidate: Candidate) -> str:
    chunk = candidate.chunk
    if len(candidate.parts) > 1:
        indices = "+".join(str(p.chunk.subtable_index) for p in candidate.parts)
        return f"source {chunk.chunk_id} ({chunk.type}, sub-tables {indices} merged)"
    return f"source {chunk.chunk_id} ({chunk.type})"


# Tokens a block may add to a context beyond its own: the separator before it, a group heading
# when it opens a new group, and a source number one digit longer ("[Source 10]").
_LAYOUT_MARGIN = 16


@dataclass(frozen=True)
class _Excerpt:
    """A candidate cut to the units that match the question, and the context's tokens with it."""

    entry: ContextEntry
    how: str
    values: dict[str, object]  # kept, total, unit: for the reason key
    tokens: int


class _Fitter:
    def __init__(self, counter: TokenCounter, lang: Language, settings: PromptSettings) -> None:
        self.counter = counter
        self.lang = lang
        self.settings = settings
        self.table_format = settings.table_format

    def context_tokens(self, entries: Sequence[ContextEntry]) -> int:
        return self.counter.count(layout_context(entries, self.lang).text)

    def cut(
        self, candidate: Candidate, doc_name: str, limit: int
    ) -> tuple[ContextEntry, str, dict[str, int]] | None:
        """The candidate cut so that, alone, the context stays within ``limit`` tokens, and how."""
        chunk = candidate.chunk
        parsed = split_rows(chunk.table_html) if chunk.type == "table" else None
        if parsed is not None:
            # Cut a table by rows, keeping its header, so the model still sees a well-formed
            # table and is told how many rows are missing.
            header = max(1, chunk.header_rows)
            # Rows counted one by one bound the search (a 3000-row table took 1 s without it):
            # merging across row boundaries saves a token or two per row, nowhere near half.
            fitting, running = 0, 0
            for segment in parsed.segments:
                running += self.counter.count(segment)
                if running > limit:
                    break
                fitting += 1
            lo, hi, best = header, min(len(parsed.segments) - 1, 2 * fitting + 1), None
            while lo <= hi:
                mid = (lo + hi) // 2
                entry = ContextEntry(
                    candidate,
                    format_table_body(
                        candidate, self.lang, max_rows=mid, table_format=self.table_format
                    ),
                    doc_name,
                )
                if self.context_tokens([entry]) <= limit:
                    best, lo = entry, mid + 1
                else:
                    hi = mid - 1
            if best is not None:
                shown, rows = lo - 1, len(parsed.segments)
                return (
                    best,
                    f"first {shown} of {rows} table rows kept",
                    {"shown": shown, "rows": rows},
                )
        marker = LABELS[self.lang].text_cut
        body = format_body(candidate, self.lang, self.table_format)
        room = limit - self.context_tokens([ContextEntry(candidate, marker, doc_name)])
        while room > 0:
            entry = ContextEntry(
                candidate, self.counter.truncate(body, room).rstrip() + marker, doc_name
            )
            excess = self.context_tokens([entry]) - limit
            if excess <= 0:
                return entry, "text cut at a token boundary", {}
            room -= excess
        return None

    def excerpt(
        self,
        candidate: Candidate,
        doc_name: str,
        terms: QuestionTerms,
        chosen: Sequence[ContextEntry],
        limit: int,
        base: int,
    ) -> _Excerpt | None:
        """The candidate as a question-focused excerpt that fits after ``chosen`` within
        ``limit``; None when no row or sentence matches or none fits. ``base`` is at least the
        tokens of ``chosen`` laid out.

        Matching units enter best first while the context stays within the limit, then are
        shown in their original order."""
        chunk = candidate.chunk
        if chunk.type == "table" and chunk.table_html:
            header, n_rows, units = table_units(chunk, terms)
            total, unit_name = n_rows - header, "table rows"

            def render(kept: list[int]) -> str:
                return format_table_body(
                    candidate,
                    self.lang,
                    table_format=self.table_format,
                    with_context=False,
                    excerpt_rows=kept,
                )

        elif chunk.type == "text":
            parts, units = text_units(chunk.text, terms)
            total, unit_name = len(parts), "sentences"

            def render(kept: list[int]) -> str:
                return format_text_excerpt(chunk, self.lang, parts, kept)

        else:
            return None
        # Trials are counted as the context so far plus the block alone plus a margin for the
        # separator, a new group heading and a longer source number (counting the whole context
        # for every trial made prompts 3x slower); the result is then checked exactly.
        added: list[Unit] = []

        def shown(units: list[Unit]) -> list[int]:
            return sorted({i for unit in units for i in unit.indices})

        for unit in best_first(units, self.settings.excerpt_units, self.settings.excerpt_min_share):
            entry = ContextEntry(candidate, render(shown([*added, unit])), doc_name)
            block = self.counter.count(format_source(len(chosen) + 1, entry, self.lang))
            if base + block + _LAYOUT_MARGIN > limit:
                break
            added.append(unit)
        tokens = limit + 1
        while added:
            kept = shown(added)
            best = ContextEntry(candidate, render(kept), doc_name)
            tokens = self.context_tokens([*chosen, best])
            if tokens <= limit:
                break
            added.pop()
        if not added:
            return None
        if chunk.type == "table":
            kept = [i for i in kept if i >= header]
        how = f"excerpt: {len(kept)} of {total} {unit_name} that match the question kept"
        return _Excerpt(best, how, {"kept": len(kept), "total": total, "unit": unit_name}, tokens)


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
) -> BudgetResult:
    """Choose what goes into the prompt within the token budget.

    Takes the retrieved ``hits`` (any order; they are taken by score), the ``question``, the
    earlier ``history`` (oldest first), the ``system`` message and the ``instructions`` (the user
    message's fixed text) whose sizes count against the model's window, and ``doc_names``
    mapping ``doc_id`` to the file name shown in source labels (the doc_id when missing).

    Sub-tables of one table are merged before anything is counted. Sources enter in score order
    while the laid-out context stays within the limit; one that does not fit is dropped and the
    next ones are still tried; the best source is cut (tables by rows) rather than dropped when
    it alone is too long. Earlier turns enter newest first while they fit; the newest turn's
    answer is cut rather than dropped; once a turn does not fit, all older ones are dropped.

    Returns a ``BudgetResult``; raises ``ValueError`` when the window cannot hold even the
    system message, the instructions and the reserve.
    """
    names = doc_names or {}
    fitter = _Fitter(counter, language, settings)
    sections: list[Section] = []

    system_tokens = counter.count(system)
    instruction_tokens = counter.count(instructions)
    sections.append(
        Section(
            "system",
            "system",
            system_tokens,
            "kept",
            "always sent",
            system_tokens,
            why=_why("always_sent"),
        )
    )
    sections.append(
        Section(
            "instructions",
            "instructions",
            instruction_tokens,
            "kept",
            f"{settings.mode} template: task, headings, answer requirements",
            instruction_tokens,
            why=_why("template", mode=settings.mode),
        )
    )

    # The window first: system, instructions, question and the two messages' formatting.
    prompt_limit = settings.context_window - settings.answer_reserve
    fixed = system_tokens + instruction_tokens + 2 * TOKENS_PER_MESSAGE + REPLY_PRIMING
    question_room = prompt_limit - fixed
    if question_room <= 0:
        raise ValueError(
            f"context_window {settings.context_window} leaves no room for the question after the "
            f"system message, instructions ({fixed} tokens) and answer_reserve "
            f"{settings.answer_reserve}"
        )
    question_full = counter.count(question)
    if question_full > question_room:
        question = counter.truncate(question, question_room)
        question_tokens = counter.count(question)
        question_section = Section(
            "question",
            "question",
            question_tokens,
            "cut",
            f"the question alone exceeds the room the window leaves ({question_room} tokens)",
            question_full,
            why=_why("question_cut", room=question_room),
        )
    else:
        question_tokens = question_full
        question_section = Section(
            "question",
            "question",
            question_tokens,
            "kept",
            "always sent",
            question_full,
            why=_why("always_sent"),
        )
    room = question_room - question_tokens

    # Sources, in score order, within min(context_budget, room).
    candidates, duplicates = merge_subtables(hits)
    terms = question_terms(question)
    context_limit = max(0, min(settings.context_budget, room))
    chosen: list[ContextEntry] = []
    # index in candidates -> (status, reason, full tokens, the reason as a key)
    decisions: dict[int, tuple[Status, str, int, Reason]] = {}
    used = 0
    for index, candidate in enumerate(candidates):
        doc_name = names.get(candidate.chunk.doc_id, candidate.chunk.doc_id)
        entry = ContextEntry(
            candidate, format_body(candidate, language, settings.table_format), doc_name
        )
        full = counter.count(layout_context([entry], language).blocks[0])
        # A table's introducing paragraph is shown once: left out of the table block when
        # that paragraph is a source of its own (more evidence fits the same budget).
        if _context_shown(candidate.chunk, chosen):
            entry = replace(
                entry,
                body=format_body(candidate, language, settings.table_format, with_context=False),
            )
        trial = [_without_shown_context(e, candidate.chunk, language, settings) for e in chosen]
        total = fitter.context_tokens([*trial, entry])
        later = len(chosen) >= settings.whole_sources
        large = bool(chosen) and settings.max_whole_share * context_limit < full <= context_limit
        # One excerpt per candidate at most: when tried here and not found, it would not be
        # found below either (the context there is the same or longer).
        focused: _Excerpt | None = None
        # A small table is shown whole while it fits: its rows are read together ("Which
        # component made up the most?"), and whole it costs little more than an excerpt.
        small = (
            candidate.chunk.type == "table"
            and candidate.chunk.n_rows - candidate.chunk.header_rows <= settings.whole_table_rows
        )
        tried = settings.excerpts and (later or large) and not small
        if tried:
            # Beyond the best sources, and for a long table after the first source, only what
            # bears on the question: more sources fit.
            focused = fitter.excerpt(candidate, doc_name, terms, trial, context_limit, used)
            if focused is not None and focused.tokens < total:
                chosen[:] = trial
                chosen.append(focused.entry)
                used = focused.tokens
                if later:
                    why = f"after the {settings.whole_sources} best sources"
                    key = _why("excerpt_after", whole=settings.whole_sources, **focused.values)
                else:
                    share = f"{settings.max_whole_share:.0%}"
                    why = f"over {share} of the budget whole ({full} tokens)"
                    key = _why("excerpt_large", share=share, tokens=full, **focused.values)
                decisions[index] = ("cut", f"{why}: {focused.how}", full, key)
                continue
        if total <= context_limit:
            chosen[:] = trial
            chosen.append(entry)
            decisions[index] = (
                "kept",
                f"fits: context at {total}/{context_limit} tokens",
                full,
                _why("fits", used=total, limit=context_limit),
            )
            used = total
        elif not chosen:
            cut = fitter.cut(candidate, doc_name, context_limit)
            if cut is None:
                decisions[index] = (
                    "dropped",
                    f"even cut, it does not fit in {context_limit} tokens",
                    full,
                    _why("no_fit_even_cut", limit=context_limit),
                )
                continue
            chosen.append(cut[0])
            used = fitter.context_tokens(chosen)
            decisions[index] = (
                "cut",
                f"best source, too long alone ({total} > {context_limit} tokens): {cut[1]}",
                full,
                _why(
                    "first_cut_rows" if cut[2] else "first_cut_text",
                    total=total,
                    limit=context_limit,
                    **cut[2],
                ),
            )
        else:
            more, left = total - used, context_limit - used
            needs = f"needs {more} more tokens, {left} left"
            excerpt = (
                fitter.excerpt(candidate, doc_name, terms, chosen, context_limit, used)
                if settings.excerpts and not tried
                else None
            )
            if excerpt is None:
                key = _why("dropped_no_room", needs=more, left=left, limit=context_limit)
                decisions[index] = ("dropped", f"{needs} of {context_limit}", full, key)
                continue
            chosen.append(excerpt.entry)
            used = excerpt.tokens
            key = _why("excerpt_no_room", needs=more, left=left, **excerpt.values)
            decisions[index] = ("cut", f"too long whole ({needs}): {excerpt.how}", full, key)
    layout = layout_context(chosen, language)
    context_tokens = counter.count(layout.text) if chosen else 0
    number_of = {id(entry): i + 1 for i, entry in enumerate(layout.entries)}
    block_tokens = 0
    for index, candidate in enumerate(candidates):
        status, reason, full, key = decisions[index]
        entry_or_none = next((e for e in chosen if e.candidate is candidate), None)
        tokens, number = 0, None
        if entry_or_none is not None:
            number = number_of[id(entry_or_none)]
            tokens = counter.count(layout.blocks[number - 1])
            block_tokens += tokens
        sections.append(
            Section(
                "source",
                _describe(candidate),
                tokens,
                status,
                reason,
                full,
                candidate.chunk.chunk_id,
                number,
                why=key,
            )
        )
    sections.extend(duplicates)
    if chosen:
        sections.append(
            Section(
                "context_framing",
                "context framing",
                context_tokens - block_tokens,
                "kept",
                "group headings and separators between sources",
                context_tokens - block_tokens,
                why=_why("framing"),
            )
        )
    room -= context_tokens

    # Earlier turns, newest first, within min(history_budget, what is left of the window).
    history_limit = max(0, min(settings.history_budget, room))
    turns = list(history)
    n_turns = len(turns)
    recent_from = max(0, n_turns - settings.max_history_turns)
    kept: list[Turn] = []
    history_sections: list[Section] = []
    history_used = window_used = 0
    stopped = ""  # why older turns are left out, once a turn did not fit whole
    for position in range(n_turns - 1, -1, -1):
        turn = turns[position]
        name = f"history turn {position + 1}/{n_turns}"
        user, answer = turn.user.strip(), strip_citations(turn.assistant).strip()
        full = counter.count(user) + counter.count(answer)
        if position < recent_from:
            reason = f"older than the last {settings.max_history_turns} turns"
            key = _why("history_old", n=settings.max_history_turns)
            history_sections.append(Section("history", name, 0, "dropped", reason, full, why=key))
            continue
        if not user or not answer:
            reason = "incomplete turn (no question or no answer)"
            key = _why("history_incomplete")
            history_sections.append(Section("history", name, 0, "dropped", reason, full, why=key))
            continue
        if stopped:
            reason = f"{stopped}; older turns are dropped to keep the dialogue whole"
            key = _why("history_after_stop")
            history_sections.append(Section("history", name, 0, "dropped", reason, full, why=key))
            continue
        formatting = 2 * TOKENS_PER_MESSAGE
        if history_used + full <= history_limit and window_used + full + formatting <= room:
            kept.append(Turn(user, answer))
            history_used += full
            window_used += full + formatting
            reason = f"fits: history at {history_used}/{history_limit} tokens"
            key = _why("history_fits", used=history_used, limit=history_limit)
            history_sections.append(Section("history", name, full, "kept", reason, full, why=key))
            continue
        user_tokens = counter.count(user)
        marker = LABELS[language].text_cut
        answer_room = min(history_limit, room - formatting) - user_tokens - counter.count(marker)
        if not kept and answer_room > 0:
            # The newest turn is what a follow-up question leans on: keep its question and the
            # start of its answer rather than losing it.
            cut_answer = counter.truncate(answer, answer_room).rstrip() + marker
            tokens = user_tokens + counter.count(cut_answer)
            kept.append(Turn(user, cut_answer))
            history_used += tokens
            window_used += tokens + formatting
            reason = f"newest turn, too long ({full} > {history_limit} tokens): answer cut"
            key = _why("history_cut", full=full, limit=history_limit)
            history_sections.append(Section("history", name, tokens, "cut", reason, full, why=key))
            stopped = "the newest turn was cut to fit"
            continue
        reason = f"needs {full} tokens, {history_limit - history_used} left of {history_limit}"
        key = _why(
            "history_no_room", full=full, left=history_limit - history_used, limit=history_limit
        )
        history_sections.append(Section("history", name, 0, "dropped", reason, full, why=key))
        stopped = "a newer turn did not fit"
    kept.reverse()
    history_sections.reverse()
    sections.extend(history_sections)
    sections.append(question_section)
    sections.append(
        Section(
            "reserve",
            "answer reserve",
            settings.answer_reserve,
            "kept",
            "kept free for the answer (the LLM's max_tokens)",
            settings.answer_reserve,
            why=_why("reserve"),
        )
    )
    return BudgetResult(
        layout=layout,
        history=tuple(kept),
        question=question,
        sections=tuple(sections),
        context_tokens=context_tokens,
        history_tokens=history_used,
        context_limit=context_limit,
        history_limit=history_limit,
        prompt_limit=prompt_limit,
    )
