"""Sentences: the one place that splits text into sentences, Chinese or English.

``split_sentences`` is the passage rule the prompt's excerpts and the offline answerer use on
source text: ends after ``。！？；!?;``, after ``.`` before a space (so "3.5" and "U.S.A" stay
whole) and at every line break. ``sentence_pieces`` is the same rule without the line breaks and
keeping the pieces unstripped, for cutting an over-long paragraph into chunks. ``full_stops``
finds where a line's prose sentences end (not at ``；``), for reading a clause with its sentence.

``segment_sentences`` is the full rule for answers and what the citation check compares: ``.``
does not end a sentence after an abbreviation (``e.g.``, ``U.S.``, ``Inc.``, an initial) or before
a lower-case word; every line is a sentence of its own (list items, Markdown table rows and
headings, each with its kind); list bullets and heading marks are left out of a span; and spans
the caller protects (citation markers) stay whole and belong to the sentence they close:
models put the marker on either side of the full stop (``…增长20%。[Source 1]`` and ``…grew
20% [Source 1].``).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass

from rag_app.text import lexicon
from rag_app.text.language import WORD_CHAR

# The passage rule: ends after Chinese and full-width marks and ". ! ? ;" followed by a space
# (so "3.5" and "U.S." stay whole), and at newlines.
_SENTENCE_END = re.compile(r"(?<=[。！？；!?;])\s*|(?<=[.])\s+|\n+")
# The same without newlines, the whitespace kept (chunking joins pieces back).
_PIECE_END = re.compile(r"(?<=[。！？；!?;])|(?<=\.)\s+")


def split_sentences(text: str) -> list[str]:
    """The sentences of a passage, stripped, empty ones dropped."""
    return [s.strip() for s in _SENTENCE_END.split(text) if s and s.strip()]


def sentence_pieces(text: str) -> list[str]:
    """A paragraph cut after each sentence end (not at line breaks), pieces unstripped."""
    return [s for s in _PIECE_END.split(text) if s and s.strip()]


# A clause ends at a comma or a semicolon as well as at a full stop; an ASCII comma before a
# digit separates thousands ("9,254.00").
_CLAUSE_END = re.compile(r"[，；;。！？!?]|,(?!\d)|\.(?=\s|$)")


def split_clauses(text: str) -> list[str]:
    """The clauses of ``text``: "公司2024年毛利率降至18.6%" of "…，公司2024年毛利率降至18.6%，…"."""
    return [clause for clause in _CLAUSE_END.split(text) if clause.strip()]


# Where a sentence of prose ends, for the sentence a clause belongs to: a clause ending in "；"
# does not end one (the passage rule's ";" does), nor a "." inside a number or before a word.
_FULL_STOP = re.compile(r"[。！？!?]|\.(?=\s|$)")


def full_stops(line: str) -> list[int]:
    """The positions right after each full stop of a line of prose, in order."""
    return [m.end() for m in _FULL_STOP.finditer(line)]


_HARD_ENDS = frozenset("。！？!?")
_SOFT_ENDS = frozenset("；;")
_CLOSERS = frozenset("\"'”’）)」』*")
# Abbreviations: after these "." never ends a sentence ("Dr. Smith", "Fig. 3", "e.g. SMIC") ...
ABBREVIATIONS = lexicon.word_set("abbreviations.txt")
# ... and after these it does only before a capital, a CJK character or a marker ("Ltd. The").
ENDING_ABBREVIATIONS = lexicon.word_set("ending_abbreviations.txt")
_BULLET = re.compile(
    r"(?:[-*+•·▪●◦]\s+|\d{1,3}\.(?!\d)\s*|\d{1,3}[)、]\s*|[（(]\d{1,3}[)）]\s*|[①-⑳]\s*|>\s*)+"
)
_HEADING = re.compile(r"#{1,6}\s+")
_TABLE_SEPARATOR = re.compile(r"^\|?[\s:|-]*-[\s:|-]*\|?$")
_LABELLED = re.compile(r"[:：]\s")
_PREVIOUS_WORD = re.compile(r"(?<![A-Za-z.])([A-Za-z]+(?:\.[A-Za-z]+)*)$")
_INITIALS = re.compile(r"(?:[A-Za-z]\.)+[A-Za-z]")


@dataclass(frozen=True)
class Segment:
    """A sentence's span in the answer; ``kind`` is ``sentence``, ``heading``, ``row`` (a
    Markdown table row) or ``header`` (a table's header row)."""

    start: int
    end: int
    kind: str = "sentence"


def segment_sentences(text: str, protected: Mapping[int, int] | None = None) -> list[Segment]:
    """The sentences of ``text`` (an answer, or a source's prose) with their kinds, in order.

    ``protected`` maps the start of each span that must stay whole (a citation marker) to its
    end; such a span right after a sentence's end, or alone on the next line, belongs to that
    sentence. Spans exclude surrounding whitespace, list bullets and heading marks. Sentences
    with no letter, digit or CJK character outside protected spans are dropped (their protected
    spans join the sentence before).
    """
    if not protected:  # a source's prose: read once however often it is checked
        return list(_plain_segments(text))
    return _segments(text, dict(protected))


# Sources' prose is segmented for every answer citing it; this many texts' segments are kept.
SEGMENTS_CACHE = 20_000


@functools.lru_cache(maxsize=SEGMENTS_CACHE)
def _plain_segments(text: str) -> tuple[Segment, ...]:
    return tuple(_segments(text, {}))


def _segments(text: str, markers: dict[int, int]) -> list[Segment]:
    segments: list[Segment] = []
    line_start = 0
    for line in text.split("\n"):
        line_end = line_start + len(line)
        _split_line(text, line_start, line_end, markers, segments)
        line_start = line_end + 1
    return segments


def _split_line(
    text: str, start: int, end: int, markers: dict[int, int], out: list[Segment]
) -> None:
    position = start
    while position < end and text[position] in " \t\r":
        position += 1
    kind = "sentence"
    heading = _HEADING.match(text, position, end)
    if heading:
        kind, position = "heading", heading.end()
    else:
        bullet = _BULLET.match(text, position, end)
        if bullet and bullet.end() < end:
            position = bullet.end()
    line = text[position:end].strip()
    if line.startswith("|"):
        if not _TABLE_SEPARATOR.match(line):
            following = text[end + 1 :].split("\n", 1)[0].strip()
            header = bool(following) and bool(_TABLE_SEPARATOR.match(following))
            _add(text, position, end, "header" if header else "row", markers, out)
        return
    if kind == "heading":
        _add(text, position, end, kind, markers, out)
        return

    segment_start = i = position
    while i < end:
        if i in markers:
            i = markers[i]
            continue
        if _ends_sentence(text, i, start, end, markers):
            j = i + 1
            while j < end and (text[j] in _HARD_ENDS or text[j] in _CLOSERS or text[j] == "."):
                j += 1
            j = _absorb_markers(text, j, end, markers)
            _add(text, segment_start, j, kind, markers, out)
            segment_start = i = j
            continue
        i += 1
    _add(text, segment_start, end, kind, markers, out)


def _ends_sentence(text: str, i: int, start: int, end: int, markers: dict[int, int]) -> bool:
    ch = text[i]
    following = text[i + 1] if i + 1 < end else ""
    if ch in "。！？；":
        return True
    if ch in "!?;":
        # not inside a URL query ("?a=1"), an entity ("&amp;") or before an image ("![")
        if ch == ";" and re.search(r"&#?\w+$", text[max(0, i - 10) : i]):
            return False
        if ch == ";" and _LABELLED.search(text, start, i):
            return (
                False  # a table row as the offline answerer quotes it: "营业收入: 2023A 452; ..."
            )
        return not (
            following and following.isascii() and (following.isalnum() or following in "=&[")
        )
    if ch != ".":
        return False
    if following and not following.isspace() and i + 1 not in markers and following not in _CLOSERS:
        return False  # 3.5, U.S.A, example.com
    rest = text[i + 1 : end].lstrip(" \t")
    marker_next = (end - len(rest)) in markers
    if marker_next:
        return True  # "US$6.32 bn. [Source 1]": the marker closes the sentence
    starts_lower = rest[:1].isascii() and rest[:1].islower()
    word = _PREVIOUS_WORD.search(text[max(0, i - 20) : i])
    if word:
        previous = word.group(1)
        lowered = previous.lower()
        if lowered in ABBREVIATIONS or _INITIALS.fullmatch(previous):
            return False
        if len(previous) == 1 and previous.isupper():
            return False  # an initial: "J. Smith"
        if lowered in ENDING_ABBREVIATIONS:
            return bool(rest) and not starts_lower and not rest[:1].isdigit()
    return not starts_lower  # "approx. two": an abbreviation we do not know


def _absorb_markers(text: str, j: int, end: int, markers: dict[int, int]) -> int:
    """The end of the markers (and stray full stops after them) that follow position ``j``."""
    last = j
    k = j
    while k < end:
        while k < end and text[k] in " \t":
            k += 1
        if k in markers:
            k = last = markers[k]
            while k < end and (text[k] in _HARD_ENDS or text[k] in _SOFT_ENDS or text[k] == "."):
                k = last = k + 1
            continue
        break
    return last


def _has_words(text: str, start: int, end: int, markers: dict[int, int]) -> bool:
    i = start
    while i < end:
        if i in markers:
            i = markers[i]
            continue
        if WORD_CHAR.match(text, i):
            return True
        i += 1
    return False


def _add(
    text: str, start: int, end: int, kind: str, markers: dict[int, int], out: list[Segment]
) -> None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if start >= end:
        return
    if _has_words(text, start, end, markers):
        out.append(Segment(start, end, kind))
    elif out and any(start <= m < end for m in markers):
        # only markers (a line of its own, or the answer's first characters): they cite the
        # sentence before
        previous = out[-1]
        out[-1] = Segment(previous.start, end, previous.kind)
