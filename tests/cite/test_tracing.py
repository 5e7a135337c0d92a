"""Where the citation check traced each number of an answer (issue 25 item 3): a table's cell (by
its grid position and its labels), a sentence of a text, a restated amount in another scale, a
computed number's operands; and the places kept by a saved turn and an audit record."""

from __future__ import annotations

import json

import pytest

from rag_app.chat.saved_turns import (
    restored_report,
    saved_turn,
    turn_from_json,
    turn_to_json,
)
from rag_app.cite import Place, TracedNumber, check_answer
from rag_app.ingest import ChunkingOptions, chunk_document
from rag_app.ingest.content_list import parse_content_list
from rag_app.models import Answer, AskOptions, Chunk, Document, RetrievalTrace
from rag_app.text.tables import parse_table
from rag_app.understand.analysis import analyse_query
from tests.conftest import REPO_ROOT

QUESTION = analyse_query("中芯国际的营业收入")
TEXT = Chunk(
    "t1",
    "smic",
    "text",
    "行业景气回升。2019-2024年，公司营业收入由220.2亿元增长至578.0亿元，年均复合增速达21.3%。"
    "2023年公司营收同比下降8.6%。",
    "",
    (0,),
)
GROWTH = Chunk(
    "g1",
    "smic",
    "table",
    "",
    "",
    (1,),
    table_html="<table><tr><td>项目</td><td>2023A</td><td>2024A</td></tr>"
    "<tr><td>营业收入增长率（%）</td><td>-8.6</td><td>27.7</td></tr>"
    "<tr><td>净利润增长率（%）</td><td>27.7</td><td>-23.3</td></tr></table>",
    caption="表2：增长率",
)


@pytest.fixture(scope="module")
def table1(counter) -> Chunk:  # type: ignore[no-untyped-def]
    path = REPO_ROOT / "assets" / "sample_report" / "smic_report_content_list.json"
    items, _ = parse_content_list(path.read_bytes(), path.name)
    doc = Document("smic", "smic", "content_list", tuple(items), "h", 1)
    chunks = chunk_document(doc, counter, ChunkingOptions())
    return next(c for c in chunks if "营业收入（百万元）" in (c.table_html or ""))


def _traced(answer: str, sources: dict[int, Chunk]) -> list[TracedNumber]:
    report = check_answer(answer, sources, None, QUESTION)
    for number in report.traced_numbers:
        assert answer[number.start : number.end].rstrip("%") == number.raw  # its span
    return list(report.traced_numbers)


def _cell(table: Chunk, place: Place | None) -> str:
    assert place is not None and place.kind == "cell"
    return parse_table(table.table_html, table.header_rows).rows[place.row][place.col]


def test_a_number_is_traced_to_its_cell_by_position_and_labels(table1: Chunk) -> None:
    traced = _traced("中芯国际 2024A 营业收入：57,796 百万元 [Source 1]", {1: table1})
    assert [n.raw for n in traced] == ["57,796"]  # the year is no figure
    place = traced[0].place
    assert _cell(table1, place) == "57,796"
    assert place is not None and place.source == 1 and place.text == "57,796"
    assert place.row_label == "营业收入（百万元）" and place.col_label.endswith("2024A")
    assert place.exponent == 6  # the row states 百万元


def test_a_quoted_row_traces_each_value_to_its_own_column(table1: Chunk) -> None:
    answer = "- 项目: 营业收入（百万元）; 实际值 / 2022A: 49,516; 实际值 / 2023A: 45,250 [Source 1]"
    traced = _traced(answer, {1: table1})
    assert [(n.raw, n.place.col_label[-5:]) for n in traced if n.place] == [
        ("49,516", "2022A"),
        ("45,250", "2023A"),
    ]


def test_a_scaled_amount_is_traced_to_the_cell_it_restates(table1: Chunk) -> None:
    answer = "2024年营业收入为577.96亿元[Source 1]。2023年为577.96万元[Source 1]。"
    report = check_answer(answer, {1: table1}, None, QUESTION)
    traced = report.traced_numbers
    assert [n.raw for n in traced] == ["577.96"] and traced[0].start == answer.index("577.96")
    assert _cell(table1, traced[0].place) == "57,796"  # 57,796 百万元 = 577.96 亿元
    assert traced[0].place is not None and traced[0].place.written == "57,796"
    assert report.untraced_numbers == ("577.96",)  # the second, in 万, is flagged, not traced


