"""Writes the fifth set (``assets/fifth_eval``): four broker reports in the sample report's look, as
MinerU content lists, and their hand-written questions with verified gold evidence.

Layout as ``assets/fourth_eval``. The documents: 公司深度研究 reports on a liquor maker (岳泉酒业, by
澄衡证券) and a construction-machinery maker (垣工重机, by 北辰证券), the fitting half; on a
solar-inverter maker (禾晟电源, by 远川证券) and an innovative-drug maker (康屹生物, by 东朔证券), the
held-out half. Any question whose answer is not where its gold says stops the build.
"""

from __future__ import annotations

from pathlib import Path

from rag_app.evaluation.sets.fifth import inverter, liquor, machinery, pharma, questions
from rag_app.evaluation.sets.writing import Documents, write_set

# name: (builder, what the document is about, ticker, kind of document)
DOCUMENTS: Documents = {
    "liquor": (liquor.build_report, "岳泉酒业", "603386.SH", "公司深度研究"),
    "machinery": (machinery.build_report, "垣工重机", "601726.SH", "公司深度研究"),
    "inverter": (inverter.build_report, "禾晟电源", "300827.SZ", "首次覆盖报告"),
    "pharma": (pharma.build_report, "康屹生物", "688579.SH", "公司深度研究"),
}
# The fitting half may be read by the engineers; the held-out half is only run.
FITTING = ("liquor", "machinery")
HELD_OUT = ("inverter", "pharma")


def write_fifth(out: Path) -> None:
    """Write the set into ``out`` (created if missing) and print a summary; raises
    ``SystemExit`` listing every question that fails verification."""
    write_set(out, "fifth", DOCUMENTS, questions)
