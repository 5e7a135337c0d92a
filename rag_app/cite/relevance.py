"""Relevance: whether a factual sentence of the answer is about what the question asks, apart
from whether its sources support it. A row quoted exactly from 中芯国际's report does not answer
a question on 宁德时代; a 2025E figure does not answer a question on 2026; 毛利率 does not answer
a question on 营业收入.

"On the question" means answering it (issue 24): giving the asked quantity, or showing the
figure or table asked about, for the asked company and period; sharing a word with the question
is not enough. Company and period (``rag_app.text.aspects``) are judged only when both sides
name one, so the check errs towards "on the question" there; the quantity, the figure or table
and a name in capitals are judged whenever the question asks for one:
- company: a question naming no company, or a sentence naming none whose cited source mentions
  the asked one, is never off-company. A sentence naming none takes its cited sources' subject
  (the leading name of their document's title, ``text.subjects``); it is off when none of them
  is, or mentions, a company the question names.
- period: off when the sentence names years and none is one the question asks (a range asks
  every year in it). A clause of a table row read out ("2024A 577.96；2025E 650.1") is read
  with the rest of its sentence, a Markdown table row with its header row.
- metric: off when the question asks for a quantity (not a process node or a status) and the
  sentence, read with its paragraph up to its end, names no term of the asked metric's synonym
  group (市盈率 meets PE; revenue meets Total revenues), nor does its cited table's caption or
  heading (a row "智能手机 370" under "分应用领域季度营收"): it gives another quantity, or none at
  all. Sharing a word is not giving the metric: a risk sentence on 先进制程研发 does not answer
  "2024年的研发费用是多少？", nor does a 增长率 row. A question asking a share (比重, 占比) is
  answered by a sentence naming a share.
- figure or table: a question pointing at one ("图2", "Figure 3", "表6") is answered by that
  one only: a sentence is on it when it cites the source captioned with that number, names it
  ("如图2所示"), quotes what discusses it (its description or the paragraph introducing it) or
  cites a source that names it. A row that shares the number 3 with "Figure 3" is not.
- a name written in capitals ("KEHGCN", ``text.coined``) that some of the sources' documents
  mention and others do not: a sentence citing only the others is about another document.
A Latin name asked over Chinese reports (SMIC, 中芯国际) is not judged: the two cannot be matched.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from rag_app.cite.report import SentenceCheck
from rag_app.models import Reason
from rag_app.text.aspects import SourceSubject, english_off, off_question, why
from rag_app.text.coined import coined_names, naming_documents
from rag_app.text.phrasing import is_caption_of, names_reference, reference_number
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
    reference = _reference(question)
    coined = coined_names(question.text)
    texts: dict[str, str] = {}
    for source in sources.values():
        texts[source.document] = f"{texts.get(source.document, '')}\n{source.text}"
    naming = naming_documents(coined, texts)
    if not (asked.names or asked.years or asked.metrics or reference or naming):
        return checks
    out = []
    for check in checks:
        if not check.factual:
            out.append(check)
            continue
        context = _context(answer, check)
        numbers = check.cited or ((check.best_source,) if check.best_source else ())
        cited = [sources[n] for n in numbers if n in sources]
        paragraph = context if context.lstrip().startswith("|") else _paragraph(answer, check)
        reasons = off_question(asked, context, cited, subjects, paragraph)
        if reference:
            off = off_reference(reference, check.text, context, cited, list(sources.values()))
            reasons = (*reasons, off) if off is not None else reasons
        if naming and cited and not any(r.key == "off_company" for r in reasons):
            if not {c.document for c in cited} & naming:
                about = next((c.subject or c.document for c in cited), "")
                reasons = (*reasons, why("company", about=about, asked=coined[0]))
        if reasons:
            check = replace(
                check,
                relevant=False,
                off_subject="; ".join(english_off(r) for r in reasons),
                off_reasons=reasons,
            )
        out.append(check)
    return out


def _reference(question: QueryAnalysis) -> tuple[str, str, str] | None:
    """(kind, number, as written) of the table or figure the question points at, or None."""
    for kind, written in question.references:
        number = reference_number(written)
        if number:
            return (kind, number, written)
    return None


def off_reference(
    reference: tuple[str, str, str],
    text: str,
    context: str,
    cited: list[SourceSubject],
    sources: list[SourceSubject],
) -> Reason | None:
    """Why a sentence (``text``, read in its ``context``, citing ``cited``) is not from the
    table or figure ``reference`` points at; None when it is from it or about it."""
    kind, number, written = reference
    if any(c.kind == kind and is_caption_of(c.caption, kind, number) for c in cited):
        return None
    if names_reference(context, kind, number):
        return None
    if any(names_reference(c.text, kind, number) for c in cited):
        return None  # the paragraph that discusses it ("如表6所示")
    quoted = _compact(text)
    for source in sources:
        if source.kind == kind and is_caption_of(source.caption, kind, number):
            if len(quoted) >= 8 and quoted in _compact(source.discussion):
                return None  # what its description or introducing paragraph says
    return why("reference", asked=written)


def _compact(text: str) -> str:
    return "".join(text.split()).rstrip("。.；;")


def _paragraph(answer: str, check: SentenceCheck) -> str:
    """The answer's line up to the end of the sentence: what may name its metric for it."""
    line_start = answer.rfind("\n", 0, check.start) + 1
    return answer[line_start : check.end]


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
