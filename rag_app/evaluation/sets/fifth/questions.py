"""The fifth set's question rows, read from ``data/*.jsonl`` and checked against the documents.

The questions are data, written by hand and frozen before anything was measured on them
(``assets/fifth_eval/README.md``), in the third set's row formats (``rows.QuestionRows``). The
arithmetic rows name their cells and are worked out as the fourth set's
(``fourth.questions.worked_rows``).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from rag_app.evaluation.sets.docgen import Doc
from rag_app.evaluation.sets.fourth.questions import worked_rows
from rag_app.evaluation.sets.rows import QuestionRows

DATA = Path(__file__).resolve().parent / "data"
SOURCE = "rag_app fifth_eval (authored, frozen 2026-11-28)"
ARITHMETIC_SOURCE = "rag_app fifth_eval arithmetic (authored, frozen 2026-11-28)"
ROWS = QuestionRows("fifth", SOURCE, DATA)
single_rows, multi_rows = ROWS.single, ROWS.multi
followup_rows, unanswerable_rows = ROWS.followup, ROWS.unanswerable


def arithmetic_rows(docs: Mapping[str, Doc], errors: list[str]) -> list[dict]:
    """Rows of questions_arithmetic.jsonl, worked out as the fourth set's are."""
    return worked_rows("fifth", DATA, ARITHMETIC_SOURCE, docs, errors)
