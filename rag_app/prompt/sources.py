"""Sources into the context: in score order, whole, excerpted, cut or dropped, within a limit.

The ``whole_sources`` best sources are shown whole while they fit; later ones, and a long one
after the first, show only what bears on the question, so more sources fit. A source that does
not fit is excerpted or dropped and the next ones are still tried; the best source is cut
rather than dropped when it alone is too long.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from rag_app.models import Hit, Reason
from rag_app.prompt.candidates import (
    context_shown,
    describe,
    describe_key,
    merge_subtables,
    without_shown_context,
)
from rag_app.prompt.cutting import SourceCutter
from rag_app.prompt.format import (
    Candidate,
    ContextEntry,
    ContextLayout,
    format_body,
    layout_context,
)
from rag_app.prompt.sections import Section, Status, reason_key, whole_section
from rag_app.protocols import TokenCounter
from rag_app.stage_settings import Language, PromptSettings
from rag_app.text.analyzer import QuestionTerms, question_terms


@dataclass(frozen=True)
class FittedSources:
    """The sources that made it in, laid out, and one section per retrieved hit."""

    layout: ContextLayout
    tokens: int  # the laid-out context; 0 when no source fits
    sections: list[Section]  # sources in score order, then duplicates, then the framing


@dataclass(frozen=True)
class _Decision:
    status: Status
    reason: str
    full_tokens: int  # the source's block, whole
    why: Reason


def fit_sources(
    hits: Sequence[Hit],
    question: str,
    limit: int,
    *,
    counter: TokenCounter,
    settings: PromptSettings,
    language: Language,
    doc_names: Mapping[str, str],
    terms: QuestionTerms | None = None,
) -> FittedSources:
    """Choose the sources for a context of at most ``limit`` tokens.

    Takes the retrieved ``hits`` (any order), the ``question`` as it will be sent (excerpts keep
    what matches it) and ``doc_names`` (``doc_id`` to the file name in source labels). Returns
    the laid-out context, its tokens and the sections recording each decision. ``terms`` are the
    question's match terms when the caller has analysed it already.
    """
    candidates, duplicates = merge_subtables(hits)
    terms = terms or question_terms(question)
    picker = _SourcePicker(SourceCutter(counter, language, settings), terms, doc_names, limit)
    decisions = [picker.take(candidate) for candidate in candidates]
    chosen = picker.chosen
    layout = layout_context(chosen, language)
    tokens = counter.count(layout.text) if chosen else 0
    sections, block_tokens = _source_sections(candidates, decisions, chosen, layout, counter)
    sections.extend(duplicates)
    if chosen:
        framing = tokens - block_tokens
        reason = "group headings and separators between sources"
        sections.append(
            whole_section(
                "context_framing", "context framing", framing, reason, reason_key("framing")
            )
        )
    return FittedSources(layout, tokens, sections)


class _SourcePicker:
    """Takes candidates one by one, best first, and keeps the chosen entries and their tokens."""

    def __init__(
        self, cutter: SourceCutter, terms: QuestionTerms, names: Mapping[str, str], limit: int
    ) -> None:
        self.cutter = cutter
        self.counter = cutter.counter
        self.lang = cutter.lang
        self.settings = cutter.settings
        self.terms = terms
        self.names = names
        self.limit = limit
        self.chosen: list[ContextEntry] = []
        self.used = 0  # tokens of the context laid out with the chosen entries

    def take(self, candidate: Candidate) -> _Decision:
        """Decide on one candidate: whole, excerpted or cut into the context, or dropped."""
        settings, limit = self.settings, self.limit
        doc_name = self.names.get(candidate.chunk.doc_id, candidate.chunk.doc_id)
        body = format_body(candidate, self.lang, settings.table_format)
        entry = ContextEntry(candidate, body, doc_name)
        full = self.counter.count(layout_context([entry], self.lang).blocks[0])
        # A table's introducing paragraph is shown once: left out of the table block when
        # that paragraph is a source of its own (more evidence fits the same budget).
        if context_shown(candidate.chunk, self.chosen):
            body = format_body(candidate, self.lang, settings.table_format, with_context=False)
            entry = replace(entry, body=body)
        trial = [
            without_shown_context(e, candidate.chunk, self.lang, settings) for e in self.chosen
        ]
        total = self.cutter.context_tokens([*trial, entry])
        later = len(self.chosen) >= settings.whole_sources
        large = bool(self.chosen) and settings.max_whole_share * limit < full <= limit
        # A small table is shown whole while it fits: its rows are read together ("Which
        # component made up the most?"), and whole it costs little more than an excerpt.
        small = (
            candidate.chunk.type == "table"
            and candidate.chunk.n_rows - candidate.chunk.header_rows <= settings.whole_table_rows
        )
        # One excerpt per candidate at most: when tried here and not found, it would not be
        # found below either (the context there is the same or longer).
        tried = settings.excerpts and (later or large) and not small
        if tried:
            focused = self._excerpt_first(candidate, doc_name, trial, total, full, later)
            if focused is not None:
                return focused
        if total <= limit:
            self.chosen[:] = trial
            self.chosen.append(entry)
            self.used = total
            key = reason_key("fits", used=total, limit=limit)
            return _Decision("kept", f"fits: context at {total}/{limit} tokens", full, key)
        if not self.chosen:
            return self._cut_best(candidate, doc_name, total, full)
        return self._excerpt_or_drop(candidate, doc_name, total, full, retry=not tried)

    def _excerpt_first(
        self,
        candidate: Candidate,
        doc_name: str,
        trial: list[ContextEntry],
        total: int,
        full: int,
        later: bool,
    ) -> _Decision | None:
        """Beyond the best sources, and for a long table after the first source, only what
        bears on the question: more sources fit. None when no excerpt is smaller than whole."""
        settings = self.settings
        focused = self.cutter.excerpt(candidate, doc_name, self.terms, trial, self.limit, self.used)
        if focused is None or focused.tokens >= total:
            return None
        self.chosen[:] = trial
        self.chosen.append(focused.entry)
        self.used = focused.tokens
        if later:
            why = f"after the {settings.whole_sources} best sources"
            key = reason_key("excerpt_after", whole=settings.whole_sources, **focused.values)
        else:
            share = f"{settings.max_whole_share:.0%}"
            why = f"over {share} of the budget whole ({full} tokens)"
            key = reason_key("excerpt_large", share=share, tokens=full, **focused.values)
        return _Decision("cut", f"{why}: {focused.how}", full, key)

    def _cut_best(self, candidate: Candidate, doc_name: str, total: int, full: int) -> _Decision:
        """The best source, too long alone: cut rather than dropped."""
        limit = self.limit
        cut = self.cutter.cut(candidate, doc_name, limit)
        if cut is None:
            reason = f"even cut, it does not fit in {limit} tokens"
            return _Decision("dropped", reason, full, reason_key("no_fit_even_cut", limit=limit))
        self.chosen.append(cut.entry)
        self.used = self.cutter.context_tokens(self.chosen)
        reason = f"best source, too long alone ({total} > {limit} tokens): {cut.how}"
        key = reason_key(
            "first_cut_rows" if cut.values else "first_cut_text",
            total=total,
            limit=limit,
            **cut.values,
        )
        return _Decision("cut", reason, full, key)

    def _excerpt_or_drop(
        self, candidate: Candidate, doc_name: str, total: int, full: int, retry: bool
    ) -> _Decision:
        """A later source that does not fit whole: excerpted after the chosen ones (unless an
        excerpt was already tried) or dropped, leaving room for the next ones."""
        limit, used = self.limit, self.used
        more, left = total - used, limit - used
        needs = f"needs {more} more tokens, {left} left"
        excerpt = (
            self.cutter.excerpt(candidate, doc_name, self.terms, self.chosen, limit, used)
            if self.settings.excerpts and retry
            else None
        )
        if excerpt is None:
            key = reason_key("dropped_no_room", needs=more, left=left, limit=limit)
            return _Decision("dropped", f"{needs} of {limit}", full, key)
        self.chosen.append(excerpt.entry)
        self.used = excerpt.tokens
        key = reason_key("excerpt_no_room", needs=more, left=left, **excerpt.values)
        return _Decision("cut", f"too long whole ({needs}): {excerpt.how}", full, key)


def _source_sections(
    candidates: Sequence[Candidate],
    decisions: Sequence[_Decision],
    chosen: Sequence[ContextEntry],
    layout: ContextLayout,
    counter: TokenCounter,
) -> tuple[list[Section], int]:
    """One section per candidate with its ``[Source N]`` number and block tokens when it made it
    in; and the blocks' total, so the framing between them can be told apart."""
    number_of = {id(entry): i + 1 for i, entry in enumerate(layout.entries)}
    sections: list[Section] = []
    block_tokens = 0
    for candidate, decision in zip(candidates, decisions, strict=True):
        entry = next((e for e in chosen if e.candidate is candidate), None)
        tokens, number = 0, None
        if entry is not None:
            number = number_of[id(entry)]
            tokens = counter.count(layout.blocks[number - 1])
            block_tokens += tokens
        sections.append(
            Section(
                "source",
                describe(candidate),
                tokens,
                decision.status,
                decision.reason,
                decision.full_tokens,
                candidate.chunk.chunk_id,
                number,
                why=decision.why,
                label=describe_key(candidate),
            )
        )
    return sections, block_tokens
