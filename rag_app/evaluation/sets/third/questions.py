"""The third set's question rows, read from ``data/*.jsonl`` and checked against the documents.

The questions are data, written by hand and frozen before anything was measured on them
(``assets/third_eval/README.md``), in the second set's row formats: ``questions.jsonl`` (one
document each; a list answer is a list), ``multi.jsonl`` (two documents), ``followups.jsonl`` (a
second turn and the turn before it), ``unanswerable.jsonl`` (a question no document answers, then
an answerable twin) and ``arithmetic.jsonl`` (cells named by table, row and column; the answer and
the derivation are worked out here, ``cells.worked_out``). Gold evidence is checked as in the
second set (``second.check``).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from rag_app.evaluation.sets.docgen import Doc
from rag_app.evaluation.sets.rows import QuestionRows
from rag_app.evaluation.sets.rows import read as read_rows
from rag_app.evaluation.sets.third.cells import PERCENT, cell, counted, worked_out

DATA = Path(__file__).resolve().parent / "data"
SOURCE = "rag_app third_eval (authored, frozen 2026-11-28)"
ROWS = QuestionRows("third", SOURCE, DATA)
single_rows, multi_rows = ROWS.single, ROWS.multi
followup_rows, unanswerable_rows = ROWS.followup, ROWS.unanswerable


def read(name: str) -> list[dict]:
    return read_rows(DATA, name)


ARITHMETIC_SOURCE = "rag_app third_eval arithmetic (authored, frozen 2026-11-28)"


def _counted(refs: list[list[str]], hits: list[bool]) -> str:
    """A count's derivation: the labels of the cells counted, joined by ``##`` (the columns when
    the cells share a row, else the rows)."""
    same_row = len({r[1] for r in refs}) == 1
    return "##".join((r[2] if same_row else r[1]) for r, hit in zip(refs, hits) if hit)


def arithmetic_rows(docs: Mapping[str, Doc], errors: list[str]) -> list[dict]:
    """Rows of questions_arithmetic.jsonl. A row names its cells (``[table, row, column]``) and
    its ``operation``; the cells are read from the document, the answer and the derivation
    worked out from them (``cells.worked_out``)."""
    rows = []
    for n, q in enumerate(read("arithmetic.jsonl"), 1):
        qid = f"third_a{n:03d}"
        d = docs[q["doc"]]
        try:
            texts = [cell(d, *ref) for ref in q["cells"]]
        except KeyError as e:
            errors.append(f"{qid} {q['question']}: {e}")
            continue
        answer, derivation = worked_out(q["operation"], texts, q.get("threshold", ""))
        if q["operation"] == "count":
            derivation = _counted(q["cells"], counted(texts, q["threshold"]))
        gold = sorted({d.index(ref[0]) for ref in q["cells"]})
        rows.append(
            {
                "id": qid,
                "question": q["question"],
                "answer": answer,
                "answer_str": answer,
                "answer_type": "count" if q["operation"] == "count" else "arithmetic",
                "scale": "percent" if q["operation"] in PERCENT else "",
                "derivation": derivation,
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
