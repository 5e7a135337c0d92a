"""The series under an answer (ui/render_series.py): a row a point with where it is, in the UI's
language; a chart with no zoom bound to the wheel."""

from __future__ import annotations

from rag_app.facts.series import Series, SeriesPoint
from ui.render_series import series_chart_spec, series_table

SERIES = Series(
    "毛利率（%）",
    (
        SeriesPoint(
            "中芯国际", "2023", "19.3", 19.3, "毛利率（%）", "smic", "smic:1", (1,), "表1：盈利预测"
        ),
        SeriesPoint(
            "中芯国际", "2024", "18.6", 18.6, "毛利率（%）", "smic", "smic:1", (1,), "表1：盈利预测"
        ),
    ),
)


def test_a_row_a_point_with_its_document_page_and_table(lang: str) -> None:
    table = series_table(SERIES, {"smic": "smic_report.zip"})
    assert len(table) == 2
    headers = {
        "zh": ["公司 / 报告", "期间", "数值", "出处"],
        "en": ["Company / report", "Period", "Value", "Source"],
    }
    assert list(table.columns) == headers[lang]
    where = table.iloc[0, 3]
    page = "第 2 页" if lang == "zh" else "p. 2"
    assert where == f"smic_report.zip · {page} · 表1：盈利预测"


def test_the_chart_takes_no_wheel(lang: str) -> None:
    spec = series_chart_spec()
    assert "params" not in spec and "selection" not in str(spec)  # no zoom or pan
    assert [f["field"] for f in spec["encoding"]["tooltip"]] == [
        "subject",
        "column",
        "value",
        "where",
    ]