def test_a_computed_number_is_traced_to_its_operands_places(table1: Chunk) -> None:
    answer = "营业收入（百万元） 2023-2024变化：57796 - 45250 = 12546 [Source 1]"
    traced = {n.raw: n for n in _traced(answer, {1: table1})}
    result = traced["12546"]
    assert result.place is None and result.working == "57796 - 45250 = 12546"
    assert [o.raw for o in result.operands] == ["57796", "45250"]
    assert [_cell(table1, o.place) for o in result.operands] == ["57,796", "45,250"]
    assert [p.col_label[-5:] for p in result.places] == ["2024A", "2023A"]
    # an average's count is the working's own: no operand to look for
    average = "营业收入（百万元）平均：(49516 + 45250) / 2 = 47383 [Source 1]"
    result = next(n for n in _traced(average, {1: table1}) if n.raw == "47383")
    assert [o.raw for o in result.operands] == ["49516", "45250"]
    assert result.working == "(49516 + 45250) / 2 = 47383"


def test_a_number_of_a_text_is_traced_to_its_sentence() -> None:
    answer = "公司营业收入由220.2亿元增长至578.0亿元，年均复合增速达21.3% [Source 1]。"
    traced = _traced(answer, {1: TEXT})
    assert [n.raw for n in traced] == ["220.2", "578.0", "21.3"]
    assert answer[traced[2].start : traced[2].end] == "21.3%"
    place = traced[0].place
    assert place is not None and place.kind == "sentence" and place.part == "text"
    assert (
        place.text == "2019-2024年，公司营业收入由220.2亿元增长至578.0亿元，年均复合增速达21.3%。"
    )
    assert place.text in TEXT.text  # what the card finds to mark
    assert (place.row, place.col) == (-1, -1)


def test_a_value_in_two_rows_goes_to_the_row_the_sentence_names() -> None:
    traced = _traced("净利润增长率为27.7% [Source 1]。", {1: GROWTH})
    assert traced[0].place is not None and traced[0].place.row_label == "净利润增长率（%）"
    traced = _traced("营业收入增长率为27.7% [Source 1]。", {1: GROWTH})
    assert traced[0].place is not None and traced[0].place.row_label == "营业收入增长率（%）"


def test_years_list_numbers_and_untraced_numbers_are_left_out(table1: Chunk) -> None:
    answer = (
        "1. 2024年营业收入为57,796百万元 [Source 1]。\n2. 表1的营业收入为99,999百万元 [Source 1]。"
    )
    report = check_answer(answer, {1: table1}, None, QUESTION)
    assert [n.raw for n in report.traced_numbers] == ["57,796"]
    assert report.untraced_numbers == ("99,999",)


def test_a_sentence_cited_elsewhere_is_traced_in_the_source_it_cites(table1: Chunk) -> None:
    traced = _traced("营业收入为578.0亿元 [Source 2]。", {1: table1, 2: TEXT})
    assert traced[0].place is not None and traced[0].place.source == 2


def _answer(text: str, table: Chunk) -> Answer:
    report = check_answer(text, {1: table}, None, QUESTION)
    return Answer(text, text, RetrievalTrace(text, "smart", ()), None, report, "offline")


def test_a_saved_turn_keeps_the_places_and_an_old_one_loads(table1: Chunk) -> None:
    text = "营业收入（百万元） 2023-2024变化：57796 - 45250 = 12546 [Source 1]"
    answer = _answer(text, table1)
    turn = saved_turn("q", AskOptions(kb="示例"), answer)
    again = restored_report(turn_from_json(turn_to_json(turn)))
    assert again.traced_numbers == answer.citations.traced_numbers  # type: ignore[union-attr]
    assert again.traced_numbers[-1].operands[0].place is not None
    old = json.loads(turn_to_json(turn))
    for sentence in old["sentences"]:
        del sentence["traced"]  # a turn saved before the places were kept
    assert restored_report(turn_from_json(json.dumps(old))).traced_numbers == ()


def test_the_audit_record_keeps_the_places_beside_the_untraced_numbers(table1: Chunk) -> None:
    from rag_app.chat.audit import _from_json, record_of

    text = "2024年营业收入为577.96亿元[Source 1]。2023年为577.96万元[Source 1]。"
    record = record_of(_answer(text, table1), AskOptions(kb="示例"))
    again = _from_json(1, json.dumps(record.to_json(), ensure_ascii=False))
    report = again.restored_answer().citations
    assert report is not None and report.untraced_numbers == ("577.96",)
    assert [n.place.text for n in report.traced_numbers if n.place] == ["57,796"]
