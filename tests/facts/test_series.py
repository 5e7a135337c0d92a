"""One metric over periods and companies (rag_app/facts/series.py), and the series an answer
carries from the library (rag_app/pipeline/series.py), saved with its conversation turn."""

from __future__ import annotations

from rag_app.facts.series import asks_for_series, metric_series
from rag_app.models import Chunk
from rag_app.understand.analysis import analyse_query


def _table(doc_id: str, margins: list[str], caption: str = "") -> Chunk:
    head = "".join(f"<td>{y}</td>" for y in ("2022A", "2023A", "2024A", "2025E"))
    cells = "".join(f"<td>{m}</td>" for m in margins)
    html = (
        f"<table><tr><td>项目</td>{head}</tr><tr><td>营业收入（百万元）</td>"
        "<td>1</td><td>2</td><td>3</td><td>4</td></tr>"
        f"<tr><td>毛利率（%）</td>{cells}</tr></table>"
    )
    return Chunk(
        f"{doc_id}:1", doc_id, "table", "", "", (0,), table_html=html, caption=caption, pages=(2,)
    )


TABLES = {
    "smic": [_table("smic", ["38.3", "19.3", "18.6", "21.8"], "表1：盈利预测")],
    "hua": [_table("hua", ["34.1", "21.3", "10.2", "13.5"])],
}
SUBJECTS = {"smic": "中芯国际", "hua": "华虹半导体"}


def test_a_metric_of_two_companies_over_the_years_named() -> None:
    query = analyse_query("中芯国际和华虹2022-2024年毛利率对比")
    series = metric_series(query, TABLES, SUBJECTS)
    assert series is not None and series.metric == "毛利率（%）"
    assert series.subjects == ("中芯国际", "华虹半导体") or set(series.subjects) == {
        "中芯国际",
        "华虹半导体",
    }
    assert series.periods == ("2022", "2023", "2024")  # 2025E is outside the range named
    cells = {(p.subject, p.period): p.value for p in series.points}
    assert cells[("中芯国际", "2024")] == "18.6" and cells[("华虹半导体", "2022")] == "34.1"
    smic = next(p for p in series.points if p.subject == "中芯国际")
    assert (smic.doc_id, smic.chunk_id, smic.pages, smic.table) == (
        "smic",
        "smic:1",
        (2,),
        "表1：盈利预测",
    )


def test_every_year_when_none_is_named_and_nothing_for_a_lookup() -> None:
    series = metric_series(analyse_query("各公司的毛利率"), TABLES, SUBJECTS)
    assert series is not None and len(series.points) == 8
    assert metric_series(analyse_query("净利润"), TABLES, SUBJECTS) is None  # no row names it
    assert not asks_for_series(analyse_query("中芯国际2024年毛利率是多少？"), 1)
    assert asks_for_series(analyse_query("中芯国际2022-2024年毛利率"), 1)
    assert asks_for_series(analyse_query("中芯国际和华虹的毛利率"), 2)
