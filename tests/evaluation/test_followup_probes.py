"""The follow-up probes files read as earlier => follow-up => written out, every line, and name
documents the frozen sets ship."""

from __future__ import annotations

from rag_app.evaluation.arithmetic_probes import DOC_DIRS, doc_id_of
from rag_app.evaluation.evaluate import find_documents
from rag_app.evaluation.followup_probes import PROBES, documents_named, load_probes


def test_every_probe_has_its_earlier_question_follow_up_and_written_out_form() -> None:
    files = sorted(PROBES.parent.glob("*.txt"))
    assert len(files) >= 2
    shipped = {doc_id_of(f) for f in find_documents([d / "docs" for d in DOC_DIRS])}
    for path in files:
        probes = load_probes(path)
        assert len(probes) >= 20, path
        assert all(earlier and question and written for earlier, question, written in probes)
        assert len({question + earlier for earlier, question, _ in probes}) == len(probes)
        assert set(documents_named(path)) <= shipped, path
    assert documents_named(PROBES) == ()  # the first file: the third set's fitting half
    assert len(documents_named(PROBES.parent / "probes_periods.txt")) == 4
