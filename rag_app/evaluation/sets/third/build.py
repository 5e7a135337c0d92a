"""Writes the third set (``assets/third_eval``): four documents in styles unlike the broker and
second sets, as MinerU content lists, and their hand-written questions with verified gold evidence.

Layout as ``assets/second_eval``: ``docs/<doc_id>_content_list.json``, ``manifest.jsonl``,
``questions.jsonl`` (one document each), ``questions_multi.jsonl`` (two),
``questions_followup.jsonl``, ``questions_unanswerable.jsonl`` and ``questions_arithmetic.jsonl``.
The documents: a city commercial bank's annual report (嵘城银行), a broker's note on a condiment
maker with its forecast transposed (沐溪食品), a pharmaceutical half-year report (岚泊药业) and the
quarterly report of a fund run by an English-named manager (Calder Peak 嘉峰消费精选, 018642), whose
top holdings name companies no document is about. Any question whose answer is not where its gold
says stops the build.
"""

from __future__ import annotations

from pathlib import Path

from rag_app.evaluation.sets.third import bank, consumer, fund, pharma, questions
from rag_app.evaluation.sets.writing import Documents, write_set

# name: (builder, what the document is about, ticker, kind of document)
DOCUMENTS: Documents = {
    "bank": (bank.build_report, "嵘城银行", "601329.SH", "年度报告"),
    "consumer": (consumer.build_report, "沐溪食品", "605376.SH", "公司点评报告"),
    "pharma": (pharma.build_report, "岚泊药业", "688574.SH", "半年度报告"),
    "fund": (fund.build_report, "Calder Peak 嘉峰消费精选混合", "018642.OF", "基金季度报告"),
}


def write_third(out: Path) -> None:
    """Write the set into ``out`` (created if missing) and print a summary; raises
    ``SystemExit`` listing every question that fails verification."""
    write_set(out, "third", DOCUMENTS, questions)
