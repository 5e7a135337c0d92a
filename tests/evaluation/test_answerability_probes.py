"""The answerability probes' files: every line a shipped document, a question, what it expects
(decline or answer) and its kind; each question to decline beside an answerable twin."""

from __future__ import annotations

from pathlib import Path

import pytest

from rag_app.evaluation.answerability_probes import PROBES, load_probes
from rag_app.evaluation.arithmetic_probes import DOC_DIRS, doc_id_of
from rag_app.evaluation.evaluate import find_documents


def test_every_shipped_probe_names_a_document_a_question_and_what_it_expects() -> None:
    files = sorted(PROBES.glob("*.tsv"))
    assert files
    shipped = {doc_id_of(f) for f in find_documents([d / "docs" for d in DOC_DIRS])}
    for path in files:
        probes = load_probes(path)
        assert probes, path
        assert {p.doc_id for p in probes} <= shipped
        assert all(p.question.strip() and p.kind for p in probes)
        declining = sum(p.declines for p in probes)
        assert 0 < declining < len(probes)  # twins beside the questions to decline


def test_a_line_expecting_neither_decline_nor_answer_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "bad.tsv"
    path.write_text("doc\t问题？\tmaybe\tkind\n", encoding="utf-8")
    with pytest.raises(ValueError, match="decline or answer"):
        load_probes(path)
