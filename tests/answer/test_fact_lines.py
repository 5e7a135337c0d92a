"""The value-first line from a table's facts (rag_app/answer/fact_lines.py) and the short
answer read back from an answer (rag_app/answer/short.py): a named cell with its scale, a
change, a rate of change and an average worked out with their working, nothing when the
question does not name one row."""

from __future__ import annotations

import pytest

from rag_app.answer.fact_lines import fact_value_lines
from rag_app.answer.short import short_answer
from rag_app.ingest import ChunkingOptions, chunk_document
from rag_app.ingest.content_list import parse_content_list
from rag_app.models import Chunk, Document
from rag_app.understand.analysis import analyse_query
from tests.conftest import TEST_DATA


@pytest.fixture(scope="module")
def sources(counter) -> list[tuple[int, Chunk]]:  # type: ignore[no-untyped-def]
    data = (TEST_DATA / "tatqa_like_content_list.json").read_bytes()
    items, _ = parse_content_list(data, "tatqa_like_content_list.json")
    doc = Document("tatqa_like", "tatqa_like", "content_list", tuple(items), "h", len(data))
    return list(enumerate(chunk_document(doc, counter, ChunkingOptions()), start=1))


def _line(question: str, sources: list[tuple[int, Chunk]]) -> str:
    lines = fact_value_lines(analyse_query(question), sources, "en")
    assert len(lines) <= 1
    return lines[0] if lines else ""


def test_a_named_cell_with_the_tables_scale(sources) -> None:  # type: ignore[no-untyped-def]
    table = next(n for n, c in sources if c.type == "table")
    line = _line("What was Freight revenue in 2019?", sources)
    assert line == f"Freight, 2019: $ 12,340 thousand [Source {table}]"
    short = short_answer(f"(notice)\n\n{line}", sources, analyse_query("Freight in 2019?"))
    assert (short.value, short.scale, short.source) == ("$ 12,340", "thousand", table)


@pytest.mark.parametrize(
    ("question", "working", "value", "scale"),
    [
        (
            "What was the change in Freight revenue from 2018 to 2019?",
            "12340 - 10115 = 2225",
            "2225",
            "thousand",
        ),
        (
            "What was the percentage change in Warehousing revenue from 2018 to 2019?",
            "(4210 - 4480) / 4480 = -6.03%",
            "-6.03%",
            "percent",
        ),
        (
            "What was the average Total revenue for 2018 and 2019?",
            "(16550 + 14595) / 2 = 15572.5",
            "15572.5",
            "thousand",
        ),
    ],
)
def test_a_computed_answer_shows_its_working(sources, question, working, value, scale) -> None:  # type: ignore[no-untyped-def]
    line = _line(question, sources)
    assert working in line and "[Source " in line
    short = short_answer(line, sources, analyse_query(question))
    assert (short.value, short.scale) == (value, scale)


def test_nothing_when_no_row_is_named(sources) -> None:  # type: ignore[no-untyped-def]
    assert _line("What was the headcount in 2019?", sources) == ""
    assert fact_value_lines(analyse_query("Freight 2019?"), [], "en") == []


def test_a_quote_is_its_own_short_answer() -> None:
    text = "(notice)\n\n- Warehousing revenue declined by 6.0% after the closure. [Source 2]"
    short = short_answer(text, [], analyse_query("Why did it decline?"))
    # a quote's scale is its own words': none is added
    assert (short.value, short.scale, short.source) == (
        "Warehousing revenue declined by 6.0% after the closure.",
        "",
        2,
    )
    assert short_answer("nothing cited here", [], analyse_query("Why?")).value == ""


