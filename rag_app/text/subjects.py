"""What a report is about, and which reports a question names: the leading name of the document
title that chunking writes first in every chunk's searched text ("比亚迪 > 盈利预测 > ...")."""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping

from rag_app.models import Chunk
from rag_app.text import lexicon
from rag_app.text.language import CJK_UNIFIED

# Between the title and headings of the searched text's first line (written by chunking).
PATH_SEPARATOR = " > "

# A report title's leading name: the Chinese characters before the first bracket, colon, comma,
# space or digit (比亚迪 of "比亚迪（002594.SZ）深度报告：…", 中芯国际 of "中芯国际2024年年度报告").
_LEADING_NAME = re.compile(rf"^([{CJK_UNIFIED}]{{2,12}})(?=[（(：:，,\s\d]|$)")
_GENERIC_TITLES = lexicon.word_set("generic_titles.txt")


def search_title(chunk: Chunk) -> str:
    """The first element of the "title > heading > ..." line chunking puts before a chunk's
    searched text: its document's title when the document has one (else the first line)."""
    first_line = chunk.search_text.split("\n", 1)[0]
    return first_line.split(PATH_SEPARATOR, 1)[0].strip()


def subject_words(chunk: Chunk) -> frozenset[str]:
    """The name of what a chunk's document is about, from the document title that chunking puts
    first in the searched text ("title > heading > ..."); empty when it does not start with one."""
    match = _LEADING_NAME.match(search_title(chunk))
    if match is None or match.group(1) in _GENERIC_TITLES:
        return frozenset()
    return frozenset({match.group(1)})


def document_subjects(chunks: Iterable[Chunk]) -> dict[str, frozenset[str]]:
    """Per document, the subject most of its chunks give (a title repeats on every chunk; a
    chunk's own first line, when the document has no title, does not), in the order documents
    first appear; empty when none has a majority."""
    votes: dict[str, dict[frozenset[str], int]] = {}
    for chunk in chunks:
        counts = votes.setdefault(chunk.doc_id, {})
        words = subject_words(chunk)
        counts[words] = counts.get(words, 0) + 1
    out = {}
    for doc_id, counts in votes.items():
        words, count = max(counts.items(), key=lambda p: p[1])
        out[doc_id] = words if words and count * 2 >= sum(counts.values()) else frozenset()
    return out


def named_subjects(
    question: str, subjects: Mapping[str, frozenset[str]], doc_ids: Collection[str] = ()
) -> dict[str, tuple[str, ...]]:
    """The subjects (of ``subjects``: doc_id -> its subject words) that ``question`` names, each
    with its documents (only those in ``doc_ids`` when given), in the order the question names
    them."""
    lowered = question.lower()
    named: dict[str, list[str]] = {}
    for doc_id, words in subjects.items():
        if doc_ids and doc_id not in doc_ids:
            continue
        for word in words:
            if word.lower() in lowered:
                named.setdefault(word, []).append(doc_id)
    order = sorted(named, key=lambda w: lowered.index(w.lower()))
    return {w: tuple(named[w]) for w in order}
