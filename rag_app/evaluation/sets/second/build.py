"""Writes the second set (``assets/second_eval``): four documents in styles unlike the broker
reports, as MinerU content lists, and their questions with verified gold evidence.

Layout as ``/work/shared/eval/<set>/`` and ``assets/broker_eval``: ``docs/<doc_id>_content_list.json``,
``manifest.jsonl``, ``questions.jsonl`` (one document each), ``questions_multi.jsonl`` (two),
``questions_followup.jsonl``, ``questions_unanswerable.jsonl`` and ``questions_arithmetic.jsonl``. The documents: an annual report
(澄远智能), an IPO prospectus (拓衡传感), an industry report on industrial robots whose ranking names
companies no document is about, and an English-named company's earnings-call minutes (Orvella
Robotics). Any question whose answer is not where its gold says stops the build.
"""

from __future__ import annotations

from pathlib import Path

from rag_app.evaluation.sets.second import annual, briefing, industry, prospectus, questions
from rag_app.evaluation.sets.writing import Documents, write_set

# name: (builder, what the document is about, ticker, kind of document)
DOCUMENTS: Documents = {
    "annual": (annual.build_report, "澄远智能", "688367.SH", "年度报告"),
    "prospectus": (prospectus.build_report, "拓衡传感", "", "招股说明书"),
    "industry": (industry.build_report, "中国工业机器人行业", "", "行业深度报告"),
    "call": (briefing.build_report, "Orvella Robotics", "ORVL.US", "业绩说明会纪要"),
}


def write_second(out: Path) -> None:
    """Write the set into ``out`` (created if missing) and print a summary.

    Raises ``SystemExit`` listing every question whose answer is missing from one of its gold
    items, or found in another item of its document, and every unanswerable question whose
    missing string is in fact there (the documents are written by then)."""
    write_set(out, "second", DOCUMENTS, questions)
