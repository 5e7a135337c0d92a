"""An answer's sentences, each citation marker kept in the sentence it closes.

The splitting rules live in ``rag_app.text.sentences``; this module tells them where the
markers are (``[Source 1]``, ``[1]``, ``【来源1】`` ...), which must never be cut and belong to the
sentence before them.
"""

from __future__ import annotations

from rag_app.cite.markers import marker_spans, parse_citations
from rag_app.text.sentences import Segment
from rag_app.text.sentences import segment_sentences as _segment

__all__ = ["Segment", "answer_segments", "answer_sentences"]


def answer_segments(text: str) -> list[Segment]:
    """The sentences of an answer with their kinds, markers kept with the sentence they close."""
    spans = marker_spans(parse_citations(text))
    return _segment(text, {start: end for start, end, _ in spans})


def answer_sentences(text: str) -> list[tuple[int, int, str]]:
    """``(start, end, text[start:end])`` for each sentence of an answer, in order."""
    return [(s.start, s.end, text[s.start : s.end]) for s in answer_segments(text)]
