"""Question-focused excerpts: the rows or sentences of a source that share words with the question.

A source that does not fit the budget whole used to be left out. Most of a long table or
paragraph is beside the question, and the part that answers it ("What was the depreciation in
2019?": the Depreciation row) usually shares a word with it. An excerpt keeps those units (a
table keeps its header rows, so columns stay labelled), marked as an excerpt, so a lower-ranked
source can still bring its evidence instead of nothing.

Units are scored by the question's words they contain (numbers alone, such as a year, count a
quarter) plus Chinese bigrams at 0.3 (a name jieba cut differently); a unit needs a shared
word that is not a number, or two shared bigrams, to be kept at all.

A unit brings what it cannot be read without: a table's group heading ("Continuing Operations",
a row with a label and no values) brings the rows under it; a sentence brings the sentences that
continue it ("Net cash ... increased $242 million." + "The increase was primarily due to ...").
A row with values but no label after other rows is their total, and matches "total"/"合计".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rag_app.models import Chunk
from rag_app.stage_settings import DEFAULT_PROMPT_SETTINGS, PromptSettings
from rag_app.text.analyzer import QuestionTerms
from rag_app.text.phrasing import continues
from rag_app.text.sentences import split_sentences
from rag_app.text.table_rows import row_cells, split_rows

# What a label-less row of values after other rows is called, so "total"/"合计" questions meet it.
TOTAL_WORDS = "total 合计 总计"

__all__ = ["Unit", "best_first", "score_unit", "table_units", "text_units"]


_NUMBER = re.compile(r"^[\d.,%]+$")


@dataclass(frozen=True)
class Unit:
    """A table row (``index`` of its row segment) or a sentence (``index`` in the text), with
    the rows or sentences it brings (``span``, ``index`` first)."""

    index: int
    text: str
    score: float
    span: tuple[int, ...] = ()

    @property
    def indices(self) -> tuple[int, ...]:
        return self.span or (self.index,)


def score_unit(
    text: str,
    terms: QuestionTerms,
    numbers_suffice: bool = False,
    number_weight: float = DEFAULT_PROMPT_SETTINGS.excerpt_number_weight,
    bigram_weight: float = DEFAULT_PROMPT_SETTINGS.bigram_weight,
) -> float:
    """How much of the question ``text`` holds; 0 when it shares no informative word (with
    ``numbers_suffice``, a shared number or year such as 2024, also in 2024Q1, is enough).

    Terms are found as substrings (Latin ones at a word start, so "revenue" finds "Revenues"
    and "pe" not "operating"): no segmentation per row, which made prompts three times slower.
    """
    lowered = text.lower()
    informative = numbers = 0
    for word in terms.words:
        if _occurs(lowered, word):
            if _NUMBER.match(word):
                numbers += 1
            else:
                informative += 1
    bigrams = sum(1 for b in terms.bigrams if b in lowered)
    if not informative and bigrams < 2 and not (numbers_suffice and numbers):
        return 0.0
    return informative + number_weight * numbers + bigram_weight * bigrams


def _occurs(lowered: str, word: str) -> bool:
    if not word.isascii():
        return word in lowered
    # tokenize stems "companies" to "company": look for the stem's start too
    stem = word[:-1] if word.endswith("y") and len(word) > 3 else word
    return re.search(rf"(?<![a-z0-9]){re.escape(stem)}", lowered) is not None


def table_units(
    chunk: Chunk, terms: QuestionTerms, settings: PromptSettings = DEFAULT_PROMPT_SETTINGS
) -> tuple[int, int, list[Unit]]:
    """(header rows, all rows, the rows that match), for a table chunk with HTML rows.

    With ``settings.period_rows``, when no row shares a word with the question, rows sharing a
    year or period are taken: a table with one row per quarter is asked about by year
    ("2024年的毛利率": rows 2024Q1-Q4). A matching group heading, in the header or not, brings
    up to ``settings.group_heading_rows`` data rows under it; with ``settings.label_less_totals``
    a row of values with no label after other rows is their total and matches "total"/"合计"."""
    parsed = split_rows(chunk.table_html) if chunk.table_html else None
    if parsed is None:
        return 0, 0, []
    header = min(max(1, chunk.header_rows), len(parsed.segments))
    rows = [row_cells(segment) for segment in parsed.segments]
    headings = [n for n, cells in enumerate(rows) if n > 0 and _is_heading(cells)]
    texts = []
    for index in range(1, len(rows)):
        if index < header and index not in headings:
            continue  # shown anyway
        text = " ".join(cell for cell in rows[index] if cell)
        if (
            settings.label_less_totals
            and index > header
            and not rows[index][0]
            and any(rows[index][1:])
        ):
            text = f"{TOTAL_WORDS} {text}"  # values under the rows they add up
        texts.append((index, text))
    for numbers_suffice in (False, True) if settings.period_rows else (False,):
        units = []
        for index, text in texts:
            score = (
                score_unit(
                    text,
                    terms,
                    numbers_suffice,
                    settings.excerpt_number_weight,
                    settings.bigram_weight,
                )
                if text
                else 0.0
            )
            if score <= 0:
                continue
            if index in headings:
                end = next((h for h in headings if h > index), len(rows))
                span = tuple(i for i in range(index, end) if i >= header)
                span = span[: settings.group_heading_rows]
                if span:
                    units.append(Unit(span[0], text, score, span))
                elif not settings.group_heading_rows:
                    units.append(Unit(index, text, score))
            else:
                units.append(Unit(index, text, score))
        if units:
            break
    return header, len(parsed.segments), _narrowed(units)


def _narrowed(units: list[Unit]) -> list[Unit]:
    """The units, each group heading without its rows unless it is what the question is about:
    the row that matches best, and no row under it matching as well. "The net deferred tax
    assets" wants the row "Net deferred tax assets", not the twenty under "Deferred tax
    assets:"; "the components of Continuing Operations" matches the heading alone and keeps its
    rows."""
    best = max((unit.score for unit in units), default=0.0)
    out = []
    for unit in units:
        if len(unit.indices) > 1:
            rows = set(unit.indices[1:])
            under = any(o is not unit and o.index in rows and o.score >= unit.score for o in units)
            if unit.score < best or under:
                unit = Unit(unit.index, unit.text, unit.score)
        out.append(unit)
    return out


def _is_heading(cells: list[str]) -> bool:
    """A group heading: a label and no values ("Continuing Operations", "流动资产：")."""
    return bool(cells[0]) and len(cells) > 1 and not any(cells[1:])


def text_units(
    text: str, terms: QuestionTerms, settings: PromptSettings = DEFAULT_PROMPT_SETTINGS
) -> tuple[list[str], list[Unit]]:
    """(all sentences, the sentences that match, each with up to
    ``settings.continuation_sentences`` sentences continuing it)."""
    parts = split_sentences(text)
    units, seen = [], set()
    for index, part in enumerate(parts):
        if part in seen:
            continue  # a repeated sentence adds nothing
        seen.add(part)
        score = score_unit(
            part,
            terms,
            number_weight=settings.excerpt_number_weight,
            bigram_weight=settings.bigram_weight,
        )
        if score > 0:
            span = [index]
            while (
                len(span) <= settings.continuation_sentences
                and span[-1] + 1 < len(parts)
                and continues(parts[span[-1] + 1])
            ):
                span.append(span[-1] + 1)
            units.append(Unit(index, part, score, tuple(span)))
    return parts, units


def best_first(units: list[Unit], at_most: int, min_share: float) -> list[Unit]:
    """The units an excerpt may take, in the order it takes them: best score first (earlier
    first on ties), at most ``at_most``, each scoring at least ``min_share`` of the best."""
    ordered = sorted(units, key=lambda u: (-u.score, u.index))
    if not ordered:
        return []
    floor = min_share * ordered[0].score
    return [u for u in ordered if u.score >= floor][:at_most]
