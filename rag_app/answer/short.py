"""The short answer of an answer text: the value its value-first line gives, or else the first
quote, with the scale the cited source writes it in (``text.scales``). What ``rag-app eval
--answers`` scores against a set's gold answers (TAT-QA's exact match and F1)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag_app.facts.cells import source_scale
from rag_app.models import Chunk, ShortAnswer
from rag_app.text.periods import YEAR
from rag_app.text.scales import stated_amount, value_scale
from rag_app.understand.analysis import QueryAnalysis

# "2019 Total sales: $1,496.5 [Source 2]" (the offline answerer's value-first line, either colon)
_VALUE_LINE = re.compile(
    r"^(?!- )(?P<head>.+?)[:：]\s*(?P<value>[^:：]+?)\s*\[Source (?P<n>\d+)\]\s*$"
)
# "- On a cost-plus type contract, we are paid … [Source 1]"
_QUOTE_LINE = re.compile(r"^- (?P<value>.+?)\s*\[Source (?P<n>\d+)\]")
_DIGIT = re.compile(r"\d")
_SCALE_AFTER = re.compile(r"\s+(thousand|million|billion)$", re.I)


def short_answer(
    text: str, sources: Sequence[tuple[int, Chunk]], query: QueryAnalysis
) -> ShortAnswer:
    """The short answer of ``text``, an answer to ``query`` citing ``sources`` (numbered
    chunks): its value line's value; else, for a question asking for a value
    (``QueryAnalysis.operation``), the amount its first quote states nearest the question's
    words; else that quote."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    found = next((m for m in map(_VALUE_LINE.match, lines) if m), None)
    if found is None:  # no value line: the amount a quote states, or the first quote
        quotes = [m for m in map(_QUOTE_LINE.match, lines) if m]
        if not quotes:
            return ShortAnswer("")
        first, number = quotes[0].group("value"), int(quotes[0].group("n"))
        if query.operation.name == "value":
            amount = stated_amount(first, query.text, query.terms.words)
            if amount:
                return ShortAnswer(amount, "", number)
        return ShortAnswer(first.rstrip("…").strip(), "", number)
    value = found.group("value").rstrip("…").strip()
    worked = " = " in value
    value = value.rsplit(" = ", 1)[-1]  # a computed answer: its result, not its working
    number = int(found.group("n"))
    if not _DIGIT.search(value):
        return ShortAnswer(value, "", number)
    written = _SCALE_AFTER.search(value)
    if written:  # "27.0 million": the value and its scale
        value = value[: written.start()].strip()
    parts = [p.strip() for p in value.split("; ")]
    listed = tuple(parts) if len(parts) > 1 and all(_DIGIT.search(p) for p in parts) else value
    if written:
        return ShortAnswer(listed, written.group(1).lower(), number)
    if all(YEAR.fullmatch(p) for p in parts) or query.operation.name == "count":
        # years answer when, a count how many: in no scale
        return ShortAnswer(listed, "", number)
    if worked:  # a computed answer writes its scale (a ratio has none, a share a percent)
        return ShortAnswer(listed, value_scale(value), number)
    head = found.groupdict().get("head") or ""
    return ShortAnswer(listed, value_scale(value, [head]) or source_scale(number, sources), number)
