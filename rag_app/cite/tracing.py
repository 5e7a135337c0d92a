"""Where each number of an answer was traced: the cell of a cited table or the sentence of a
cited text that holds it, read as the check reads numbers (``evidence.SourceEvidence.has_number``:
as written, rounded as the answer writes it, or as the amount it states in the scale its source
states, "577.96亿元" the 57,796 of a row in 百万元), and for a number the answer works out
("57796 - 45250 = 12546", ``text.working``) its operands' places.

The check says whether a number is in its sources; this says where, for a reader to open. A
value found in several places goes, among those writing it as the answer does (else among all
holding it), to the one whose labels share most with the words around the number in the answer
(its clause, then its line: "2024A" for "2024年", "营业收入" for 营收), then to the first. Numbers the check flagged are left out,
and so are years and list numbers, which name rather than state. Tables are read once per table
(``parse_table`` and the cells' numbers are kept), so tracing an answer costs a pass over the
cells holding its values.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from rag_app.cite.claims import AnswerSentence
from rag_app.cite.evidence import (
    Number,
    SourceEvidence,
    number_spans,
    source_units_from_block,
    stated_exponents,
)
from rag_app.cite.report import Place, SentenceCheck, TracedNumber
from rag_app.cite.sentences import answer_segments
from rag_app.models import Chunk
from rag_app.text.analyzer import cjk_bigrams
from rag_app.text.latex import latex_to_text
from rag_app.text.periods import YEAR
from rag_app.text.scales import stated_exponent
from rag_app.text.tables import column_labels, parse_table
from rag_app.text.working import workings

MarkerSpan = tuple[int, int, tuple[int, ...]]

# A clause ends at these: a row quoted as "a: 1; b: 2", a list of years "2023年为X，2024年为Y".
_CLAUSE_END = re.compile(r"[;；。\n，]|,\s")
_ASCII_WORD = re.compile(r"[a-z][a-z0-9]+|\d+[a-z]+")
# What may come before a list number at the start of a line, and right after one.
_BULLET_LEAD = re.compile(r"^[\s\-*+•#>(（]*$")
_LIST_END = re.compile(r"[.、)）](?!\d)")
# A number right after one of these names a table, a figure or a part ("表1", "第3").
_NAMING = "表图第附章节"


@dataclass(frozen=True)
class _Candidate:
    """A number of a source, the scale its source states for it (0 when only the source as a
    whole does), where it stands, and the labels that say what it is."""

    number: Number
    exponent: int
    place: Place
    labels: str


def trace_checks(
    text: str,
    sentences: Sequence[AnswerSentence],
    checks: Sequence[SentenceCheck],
    spans: Sequence[MarkerSpan],
    chunks: Mapping[int, Chunk],
    blocks: Mapping[int, str],
    evidence: Mapping[int, SourceEvidence],
) -> list[SentenceCheck]:
    """``checks`` (one per sentence of ``sentences``, of the answer ``text``), each factual
    one with the numbers it traced (``SentenceCheck.traced``).

    ``spans`` are the answer's citation markers (``markers.marker_spans``), ``chunks`` the
    chunk of each ``[Source N]``, ``blocks`` the prompt block the model saw of it (when there
    was one), ``evidence`` the sources as the check read them. A sentence is traced in the
    sources it cites that exist, then in the one that supports it best. Never raises."""
    tracer = _Tracer(text, spans, chunks, blocks, evidence)
    out = []
    for sentence, check in zip(sentences, checks, strict=True):
        traced = tracer.sentence(sentence, check) if check.factual else ()
        out.append(replace(check, traced=traced) if traced else check)
    return out


class _Tracer:
    def __init__(
        self,
        text: str,
        spans: Sequence[MarkerSpan],
        chunks: Mapping[int, Chunk],
        blocks: Mapping[int, str],
        evidence: Mapping[int, SourceEvidence],
    ) -> None:
        self.text = text
        self.spans = spans
        self.chunks = chunks
        self.blocks = blocks
        self.evidence = evidence
        self._candidates: dict[tuple[int, int], dict[Decimal, list[_Candidate]]] = {}

    def sentence(self, sentence: AnswerSentence, check: SentenceCheck) -> tuple[TracedNumber, ...]:
        start, end = sentence.segment.start, sentence.segment.end
        masked = list(self.text[start:end])
        for a, b, _ in self.spans:  # a marker's numbers are no numbers of the claim
            for i in range(max(a, start), min(b, end)):
                masked[i - start] = " "
        segment = "".join(masked)
        found = number_spans(segment)
        if not found:
            return ()
        untraced = {
            n.strip()
            for reason in check.reasons
            if reason.key == "numbers_not_found"
            for n in reason.value("numbers").split(", ")
        }
        order = [n for n in check.cited if n in self.evidence]
        if check.best_source is not None and check.best_source not in order:
            order.append(check.best_source)
        worked = {w.start: w for w in workings(segment)}
        at = {s: (number, s, e) for number, s, e in found}
        out = []
        for number, s, e in found:
            if number.raw in untraced or self._names(number, start + s, start + e):
                continue
            working = worked.get(s)
            place = self._place(number, start + s, start + e, order)
            operands: list[TracedNumber] = []
            written = ""
            if working is not None:
                written = segment[working.begin : working.end]
                written += "%" if segment[working.end : working.end + 1] in ("%", "％") else ""
                for os, _ in working.operands:
                    if os not in at or at[os][0].value in working.own:
                        continue  # an average's count, a percentage's 100: the working's own
                    operand, _, oe = at[os]
                    where = self._place(operand, start + os, start + oe, order)
                    operands.append(TracedNumber(operand.raw, start + os, start + oe, where))
            elif place is None:
                continue
            stop = start + e + (1 if segment[e : e + 1] in ("%", "％") else 0)
            out.append(TracedNumber(number.raw, start + s, stop, place, written, tuple(operands)))
        return tuple(out)

    def _names(self, number: Number, s: int, e: int) -> bool:
        """A year, a list number ("1. ", "(2)") or a name's number ("表1", "Q3"): not traced."""
        if number.year and not number.exponent:
            return True
        before = self.text[max(0, s - 2) : s]
        if (
            before[-1:] in _NAMING
            or (  # "表1"; a lone letter's "Q3", "H1", not "ROE10.8"
                before[-1:].isascii() and before[-1:].isalpha() and not before[:-1].isalpha()
            )
        ):
            return bool(before)
        line = self.text[self.text.rfind("\n", 0, s) + 1 : s]
        return bool(_BULLET_LEAD.match(line)) and bool(_LIST_END.match(self.text, e))

    def _place(self, number: Number, s: int, e: int, order: Sequence[int]) -> Place | None:
        """Where the first source of ``order`` that holds ``number`` holds it, best placed:
        among the places holding it as written when there are any, else among all."""
        if number.year and not number.exponent:
            return None
        # what the card shows of each source first, then the block the model saw of it
        for group in (0, 1):
            for source in order:
                candidates = self.candidates(source, group)
                exact = [c for c in candidates.get(number.value, ()) if _match(number, c) == 3]
                found = [(c, 3) for c in exact] or [
                    (c, tier)
                    for cs in candidates.values()
                    for c in cs
                    if (tier := _match(number, c))
                ]
                if found:
                    return self._best(found, s, e)
        return None

    def _best(self, found: list[tuple[_Candidate, int]], s: int, e: int) -> Place:
        """The place whose labels share most with the number's clause, then its line; then the
        one holding it as written; then the first."""
        clause, line = self._context(s, e)
        best: tuple[tuple[int, int, int], Place] | None = None
        for candidate, tier in found:
            labels = _tokens(candidate.labels)
            key = (len(clause & labels), len(line & labels), tier)
            if best is None or key > best[0]:
                best = (key, replace(candidate.place, exponent=candidate.exponent))
        assert best is not None
        return best[1]

    def _context(self, s: int, e: int) -> tuple[frozenset[str], frozenset[str]]:
        """The words of the clause around a number, and of its line."""
        line_start = self.text.rfind("\n", 0, s) + 1
        line_end = self.text.find("\n", e)
        line_end = len(self.text) if line_end < 0 else line_end
        ends = [m.end() for m in _CLAUSE_END.finditer(self.text, line_start, s)]
        after = _CLAUSE_END.search(self.text, e, line_end)
        clause = self.text[ends[-1] if ends else line_start : after.start() if after else line_end]
        return _tokens(clause), _tokens(self.text[line_start:line_end])

    def candidates(self, source: int, group: int) -> dict[Decimal, list[_Candidate]]:
        """The numbers of a source's chunk (``group`` 0), or of the prompt block the model saw
        of it (1), by value; each read once an answer, when first asked for."""
        key = (source, group)
        if key not in self._candidates:
            found = self._shown(source) if group == 0 else self._prompt(source)
            by_value: dict[Decimal, list[_Candidate]] = {}
            for candidate in found:
                by_value.setdefault(candidate.number.value, []).append(candidate)
            self._candidates[key] = by_value
        return self._candidates[key]

    def _whole(self, source: int) -> int:
        evidence = self.evidence.get(source)
        return evidence.exponent if evidence is not None else 0

    def _shown(self, source: int) -> list[_Candidate]:
        chunk = self.chunks.get(source)
        if chunk is None:
            return []
        whole = self._whole(source)
        out: list[_Candidate] = []
        if chunk.table_html:
            for number, own, row, col, cell, row_label, col_label in _cells(
                chunk.table_html, chunk.header_rows
            ):
                place = Place(source, "cell", cell, number.raw, 0, row, col, row_label, col_label)
                out.append(_Candidate(number, own or whole, place, f"{row_label} {col_label}"))
        return out + _sentence_candidates(source, _chunk_parts(chunk), whole)

    def _prompt(self, source: int) -> list[_Candidate]:
        block = self.blocks.get(source, "")
        if not block:
            return []
        parts = tuple(("prompt", u) for u in source_units_from_block(block))
        return _sentence_candidates(source, parts, self._whole(source))


