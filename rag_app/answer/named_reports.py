"""Which sources a question's named reports give: those of the documents whose company it
names (look-alike tables: every report has a 盈利预测, and a question about 比亚迪 must not be
answered from 宁德时代's), and of other reports that write that company as the question does; or
those mentioning a coined name it writes in capitals (KEHGCN)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rag_app.answer.values import sources_subjects
from rag_app.models import Chunk
from rag_app.text.coined import coined_names, document_texts, naming_documents
from rag_app.text.subjects import named_subjects, names_company, written_part
from rag_app.understand.analysis import QueryAnalysis


def named_documents(
    query: QueryAnalysis, subjects: Mapping[str, frozenset[str]]
) -> dict[str, frozenset[str]]:
    """The documents whose subject the question names, with that subject's words, in the order
    it names them (``named_subjects``), then those it names otherwise (``names_company``: a
    Chinese name written short, a Latin one headed by the name it leads with)."""
    named = named_subjects(query.text, subjects)
    docs = [doc for found in named.values() for doc in found]
    docs += [
        d
        for d, words in subjects.items()
        if d not in docs and names_company(query.text, words, query.name)
    ]
    return {doc: subjects[doc] for doc in docs}


def named_sources(query: QueryAnalysis, sources: Sequence[tuple[int, Chunk]]) -> set[int] | None:
    """The sources from the documents the question names, when it names some of the sources'
    documents but not all (look-alike tables: every report has a 盈利预测, and a question about
    比亚迪 must not be answered from 宁德时代's); None when it names none or all of them."""
    subjects = sources_subjects(query, sources)
    return sources_of(named_documents(query, subjects), subjects, sources, query.text)


def coined_sources(query: QueryAnalysis, sources: Sequence[tuple[int, Chunk]]) -> set[int] | None:
    """The sources of the documents that mention a name the question writes in capitals
    ("KEHGCN"), when others do not (``text.coined``); None otherwise."""
    texts = document_texts(chunk for _, chunk in sources)
    naming = naming_documents(coined_names(query.text), texts)
    if naming is None:
        return None
    return {number for number, chunk in sources if chunk.doc_id in naming}


def sources_of(
    named: Mapping[str, frozenset[str]],
    subjects: Mapping[str, frozenset[str]],
    sources: Sequence[tuple[int, Chunk]],
    question: str = "",
) -> set[int] | None:
    """The sources of the ``named`` documents, and those of other reports that write the named
    company as the question does (an industry report's row of 拓衡传感, which gives a year its
    prospectus stops before); None when the question names none of the documents, or all."""
    if not named or len(named) == len(subjects):
        return None
    forms = {w for words in named.values() for w in words if w in question}
    forms |= {written_part(question, words) for words in named.values()} - {""}
    return {
        number
        for number, chunk in sources
        if chunk.doc_id in named or any(form in chunk.text for form in forms)
    }
