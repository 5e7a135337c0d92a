"""Claim extraction: the answer's sentences, the sources each one cites, and which of them are
factual claims worth checking."""

from __future__ import annotations

import re
from dataclasses import dataclass

from rag_app.cite.evidence import Features, features
from rag_app.cite.markers import strip_markers
from rag_app.cite.sentences import Segment, answer_segments
from rag_app.stage_settings import CiteSettings
from rag_app.text.phrasing import continues

_NOT_FOUND = re.compile(
    r"未找到|没有找到|找不到|未检索到|没有检索到|未提及|没有提及|未提供|没有提供|未涉及|没有涉及|"
    r"无相关|没有相关|无法回答|无法确定|无法找到|不包含|未包含|没有包含|"
    r"(?:do|does|did) not (?:contain|include|mention|provide|say)|no (?:relevant )?information|"
    r"not (?:found|mentioned|provided|available)|(?:cannot|can't|could not|unable to) (?:find|answer|determine)",
    re.IGNORECASE,
)
_OFFLINE_NOTICE = re.compile(r"^[（(]?\s*(?:离线抽取式回答|Offline extractive answer)", re.I)
_SOFT_END = re.compile(r"[；;]\s*$")

MarkerSpan = tuple[int, int, tuple[int, ...]]


@dataclass
class AnswerSentence:
    """One sentence of the answer on its way to a verdict: its span, its text without markers,
    the source numbers it cites, its words and numbers, and why it is not a factual claim
    (``kind``; None when it is one)."""

    segment: Segment
    text: str
    cited: tuple[int, ...]
    claim: Features | None = None
    kind: str | None = None  # why not factual


def read_sentences(
    text: str, spans: list[MarkerSpan], settings: CiteSettings
) -> list[AnswerSentence]:
    """The sentences of the answer ``text``, in order, each with its citations and features.

    ``spans`` are the answer's citation markers (``markers.marker_spans``). A sentence without
    markers may take the next one's (see ``inherit_citations``). Never raises.
    """
    sentences: list[AnswerSentence] = []
    for segment in answer_segments(text):
        inside = [s for s in spans if segment.start <= s[0] < segment.end]
        cited: list[int] = []
        for _, _, numbers in inside:
            cited.extend(n for n in numbers if n not in cited)
        local = [(a - segment.start, b - segment.start, n) for a, b, n in inside]
        sentence = strip_markers(text[segment.start : segment.end], local)
        sentences.append(AnswerSentence(segment, sentence, tuple(cited)))
    for item, inherited in zip(sentences, inherit_citations(sentences, text), strict=True):
        item.cited = inherited

    for item in sentences:
        item.claim = features(item.text)
        item.kind = non_factual(item.claim, item.segment, settings)
    return sentences


def non_factual(claim: Features, segment: Segment, settings: CiteSettings) -> str | None:
    """Why the sentence is not a factual claim, or None when it is one."""
    text = claim.text
    hard_numbers = [n for n in claim.numbers if not n.year]
    if not text:
        return "empty"
    if _OFFLINE_NOTICE.search(text):
        return "notice"
    if segment.kind in ("heading", "header"):
        return "heading"
    if _NOT_FOUND.search(text) and not hard_numbers:
        return "not found"
    if hard_numbers:
        return None
    stripped = text.strip("*_ ")
    if text.startswith("**") and text.endswith("**") and len(stripped) <= 40:
        return "heading"
    if text.endswith(("?", "？")):
        return "question"
    if text.endswith((":", "：")):
        return "lead-in"
    if len(claim.words) < settings.min_content_words and not claim.numbers:
        return "connective"
    return None


def inherit_citations(pending: list[AnswerSentence], answer: str) -> list[tuple[int, ...]]:
    """Citations per sentence; a clause ending in "；" with none of its own takes those of the
    clause after it on the same line ("A增长20%；B增长15% [Source 1]。"), and so does a sentence
    the next one continues ("Costs rose 6.4%. The increase was due to X [Source 1].")."""
    out = [p.cited for p in pending]
    for i in range(len(pending) - 2, -1, -1):
        current, following = pending[i], pending[i + 1]
        same_line = "\n" not in answer[current.segment.end : following.segment.start]
        joined = _SOFT_END.search(current.text) or continues(following.text)
        if not out[i] and same_line and joined:
            out[i] = out[i + 1]
    return out