def _sentence_candidates(
    source: int, parts: tuple[tuple[str, str], ...], whole: int
) -> list[_Candidate]:
    return [
        _Candidate(
            number, own or whole, Place(source, "sentence", unit, number.raw, part=part), unit
        )
        for part, unit, numbers in _sentences(parts)
        for number, own in numbers
    ]


def _match(number: Number, candidate: _Candidate) -> int:
    """How ``candidate`` holds ``number``: 3 as written, 2 rounded as the answer writes it, 1
    as the amount it states in its source's scale; 0 not at all (``has_number``'s rules)."""
    other, exponent = candidate.number, candidate.exponent
    try:
        if not number.exponent or not exponent or number.exponent == exponent:
            if other.value == number.value:
                return 3
            step = Decimal(1).scaleb(-number.decimals)
            if number.decimals < other.decimals and (
                other.value.quantize(step, rounding=ROUND_HALF_UP) == number.value
            ):
                return 2
        if other.year or (number.year and not number.exponent):
            return 0
        amount = other.value.scaleb(exponent)
        if amount < number.value.scaleb(number.exponent - 1):
            return 0
        step = Decimal(1).scaleb(-number.decimals)
        scaled = amount.scaleb(-number.exponent).quantize(step, rounding=ROUND_HALF_UP)
        return 1 if scaled == number.value else 0
    except InvalidOperation:
        return 0


