"""What the offline answerer can quote: a chunk's sentences, table rows (with the notes their
marks point to) and figure descriptions, each with the words it is matched on."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rag_app.facts.cells import number_of
from rag_app.models import Chunk
from rag_app.stage_settings import OfflineSettings
from rag_app.text.analyzer import match_terms
from rag_app.text.language import WORD_CHAR
from rag_app.text.latex import latex_to_text
from rag_app.text.notes import note_mark, table_marks
from rag_app.text.periods import find_years, is_whole_year_label
from rag_app.text.phrasing import (
    continues,
    describes_axes,
    is_caption_of,
    names_reference,
    reference_number,
    states_direction,
)
from rag_app.text.sentences import split_sentences
from rag_app.text.subjects import subject_words
from rag_app.text.tables import column_labels, labelled_rows, parse_table
from rag_app.understand.analysis import QueryAnalysis

# Sentences are cut to ``OfflineSettings.max_sentence_chars`` (with an ellipsis) unless told.
_MAX_CHARS = OfflineSettings.max_sentence_chars

_MARKDOWN_NOISE = re.compile(r"^\s*(?:#{1,6}\s+|[-*+]\s+|\d+[.)]\s+|>\s*)")


@dataclass(frozen=True)
class Candidate:
    """A sentence, table row or figure description that may be quoted."""

    source: int  # the N of [Source N]
    order: int  # position of its source in the list, then within the source (tie-break)
    text: str
    words: frozenset[str]
    bigrams: frozenset[str]
    context: frozenset[str] = frozenset()  # caption, heading path, intro paragraph words
    row_label: str = ""  # a table row's first cell
    # A table row's cells with their column labels, and the unit its table states ("（百万元）").
    cells: tuple[tuple[str, str], ...] = ()
    unit: str = ""
    # A table row's label without its unit, a growth or share row named with the row above it:
    # "增长率（%）" under "归母净利润（百万元）" is 归母净利润增长率.
    metric: str = ""


def quotable_parts(text: str, max_chars: int = _MAX_CHARS) -> list[str]:
    """Sentences of ``text`` worth quoting: Markdown list/heading markers removed, at least four
    characters with a word in them, clipped to ``max_chars``. Math is read as text first: a
    ``$$`` block spans lines, and "3 . 6 5" must not end a sentence."""
    out = []
    for part in split_sentences(latex_to_text(text)):
        part = _MARKDOWN_NOISE.sub("", part).strip()
        if len(part) >= 4 and WORD_CHAR.search(part):
            out.append(clip(part, max_chars))
    return out


def quotable_sentences(text: str, max_chars: int = _MAX_CHARS) -> list[str]:
    """Sentences of ``text``, a sentence that continues the one before joined to it: "Costs
    rose 6.4%. The increase was due to ..." is quoted whole, with its reason."""
    out: list[str] = []
    for sentence in quotable_parts(text, max_chars):
        if out and continues(sentence) and len(out[-1]) + len(sentence) < max_chars:
            out[-1] = f"{out[-1]} {sentence}"
        else:
            out.append(sentence)
    return out


def clip(text: str, max_chars: int = _MAX_CHARS) -> str:
    """``text`` on one line, its inline math read as text ("$\\geq 1 9 6$" -> "≥196"), cut to
    ``max_chars`` (``OfflineSettings.max_sentence_chars``)."""
    text = " ".join(latex_to_text(text).split())
    return text if len(text) <= max_chars else text[: max_chars - 1] + "…"


