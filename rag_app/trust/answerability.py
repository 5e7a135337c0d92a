"""Whether the library holds what a question asks for, checked before it is answered.

A question names a subject (company or report: its analysis' ``name``, ``text.names``), periods
and metrics (its ``spans``, ``text.spans``). Each is held against the library as it is now:
- a subject no report is about and no chunk mentions ("宁德时代" over the sample): not held;
- a year that appears nowhere in the named subject's reports (2028 when its tables stop at 2026E);
- a metric none of whose synonyms the named subject's reports write.
Each gap names the closest things the library does hold (its reports' subjects, the years its
tables cover, its tables' row labels). A question whose subject is not held, whose every year is
outside, or whose metric is absent is declined: the offline answerer says so instead of quoting
another company's, year's or metric's numbers, and a model's prompt carries the finding with the
instruction to say so. A question missing some of several years is answered with a note.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rag_app.index.library import Library, Snapshot
from rag_app.models import Chunk
from rag_app.text.language import cjk_share
from rag_app.text.periods import find_years
from rag_app.text.spans import strip_modifiers
from rag_app.text.subjects import document_subjects
from rag_app.text.synonyms import SYNONYM_GROUPS, contains_term
from rag_app.text.tables import parse_table
from rag_app.understand.analysis import QueryAnalysis


@dataclass(frozen=True)
class Gap:
    """Something a question asks for that the library does not hold: ``kind`` subject / period /
    metric, what was ``asked``, and the closest things ``held``."""

    kind: str
    asked: str
    held: tuple[str, ...] = ()


@dataclass(frozen=True)
class Finding:
    """What the check found: the gaps, and whether they leave nothing to answer."""

    gaps: tuple[Gap, ...] = ()
    declines: bool = False

    def note(self, language: str = "zh") -> str:
        """The finding in words, for the answer and for a model's prompt ("" when none)."""
        return " ".join(_say(gap, language) for gap in self.gaps)


@dataclass(frozen=True)
class _Document:
    """What the check reads of one document, built once per document version."""

    subjects: frozenset[str]
    text: str  # its chunks' searched text, lower-cased
    table_years: frozenset[str]  # the years its tables' cells and headers name
    # Read when a question first needs them (mutable caches of a frozen record).
    _lazy: dict[str, object] = field(default_factory=dict)

    def years(self) -> frozenset[str]:
        if "years" not in self._lazy:
            self._lazy["years"] = frozenset(find_years(self.text))
        return self._lazy["years"]  # type: ignore[return-value]

    def chinese(self) -> float:
        """The share of the document's words that are Chinese."""
        if "chinese" not in self._lazy:
            self._lazy["chinese"] = cjk_share(self.text[:20000]) or 0.0
        return self._lazy["chinese"]  # type: ignore[return-value]


def assess(
    question: QueryAnalysis, library: Library, kb: str, doc_ids: tuple[str, ...] = ()
) -> Finding:
    """The library's answer to "do you hold what ``question`` (its analysis) asks for?" (see
    the module)."""
    from rag_app.retrieve.signals import per_document

    if kb not in library.knowledge_bases():
        return Finding()
    # per document, kept across uploads: after one only the new documents are read
    profile = per_document("answerability", library, kb, _read_document)
    docs = [d for d in profile if not doc_ids or d in doc_ids]
    if not docs:
        return Finding()
    subjects = sorted({w for d in docs for w in profile[d].subjects})
    gaps: list[Gap] = []
    name = question.name
    about = _docs_about(question.text, name, docs, profile)
    # A Latin name over Chinese reports (CATL, 宁德时代) cannot be told held or not: not checked.
    if (
        name
        and about is None
        and (not name.isascii() or all(profile[d].chinese() < 0.5 for d in docs))
    ):
        if not any(_head(name) in profile[d].text for d in docs):
            gaps.append(Gap("subject", name, tuple(subjects)))
            return Finding(tuple(gaps), declines=True)
    scope = about or docs
    spans = question.spans(subjects)
    asked_years = sorted({y for s in spans if s.kind == "period" for y in find_years(s.text)})
    held_years = sorted({y for d in scope for y in profile[d].years()}) if asked_years else []
    missing = [y for y in asked_years if y not in held_years]
    if missing:
        # the closest held: the years its tables cover (else any year its text names)
        in_tables = sorted({y for d in scope for y in profile[d].table_years})
        gaps.append(Gap("period", "、".join(missing), _nearest(missing, in_tables or held_years)))
    for span in spans:
        if span.kind != "metric":
            continue
        term = strip_modifiers(span.text.lower()) or span.text.lower()
        group = next((g for g in SYNONYM_GROUPS if term in (t.lower() for t in g)), (term,))
        if not any(contains_term(profile[d].text, t.lower()) for d in scope for t in group):
            rows = _row_labels(library.snapshot(kb), scope)
            gaps.append(Gap("metric", span.text, rows[:8]))
    declines = bool(gaps) and (
        any(g.kind == "metric" for g in gaps)
        or (bool(missing) and len(missing) == len(asked_years))
    )
    return Finding(tuple(gaps), declines)


