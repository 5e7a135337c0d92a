"""Question sets as users upload them: the same rows read from JSON lines, JSON, CSV (UTF-8 or
Excel's GB18030) and an Excel workbook; and clear errors for what is not a set."""

from __future__ import annotations

import io
import json

import pytest
from openpyxl import Workbook

from rag_app.evals.question_sets import (
    MAX_SET_ROWS,
    EvalQuestion,
    QuestionSetError,
    question_rows,
    questions_of,
    read_question_set,
)
from tests.conftest import SAMPLE_DIR

HEADER = ["编号", "问题", "标准答案", "文档", "页码", "条目", "对话历史", "可回答"]
ROWS = [
    ["a1", "2024年营业收入是多少？", "57,796", "smic_report", "1", "9", "", ""],
    ["a2", "它四季度呢？", "85.5|万片", "", "4", "", "2024年三季度产能利用率？", ""],
    ["a3", "台积电的研发费用？", "", "", "", "", "", "否"],
]
EXPECTED = [
    EvalQuestion("a1", "2024年营业收入是多少？", ("57,796",), "smic_report", (1,), (9,)),
    EvalQuestion(
        "a2",
        "它四季度呢？",
        ("85.5", "万片"),
        pages=(4,),
        history=(("user", "2024年三季度产能利用率？"),),
    ),
    EvalQuestion("a3", "台积电的研发费用？", answerable=False),
]


def _csv(encoding: str, delimiter: str = ",") -> bytes:
    lines = [delimiter.join(HEADER)] + [
        delimiter.join(f'"{cell}"' if "," in cell else cell for cell in row) for row in ROWS
    ]
    return "\n".join(lines).encode(encoding)


def _xlsx() -> bytes:
    book = Workbook()
    sheet = book.active
    sheet.append(HEADER)
    for row in ROWS:
        # a sheet holds numbers as numbers: page 1 is 1, item 9 is 9.0 after a round trip
        sheet.append([float(c) if c.isdigit() else (c or None) for c in row])
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


@pytest.mark.parametrize(
    "name, data",
    [
        ("set.csv", _csv("utf-8-sig")),
        ("set.csv", _csv("gb18030")),
        ("set.csv", _csv("utf-8", ";")),
        ("set.tsv", _csv("utf-8", "\t")),
        ("set.xlsx", _xlsx()),
    ],
)
def test_every_sheet_format_reads_the_same_questions(name: str, data: bytes) -> None:
    assert read_question_set(data, name) == EXPECTED


def test_json_lines_and_json_read_the_evaluation_format_and_round_trip() -> None:
    rows = question_rows(EXPECTED)
    lines = "\n".join(json.dumps(r, ensure_ascii=False) for r in rows).encode()
    assert read_question_set(lines, "set.jsonl") == EXPECTED
    assert read_question_set(json.dumps(rows).encode(), "set.json") == EXPECTED
    wrapped = json.dumps({"questions": rows}).encode()
    assert read_question_set(wrapped, "set.json") == EXPECTED
    # rag-app eval's own rows: doc_id, gold_item_indices, an answer list, chat history
    row = {
        "id": "q1",
        "question": "x?",
        "answer": ["a", "b"],
        "doc_id": "d",
        "gold_item_indices": [3, 4],
        "history": [{"role": "user", "content": "y?"}, {"role": "assistant", "content": "z"}],
    }
    (q,) = read_question_set(json.dumps(row).encode(), "q.jsonl")
    assert (q.expected, q.document, q.items) == (("a", "b"), "d", (3, 4))
    assert q.history == (("user", "y?"), ("assistant", "z"))


def test_the_bundled_sample_set_reads() -> None:
    path = SAMPLE_DIR / "eval_set.csv"
    questions = read_question_set(path.read_bytes(), path.name)
    assert len(questions) == 20
    assert sum(not q.answerable for q in questions) == 3
    assert sum(bool(q.history) for q in questions) == 2


@pytest.mark.parametrize(
    "name, data, key",
    [
        ("set.pdf", b"%PDF", "set_format"),
        ("set.csv", "问题\n".encode(), "set_empty"),
        ("set.csv", "问题,答案\n,5\n".encode(), "set_no_question"),
        ("set.csv", b"question,page\nq?,abc\n", "set_bad_row"),
        ("set.jsonl", b'{"question": "a"}\n{broken\n', "set_bad_json"),
        ("set.json", b'"just a string"', "set_not_list"),
        ("set.xlsx", b"not a workbook", "set_bad_xlsx"),
        ("set.csv", b"id,question\nx,a?\nx,b?\n", "set_duplicate_id"),
        ("set.csv", b"question\n\xff\xfe\xfa\x80", "set_encoding"),
    ],
)
def test_what_is_not_a_set_is_named_with_its_row(name: str, data: bytes, key: str) -> None:
    with pytest.raises(QuestionSetError) as raised:
        read_question_set(data, name)
    assert raised.value.reason.key == key
    assert str(raised.value)  # the English wording, for the CLI and the API


def test_a_set_over_the_row_limit_is_refused() -> None:
    rows = [(n, {"question": f"q{n}?"}) for n in range(MAX_SET_ROWS + 1)]
    with pytest.raises(QuestionSetError) as raised:
        questions_of(rows)
    assert raised.value.reason.key == "set_too_many"