def test_a_change_asked_of_one_year_is_worked_out_before_any_value_line(sources) -> None:  # type: ignore[no-untyped-def]
    """ "The percentage change in 2019" is 2019 against 2018, not 2019's value, which the row
    line alone would give."""
    from rag_app.answer.offline import ExtractiveAnswerer

    question = analyse_query("What was the percentage change in Freight revenue in 2019?")
    text = ExtractiveAnswerer().answer_text(question, sources, "en")
    first = text.split("\n\n")[1]
    assert first.startswith("Freight, percentage change 2018-2019: (12340 - 10115) / 10115 = 22%")
    value = ExtractiveAnswerer().answer_text(
        analyse_query("What was Freight revenue in 2019?"), sources, "en"
    )
    assert "= " not in value.split("\n\n")[1]  # a value asked: the value, no working


def test_which_year_and_a_change_with_no_year_named(sources) -> None:  # type: ignore[no-untyped-def]
    table = next(n for n, c in sources if c.type == "table")
    line = _line("In which year was the amount of Freight revenue larger?", sources)
    assert line.endswith(f": 2019 [Source {table}]")
    assert "2019 $ 12,340" in line and "2018 $ 10,115" in line  # each year shown with its cell
    short = short_answer(line, sources, analyse_query("In which year was Freight larger?"))
    assert (short.value, short.scale) == ("2019", "")  # a year is in no scale
    change = _line("What was the change in Warehousing revenue?", sources)
    assert "4210 - 4480 = -270" in change  # no year named: the latest two the row gives


def test_the_amount_a_quote_states_for_a_value_question() -> None:
    text = "(notice)\n\n- As of December 31, 2019, 253,203 shares had vested. [Source 1]"
    question = analyse_query("How many shares have been vested as of December 31, 2019?")
    assert question.operation.name == "value"
    short = short_answer(text, [], question)
    assert (short.value, short.source) == ("253,203", 1)  # not the 31 of the date


def _as(question: str, operation: str):  # type: ignore[no-untyped-def]
    """The question read as asking ``operation`` (the model's reading fixed, for the line's own
    logic; the shipped model's readings are tests/understand/test_operations.py's)."""
    from rag_app.understand.operations import Operation

    query = analyse_query(question)
    query._lazy["operation"] = Operation(operation, 0.9)  # what QueryAnalysis reads once
    return query


def test_a_ratio_of_two_rows_in_the_order_named(sources) -> None:  # type: ignore[no-untyped-def]
    table = next(n for n, c in sources if c.type == "table")
    question = "What is the ratio of Freight to Total for 2019?"
    assert analyse_query(question).operation.name == "divide"  # the shipped model's reading
    line = _line(question, sources)
    assert line == f"Freight / Total, 2019: 12340 / 16550 = 0.75 [Source {table}]"
    short = short_answer(line, sources, analyse_query(question))
    assert (short.value, short.scale) == ("0.75", "")  # a ratio is in no scale
    reverse = fact_value_lines(
        _as("The ratio of Total to Freight in 2019?", "divide"), sources, "en"
    )
    assert "16550 / 12340 = 1.34" in reverse[0]


def test_a_share_is_the_part_over_its_whole_as_a_percentage(sources) -> None:  # type: ignore[no-untyped-def]
    query = _as("What percentage of Total revenue was Warehousing in 2019?", "share")
    line = fact_value_lines(query, sources, "en")[0]
    assert "Warehousing / Total, 2019: 4210 / 16550 = 25.44%" in line  # the whole named first
    short = short_answer(line, sources, query)
    assert (short.value, short.scale) == ("25.44%", "percent")
    # one row, two years: in the order the question names them
    years = fact_value_lines(_as("Freight in 2019 as a ratio of 2018?", "divide"), sources, "en")
    assert "12340 / 10115 = 1.22" in years[0]
    assert (
        fact_value_lines(_as("The ratio of Freight to headcount?", "divide"), sources, "en") == []
    )