def chunk_candidates(
    number: int,
    rank: int,
    chunk: Chunk,
    row_notes: bool = True,
    join_continuations: bool = True,
    max_chars: int = _MAX_CHARS,
) -> list[Candidate]:
    """The quotable units of one chunk: table rows (with the notes their marks point to, with
    ``row_notes``), figure caption/description sentences, or text sentences (each joined with
    the sentence continuing it, with ``join_continuations``), each cut to ``max_chars``."""
    context_text = " ".join([*chunk.heading_path, chunk.caption, chunk.context])
    context = frozenset(match_terms(context_text)[0]) if context_text.strip() else frozenset()
    units: list[tuple[str, str]] = []  # (text, row label)
    cells: list[tuple[tuple[str, str], ...]] = []  # per table row, (column label, value)
    metrics: list[str] = []
    unit = ""
    if chunk.type == "table" and chunk.table_html:
        # Rows only: a caption alone answers nothing; it still counts as context for its rows.
        # A row is quoted with the notes its marks point to ("Customer costs(2)" with "(2)
        # Include advertising ..."): the note is often what the question asks.
        notes = (
            {m: line.strip() for line in chunk.footnote.split("\n") if (m := note_mark(line))}
            if row_notes
            else {}
        )
        units = []
        grid = parse_table(chunk.table_html, chunk.header_rows)
        for label, text in labelled_rows(grid):
            marked = sorted(table_marks(text) & notes.keys())
            note = " ".join(notes[m] for m in marked)
            units.append((clip(f"{text} {note}" if note else text, max_chars), label))
        # labelled_rows gives one unit per data row with a non-empty cell, in order.
        headers = column_labels(grid, " / ")
        cells = [
            tuple(zip(headers, (latex_to_text(c) for c in row), strict=False))
            for row in grid.data_rows
            if any(row)
        ]
        unit = table_unit(" ".join([chunk.caption, *headers[:1], chunk.footnote]))
        metrics = row_metrics([label for _, label in units])
    elif chunk.type == "image":
        # Each description sentence on its own words: the caption is every sentence's context
        # (glued to the first one, it made the axis sentence outscore the trend). The answer
        # names the figure when it quotes it (``with_caption``).
        description = quotable_parts(chunk.description, max_chars)
        caption = clip(chunk.caption.strip(), max_chars)
        units = [(s, "") for s in description] or ([(caption, "")] if caption else [])
    if not units:
        if join_continuations:
            parts = quotable_sentences(chunk.text, max_chars)
        else:
            parts = quotable_parts(chunk.text, max_chars)
        units = [(s, "") for s in parts]
    out = []
    for i, (text, label) in enumerate(units):
        words, bigrams = match_terms(text)
        out.append(
            Candidate(
                number,
                rank * 10_000 + i,
                text,
                frozenset(words),
                frozenset(bigrams),
                context,
                label,
                cells[i] if i < len(cells) else (),
                unit,
                metrics[i] if label and i < len(metrics) else "",
            )
        )
    return out


# A table's unit, as captions and header cells state it: "单位：百万元", "（百万元）", "(US$m)".
_TABLE_UNIT = re.compile(
    r"单位\s*[:：]\s*([^\s，,；;)）]{1,8})"
    r"|[（(]\s*((?:人民币|美元|港元)?[百千万亿]*(?:元|美元|港元)|%|倍|[A-Za-z$]{1,4}m|[GM]Wh|万吨|吨)\s*[)）]"
)
# A row label's unit: "市盈率（倍）", "EPS（元/股）", "Revenue ($m)".
ROW_UNIT = re.compile(r"[（(]([^（()）]{1,12})[)）]\s*$")


# Row labels that measure the row above them (盈利预测 tables: 营业收入 then 增长率).
_RELATIVE_LABEL = re.compile(r"^(?:增长率|增速|同比|同比增长|同比增速|yoy|growth|占比)$", re.I)


def row_metrics(labels: list[str]) -> list[str]:
    """Each row label without its unit ("市盈率（倍）" -> 市盈率), a growth or share label
    named with the label above it ("增长率" under "营业收入（百万元）" -> 营业收入增长率)."""
    out: list[str] = []
    above = ""
    for label in labels:
        bare = ROW_UNIT.sub("", label).strip()
        if _RELATIVE_LABEL.match(bare) and above:
            out.append(f"{above}{bare}")
        else:
            out.append(bare)
            above = bare
    return out


