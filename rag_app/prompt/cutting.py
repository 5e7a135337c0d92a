"""Cutting one source to fit the context: a table by rows, a text at a token boundary, or either
down to the rows or sentences that bear on the question (an excerpt)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rag_app.prompt.excerpt import Unit, best_first, table_units, text_units
from rag_app.prompt.format import (
    LABELS,
    Candidate,
    ContextEntry,
    format_body,
    format_source,
    format_table_body,
    format_text_excerpt,
    layout_context,
)
from rag_app.protocols import TokenCounter
from rag_app.stage_settings import Language, PromptSettings
from rag_app.text.analyzer import QuestionTerms
from rag_app.text.table_rows import split_rows

# Tokens a block may add to a context beyond its own: the separator before it, a group heading
# when it opens a new group, and a source number one digit longer ("[Source 10]").
LAYOUT_MARGIN = 16


@dataclass(frozen=True)
class Cut:
    """A candidate cut so that, alone, the context stays within a limit, and how."""

    entry: ContextEntry
    how: str
    values: dict[str, int]  # shown, rows: for the reason key; empty for a text cut


@dataclass(frozen=True)
class Excerpt:
    """A candidate cut to the units that match the question, and the context's tokens with it."""

    entry: ContextEntry
    how: str
    values: dict[str, object]  # kept, total, unit: for the reason key
    tokens: int


@dataclass(frozen=True)
class _Units:
    """What an excerpt of one candidate is chosen from, and how the chosen part is rendered."""

    units: list[Unit]
    total: int
    name: str  # "table rows" or "sentences", for the report
    header: int | None  # a table's header rows, shown but not counted as kept; None for text
    render: Callable[[list[int]], str]


def _shown(units: list[Unit]) -> list[int]:
    return sorted({i for unit in units for i in unit.indices})


class SourceCutter:
    """Counts laid-out contexts and cuts candidates, in one language and one table format."""

    def __init__(self, counter: TokenCounter, lang: Language, settings: PromptSettings) -> None:
        self.counter = counter
        self.lang = lang
        self.settings = settings
        self.table_format = settings.table_format

    def context_tokens(self, entries: Sequence[ContextEntry]) -> int:
        """Tokens of ``entries`` laid out as the prompt's context (groups, numbers, separators)."""
        return self.counter.count(layout_context(entries, self.lang).text)

    def cut(self, candidate: Candidate, doc_name: str, limit: int) -> Cut | None:
        """Take a candidate too long for the context and the ``limit`` in tokens; return it cut
        so that, alone, the context stays within the limit (a table by rows, else the text at
        a token boundary), or None when not even a cut fits."""
        chunk = candidate.chunk
        parsed = split_rows(chunk.table_html) if chunk.type == "table" else None
        if parsed is not None:
            by_rows = self._cut_rows(candidate, doc_name, limit, parsed.segments)
            if by_rows is not None:
                return by_rows
        return self._cut_text(candidate, doc_name, limit)

    def _cut_rows(
        self, candidate: Candidate, doc_name: str, limit: int, segments: Sequence[str]
    ) -> Cut | None:
        # Cut a table by rows, keeping its header, so the model still sees a well-formed
        # table and is told how many rows are missing.
        header = max(1, candidate.chunk.header_rows)
        # Rows counted one by one bound the search (a 3000-row table took 1 s without it):
        # merging across row boundaries saves a token or two per row, nowhere near half.
        fitting, running = 0, 0
        for segment in segments:
            running += self.counter.count(segment)
            if running > limit:
                break
            fitting += 1
        lo, hi, best = header, min(len(segments) - 1, 2 * fitting + 1), None
        while lo <= hi:
            mid = (lo + hi) // 2
            body = format_table_body(
                candidate, self.lang, max_rows=mid, table_format=self.table_format
            )
            entry = ContextEntry(candidate, body, doc_name)
            if self.context_tokens([entry]) <= limit:
                best, lo = entry, mid + 1
            else:
                hi = mid - 1
        if best is None:
            return None
        shown, rows = lo - 1, len(segments)
        return Cut(best, f"first {shown} of {rows} table rows kept", {"shown": shown, "rows": rows})

    def _cut_text(self, candidate: Candidate, doc_name: str, limit: int) -> Cut | None:
        marker = LABELS[self.lang].text_cut
        body = format_body(candidate, self.lang, self.table_format)
        room = limit - self.context_tokens([ContextEntry(candidate, marker, doc_name)])
        while room > 0:
            entry = ContextEntry(
                candidate, self.counter.truncate(body, room).rstrip() + marker, doc_name
            )
            excess = self.context_tokens([entry]) - limit
            if excess <= 0:
                return Cut(entry, "text cut at a token boundary", {})
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
    ) -> Excerpt | None:
        """The candidate as a question-focused excerpt that fits after ``chosen`` within
        ``limit``; None when no row or sentence matches or none fits. ``base`` is at least the
        tokens of ``chosen`` laid out.

        Matching units enter best first while the context stays within the limit, then are
        shown in their original order."""
        units = self._units(candidate, terms)
        if units is None:
            return None
        added = self._estimate(units, candidate, doc_name, len(chosen) + 1, base, limit)
        while added:
            kept = _shown(added)
            best = ContextEntry(candidate, units.render(kept), doc_name)
            tokens = self.context_tokens([*chosen, best])
            if tokens <= limit:
                break
            added.pop()
        if not added:
            return None
        if units.header is not None:
            kept = [i for i in kept if i >= units.header]
        how = f"excerpt: {len(kept)} of {units.total} {units.name} that match the question kept"
        values: dict[str, object] = {"kept": len(kept), "total": units.total, "unit": units.name}
        return Excerpt(best, how, values, tokens)

    def _units(self, candidate: Candidate, terms: QuestionTerms) -> _Units | None:
        chunk = candidate.chunk
        if chunk.type == "table" and chunk.table_html:
            header, n_rows, table_rows = table_units(chunk, terms, self.settings)

            def render_rows(kept: list[int]) -> str:
                return format_table_body(
                    candidate,
                    self.lang,
                    table_format=self.table_format,
                    with_context=False,
                    excerpt_rows=kept,
                )

            return _Units(table_rows, n_rows - header, "table rows", header, render_rows)
        if chunk.type == "text":
            parts, sentences = text_units(chunk.text, terms, self.settings)

            def render_sentences(kept: list[int]) -> str:
                return format_text_excerpt(chunk, self.lang, parts, kept)

            return _Units(sentences, len(parts), "sentences", None, render_sentences)
        return None

    def _estimate(
        self, units: _Units, candidate: Candidate, doc_name: str, number: int, base: int, limit: int
    ) -> list[Unit]:
        """The best units, best first, while ``base`` plus their block (as source ``number``)
        plus the layout margin stays within ``limit``."""
        # Trials are counted as the context so far plus the block alone plus a margin for the
        # separator, a new group heading and a longer source number (counting the whole context
        # for every trial made prompts 3x slower); the result is then checked exactly.
        added: list[Unit] = []
        settings = self.settings
        for unit in best_first(units.units, settings.excerpt_units, settings.excerpt_min_share):
            entry = ContextEntry(candidate, units.render(_shown([*added, unit])), doc_name)
            block = self.counter.count(format_source(number, entry, self.lang))
            if base + block + LAYOUT_MARGIN > limit:
                break
            added.append(unit)
        return added
