"""Relevance: whether a factual sentence of the answer is about what the question asks, apart
from whether its sources support it. A row quoted exactly from 中芯国际's report does not answer
a question on 宁德时代; a 2025E figure does not answer a question on 2026; 毛利率 does not answer
a question on 营业收入.

Each of the three aspects (``rag_app.text.aspects``) is judged only when both sides name it, so
the check errs towards "on the question":
- company: a question naming no company, or a sentence naming none whose cited source mentions
  the asked one, is never off-company. A sentence naming none takes its cited sources' subject
  (the leading name of their document's title, ``text.subjects``); it is off when none of them
  is, or mentions, a company the question names.
- period: off when the sentence names years and none is one the question asks (a range asks
  every year in it). A clause of a table row read out ("2024A 577.96；2025E 650.1") is read
  with the rest of its sentence, a Markdown table row with its header row.
- metric: off when the sentence names a quantity (a finance synonym group's term) and no term
  of the asked metric's synonym group (市盈率 meets PE; revenue meets Total revenues); only when
  the question asks for a quantity (not a process node or a status).
A Latin name asked over Chinese reports (SMIC, 中芯国际) is not judged: the two cannot be matched.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from rag_app.cite.report import SentenceCheck
from rag_app.text.aspects import SourceSubject, english_off, off_question
from rag_app.text.sentences import full_stops
from rag_app.understand.analysis import QueryAnalysis


def judge_relevance(
    checks: list[SentenceCheck],
    answer: str,
    question: QueryAnalysis,
    sources: Mapping[int, SourceSubject],
) -> list[SentenceCheck]:
    """``checks`` with ``relevant``/``off_subject``/``off_reasons`` set on each factual sentence
    that is about another company, period or metric than ``question`` (its analysis) asks for.
    Never raises."""
    subjects = sorted({s.subject for s in sources.values() if s.subject}, key=len, reverse=True)
    asked = question.aspects(subjects)
    if not (asked.names or asked.years or asked.metrics):
        return checks
    out = []
    for check in checks:
        if not check.factual:
            out.append(check)
            continue
        context = _context(answer, check)
        numbers = check.cited or ((check.best_source,) if check.best_source else ())
        cited = [sources[n] for n in numbers if n in sources]
        reasons = off_question(asked, context, cited, subjects)
        if reasons:
            check = replace(
                check,
                relevant=False,
                off_subject="; ".join(english_off(r) for r in reasons),
                off_reasons=reasons,
            )
        out.append(check)
    return out


def _context(answer: str, check: SentenceCheck) -> str:
    """The sentence with the rest of the prose sentence it is a clause of (on its line), or a
    Markdown table row with its table's header row."""
    line_start = answer.rfind("\n", 0, check.start) + 1
    line_end = answer.find("\n", check.end)
    line_end = len(answer) if line_end < 0 else line_end
    line = answer[line_start:line_end]
    if line.lstrip().startswith("|"):
        lines = answer[:line_start].splitlines()
        header = ""
        while lines and lines[-1].lstrip().startswith("|"):
            header = lines.pop()
        return f"{header}\n{line}" if header else line
    start, end = check.start - line_start, check.end - line_start
    ends = full_stops(line)
    stops = [e for e in ends if e <= start]
    after = [e for e in ends if e >= end]
    return line[max(stops, default=0) : min(after, default=len(line))]