def table_unit(text: str) -> str:
    """The unit a table's caption, first header or notes states ("单位：百万元" -> "百万元"),
    else ""."""
    match = _TABLE_UNIT.search(text)
    return next((g for g in match.groups() if g), "") if match else ""


@dataclass(frozen=True)
class ScoredSentence:
    candidate: Candidate
    score: float
    matched: tuple[str, ...]


# A worked line's working and its source ("…：125.9 + 135.1 = 261 [Source 4]"); its operands,
# not a count or a scale it divides or multiplies by (/ 4, × 100).
_WORKING = re.compile(r"[:：]\s*([^:：=]+?)=[^=\[]*\[Source (\d+)\]")
_OPERAND = re.compile(r"([/×*]\s*)?(\d[\d,]*(?:\.\d+)?)")


def operand_rows(
    values: Sequence[str],
    chosen: Sequence[ScoredSentence],
    sources: Sequence[tuple[int, Chunk]],
    settings: OfflineSettings,
) -> list[ScoredSentence]:
    """The table rows giving a worked line's operands that ``chosen`` does not quote, in their
    table's order: "(125.9 + 135.1 + 156.1 + 160.9) / 4 = 144.5 [Source 4]" quotes each
    quarter's row, not only the three ranked first."""
    quoted = {number_of(v) for s in chosen for _, v in s.candidate.cells}
    chunks = dict(sources)
    out: list[ScoredSentence] = []
    for working in (w for line in values for w in _WORKING.finditer(line)):
        chunk = chunks.get(int(working.group(2)))
        if chunk is None:
            continue
        rows = chunk_candidates(
            int(working.group(2)), 0, chunk, settings.row_notes, False, settings.max_sentence_chars
        )
        for operand in _operands(working.group(1)):
            row = next((r for r in rows if operand in {number_of(v) for _, v in r.cells}), None)
            if operand not in quoted and row is not None:
                out.append(ScoredSentence(row, 0.0, ()))
                quoted |= {number_of(v) for _, v in row.cells}
    return sorted(out, key=lambda s: s.candidate.order)


def _operands(working: str) -> list[float]:
    """The numbers a working adds, subtracts or divides, a bare integer after / or × aside."""
    found = []
    for match in _OPERAND.finditer(working):
        if match.group(1) and "." not in match.group(2):
            continue  # / 4, × 100: a count or a scale
        found.append(number_of(match.group(2)))
    return [f for f in found if f is not None]


def row_value(
    candidate: Candidate, year: str, named: Callable[[str], bool]
) -> tuple[str, str, str] | None:
    """The (period label, value, column label) of a table row's column labelled with ``year``
    as a whole year ("2026E", "2026年", "FY2026"), when the value has a digit: the one such
    column, or the one of several whose other label ``named`` accepts ("毛利率（%） / 2024A"
    asked for 毛利率); None otherwise. The column label is that other label ("" for the one
    column)."""
    found = []
    for header, value in candidate.cells[1:]:
        parts = [p.strip() for p in header.split(" / ")]
        label = next((p for p in parts if is_whole_year_label(p, year)), None)
        if label is not None:
            rest = " ".join(p for p in parts if p != label and p)
            found.append((label, value.strip(), rest))
    if len(found) > 1:
        found = [f for f in found if f[2] and named(f[2])]
    elif found:
        found = [(found[0][0], found[0][1], "")]  # its other label groups (实际值), names nothing
    if len(found) != 1 or not re.search(r"\d", found[0][1]):
        return None
    return found[0]


def with_caption(text: str, chunk: Chunk, max_chars: int = _MAX_CHARS) -> str:
    """A figure's quoted sentence headed by the figure's caption ("图3：…：2024Q4营收…", the
    caption cut to ``max_chars``), once per figure; other text as it is."""
    caption = clip(chunk.caption.strip(), max_chars)
    if chunk.type != "image" or not caption or text.startswith(caption):
        return text
    return f"{caption}：{text}"


