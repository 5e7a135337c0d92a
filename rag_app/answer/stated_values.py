"""Value lines read from prose: for a question asking one year's quantity ("中芯国际2024年的毛利率
是多少？", "What was SMIC's gross margin in 2024?") that no table row answers, the value a quoted
sentence states for it, first ("中芯国际 2024 毛利率：18.6% [Source 2]") (issue 24 item 7).

Within a clause of a quoted sentence (``text.sentences.split_clauses``) that names the asked metric (or a
synonym) and the asked year, the value is the first number after the later of the two that is
not a year, with the unit written after it ("18.6%", "220.2亿元", "1000A"). A clause giving
values for several periods in order ("分别为") gives none, nor does one stating a change
between them ("营收同比增长27.7%": 同比, 增长, up), unless the question asks for a change.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag_app.answer.quotes import ScoredSentence
from rag_app.answer.values import asks_of, in_view, shown_name, sources_subjects
from rag_app.models import Chunk
from rag_app.text.aspects import is_quantity, metric_group
from rag_app.text.periods import find_years
from rag_app.text.phrasing import asks_which_period
from rag_app.text.sentences import split_clauses
from rag_app.understand.analysis import QueryAnalysis

# Values given in order for several periods ("2025-2026年营业收入分别为…/…"): not one year's.
_RESPECTIVELY = re.compile(r"分别|依次|respectively", re.I)
# A number with the unit written after it: a percent, a Chinese magnitude and counter, or Latin
# unit letters ("亿元", "万辆", "A", "GWh").
_VALUE = re.compile(
    r"(?<![\d.])([-+]?\d[\d,]*(?:\.\d+)?)\s*"
    r"(%|％|[万亿千百]*(?:美元|港元|元|辆|片|吨|台|件|股|倍|人|家|座)|[万亿千百]+|[A-Za-z°℃/]{1,6})?"
)
_PART = re.compile(r"月|季|半年|[QqHh][1-4]")
_CHANGE = re.compile(
    r"同比|环比|增长|增速|下降|下滑|提升|增加|减少|\b(?:up|down|growth|yoy)\b", re.I
)


def stated_value_lines(
    query: QueryAnalysis,
    chosen: Sequence[ScoredSentence],
    sources: Sequence[tuple[int, Chunk]],
    lang: str = "zh",
) -> list[str]:
    """The value line of the best chosen sentence stating the asked year's quantity (one line at
    most), or none when the question asks no single year's quantity or no sentence states it."""
    years = find_years(query.text)
    asked = query.aspects()
    metrics = [m for m in asked.metrics if is_quantity(m)]
    if len(set(years)) != 1 or len(metrics) != 1 or asked.shares or _part_of_year(query):
        return []  # several years or metrics, a share of one ("收入占比"), a quarter or month
    year, metric = years[0], metrics[0]
    terms = sorted(metric_group(metric), key=len, reverse=True)
    asks_change = bool(_CHANGE.search(query.text))
    subjects = sources_subjects(query, sources)
    doc_of = {number: chunk.doc_id for number, chunk in sources}
    alone = in_view(subjects)
    for item in chosen:
        if item.candidate.row_label:
            continue  # a table row: ``values.value_lines`` reads its cells
        value = stated_value(item.candidate.text, year, terms, asks_change)
        if value is None:
            continue
        names = subjects.get(doc_of.get(item.candidate.source, ""), frozenset())
        subject = shown_name(names)
        if not asks_of(query, names, alone):
            continue  # another company's value
        colon = ": " if lang == "en" else "："
        head = " ".join(p for p in (subject, year, metric) if p)
        return [f"{head}{colon}{value} [Source {item.candidate.source}]"]
    return []


def _part_of_year(query: QueryAnalysis) -> bool:
    """Whether the question asks a quarter, half or month ("2024年第三季度", "2024年12月"), or
    which of them ("Which quarter of 2024…")."""
    if query.asks_part_of_year or asks_which_period(query.text):
        return True
    return any(_PART.search(p) for p in query.aspects().periods)


def stated_value(text: str, year: str, terms: Sequence[str], asks_change: bool) -> str | None:
    """The value ``text`` states for the metric (any of ``terms``) in ``year``, with its unit, or
    None."""
    for clause in split_clauses(text):
        found = _value_in(clause, clause.lower(), year, terms, asks_change)
        if found:
            return found
    return None


def _value_in(
    clause: str, lowered: str, year: str, terms: Sequence[str], asks_change: bool
) -> str | None:
    if _RESPECTIVELY.search(lowered):
        return None
    at_year = lowered.find(year)
    at_metric = max((lowered.find(t) + len(t) for t in terms if t in lowered), default=-1)
    if at_year < 0 or at_metric < 0:
        return None
    anchor = max(at_year + len(year), at_metric)
    for match in _VALUE.finditer(clause, anchor):
        number, unit = match.group(1), match.group(2) or ""
        if number.isdigit() and len(number) == 4 and not unit:
            continue  # a year
        if unit in ("年", "") and find_years(number):
            continue
        if not asks_change and _CHANGE.search(lowered[anchor : match.start()]):
            return None
        return match.group(0).strip()  # as the source writes it: "356.3亿元", "1000 A"
    return None
