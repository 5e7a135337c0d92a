"""What the offline answerer can quote: a chunk's sentences, table rows (with the notes their
marks point to) and figure descriptions, each with the words it is matched on."""

from __future__ import annotations

import re
from dataclasses import dataclass

from rag_app.models import Chunk
from rag_app.text.analyzer import match_terms
from rag_app.text.notes import note_mark, table_marks
from rag_app.text.phrasing import continues
from rag_app.text.sentences import split_sentences
from rag_app.text.tables import labelled_rows, parse_table

# Sentences longer than this are cut (with an ellipsis) so one run-on paragraph cannot fill the
# answer; about three lines of Chinese in the UI.
MAX_SENTENCE_CHARS = 220

_WORDISH = re.compile(r"[0-9A-Za-z\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_MARKDOWN_NOISE = re.compile(r"^\s*(?:#{1,6}\s+|[-*+]\s+|\d+[.)]\s+|>\s*)")


@dataclass(frozen=True)
class Candidate:
    """A sentence, table row or figure description that may be quoted."""

    source: int  # the N of [Source N]
    order: int  # position of its source in the list, then within the source (tie-break)
    text: str
    words: frozenset[str]
    bigrams: frozenset[str]
    context: frozenset[str] = frozenset()  # caption, heading path, intro paragraph words
    row_label: str = ""  # a table row's first cell


def quotable_parts(text: str) -> list[str]:
    """Sentences of ``text`` worth quoting: Markdown list/heading markers removed, at least four
    characters with a word in them, clipped."""
    out = []
    for part in split_sentences(text):
        part = _MARKDOWN_NOISE.sub("", part).strip()
        if len(part) >= 4 and _WORDISH.search(part):
            out.append(clip(part))
    return out


def quotable_sentences(text: str) -> list[str]:
    """Sentences of ``text``, a sentence that continues the one before joined to it: "Costs
    rose 6.4%. The increase was due to ..." is quoted whole, with its reason."""
    out: list[str] = []
    for sentence in quotable_parts(text):
        if out and continues(sentence) and len(out[-1]) + len(sentence) < MAX_SENTENCE_CHARS:
            out[-1] = f"{out[-1]} {sentence}"
        else:
            out.append(sentence)
    return out


def clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_SENTENCE_CHARS else text[: MAX_SENTENCE_CHARS - 1] + "…"


def chunk_candidates(
    number: int, rank: int, chunk: Chunk, row_notes: bool = True, join_continuations: bool = True
) -> list[Candidate]:
    """The quotable units of one chunk: table rows (with the notes their marks point to, with
    ``row_notes``), figure caption/description sentences, or text sentences (each joined with
    the sentence continuing it, with ``join_continuations``)."""
    context_text = " ".join([*chunk.heading_path, chunk.caption, chunk.context])
    context = frozenset(match_terms(context_text)[0]) if context_text.strip() else frozenset()
    units: list[tuple[str, str]] = []  # (text, row label)
    if chunk.type == "table" and chunk.table_html:
        # Rows only: a caption alone answers nothing; it still counts as context for its rows.
        # A row is quoted with the notes its marks point to ("Customer costs(2)" with "(2)
        # Include advertising ..."): the note is often what the question asks.
        notes = (
            {m: line.strip() for line in chunk.footnote.split("\n") if (m := note_mark(line))}
            if row_notes
            else {}
        )
        units = []
        for label, text in labelled_rows(parse_table(chunk.table_html, chunk.header_rows)):
            marked = sorted(table_marks(text) & notes.keys())
            note = " ".join(notes[m] for m in marked)
            units.append((clip(f"{text} {note}" if note else text), label))
    elif chunk.type == "image":
        description = quotable_parts(chunk.description)
        caption = clip(chunk.caption.strip())
        if caption and description:
            # The caption says what the figure is; prefix it to the first description sentence.
            description[0] = clip(f"{caption}：{description[0]}")
        units = [(s, "") for s in description] or ([(caption, "")] if caption else [])
    if not units:
        parts = quotable_sentences(chunk.text) if join_continuations else quotable_parts(chunk.text)
        units = [(s, "") for s in parts]
    out = []
    for i, (text, label) in enumerate(units):
        words, bigrams = match_terms(text)
        out.append(
            Candidate(
                number,
                rank * 10_000 + i,
                text,
                frozenset(words),
                frozenset(bigrams),
                context,
                label,
            )
        )
    return out


@dataclass(frozen=True)
class ScoredSentence:
    candidate: Candidate
    score: float
    matched: tuple[str, ...]
