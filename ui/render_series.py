"""The series under an answer (``Answer.series``, ``rag_app.facts.series``): one metric over
periods and companies as a table, a line chart and a CSV, each point with the document, page
and table it is a cell of."""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from rag_app.facts.series import Series
from ui.i18n import t
from ui.render_hits import fitted_columns


def series_table(series: Series, doc_names: dict[str, str]) -> pd.DataFrame:
    """One row a point: whose, which period, the value as written, and where it is."""
    rows = []
    for point in series.points:
        page = t("page", page=min(point.pages) + 1) if point.pages else ""
        where = " · ".join(
            p for p in (doc_names.get(point.doc_id, point.doc_id), page, point.table) if p
        )
        rows.append(
            {
                t("series_subject"): point.subject,
                t("series_period"): point.column or point.period,
                t("series_value"): point.value,
                t("series_where"): where,
            }
        )
    return pd.DataFrame(rows)


def series_chart_spec() -> dict[str, Any]:
    """A Vega-Lite line per subject over the periods; the tooltip names each point's value
    and where it is. No zoom or pan: the wheel scrolls the page."""
    return {
        "mark": {"type": "line", "point": True},
        "encoding": {
            "x": {
                "field": "period",
                "type": "ordinal",
                "title": t("series_period"),
                "axis": {"labelAngle": 0},
            },
            "y": {"field": "number", "type": "quantitative", "title": None},
            "color": {"field": "subject", "type": "nominal", "title": t("series_subject")},
            "tooltip": [
                {"field": "subject", "title": t("series_subject")},
                {"field": "column", "title": t("series_period")},
                {"field": "value", "title": t("series_value")},
                {"field": "where", "title": t("series_where")},
            ],
        },
    }


def render_series(series: Series | None, prefix: str, doc_names: dict[str, str]) -> None:
    """The series, if the answer has one: table, chart, CSV."""
    if series is None or not series.points:
        return
    title = t("series_title", metric=series.metric, n=len(series.points))
    with st.expander("📈 " + title, expanded=True):
        table = series_table(series, doc_names)
        st.dataframe(
            table,
            hide_index=True,
            width="stretch",
            column_config=fitted_columns(
                table, [c for c in table.columns if table[c].dtype == object]
            ),
        )
        points = pd.DataFrame(
            {
                "subject": [p.subject for p in series.points],
                "period": [p.period for p in series.points],
                "column": [p.column or p.period for p in series.points],
                "number": [p.number for p in series.points],
                "value": [p.value for p in series.points],
                "where": table[t("series_where")].tolist(),
            }
        )
        st.vega_lite_chart(points, series_chart_spec(), width="stretch")
        st.download_button(
            t("series_csv"),
            table.to_csv(index=False).encode("utf-8-sig"),
            file_name="series.csv",
            mime="text/csv",
            key=f"{prefix}series_csv",
        )
