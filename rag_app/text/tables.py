"""Tables as grids: the one table reader. HTML in (parse, expand spans, find header rows);
rows, column labels, linearised rows and clean HTML out; Markdown pipe tables read the same way.

Parser output is untrusted HTML; this module only reads cell text (stdlib ``html.parser``), so a
table carrying scripts yields text, never markup. Rendering safe HTML is the UI's job (sanitised).
Cutting a table's HTML into row segments without parsing it is ``rag_app.text.table_rows``.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from html import escape
from html.parser import HTMLParser

from rag_app.text.periods import PERIOD_HEADER

_NUMBER = re.compile(r"^[\s(（\-−–+$¥￥€£]*\d[\d,，.\s]*%?[)）]?\s*(?:[a-zA-Z%倍元亿万千]+)?$")
_MAX_SPAN = 100  # a colspan of 10^6 in hostile HTML must not allocate a huge grid
# Positions (rows x columns, spans expanded) one table's grid may take: 5000 rows of 50 columns.
# Spans of 100 x 100 on every cell, or one row of 30,000 cells above 10,000 short ones, would
# otherwise allocate gigabytes; such a table is refused at ingestion and read without its spans
# (then cut to this size) anywhere else.
MAX_GRID_CELLS = 250_000


class TableTooLarge(ValueError):
    """A table whose grid would take more than ``MAX_GRID_CELLS`` positions."""

    def __init__(self, rows: int, cols: int) -> None:
        super().__init__(
            f"a table of {rows:,} rows x {cols:,} columns (spans expanded) is over the "
            f"{MAX_GRID_CELLS:,} cells one table may take"
        )
        self.rows = rows
        self.cols = cols


@dataclass(frozen=True)
class Cell:
    text: str
    header: bool  # from <th> or <thead>


@dataclass(frozen=True)
class Grid:
    """A table with spans expanded: every row has ``n_cols`` cells (spanned cells repeat)."""

    rows: tuple[tuple[str, ...], ...]
    header_rows: int
    # Same shape as ``rows``: the id of the HTML cell each position comes from, so a cell merged
    # over several columns can be told from equal neighbours (empty when built by hand).
    cell_ids: tuple[tuple[int, ...], ...] = ()

    @property
    def n_rows(self) -> int:
        return len(self.rows)

    @property
    def n_cols(self) -> int:
        return len(self.rows[0]) if self.rows else 0

    @property
    def data_rows(self) -> tuple[tuple[str, ...], ...]:
        return self.rows[self.header_rows :]


class _TableParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.rows: list[list[tuple[str, bool, int, int]]] = []
        self._cell: list[str] | None = None
        self._cell_meta: tuple[bool, int, int] = (False, 1, 1)
        self._in_thead = False
        self._skip = 0  # inside <script>/<style>: text is not table content

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style"):
            self._skip += 1
        elif tag == "thead":
            self._in_thead = True
        elif tag == "tr":
            self._close_cell()
            self.rows.append([])
        elif tag in ("td", "th"):
            self._close_cell()
            if not self.rows:
                self.rows.append([])
            values = dict(attrs)
            self._cell = []
            self._cell_meta = (
                tag == "th" or self._in_thead,
                _span(values.get("colspan")),
                _span(values.get("rowspan")),
            )
        elif tag == "br" and self._cell is not None:
            self._cell.append(" ")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style"):
            self._skip = max(0, self._skip - 1)
        elif tag == "thead":
            self._in_thead = False
        elif tag in ("td", "th", "tr"):
            self._close_cell()

    def handle_data(self, data: str) -> None:
        if self._cell is not None and not self._skip:
            self._cell.append(data)

    def _close_cell(self) -> None:
        if self._cell is not None:
            text = " ".join("".join(self._cell).split())
            header, colspan, rowspan = self._cell_meta
            self.rows[-1].append((text, header, colspan, rowspan))
            self._cell = None


def _span(value: str | None) -> int:
    try:
        return max(1, min(_MAX_SPAN, int(str(value).strip())))
    except (TypeError, ValueError):
        return 1


def parse_table(html: str, header_rows: int = 0, *, strict: bool = False) -> Grid:
    """Parse an HTML table into a span-expanded grid; an empty or cell-less body gives 0 rows.

    ``header_rows`` > 0 says how many leading rows are headers (when the chunk already knows);
    otherwise rows of ``<th>``/``<thead>`` cells are headers, or the rows are read to guess.
    A table whose grid would pass ``MAX_GRID_CELLS`` raises ``TableTooLarge`` when ``strict``
    (ingestion), else is read without its spans and cut to that size.
    """
    try:
        grid = _parsed(html or "", False)
    except TableTooLarge:
        if strict:
            raise
        grid = _parsed(html or "", True)
    if header_rows > 0:
        return Grid(grid.rows, min(header_rows, max(0, len(grid.rows) - 1)), grid.cell_ids)
    return grid


# Kept by the table's HTML alone, whatever a reader asks of its headers: chunking, the
# document's features and its profile each read every table of an upload, the last two after
# the whole batch is chunked and embedded (hence room for a few hundred tables).
@functools.lru_cache(maxsize=512)
def _parsed(html: str, cut: bool) -> Grid:
    """The grid with its header rows read from the table; over ``MAX_GRID_CELLS`` it raises
    ``TableTooLarge``, or with ``cut`` is read without spans and cut to that size."""
    parser = _TableParser()
    parser.feed(html)
    parser.close()
    parser._close_cell()
    raw = [row for row in parser.rows if row]
    rows_needed, cols_needed = _extent(raw)
    if rows_needed * cols_needed > MAX_GRID_CELLS:
        if not cut:
            raise TableTooLarge(rows_needed, cols_needed)
        raw = [[(text, header, 1, 1) for text, header, _, _ in row] for row in raw]
        width = max(len(row) for row in raw)
        raw = raw[: max(1, MAX_GRID_CELLS // width)]
        raw = [row[:MAX_GRID_CELLS] for row in raw]
    grid: list[list[tuple[int, str] | None]] = []
    header_flags: list[bool] = []
    cell_id = 0
    for r, row in enumerate(raw):
        while len(grid) <= r:
            grid.append([])
        out = grid[r]
        col = 0
        for text, _header, colspan, rowspan in row:
            while col < len(out) and out[col] is not None:
                col += 1
            for dr in range(rowspan):
                while len(grid) <= r + dr:
                    grid.append([])
                target = grid[r + dr]
                for dc in range(colspan):
                    c = col + dc
                    while len(target) <= c:
                        target.append(None)
                    if target[c] is None:
                        target[c] = (cell_id, text)
            col += colspan
            cell_id += 1
        header_flags.append(bool(row) and all(cell[1] for cell in row))
    width = max((len(row) for row in grid), default=0)
    filled = [
        [cell if cell is not None else (-1 - r * width - c, "") for c, cell in enumerate(row)]
        + [(-1 - r * width - c, "") for c in range(len(row), width)]
        for r, row in enumerate(grid)
    ]
    filled = [row for row in filled if any(text for _, text in row)]
    rows = tuple(tuple(text for _, text in row) for row in filled)
    cell_ids = tuple(tuple(i for i, _ in row) for row in filled)
    marked = 0
    while marked < len(header_flags) and header_flags[marked]:
        marked += 1
    header_rows = marked if marked else _guess_header_rows(rows)
    return Grid(rows, min(header_rows, max(0, len(rows) - 1)), cell_ids)


def _extent(raw: list[list[tuple[str, bool, int, int]]]) -> tuple[int, int]:
    """An upper bound on the rows and columns a table's grid takes, spans expanded: a row is
    as wide as its own cells plus the cells above it whose rowspan reaches down into it."""
    if not raw:
        return 0, 0
    rows = max(r + max(cell[3] for cell in row) for r, row in enumerate(raw))
    carried = [0] * (rows + 1)  # difference array of the columns rowspans carry into a row
    own = [0] * rows
    for r, row in enumerate(raw):
        for _, _, colspan, rowspan in row:
            own[r] += colspan
            if rowspan > 1:
                carried[r + 1] += colspan
                carried[r + rowspan] -= colspan
    width = running = 0
    for r in range(rows):
        running += carried[r]
        width = max(width, own[r] + running)
    return rows, width


def _is_value(cell: str) -> bool:
    cell = cell.strip()
    return bool(cell) and bool(_NUMBER.match(cell)) and not PERIOD_HEADER.match(cell)


def _guess_header_rows(rows: tuple[tuple[str, ...], ...]) -> int:
    """Leading rows with no numeric value outside the first column are headers (at most 4).

    Annual-report tables open with label rows, year rows (2019 / 2023A / 1Q24) and unit rows
    (US$'000, 亿元); the first row holding a plain number starts the data.
    """
    count = 0
    for row in rows[:4]:
        if any(_is_value(cell) for cell in row[1:]):
            break
        count += 1
    if count == len(rows[:4]) and rows:
        # No numeric row at all: a glossary under its header, or a list of label-value pairs
        # (a company's particulars, an offer's terms) whose first row is data like the rest.
        return 1 if len(rows) > 1 and _names_its_columns(rows) else 0
    return count


def _names_its_columns(rows: tuple[tuple[str, ...], ...]) -> bool:
    """Whether a text-only table's first row reads as a header: one naming its columns briefly.

    A header cell is short beside the cells it heads ("定义 Definitions" over definitions of a
    hundred characters); in some column the first row is at most three quarters as long as a
    typical cell below it. A first row as long as the rest ("公司的中文名称 | 江苏澄远智能装备股份有限公司")
    is a pair like the others. Two rows give nothing to compare with: the first is the header.
    """
    if len(rows) < 3:
        return True
    for c, head in enumerate(rows[0]):
        below = sorted(len(row[c].strip()) for row in rows[1:] if c < len(row) and row[c].strip())
        if head.strip() and below and 4 * len(head.strip()) <= 3 * below[len(below) // 2]:
            return True
    return False


def column_labels(grid: Grid, sep: str = " ") -> list[str]:
    """One label per column: the distinct non-empty header cells above it, joined by ``sep``."""
    labels = []
    for c in range(grid.n_cols):
        parts: list[str] = []
        for row in grid.rows[: grid.header_rows]:
            cell = row[c].strip()
            if cell and cell not in parts:
                parts.append(cell)
        labels.append(sep.join(parts))
    return labels


def labelled_rows(grid: Grid, sep: str = " / ") -> list[tuple[str, str]]:
    """Per data row: (its first non-empty cell, "header: value; header: value").

    Quotable rows for an answer: each value carries its column's header (a value equal to its
    header is given alone), and a cell merged over several columns is given once.
    """
    labels = column_labels(grid, sep)
    out = []
    for r in range(grid.header_rows, grid.n_rows):
        row = grid.rows[r]
        ids = grid.cell_ids[r] if grid.cell_ids else tuple(range(len(row)))
        parts: list[str] = []
        last_id: int | None = None
        for c, text in enumerate(row):
            if ids[c] == last_id:
                continue  # the rest of a cell merged across columns
            last_id = ids[c]
            if not text:
                continue
            label = labels[c] if c < len(labels) else ""
            parts.append(f"{label}: {text}" if label and label != text else text)
        if parts:
            out.append((next((text for text in row if text), ""), "; ".join(parts)))
    return out


def linearise_row(row: tuple[str, ...], labels: list[str]) -> str:
    """``first cell: label value; label value`` — each value next to its column's header."""
    first = row[0].strip() if row else ""
    parts = []
    previous: tuple[str, str] | None = None
    for c in range(1, len(row)):
        value = row[c].strip()
        label = labels[c] if c < len(labels) else ""
        if not value or (label, value) == previous:  # a cell spanning columns repeats
            continue
        previous = (label, value)
        parts.append(f"{label} {value}".strip())
    if not parts:
        return first
    return f"{first}: " + "; ".join(parts) if first else "; ".join(parts)


