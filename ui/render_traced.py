"""Traced numbers: each number of an answer the citation check traced (``SentenceCheck.traced``)
is a link to where its source holds it, and that source's card marks the place: the table cell
itself, or the sentence.

No round-trip to the server: the link is an in-page anchor (``#source-4-cell-2-3``) naming an
element of the card, the cell (its ``id``) or a span around the sentence. Following it, the
browser opens the card's ``<details>`` (Chromium opens a closed one that holds a fragment's
target, as it does for a ``[Source N]`` link to the card) and scrolls to the element, which CSS
``:target`` marks (``ui.render.CSS``). A computed number's link names an anchor of its own in
the card of its first operand; a style of that card marks all its operands' places there while
it is the target (``:has``). A place its card cannot find (the document changed since the turn
was saved) gets an empty anchor in the card, which still opens it.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rag_app.text.tables import Grid
from ui.i18n import t


def anchor_id(prefix: str, number: int) -> str:
    return f"{prefix}-source-{number}" if prefix else f"source-{number}"


def place_id(prefix: str, place: Any) -> str:
    """The id of the element of a card that holds ``place`` (a ``rag_app.cite.Place``)."""
    base = anchor_id(prefix, place.source)
    if place.kind == "cell":
        return f"{base}-cell-{place.row}-{place.col}"
    return f"{base}-text-{zlib.crc32(place.text.encode('utf-8')):08x}"


def _computed_id(prefix: str, traced: Any) -> str:
    return f"{anchor_id(prefix, traced.places[0].source)}-calc-{traced.start}"


def number_target(prefix: str, traced: Any) -> str:
    """The anchor a traced number links to: its place, else its working's; "" for none."""
    if traced.place is not None:
        return place_id(prefix, traced.place)
    return _computed_id(prefix, traced) if traced.places else ""


def traced_of(report: Any) -> list[Any]:
    """The traced numbers of a citation report (live or restored), in the answer's order."""
    return [n for s in getattr(report, "sentences", ()) or () for n in getattr(s, "traced", ())]


def _source_label(number: int) -> str:
    return t("source_marker", n=number).strip("[]")


def place_text(place: Any) -> str:
    """Where a source holds a number, in the reader's language."""
    source = _source_label(place.source)
    if place.kind == "cell":
        return t(
            "traced_cell", source=source, row=place.row_label, col=place.col_label, value=place.text
        )
    sentence = place.text if len(place.text) <= 60 else place.text[:59] + "…"
    return t("traced_sentence", source=source, sentence=sentence)


def number_title(traced: Any) -> str:
    """A traced number's tooltip: where it is, or its working and its operands' places."""
    if traced.place is not None:
        return place_text(traced.place)
    return " · ".join(
        [t("traced_computed", working=traced.working)]
        + [f"{o.raw} = {place_text(o.place)}" for o in traced.operands if o.place is not None]
    )


@dataclass(frozen=True)
class NumberLink:
    """A traced number's span in the answer text, the anchor it links to and its tooltip."""

    start: int
    end: int
    href: str
    title: str


_CODE = re.compile(r"```.*?(?:```|\Z)|`[^`\n]+`", re.S)


def number_links(text: str, report: Any, prefix: str, max_number: int) -> dict[int, NumberLink]:
    """The links of the answer's traced numbers, by start: each whose places are in sources
    the answer shows cards of (``1..max_number``), none inside code."""
    code = [m.span() for m in _CODE.finditer(text)]
    out: dict[int, NumberLink] = {}
    for traced in traced_of(report):
        places = traced.places
        if not places or not 1 <= places[0].source <= max_number or traced.start in out:
            continue
        if not text.startswith(traced.raw, traced.start):
            continue  # not this answer's text
        if any(a <= traced.start < b for a, b in code):
            continue
        href = "#" + number_target(prefix, traced)
        out[traced.start] = NumberLink(traced.start, traced.end, href, number_title(traced))
    return out