def _docs_about(
    question: str, name: str, docs: list[str], profile: dict[str, _Document]
) -> list[str] | None:
    """The documents whose subject the question names (by its leading name or anywhere in it);
    None when it names no held subject."""
    lowered = question.lower()
    about = [
        d
        for d in docs
        for s in profile[d].subjects
        if s.lower() in lowered or (name and (s in name or name in s))
    ]
    return list(dict.fromkeys(about)) or None


def _head(name: str) -> str:
    """What of a name must appear in the library for it to count as mentioned: its first three
    characters in Chinese (the leading run may run on: "西门子医疗计划在" is 西门子's), its first
    word in English."""
    if name.isascii():
        return name.split()[0].lower()
    return name[:3].lower()


def _nearest(missing: list[str], held: list[str]) -> tuple[str, ...]:
    if not held:
        return ()
    lo, hi = held[0], held[-1]
    return (lo, hi) if lo != hi else (lo,)


def _read_document(chunks: list[Chunk]) -> _Document:
    """One pass over a document's chunks."""
    table_years: set[str] = set()
    for chunk in chunks:
        if chunk.type == "table":
            table_years.update(find_years(chunk.text))
    subjects = next(iter(document_subjects(chunks).values()), frozenset())
    return _Document(
        subjects=frozenset(subjects or ()),
        text="\n".join(c.search_text for c in chunks).lower(),
        table_years=frozenset(table_years),
    )


def _row_labels(snap: Snapshot, docs: list[str]) -> tuple[str, ...]:
    """The row labels of the tables of ``docs`` (read only when a metric is missing)."""
    ids = [i for d in docs for i in snap.chunks.doc_chunk_ids(d)]
    chunks = snap.chunks.get_many(ids)
    labels = list[str]()
    for chunk_id in ids:
        chunk = chunks.get(chunk_id)
        if chunk is not None and chunk.type == "table" and chunk.table_html:
            try:
                grid = parse_table(chunk.table_html)
            except ValueError:
                continue
            labels.extend(r[0] for r in grid.data_rows if r and r[0])
    return tuple(dict.fromkeys(labels))


def _say(gap: Gap, language: str) -> str:
    held = "、".join(gap.held[:6]) if language == "zh" else ", ".join(gap.held[:6])
    if language == "en":
        if gap.kind == "subject":
            return f"The library holds no report on {gap.asked}" + (
                f"; it holds: {held}." if held else "."
            )
        if gap.kind == "period":
            return f"The library's reports do not cover {gap.asked}" + (
                f" (they cover {held.replace(', ', ' to ')})." if held else "."
            )
        return f"No report in the library gives {gap.asked}" + (
            f"; its tables give: {held}." if held else "."
        )
    if gap.kind == "subject":
        return f"库中没有{gap.asked}的报告" + (f"；现有：{held}。" if held else "。")
    if gap.kind == "period":
        return f"库中报告不含{gap.asked}年的数据" + (
            f"（只覆盖{held.replace('、', '至')}年）。" if held else "。"
        )
    return f"库中报告没有「{gap.asked}」" + (f"；表中现有：{held}。" if held else "。")
