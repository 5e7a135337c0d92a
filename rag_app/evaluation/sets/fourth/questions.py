"""The fourth set's question rows, read from ``data/*.jsonl`` and checked against the documents.

The questions are data, written by hand and frozen before anything was measured on them
(``assets/fourth_eval/README.md``), in the third set's row formats (``rows.QuestionRows``). The
arithmetic rows name their cells (``cells.cell``) and the answer and the derivation are worked out
here (``cells.worked_out``), as in the third set, with a compound growth rate added.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from rag_app.evaluation.sets.docgen import Doc
from rag_app.evaluation.sets.fourth.cells import PERCENT, cell, counted_labels, worked_out
from rag_app.evaluation.sets.rows import QuestionRows
from rag_app.evaluation.sets.rows import read as read_rows

DATA = Path(__file__).resolve().parent / "data"
SOURCE = "rag_app fourth_eval (authored, frozen 2026-11-28)"
ARITHMETIC_SOURCE = "rag_app fourth_eval arithmetic (authored, frozen 2026-11-28)"
ROWS = QuestionRows("fourth", SOURCE, DATA)
single_rows, multi_rows = ROWS.single, ROWS.multi
followup_rows, unanswerable_rows = ROWS.followup, ROWS.unanswerable


def arithmetic_rows(docs: Mapping[str, Doc], errors: list[str]) -> list[dict]:
    """Rows of questions_arithmetic.jsonl (``worked_rows`` of the fourth set)."""
    return worked_rows("fourth", DATA, ARITHMETIC_SOURCE, docs, errors)


def worked_rows(
    name: str, data: Path, source: str, docs: Mapping[str, Doc], errors: list[str]
) -> list[dict]:
    """A set's arithmetic rows (``data/arithmetic.jsonl``): the named cells read from the
    document, the answer and the derivation worked out from them, ids ``<name>_a001`` …; a cell
    that cannot be found is appended to ``errors``."""
    rows = []
    for n, q in enumerate(read_rows(data, "arithmetic.jsonl"), 1):
        qid = f"{name}_a{n:03d}"
        d = docs[q["doc"]]
        try:
            texts = [cell(d, *ref) for ref in q["cells"]]
        except KeyError as e:
            errors.append(f"{qid} {q['question']}: {e}")
            continue
        op = q["operation"]
        answer, derivation = worked_out(op, texts, q.get("threshold", ""), q.get("years", 0))
        if op == "count":
            derivation = counted_labels(q["cells"], texts, q["threshold"])
        gold = sorted({d.index(ref[0]) for ref in q["cells"]})
        rows.append(
            {
                "id": qid,
                "question": q["question"],
                "answer": answer,
                "answer_str": answer,
                "answer_type": "count" if op == "count" else "arithmetic",
                "scale": "percent" if op in PERCENT else "",
                "derivation": derivation,
                "operation": op,
                "doc_id": d.doc_id,
                "doc_file": f"docs/{d.doc_id}_content_list.json",
                "gold_item_indices": gold,
                "gold_item_types": [d.items[i]["type"] for i in gold],
                "answer_from": "table",
                "lang": q["lang"],
                "scope": "single_doc",
                "source": source,
            }
        )
    return rows
