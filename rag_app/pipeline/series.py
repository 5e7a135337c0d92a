"""The series a question asks for, read from the facts the library stores of its tables
(``Library.facts``; ``rag_app.facts.series``): the documents it names by their subjects
(``DocumentProfile.subject_names``), else those in its scope, each with its facts and its
subject; and the metrics the Library page offers as series."""

from __future__ import annotations

from collections.abc import Sequence

from rag_app.facts.series import Series, asks_for_series, facts_series
from rag_app.facts.stored import StoredFact
from rag_app.index.library import Library
from rag_app.understand.analysis import QueryAnalysis


def library_series(
    library: Library,
    kb: str,
    query: QueryAnalysis,
    doc_ids: Sequence[str] = (),
    asked: bool = False,
) -> Series | None:
    """The series of the metric ``query`` names over ``kb``'s documents (``doc_ids`` when
    given: a question's, those its retrieval found, so a large library is not read whole);
    None when it asks for no series (``asked``: it is one, the Library page's metric) or the
    tables give too few cells."""
    profiles = library.profiles(kb)
    scope = [d for d in profiles if not doc_ids or d in doc_ids]
    named = [d for d in scope if any(n and n in query.text for n in profiles[d].subject_names)]
    if not asked and not asks_for_series(query, len(named)):
        return None
    docs = named or scope
    facts: dict[str, list[StoredFact]] = {d: [] for d in docs}
    for fact in library.facts(kb, docs):
        facts[fact.doc_id].append(fact)
    subjects = {d: profiles[d].subject for d in docs if profiles[d].subject}
    return facts_series(query, {d: f for d, f in facts.items() if f}, subjects)


def library_metrics(library: Library, kb: str) -> list[str]:
    """The metrics the library's tables report (the profiles' row labels), those most
    documents report first: what the Library page offers as series."""
    counts: dict[str, int] = {}
    for profile in library.profiles(kb).values():
        for name in {m.name for m in profile.metrics}:
            counts[name] = counts.get(name, 0) + 1
    return sorted(counts, key=lambda name: (-counts[name], name))
