"""A table's HTML as row segments: its shape, its first rows, the cells of one row.

Parsers (MinerU and the like) write tables as one ``<table>`` with ``<tr>`` rows. Cutting at the
rows keeps the HTML as written (attributes, ``<thead>``), which a prompt shows and a sub-table
repeats; regular expressions are enough for that shape. Reading a table as a grid (spans
expanded, header rows found) is ``rag_app.text.tables``.
"""

from __future__ import annotations

import html as html_lib
import re
from dataclasses import dataclass

_ROW = re.compile(r"<tr\b[^>]*>.*?</tr\s*>", re.S | re.I)
_CELL = re.compile(r"<t[dh]\b([^>]*)>", re.I)
_COLSPAN = re.compile(r"""colspan\s*=\s*["']?(\d+)""", re.I)
_SPACE = re.compile(r"\s+")
_ROW_START = re.compile(r"<tr\b", re.I)
_CELL_TEXT = re.compile(r"<t[dh]\b[^>]*>(.*?)</t[dh]>", re.I | re.S)
_TAG = re.compile(r"<[^>]+>")


@dataclass(frozen=True)
class TableRows:
    """A table's HTML cut into ``prefix + "".join(segments) + suffix``.

    Each segment ends with one ``<tr>...</tr>`` row; whatever stood between it and the previous
    row (``</thead><tbody>`` for instance) stays at the segment's start, so joining the segments
    back gives the original HTML exactly.
    """

    prefix: str
    segments: tuple[str, ...]
    suffix: str

    @property
    def rows(self) -> tuple[str, ...]:
        return tuple(_ROW.search(segment).group(0) for segment in self.segments)  # type: ignore[union-attr]

    def html(self, n_rows: int | None = None) -> str:
        """The table with only its first ``n_rows`` rows (all when None), still well closed."""
        segments = self.segments if n_rows is None else self.segments[:n_rows]
        return self.prefix + "".join(segments) + self.suffix


def split_rows(html: str) -> TableRows | None:
    """Cut table HTML into rows, or None when it has no ``<tr>`` rows."""
    matches = list(_ROW.finditer(html))
    if not matches:
        return None
    segments = []
    start = matches[0].start()
    for match in matches:
        segments.append(html[start : match.end()])
        start = match.end()
    return TableRows(html[: matches[0].start()], tuple(segments), html[matches[-1].end() :])


def table_shape(html: str) -> tuple[int, int]:
    """(rows, columns) of table HTML; columns count ``colspan``. (0, 0) without rows."""
    parsed = split_rows(html)
    if parsed is None:
        return 0, 0
    n_cols = 0
    for row in parsed.rows:
        width = 0
        for attrs in _CELL.findall(row):
            span = _COLSPAN.search(attrs)
            width += int(span.group(1)) if span else 1
        n_cols = max(n_cols, width)
    return len(parsed.segments), n_cols


def same_row(a: str, b: str) -> bool:
    """Whether two rows' HTML differ only in whitespace."""
    return _SPACE.sub("", a) == _SPACE.sub("", b)


def row_cells(segment: str) -> list[str]:
    """The text of each cell of a row segment, tags dropped and entities read ([""] for none);
    spans are not expanded."""
    cells = [
        " ".join(html_lib.unescape(_TAG.sub(" ", c)).split()) for c in _CELL_TEXT.findall(segment)
    ]
    return cells or [""]


def keep_rows(table_html: str, header: int, rows: set[int]) -> str:
    """The table with its ``header`` rows and the row segments in ``rows`` only, well formed."""
    parsed = split_rows(table_html)
    if parsed is None:
        return table_html
    kept = []
    for index, segment in enumerate(parsed.segments):
        if index < header or index in rows:
            kept.append(segment)
        elif index == header:
            # What stands between the header and the first data row (</thead><tbody>) stays.
            start = _ROW_START.search(segment)
            kept.append(segment[: start.start()] if start else "")
    return parsed.prefix + "".join(kept) + parsed.suffix