class FigureScores:
    """For a question about a figure: per figure sentence, +1 for the figure the question
    points at ("图3"), +1 for a sentence stating a direction or peak or naming the year asked;
    a sentence describing the axes, legend or unit answers no question about what the figure
    shows and is not quoted (``quotable``). When the question points at a figure the sources
    hold, the answer is that figure's: its description and the paragraph introducing it
    (``discussion_candidates``) are quoted whether or not they share a word with the question,
    and other sources only where they name it ("如图2所示"): a table row sharing the number 3
    with "Figure 3" says nothing of it."""

    def __init__(self, query: QueryAnalysis, sources: Sequence[tuple[int, Chunk]]) -> None:
        self.captions = {n: c.caption.strip() for n, c in sources if c.type == "image"}
        self.years = set(find_years(query.text))
        self.number = reference_number(query.reference("image"))
        self.pointed = {
            n for n, cap in self.captions.items() if is_caption_of(cap, "image", self.number)
        }

    def __contains__(self, number: int) -> bool:
        return number in self.captions

    def quotable(self, cand: Candidate) -> bool:
        """False for a figure's sentence on how it is drawn ("柱状图为…（亿元，左轴）"), and,
        when the question points at a figure the sources hold, for what other sources say
        unless it names that figure."""
        if self.pointed and cand.source not in self.pointed:
            return names_reference(cand.text, "image", self.number)
        return cand.source not in self.captions or not describes_axes(cand.text)

    def about_pointed(self, cand: Candidate) -> bool:
        """Whether ``cand`` is from the figure the question points at, or names it ("如图2所示，
        毛利率逐季回升"): quotable without a word shared with the question."""
        if cand.source in self.pointed:
            return True
        return bool(self.pointed) and names_reference(cand.text, "image", self.number)

    def score(self, cand: Candidate) -> float:
        if cand.source not in self.captions:
            if self.about_pointed(cand):
                return 1.0 + float(states_direction(cand.text))
            return -1.0 if self.pointed else 0.0
        out = 1.0 if cand.source in self.pointed else 0.0
        if states_direction(cand.text) or any(year in cand.text for year in self.years):
            out += 1.0
        return out


class PointedTable:
    """For a question pointing at a numbered table ("表3", "Table 5"): the sources captioned as
    that table (``pointed``, empty when the sources hold none). Its rows answer the question
    whether or not they share a word with it, and other sources only where they name it ("如表6
    所示"): a row holding the number 3 says nothing of 表3."""

    def __init__(self, query: QueryAnalysis, sources: Sequence[tuple[int, Chunk]]) -> None:
        self.number = reference_number(query.reference("table"))
        self.pointed = {
            n
            for n, chunk in sources
            if chunk.type == "table" and is_caption_of(chunk.caption.strip(), "table", self.number)
        }

    def about(self, cand: Candidate) -> bool:
        """Whether ``cand`` is a row of the table asked about, or names it."""
        return cand.source in self.pointed or names_reference(cand.text, "table", self.number)


def discussion_candidates(
    number: int, rank: int, chunk: Chunk, max_chars: int = _MAX_CHARS
) -> list[Candidate]:
    """The sentences of the paragraph introducing a figure (``chunk.context``) that name what
    its caption names (besides the report's company), quotable after its description's: a
    figure without a description is discussed only there ("从经营指标看，公司产能利用率……持续
    回升" before "图2：中芯国际季度毛利率与产能利用率"); the paragraph before a figure may also
    be on something else."""
    about = set(match_terms(chunk.caption)[0]) - set(subject_words(chunk))
    out = []
    for i, text in enumerate(quotable_sentences(chunk.context, max_chars)):
        words, bigrams = match_terms(text)
        if not about & words:
            continue
        order = rank * 10_000 + 5_000 + i
        out.append(Candidate(number, order, text, frozenset(words), frozenset(bigrams)))
    return out


def figure_scores(
    query: QueryAnalysis, sources: Sequence[tuple[int, Chunk]]
) -> FigureScores | None:
    """The figure sentences' scores when the question ``query`` is about a figure, else None."""
    return FigureScores(query, sources) if query.asks_about_figure else None