def linearise(grid: Grid, rows: tuple[tuple[str, ...], ...] | None = None) -> str:
    """Header line plus one line per data row (all data rows unless ``rows`` is given)."""
    labels = column_labels(grid)
    lines = []
    header = " | ".join(label for label in labels if label)
    if header:
        lines.append(header)
    for row in grid.data_rows if rows is None else rows:
        lines.append(linearise_row(row, labels))
    return "\n".join(line for line in lines if line)


def grid_to_html(
    grid: Grid,
    rows: Sequence[int] | None = None,
    classes: Mapping[int, str] | None = None,
    element_ids: Mapping[int, str] | None = None,
) -> str:
    """Clean HTML (escaped text, no attributes but spans, ``classes`` and ``element_ids``: a
    class and an element id per cell id) of the grid's header rows and the data rows ``rows`` (indices into
    ``grid.rows``; all data rows when None).

    Each cell of the document is written once, over the columns and rows it spans among those
    shown: a sub-table repeats its table's header as the document draws it ("实际值" once over
    three years, "项目" once over two header rows), not once per position. A cell spanning rows
    across a cut is drawn in each part, over that part's rows. A grid built without cell ids
    (by hand) has one cell per position.
    """
    data = range(grid.header_rows, grid.n_rows) if rows is None else rows
    shown = [*range(grid.header_rows), *data]
    width = grid.n_cols
    ids = grid.cell_ids or tuple(
        tuple(range(r * width, (r + 1) * width)) for r in range(grid.n_rows)
    )
    out = ["<table>"]
    for k, r in enumerate(shown):
        tag = "th" if r < grid.header_rows else "td"
        above = k > 0 and shown[k - 1] == r - 1  # the row above is shown right above it
        cells = []
        for c, cell in enumerate(ids[r]):
            if (c and ids[r][c - 1] == cell) or (above and ids[r - 1][c] == cell):
                continue  # drawn by the cell it continues, to its left or above
            colspan = 1
            while c + colspan < width and ids[r][c + colspan] == cell:
                colspan += 1
            rowspan = 1
            while (
                k + rowspan < len(shown)
                and shown[k + rowspan] == r + rowspan
                and ids[r + rowspan][c] == cell
            ):
                rowspan += 1
            spans = (f' rowspan="{rowspan}"' if rowspan > 1 else "") + (
                f' colspan="{colspan}"' if colspan > 1 else ""
            )
            if classes and cell in classes:
                spans += f' class="{escape(classes[cell])}"'
            if element_ids and cell in element_ids:
                spans += f' id="{escape(element_ids[cell])}"'
            cells.append(f"<{tag}{spans}>{escape(grid.rows[r][c])}</{tag}>")
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</table>")
    return "".join(out)


