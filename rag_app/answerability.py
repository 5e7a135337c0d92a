"""Whether the library holds what a question asks for, checked before it is answered.

A question names a subject (company or report: ``text.names.leading_name``), periods and metrics
(``text.followup.spans``). Each is held against the library as it is now:
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

import re
from dataclasses import dataclass, field

from rag_app.index.library import Library, Snapshot
from rag_app.text.followup import spans, strip_modifiers
from rag_app.text.language import cjk_share
from rag_app.text.names import leading_name
from rag_app.text.subjects import document_subjects
from rag_app.text.synonyms import SYNONYM_GROUPS, contains_term
from rag_app.text.tables import parse_table

_YEAR = re.compile(r"(?<!\d)((?:19|20)\d\d)(?!\d)")


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
class _Profile:
    subjects: dict[str, frozenset[str]]
    text: dict[str, str]  # doc_id -> its chunks' searched text, lower-cased
    table_years: dict[str, frozenset[str]]  # the years its tables' cells and headers name
    # Read per document when a question first needs it (the first question after an upload
    # pays for one pass over the text, not for these).
    _years: dict[str, frozenset[str]] = field(default_factory=dict)
    _chinese: dict[str, float] = field(default_factory=dict)

    def years(self, doc_id: str) -> frozenset[str]:
        if doc_id not in self._years:
            self._years[doc_id] = frozenset(_YEAR.findall(self.text[doc_id]))
        return self._years[doc_id]

    def chinese(self, doc_id: str) -> float:
        """The share of the document's words that are Chinese."""
        if doc_id not in self._chinese:
            self._chinese[doc_id] = cjk_share(self.text[doc_id][:20000]) or 0.0
        return self._chinese[doc_id]


def assess(question: str, library: Library, kb: str, doc_ids: tuple[str, ...] = ()) -> Finding:
    """The library's answer to "do you hold what ``question`` asks for?" (see the module)."""
    from rag_app.retrieve.signals import per_generation

    if kb not in library.knowledge_bases():
        return Finding()
    profile = per_generation("answerability", library, kb, _profile)
    docs = [d for d in profile.text if not doc_ids or d in doc_ids]
    if not docs:
        return Finding()
    subjects = sorted({w for d in docs for w in profile.subjects.get(d, ())})
    gaps: list[Gap] = []
    name = leading_name(question)
    about = _docs_about(question, name, docs, profile)
    # A Latin name over Chinese reports (CATL, 宁德时代) cannot be told held or not: not checked.
    if (
        name
        and about is None
        and (not name.isascii() or all(profile.chinese(d) < 0.5 for d in docs))
    ):
        if not any(_head(name) in profile.text[d] for d in docs):
            gaps.append(Gap("subject", name, tuple(subjects)))
            return Finding(tuple(gaps), declines=True)
    scope = about or docs
    asked_years = sorted(
        {y for s in spans(question, subjects) if s.kind == "period" for y in _YEAR.findall(s.text)}
    )
    held_years = sorted({y for d in scope for y in profile.years(d)}) if asked_years else []
    missing = [y for y in asked_years if y not in held_years]
    if missing:
        # the closest held: the years its tables cover (else any year its text names)
        in_tables = sorted({y for d in scope for y in profile.table_years[d]})
        gaps.append(Gap("period", "、".join(missing), _nearest(missing, in_tables or held_years)))
    for span in spans(question, subjects):
        if span.kind != "metric":
            continue
        term = strip_modifiers(span.text.lower()) or span.text.lower()
        group = next((g for g in SYNONYM_GROUPS if term in (t.lower() for t in g)), (term,))
        if not any(contains_term(profile.text[d], t.lower()) for d in scope for t in group):
            rows = _row_labels(library.snapshot(kb), scope)
            gaps.append(Gap("metric", span.text, rows[:8]))
    declines = bool(gaps) and (
        any(g.kind == "metric" for g in gaps)
        or (bool(missing) and len(missing) == len(asked_years))
    )
    return Finding(tuple(gaps), declines)


def _docs_about(question: str, name: str, docs: list[str], profile: _Profile) -> list[str] | None:
    """The documents whose subject the question names (by its leading name or anywhere in it);
    None when it names no held subject."""
    lowered = question.lower()
    about = [
        d
        for d in docs
        for s in profile.subjects.get(d, ())
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


def _profile(snap: Snapshot) -> _Profile:
    """One pass over the chunks (the first question after a change pays it; 846 chunks ~10 ms)."""
    chunks = list(snap.chunks.values())
    text: dict[str, list[str]] = {}
    table_years: dict[str, set[str]] = {}
    for chunk in chunks:
        text.setdefault(chunk.doc_id, []).append(chunk.search_text)
        years = table_years.setdefault(chunk.doc_id, set())
        if chunk.type == "table":
            years.update(_YEAR.findall(chunk.text))
    joined = {d: "\n".join(t).lower() for d, t in text.items()}
    return _Profile(
        subjects={d: w for d, w in document_subjects(chunks).items() if w},
        text=joined,
        table_years={d: frozenset(y) for d, y in table_years.items()},
    )


def _row_labels(snap: Snapshot, docs: list[str]) -> tuple[str, ...]:
    """The row labels of the tables of ``docs`` (read only when a metric is missing)."""
    wanted, labels = set(docs), list[str]()
    for chunk in snap.chunks.values():
        if chunk.doc_id in wanted and chunk.type == "table" and chunk.table_html:
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
