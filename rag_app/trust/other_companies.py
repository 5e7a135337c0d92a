"""Companies a question names besides the report it is about: an acronym no report writes
("TSMC's", "SMIC的"), presumed to be the one company a library covers and said so; and a
company asked beside the subject ("中芯国际和宁德时代…分别"), whose gap is a note over the
subject's answer, not a refusal."""

from __future__ import annotations

from rag_app.text.names import is_place
from rag_app.text.phrasing import joins
from rag_app.trust.document_reading import Document
from rag_app.trust.findings import Gap


def presumed(
    lead: str,
    asked: tuple[str, ...],
    docs: list[str],
    profile: dict[str, Document],
    noted: list[Gap],
) -> tuple[str, ...]:
    """The asked names, but not an acronym the question leads with as a name ("TSMC's",
    "SMIC的") that no document writes: it may be a Chinese report's company (SMIC of 中芯国际)
    and is not held against the library; with one company's reports in it, it is presumed that
    company and said so (``noted``)."""
    if not (lead and lead.isupper() and lead in asked):
        return asked
    if any(lead.lower() in profile[d].text for d in docs):
        return asked
    held = {min(profile[d].subjects, key=len) for d in docs if profile[d].subjects}
    if len(held) == 1:
        noted.append(Gap("presumed", lead, tuple(held)))
    return tuple(n for n in asked if n != lead)


def beside(
    question: str, asked: tuple[str, ...], about: list[str], profile: dict[str, Document]
) -> list[str]:
    """The names the question asks beside a subject of ``about`` (joined to it by 和, 与, 及,
    、 or "and"), which no document is about: another company asked in parallel."""
    written = [w for d in about for w in profile[d].subjects if w in question]
    subjects = {w for d in profile for w in profile[d].subjects}
    out = []
    for name in asked:
        if name in written or is_place(name) or any(name in w or w in name for w in subjects):
            continue  # a subject, or a place (中芯国际和越南…: what it has there)
        if any(_joined(question, name, w) or _joined(question, w, name) for w in written):
            out.append(name)
    return out


def _joined(question: str, first: str, second: str) -> bool:
    """Whether ``question`` writes ``first``, a conjunction, then ``second``."""
    at = question.find(first)
    between = question[at + len(first) : question.find(second, at)] if at >= 0 else ""
    return at >= 0 and second in question[at:] and joins(between)
