"""Table cells as facts (rag_app/facts): labels, numbers as written and read, the scale the
table states, the header row a table leaves unmarked, and the cells a question names."""

from __future__ import annotations

from dataclasses import replace

import pytest

from rag_app.facts.cells import number_of, source_scale, table_facts
from rag_app.facts.lookup import asked_facts
from rag_app.ingest import ChunkingOptions, chunk_document
from rag_app.ingest.content_list import parse_content_list
from rag_app.models import Chunk, Document
from rag_app.understand.analysis import analyse_query
from tests.conftest import TEST_DATA


@pytest.fixture(scope="module")
def chunks(counter) -> list[Chunk]:  # type: ignore[no-untyped-def]
    data = (TEST_DATA / "tatqa_like_content_list.json").read_bytes()
    items, _ = parse_content_list(data, "tatqa_like_content_list.json")
    doc = Document("tatqa_like", "tatqa_like", "content_list", tuple(items), "h", len(data))
    return chunk_document(doc, counter, ChunkingOptions())


def _table(chunks: list[Chunk]) -> Chunk:
    return next(c for c in chunks if c.type == "table")


@pytest.mark.parametrize(
    ("cell", "number"),
    [
        ("$ 1,452.4", 1452.4),
        ("(9,819)", -9819.0),
        ("-12.6", -12.6),
        ("23.4%", 23.4),
        ("106.2 倍", 106.2),
        ("$ 27 million", 27.0),
        ("-", None),
        ("n/a", None),
        ("Note 3", None),
        ("Sensors", None),
    ],
)
def test_number_of_a_cell(cell: str, number: float | None) -> None:
    assert number_of(cell) == number


def test_a_tables_cells_with_their_row_column_and_stated_scale(chunks) -> None:  # type: ignore[no-untyped-def]
    facts = {(f.metric, f.column): f for f in table_facts(_table(chunks))}
    freight = facts[("Freight", "2019")]  # the unlabelled first row heads the columns
    assert (freight.value, freight.number, freight.scale) == ("$ 12,340", 12340.0, "thousand")
    assert facts[("Warehousing", "2018")].number == 4480.0
    assert ("Total", "2018") in facts and not any(f.metric == "" for f in facts.values())
    assert table_facts(next(c for c in chunks if c.type == "text")) == ()


def test_the_cells_a_question_names(chunks) -> None:  # type: ignore[no-untyped-def]
    sources = list(enumerate(chunks, start=1))
    asked = asked_facts(analyse_query("What was Freight revenue in 2019?"), sources)
    assert [(a.fact.metric, a.fact.column, a.fact.value) for a in asked] == [
        ("Freight", "2019", "$ 12,340")
    ]
    both = asked_facts(analyse_query("What was Warehousing revenue in 2019 and 2018?"), sources)
    assert sorted(a.fact.value for a in both) == ["4,210", "4,480"]
    assert asked_facts(analyse_query("What was the headcount in 2019?"), sources) == []
    table = next(n for n, c in sources if c.type == "table")
    assert source_scale(table, sources) == "thousand"


def test_a_scale_stated_beside_the_table_not_an_amount(chunks) -> None:  # type: ignore[no-untyped-def]
    text = next(c for c in chunks if "Cash and cash equivalents" in c.text)
    plain = replace(_table(chunks), caption="", context="", footnote="")  # states no scale
    # "$3,204 thousand" is an amount, not a statement of the table's scale
    assert source_scale(1, [(1, plain), (2, text)]) == ""


def test_a_row_of_years_heads_the_columns_below_it() -> None:
    html = (
        "<table><tr><td>Net sales by segment</td><td></td><td></td></tr>"
        "<tr><td></td><td>2019</td><td>2018</td></tr>"
        "<tr><td>Appliances</td><td>680</td><td>774</td></tr></table>"
    )
    chunk = Chunk("d:1", "d", "table", "", "", (0,), table_html=html, context="(in millions)")
    facts = {(f.metric, f.column): f.value for f in table_facts(chunk)}
    assert facts == {("Appliances", "2019"): "680", ("Appliances", "2018"): "774"}


def test_a_unit_the_row_label_ends_with_need_not_be_named() -> None:
    """An English question over a Chinese table: "revenue" names 营业收入 (the synonyms), and
    the label's unit （百万元） is not asked for; a label naming it fully still comes first."""
    html = (
        "<table><tr><th>项目</th><th>2023A</th><th>2024A</th></tr>"
        "<tr><td>营业收入（百万元）</td><td>45,250</td><td>57,796</td></tr>"
        "<tr><td>毛利率（%）</td><td>19.3</td><td>18.6</td></tr></table>"
    )
    chunk = Chunk("d:1", "d", "table", "", "", (0,), table_html=html)
    question = analyse_query("What was SMIC's revenue in 2024?")
    assert [a.fact.value for a in asked_facts(question, [(1, chunk)])] == ["57,796"]


@pytest.mark.parametrize(
    "stated",
    [
        "<tr><td>(in millions)</td><td></td><td></td></tr>",
        "<tr><td>USD ‘000</td><td></td><td></td></tr>",
    ],
)
def test_a_row_with_no_values_may_state_the_scale(stated: str) -> None:
    """A label-only row under the years ("(in millions)", "All figures in USD ‘000") states
    the scale of every cell; a row of values does not."""
    html = (
        "<table><tr><td></td><td>2019</td><td>2018</td></tr>"
        f"{stated}<tr><td>Appliances</td><td>680</td><td>774</td></tr></table>"
    )
    chunk = Chunk("d:1", "d", "table", "", "", (0,), table_html=html)
    scales = {f.scale for f in table_facts(chunk)}
    assert scales == {"million" if "millions" in stated else "thousand"}
    plain = html.replace(stated, "<tr><td>Sensors, 3 million units</td><td>1</td><td>2</td></tr>")
    facts = table_facts(replace(chunk, table_html=plain))
    assert {f.scale for f in facts if f.metric == "Appliances"} == {""}


def test_a_table_with_periods_down_its_first_column_is_read_transposed() -> None:
    """A forecast laid out with years as rows: each cell's metric is its column, its period its
    row; two columns under one metric are told apart by the unit the question asks."""
    html = (
        '<table><tr><td rowspan="2">会计年度</td><td colspan="2">营业收入</td><td rowspan="2">毛利率（%）</td></tr>'
        "<tr><td>金额（百万元）</td><td>同比（%）</td></tr>"
        "<tr><td>2024A</td><td>5,383.16</td><td>9.58</td><td>36.41</td></tr>"
        "<tr><td>2025E</td><td>5,921.47</td><td>10.00</td><td>37.02</td></tr></table>"
    )
    chunk = Chunk("d:1", "d", "table", "", "", (0,), table_html=html, header_rows=2)
    facts = {(f.metric, f.column): f.value for f in table_facts(chunk)}
    assert facts[("毛利率（%）", "2025E")] == "37.02"
    assert facts[("营业收入 / 金额（百万元）", "2024A")] == "5,383.16"
    question = analyse_query("沐溪食品2025年营业收入是多少百万元？")
    assert [a.fact.value for a in asked_facts(question, [(1, chunk)])] == ["5,921.47"]
