"""The follow-up probes file reads as earlier => follow-up => written out, every line."""

from __future__ import annotations

from rag_app.evaluation.followup_probes import load_probes


def test_every_probe_has_its_earlier_question_follow_up_and_written_out_form() -> None:
    probes = load_probes()
    assert len(probes) >= 30
    assert all(earlier and question and written for earlier, question, written in probes)
    assert len({question + earlier for earlier, question, _ in probes}) == len(probes)