def join_cut_spans(grid: Grid) -> Grid:
    """The grid of a table joined back from its sub-tables, each cell spanning rows over a cut
    one cell again. ``grid_to_html`` draws such a cell in each part, over that part's rows, so
    the parts' rows joined hold it twice (表6's "12英寸" over 3 rows, then over 6). Below the
    header, a cell continues the one right above it when both hold the same text over the same
    columns and either spans several rows; equal one-row cells ("FAB" on each line) stay apart.
    """
    ids = [list(row) for row in grid.cell_ids]
    extent: dict[int, list[int]] = {}  # cell id -> [top, bottom, left, right]
    for r, row in enumerate(ids):
        for c, cell in enumerate(row):
            box = extent.setdefault(cell, [r, r, c, c])
            box[1], box[3] = r, max(box[3], c)
    for r in range(grid.header_rows + 1, len(ids)):
        for c, cell in enumerate(ids[r]):
            above, text = ids[r - 1][c], grid.rows[r][c]
            if above == cell or not text.strip() or grid.rows[r - 1][c] != text:
                continue
            upper, lower = extent[above], extent[cell]
            if upper[1] != r - 1 or lower[0] != r or upper[2:] != lower[2:]:
                continue
            if upper[0] == upper[1] and lower[0] == lower[1]:
                continue
            for rr in range(lower[0], lower[1] + 1):
                ids[rr][lower[2] : lower[3] + 1] = [above] * (lower[3] - lower[2] + 1)
            upper[1] = lower[1]
    return Grid(grid.rows, grid.header_rows, tuple(tuple(row) for row in ids))


_PIPE_ROW = re.compile(r"^\s*\|.*\|\s*$")
_PIPE_RULE = re.compile(r"^\s*\|(\s*:?-{3,}:?\s*\|)+\s*$")


def _pipe_cells(line: str) -> list[str]:
    inner = line.strip()[1:-1]
    return [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", inner)]


def pipe_table_rows(body: str) -> tuple[list[str], str]:
    """Markdown pipe tables of a block linearised like HTML ones (each value beside its column
    header), and the block with those tables removed."""
    units: list[str] = []
    kept: list[str] = []
    lines = body.splitlines()
    i = 0
    while i < len(lines):
        if i + 1 < len(lines) and _PIPE_ROW.match(lines[i]) and _PIPE_RULE.match(lines[i + 1]):
            labels = _pipe_cells(lines[i])
            header = " | ".join(label for label in labels if label)
            if header:
                units.append(header)
            i += 2
            while i < len(lines) and _PIPE_ROW.match(lines[i]):
                units.append(linearise_row(tuple(_pipe_cells(lines[i])), labels))
                i += 1
            continue
        kept.append(lines[i])
        i += 1
    return [u for u in units if u.strip()], "\n".join(kept)
