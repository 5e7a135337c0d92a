"""The pieces a question is read into (``understand.slots``): a name, a period, a metric, a
pointer, a time pointer, a comparison or the question's own words, each with where it is
written; and the periods two pieces make together (a part of a year and its year, a period and
the modifier after it)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace

from rag_app.text.spans import strip_modifiers


@dataclass(frozen=True)
class Piece:
    """A part of a question: ``kind`` name / period / metric / pointer / same_period / words;
    ``text`` as written, ``value`` as to be written (a name's entity), ``lead`` a metric's
    modifiers (预测 of 预测归母净利润), ``head`` a subject phrase's first name (比亚迪 of
    比亚迪合肥基地), ``nominal`` whether words are nouns (a name the library does not hold)."""

    kind: str
    start: int
    end: int
    text: str
    value: str = ""
    lead: str = ""
    head: str = ""
    nominal: bool = False
    proper: bool = False


def free(found: Iterable[Piece], start: int, end: int) -> bool:
    """Whether no piece of ``found`` covers any of ``start`` to ``end``."""
    return all(end <= p.start or start >= p.end for p in found)


def joined_part(text: str, found: list[Piece]) -> list[Piece]:
    """An English part of a year and its year as one period ("the first three quarters of
    2025", "Q3 2025"): a follow-up's part ("the third quarter") takes the whole one's place."""
    out: list[Piece] = []
    for piece in sorted(found, key=lambda p: p.start):
        last = out[-1] if out else None
        if (
            last is not None
            and (last.kind, piece.kind) == ("period_part", "period")
            and (text[last.end : piece.start].strip().lower() in ("", "of"))
        ):
            whole = text[last.start : piece.end]
            out[-1] = Piece("period", last.start, piece.end, whole, whole)
        else:
            out.append(piece)
    return out


def with_modifier(pieces: list[Piece]) -> list[Piece]:
    """A period with the modifier written right after it as one period ("2026年预测": the
    forecast column, not a metric named 预测)."""
    out: list[Piece] = []
    for piece in pieces:
        last = out[-1] if out else None
        if (
            last is not None
            and last.kind == "period"
            and piece.kind in ("words", "metric")  # 实际 heads a table's columns too
            and piece.start == last.end
            and not strip_modifiers(piece.text)
        ):
            text = last.text + piece.text
            out[-1] = replace(last, end=piece.end, text=text, value=text)
        else:
            out.append(piece)
    return out


# A day written after a month (30日 of 2025年9月30日).
_DAY = re.compile(r"\s*\d{1,2}\s*日")


def dated(text: str, pieces: list[Piece]) -> list[Piece]:
    """A period with the day written after it as one date (2025年9月30日, not 2025年9月)."""
    out = []
    for piece in pieces:
        day = _DAY.match(text, piece.end) if piece.kind == "period" else None
        if day is not None:
            whole = text[piece.start : day.end()]
            piece = replace(piece, end=day.end(), text=whole, value=whole)
        out.append(piece)
    return out