@functools.lru_cache(maxsize=4096)
def _tokens(text: str) -> frozenset[str]:
    """What labels and an answer's words are compared by: Chinese character bigrams, ASCII
    words ("2024a", "revenue"), and each year written ("2024" of "2024A" and of "2024年")."""
    lowered = text.lower()
    years = {f"y{m.group()}" for m in YEAR.finditer(text)}
    return frozenset(cjk_bigrams(text)) | set(_ASCII_WORD.findall(lowered)) | years


# Tables are read once each: a library's tables are cited again and again.
@functools.lru_cache(maxsize=512)
def _cells(
    table_html: str, header_rows: int
) -> tuple[tuple[Number, int, int, int, str, str, str], ...]:
    """Each number of each data cell of a table: (number, the scale its cell, column or row
    states, row, column, cell text, row label, column label), rows and columns as
    ``parse_table`` reads the table the card draws."""
    grid = parse_table(latex_to_text(table_html), header_rows)
    labels = column_labels(grid, " / ")
    columns = [stated_exponent(label) for label in labels]
    out = []
    for r in range(grid.header_rows, grid.n_rows):
        row = grid.rows[r]
        row_label = next((cell for cell in row if cell.strip()), "")
        row_exponent = stated_exponent(row_label)
        for c, cell in enumerate(row):
            if not cell.strip():
                continue
            column = labels[c] if c < len(labels) else ""
            own = (columns[c] if c < len(columns) else 0) or row_exponent
            for number, _, _ in number_spans(cell):
                out.append((number, number.exponent or own, r, c, cell, row_label, column))
    return tuple(out)


def _chunk_parts(chunk: Chunk) -> tuple[tuple[str, str], ...]:
    parts = [("heading", " > ".join(h for h in chunk.heading_path if h.strip()))]
    # a table's text is its rows linearised, which its card draws as the table
    names = ("caption", "description", "footnote", "context")
    for name in names if chunk.table_html else ("caption", "text", *names[1:]):
        parts.append((name, latex_to_text(getattr(chunk, name) or "")))
    parts.extend(("field", f"{name}: {value}") for name, value in chunk.fields if value.strip())
    return tuple((name, text) for name, text in parts if text.strip())


@functools.lru_cache(maxsize=4096)
def _sentences(
    parts: tuple[tuple[str, str], ...],
) -> tuple[tuple[str, str, tuple[tuple[Number, int], ...]], ...]:
    """Each sentence of the parts that holds a number: (part, sentence as written, its numbers
    each with the scale the sentence states for it)."""
    out = []
    for part, text in parts:
        for segment in answer_segments(text):
            unit = text[segment.start : segment.end].strip()
            found = number_spans(unit)
            if not found:
                continue
            stated = stated_exponents(unit)
            numbers = tuple(
                (n, n.exponent or own) for (n, _, _), own in zip(found, stated, strict=False)
            )
            out.append((part, unit, numbers))
    return tuple(out)
