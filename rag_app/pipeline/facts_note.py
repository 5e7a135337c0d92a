"""The table cells a question asks about, for a model (issue 25: "with a model, the relevant
facts go into the prompt as a small cited table"): the cells ``facts.lookup`` finds among the
prompt's numbered sources, each with its ``[Source N]``, and a change, rate, average, sum, ratio
or count worked out from them (``answer.fact_lines``), said to be checked before use. Sent as
the prompt's note, apart from the question, so it never picks the excerpts."""

from __future__ import annotations

from collections.abc import Sequence

from rag_app.answer.fact_lines import worked_lines
from rag_app.facts.lookup import asked_facts
from rag_app.models import Chunk
from rag_app.understand.analysis import QueryAnalysis

_HEAD = {
    "zh": (
        "表格中与问题相关的数值（引用时仍标注来源）：",
        "| 指标 | 列 | 数值 | 来源 |",
        "由这些数值算得（请核对后使用）：",
    ),
    "en": (
        "Table cells the question asks about (cite their sources when used):",
        "| Row | Column | Value | Source |",
        "Worked out from them (check before use):",
    ),
}
# At most this many cells: a note, not a second context.
MAX_CELLS = 12


def facts_note(query: QueryAnalysis, sources: Sequence[tuple[int, Chunk]], lang: str) -> str:
    """The note: a small table of the asked cells and the working, "" when none is found."""
    lang = "en" if lang == "en" else "zh"
    cells = asked_facts(query, sources)[:MAX_CELLS]
    worked = worked_lines(query, sources, lang)
    if not cells and not worked:
        return ""
    intro, header, working = _HEAD[lang]
    lines = []
    if cells:
        lines += [intro, header, "|---|---|---|---|"]
        lines += [
            f"| {c.fact.metric} | {c.fact.column} | {c.fact.value} | [Source {c.source}] |"
            for c in cells
        ]
    if worked:
        lines += [working, *worked]
    return "\n".join(lines)
