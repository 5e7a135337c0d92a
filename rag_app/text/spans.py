"""A question read as spans of a kind: its periods (2025年, 2026E, Q2 2024), the library's report
subjects it names (中芯国际) and its metrics, each with the modifiers bound to it (当前产能,
预测归母净利润). The follow-up resolution, the answerability check, the aspects a sentence is about
and the names a question asks for all read a question through these spans."""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass

from rag_app.text import lexicon
from rag_app.text.language import latin_term_pattern
from rag_app.text.periods import PART_COUNT, PERIOD_SPAN
from rag_app.text.synonyms import SYNONYM_GROUPS

_WORDS = lexicon.keyed_groups("followup_words.txt")
METRICS = sorted(
    (
        {t.lower() for g in SYNONYM_GROUPS for t in g}
        | {t.lower() for t in lexicon.word_set("finance_terms.txt")}
        | {t.lower() for t in _WORDS["metric_extra"]}
    )
    - {t.lower() for t in _WORDS["not_metric"]},
    key=lambda t: (-len(t), t),  # longest first; ties by the word, whatever the hash seed
)
_MODIFIERS = sorted(_WORDS["metric_modifier"], key=len, reverse=True)


@dataclass(frozen=True)
class Span:
    kind: str  # period / subject / metric / topic
    start: int
    end: int
    text: str
    lead: str = ""  # a metric's modifiers (预测 of 预测归母净利润)


def spans(text: str, subjects: Collection[str] = ()) -> list[Span]:
    """The period, subject and metric spans of ``text``, in order, never overlapping."""
    found: list[Span] = []
    lowered = text.lower()

    def free(start: int, end: int) -> bool:
        return all(end <= s.start or start >= s.end for s in found)

    for match in PERIOD_SPAN.finditer(text):
        found.append(Span("period", match.start(), match.end(), match.group().strip()))
    for name in sorted(subjects, key=lambda w: (-len(w), w)):
        for match in re.finditer(re.escape(name.lower()), lowered):
            if free(match.start(), match.end()):
                found.append(
                    Span("subject", match.start(), match.end(), text[match.start() : match.end()])
                )
    for term in METRICS:
        for start in _term_starts(lowered, term):
            end = start + len(term)
            if free(start, end):
                term_start = start
                start, end = _metric_phrase(text, start, end, found)
                found.append(Span("metric", start, end, text[start:end], text[start:term_start]))
    return sorted(found, key=lambda s: s.start)


def _term_starts(lowered: str, term: str) -> list[int]:
    if term.isascii():
        return [m.start() for m in re.finditer(latin_term_pattern(term), lowered)]
    return [m.start() for m in re.finditer(re.escape(term), lowered)]


def strip_modifiers(text: str) -> str:
    """``text`` without the metric modifiers it starts with (预测归母净利润 -> 归母净利润)."""
    moved = True
    while moved:
        moved = False
        for word in _MODIFIERS:
            if text.startswith(word):
                text, moved = text[len(word) :], True
                break
    return text


def _metric_phrase(text: str, start: int, end: int, taken: list[Span]) -> tuple[int, int]:
    """A metric term widened over the modifiers written before it (当前产能, 预测归母净利润)."""
    moved = True
    while moved:
        moved = False
        for word in _MODIFIERS:
            left = start - len(word)
            if (
                left >= 0
                and text[left:start] == word
                and not (left and PART_COUNT.match(text[left - 1]))  # 三季度 is a period's
                and all(s.end <= left or s.start >= start for s in taken)
            ):
                start, moved = left, True
                break
    return start, end
