"""The second set's question rows, read from ``data/*.jsonl`` and checked against the documents.

The questions are data, written by hand before anything was measured on them
(``assets/second_eval/README.md``): ``questions.jsonl`` (one document each; a list answer is a
list), ``multi.jsonl`` (two documents each), ``followups.jsonl`` (a second turn and the turn
before it), ``unanswerable.jsonl`` (a question no document answers, beside an answerable twin)
and ``arithmetic.jsonl`` (a value worked out from cells, or a count).
Each answerable row names its gold items by key (``check.gold_of`` verifies them); each
unanswerable row may name the strings whose absence makes it so (``check.absent_errors``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from rag_app.evaluation.sets.docgen import Doc, contains_answer
from rag_app.evaluation.sets.rows import QuestionRows
from rag_app.evaluation.sets.rows import read as read_rows

DATA = Path(__file__).resolve().parent / "data"
SOURCE = "rag_app second_eval (authored, frozen 2026-11-27)"
ROWS = QuestionRows("second", SOURCE, DATA)
single_rows, multi_rows = ROWS.single, ROWS.multi
followup_rows, unanswerable_rows = ROWS.followup, ROWS.unanswerable


def read(name: str) -> list[dict]:
    return read_rows(DATA, name)


ARITHMETIC_SOURCE = (
    "rag_app second_eval arithmetic (authored, frozen 2026-11-27 before the operation model saw "
    "any Chinese question)"
)
_OPERAND = re.compile(r"\d[\d,]*(?:\.\d+)?")


def arithmetic_rows(docs: Mapping[str, Doc], errors: list[str]) -> list[dict]:
    """Rows of questions_arithmetic.jsonl: a value worked out from cells (``derivation``, each
    operand verified to be written in a gold item) or a count (the years counted, verified)."""
    rows = []
    for n, q in enumerate(read("arithmetic.jsonl"), 1):
        qid = f"second_a{n:03d}"
        d = docs[q["doc"]]
        gold = sorted({d.index(k) for k in q["gold"]})
        operands = _OPERAND.findall(q["derivation"])
        if q["operation"] == "average":
            operands = operands[:-1]  # its count of terms is the question's, not a cell
        for operand in operands:
            if not any(contains_answer(d.items[i], operand) for i in gold):
                errors.append(f"{qid} {q['question']}: operand {operand} not in its gold items")
        rows.append(
            {
                "id": qid,
                "question": q["question"],
                "answer": q["answer"],
                "answer_str": q["answer"],
                "answer_type": q["answer_type"],
                "scale": q["scale"],
                "derivation": q["derivation"],
                "operation": q["operation"],
                "doc_id": d.doc_id,
                "doc_file": f"docs/{d.doc_id}_content_list.json",
                "gold_item_indices": gold,
                "gold_item_types": [d.items[i]["type"] for i in gold],
                "answer_from": "table",
                "lang": q["lang"],
                "scope": "single_doc",
                "source": ARITHMETIC_SOURCE,
            }
        )
    return rows