@pytest.mark.parametrize(
    ("question", "count"),
    [
        ("How many years did Freight revenue exceed 11 million?", "1"),  # 11,000 thousand
        ("How many years did Freight revenue exceed $10,000 thousand?", "2"),
        ("How many years did Freight revenue exceed 13 million?", "0"),
    ],
)
def test_a_count_of_years_beyond_an_amount_in_its_scale(sources, question, count) -> None:  # type: ignore[no-untyped-def]
    assert analyse_query(question).operation.name == "count"
    line = _line(question, sources)
    assert "2019 $ 12,340; 2018 $ 10,115" in line and line.endswith(f": {count} [Source 2]")
    short = short_answer(line, sources, analyse_query(question))
    assert (short.value, short.scale) == (count, "")  # a count has no scale
    below = fact_value_lines(_as("How many years was Freight under 11 million?", "count"), sources)
    assert below[0].endswith("：1 [Source 2]") and "低于11 million" in below[0]


def _prospectus() -> list[tuple[int, Chunk]]:
    html = (
        "<table><tr><td>项目</td><td>2023年12月31日/2023年度</td><td>2022年12月31日/2022年度</td>"
        "<td>2021年12月31日/2021年度</td></tr>"
        "<tr><td>营业收入（万元）</td><td>62,384.75</td><td>47,916.20</td><td>33,508.64</td></tr>"
        "<tr><td>净利润（万元）</td><td>11,692.35</td><td>8,363.84</td><td>5,917.42</td></tr></table>"
    )
    return [(1, Chunk("p:1", "p", "table", "", "", (0,), table_html=html))]


def test_a_column_naming_its_year_twice_is_that_years() -> None:
    """ "2023年12月31日/2023年度" is 2023's column: a change and an average are worked out."""
    change = fact_value_lines(_as("2023年营业收入较2022年增长了多少？", "diff"), _prospectus())
    assert change and "62384.75 - 47916.2 = 14468.55" in change[0]
    average = fact_value_lines(_as("2021年到2023年营业收入的平均值？", "average"), _prospectus())
    assert average and "= 47936.53" in average[0]


def test_a_count_against_an_amount_in_yi_or_wan() -> None:
    """8000万元 against a row in 万元; 28亿元 against a table in 元."""
    query = _as("2021年到2023年净利润超过8000万元的年份有几个？", "count")
    line = fact_value_lines(query, _prospectus())[0]
    assert "高于8000万的年份" in line and line.endswith("：2 [Source 1]")
    html = (
        "<table><tr><td>项目</td><td>2024年</td><td>2023年</td><td>2022年</td></tr>"
        "<tr><td>营业收入</td><td>3,286,451,209.37</td><td>2,874,106,532.18</td>"
        "<td>2,401,337,815.62</td></tr></table>"
    )
    annual = [(1, Chunk("a:1", "a", "table", "", "", (0,), table_html=html, caption="单位：元"))]
    line = fact_value_lines(_as("营业收入超过28亿元的有几年？", "count"), annual)[0]
    assert line.endswith("：2 [Source 1]")


@pytest.mark.parametrize(
    ("question", "line"),
    [
        # a company only ranked in the report: its row's cell, never the report's own company's
        ("台积电2024年的营收是多少？", "台积电 2024年营收（亿美元）：881.6"),
        ("华虹集团2024年营收多少？", "华虹集团 2024年营收（亿美元）：40.2"),
        ("台积电的市占率是多少？", "台积电 市占率（%）：64.9"),
    ],
)
def test_a_company_in_a_row_of_another_reports_table(sample_sources, question, line) -> None:  # type: ignore[no-untyped-def]
    lines = fact_value_lines(analyse_query(question), sample_sources, "zh")
    assert len(lines) == 1 and lines[0].startswith(line + " [Source ")


def test_a_company_no_source_is_about_gets_no_line_of_anothers_rows(sample_sources) -> None:  # type: ignore[no-untyped-def]
    # 中芯国际's 营业收入 row names the metric; it is not the asked company's
    assert fact_value_lines(analyse_query("北辰智控2024年的营业收入是多少？"), sample_sources) == []
    own = fact_value_lines(analyse_query("中芯国际2024年营业收入是多少？"), sample_sources)
    assert own and own[0].startswith("营业收入")  # the report's own rows answer its company
