"""The arithmetic probes' runner (rag_app/evaluation/arithmetic_probes.py): what counts as the
number given, and the shipped probe files read whole."""

from __future__ import annotations

from decimal import Decimal

from rag_app.answer.offline import NOTICE
from rag_app.evaluation.arithmetic_probes import PROBES, first_paragraph, gives, load_probes


def test_a_number_counts_rounded_to_the_golds_decimals_and_signless() -> None:
    assert gives("(468.3 - 412.6) / 412.6 = 13.5% [Source 2]", "13.50")
    assert gives("(15091.3 - 17286.9) / 17286.9 = -12.7%", "12.70")  # a fall given as its size
    assert gives("合计 28,215.6 - 11,402.7 = 16,812.9", "16812.9")
    assert not gives("= 13.4%", "13.50")
    assert not gives("2025年10月 14.86", "15.31")


def test_the_first_paragraph_is_the_answers_not_the_offline_notice() -> None:
    text = f"{NOTICE['zh']}\n\n营业收入 2025Q3：15091.3 [Source 1]\n\n- 引文 [Source 2]"
    assert first_paragraph(text) == "营业收入 2025Q3：15091.3 [Source 1]"
    assert first_paragraph("") == ""


def test_every_shipped_probe_names_a_document_a_question_and_a_number() -> None:
    files = sorted(PROBES.glob("*.tsv"))
    assert len(files) >= 4
    for path in files:
        probes = load_probes(path)
        assert probes, path
        for probe in probes:
            assert probe.doc_id and probe.question.strip(), probe
            Decimal(probe.gold)  # a number, as worked out by hand
