"""Writes the fourth set (``assets/fourth_eval``): four documents of kinds no earlier set has, as
MinerU content lists, and their hand-written questions with verified gold evidence.

Layout as ``assets/third_eval``. The documents: an insurance group's annual report (鹏屿保险) and a
broker's battery-industry report comparing six makers (柏湾证券), the fitting half; an airline's
monthly traffic announcement (青岚航空) and a manufacturer's third-quarter report (骏岭精工), the
held-out half. Any question whose answer is not where its gold says stops the build.
"""

from __future__ import annotations

from pathlib import Path

from rag_app.evaluation.sets.fourth import airline, industry, insurer, quarterly, questions
from rag_app.evaluation.sets.writing import Documents, write_set

# name: (builder, what the document is about, ticker, kind of document)
DOCUMENTS: Documents = {
    "insurer": (insurer.build_report, "鹏屿保险", "601586.SH", "年度报告"),
    "industry": (industry.build_report, "中国动力电池行业", "", "行业深度报告"),
    "airline": (airline.build_report, "青岚航空", "601895.SH", "月度运营数据公告"),
    "quarterly": (quarterly.build_report, "骏岭精工", "603729.SH", "第三季度报告"),
}
# The fitting half may be read by the engineers; the held-out half is only run.
FITTING = ("insurer", "industry")
HELD_OUT = ("airline", "quarterly")


def write_fourth(out: Path) -> None:
    """Write the set into ``out`` (created if missing) and print a summary; raises
    ``SystemExit`` listing every question that fails verification."""
    write_set(out, "fourth", DOCUMENTS, questions)
