"""TRANSITIONAL: the table grid lives in ``rag_app.text.tables``; removed once callers import it
from there."""

from rag_app.text.tables import (
    Cell,
    Grid,
    column_labels,
    grid_to_html,
    labelled_rows,
    linearise,
    linearise_row,
    parse_table,
)

__all__ = [
    "Cell",
    "Grid",
    "column_labels",
    "grid_to_html",
    "labelled_rows",
    "linearise",
    "linearise_row",
    "parse_table",
]