@dataclass
class CardTargets:
    """What one card marks: each place of its source a traced number links to (by element
    id), and each computed number's anchor with the ids of its operands' places here."""

    places: dict[str, Any] = field(default_factory=dict)
    computed: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def sentences(self, parts: Iterable[str]) -> dict[str, str]:
        """Sentence -> element id, for the sentence places of the card's parts ``parts``."""
        wanted = set(parts)
        return {
            p.text: i for i, p in self.places.items() if p.kind == "sentence" and p.part in wanted
        }


def card_targets(report: Any, number: int, prefix: str) -> CardTargets:
    """The places of source ``number`` the answer's traced numbers link to."""
    out = CardTargets()
    for traced in traced_of(report):
        for place in ([traced.place] if traced.place is not None else []) + [
            o.place for o in traced.operands if o.place is not None
        ]:
            if place.source == number:
                out.places[place_id(prefix, place)] = place
        if traced.place is None and traced.places and traced.places[0].source == number:
            ids = tuple(place_id(prefix, p) for p in traced.places if p.source == number)
            out.computed[_computed_id(prefix, traced)] = ids
    return out


def cell_ids(grid: Grid, targets: CardTargets | None) -> dict[int, str]:
    """Cell id of the grid -> element id, for each cell place found in the grid: at its row
    and column when the cell there is the one traced, else the cell with its text in the row
    with its label (the table was read again since); one element id per cell."""
    out: dict[int, str] = {}
    if targets is None:
        return out
    ids = grid.cell_ids or tuple(
        tuple(range(r * grid.n_cols, (r + 1) * grid.n_cols)) for r in range(grid.n_rows)
    )
    for element, place in targets.places.items():
        if place.kind != "cell":
            continue
        at = _find_cell(grid, place)
        if at is not None and ids[at[0]][at[1]] not in out:
            out[ids[at[0]][at[1]]] = element
    return out


def _find_cell(grid: Grid, place: Any) -> tuple[int, int] | None:
    r, c = place.row, place.col
    if 0 <= r < grid.n_rows and 0 <= c < grid.n_cols and grid.rows[r][c] == place.text:
        return r, c
    for r, row in enumerate(grid.rows):
        label = next((cell for cell in row if cell.strip()), "")
        if label == place.row_label and place.text in row:
            return r, row.index(place.text)
    return None


def sentence_spans(text: str, sentences: Mapping[str, str]) -> list[tuple[int, int, str]]:
    """(start, end, element id) of each traced sentence found in ``text``, first occurrence,
    none overlapping another."""
    spans: list[tuple[int, int, str]] = []
    for sentence, element in sentences.items():
        start = text.find(sentence)
        if start >= 0:
            spans.append((start, start + len(sentence), element))
    spans.sort()
    kept: list[tuple[int, int, str]] = []
    for span in spans:
        if not kept or span[0] >= kept[-1][1]:
            kept.append(span)
    return kept


def computed_style(targets: CardTargets) -> str:
    """Anchors of the card's computed numbers, and the style marking their operands' places
    while one is the target: ids are ours ([a-z0-9-]), never the document's text."""
    if not targets.computed:
        return ""
    rules = [
        f":root:has(#{anchor}:target) :is({', '.join('#' + i for i in ids)})"
        for anchor, ids in targets.computed.items()
        if ids
    ]
    anchors = "".join(f'<span class="rag-anchor" id="{a}"></span>' for a in targets.computed)
    style = (
        "<style>" + ", ".join(rules) + " {background: #ffd8a8; outline: 2px solid #e8590c;}</style>"
        if rules
        else ""
    )
    return style + anchors


def unplaced(targets: CardTargets | None, drawn: Sequence[str]) -> str:
    """Empty anchors for the card's places none of its ``drawn`` HTML holds: the link still
    opens the card."""
    if targets is None:
        return ""
    html = "".join(drawn)
    return "".join(
        f'<span class="rag-anchor" id="{i}"></span>'
        for i in targets.places
        if f'id="{i}"' not in html
    )
