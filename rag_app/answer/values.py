"""Value lines of the offline answer: for a question naming one year and a row ("2026年的市盈率"),
the value first with its unit, period and subject ("中芯国际 2026E 市盈率：106.2 倍 [Source 3]"),
read from the table rows the answerer chose (issue 14)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from rag_app.answer.quotes import ROW_UNIT, ScoredSentence, row_value
from rag_app.models import Chunk
from rag_app.text.analyzer import in_dictionary, match_terms
from rag_app.text.language import CJK_CLASS
from rag_app.text.periods import find_years
from rag_app.text.phrasing import asks_which_period
from rag_app.text.subjects import (
    document_subjects,
    names_company,
    shortest_chinese_name,
    writes_name,
)
from rag_app.understand.analysis import QueryAnalysis

_DIGIT = re.compile(r"\d")


# A row label's unit: "营业收入（百万元）" is named by "营业收入", "Revenue ($m)" by "revenue".
_UNIT = re.compile(r"[（(][^（()）]*[)）]")


def label_named(label: str, question_lower: str, q_words: set[str]) -> bool:
    label = _UNIT.sub(" ", label).strip()
    label_lower = label.lower()
    if len(label_lower) >= 2 and label_lower in question_lower:
        return True
    label_words = match_terms(label)[0]
    return bool(label_words) and label_words <= q_words


def sources_subjects(
    query: QueryAnalysis, sources: Sequence[tuple[int, Chunk]]
) -> dict[str, frozenset[str]]:
    """Per document of ``sources``, what it is about: its title's subject, else (a report titled
    by a section's heading) the names the library's profile gives its company, but its codes
    ("688981.SH"), in the order documents first appear."""
    companies = dict(query.companies)
    return {
        doc_id: words
        or frozenset(n for n in companies.get(doc_id, ()) if not any(c.isdigit() for c in n))
        for doc_id, words in document_subjects(chunk for _, chunk in sources).items()
    }


def is_asked_subject(query: QueryAnalysis, subject: str, alone: bool) -> bool:
    """Whether a report about ``subject`` is about the company the question asks (any, when it
    names none; ``alone``: the one company the sources are about)."""
    asked = query.name
    if not asked or (subject and subject in query.text):  # "What is BYD's (比亚迪) ...": it says so
        return True
    return _same_name(asked, subject, alone)


def asks_of(query: QueryAnalysis, names: frozenset[str], alone: bool) -> bool:
    """Whether a report about ``names`` (its title's subject, or every name its profile gives
    its company: 鹏屿保险集团股份有限公司, 鹏屿保险, Pengyu Insurance) is about the company the
    question asks, by any of them, or about another it names (a question of two companies:
    拓衡传感 of 杭州拓衡传感科技股份有限公司, written four characters running)."""
    return writes_name(query.text, names) or any(
        is_asked_subject(query, name, alone) for name in sorted(names) or [""]
    )


def names_several(query: QueryAnalysis, sources: Sequence[tuple[int, Chunk]]) -> bool:
    """Whether the question names two or more of the sources' companies (澄远智能2024年和拓衡传感
    2023年): a row of one report read over two years is then not what it asks."""
    subjects = sources_subjects(query, sources)
    named = {names for names in subjects.values() if names and names_company(query.text, names)}
    return len(named) >= 2


def shown_name(names: frozenset[str]) -> str:
    """How a line names a report's company: its title's subject, else the shortest Chinese
    name its profile gives (澄远智能), else its shortest name."""
    return shortest_chinese_name(sorted(names)) or min(sorted(names), key=len, default="")


def in_view(subjects: Mapping[str, frozenset[str]]) -> bool:
    """Whether the sources are about one company only (``alone``), however many names it has."""
    return len({names for names in subjects.values() if names}) == 1


def _same_name(asked: str, subject: str, alone: bool) -> bool:
    """Whether a question's company and a report's subject are one ("中芯国际" and "中芯国际";
    "中芯国际智能手机领域" names 中芯国际); a report without a subject is not told apart. A
    Latin name and a Chinese subject (SMIC, 中芯国际: an English question over Chinese reports)
    cannot be matched by their letters: they are taken as one when the report is ``alone``,
    the one company the sources are about, and as two otherwise (NAURA's question is not
    answered from 中芯国际's row). A name starting with the subject's own coined word (岳泉大曲
    of 岳泉酒业: a word no dictionary holds) is its brand or product."""
    if subject and asked.isascii() != subject.isascii():
        return alone
    coined = len(asked) > 2 and asked[:2] == subject[:2] and not in_dictionary(asked[:2])
    return not subject or subject in asked or asked in subject or coined


def asked_sources(
    query: QueryAnalysis, sources: Sequence[tuple[int, Chunk]]
) -> list[tuple[int, Chunk]]:
    """The sources of reports about the company the question asks (all when it names none):
    台积电's revenue is not read off 中芯国际's own table, though a row of it is labelled 营业收入."""
    if _runs_into_a_word(query, sources):
        return list(sources)
    subjects = sources_subjects(query, sources)  # a report titled by a section: its profile's
    alone = in_view(subjects)
    return [
        (number, chunk)
        for number, chunk in sources
        if asks_of(query, subjects.get(chunk.doc_id, frozenset()), alone)
    ]


def _runs_into_a_word(query: QueryAnalysis, sources: Sequence[tuple[int, Chunk]]) -> bool:
    """Whether the name read off the question runs on, with the two characters after it, into
    words the sources write whole ("空调内" of "空调内销量排名…", a caption's 空调内销量): the
    question's words cut in the middle, not a company."""
    name, text = query.name, query.text
    at = text.find(name) if name else -1
    run = text[at : at + len(name) + 2] if at >= 0 else ""
    if len(run) < len(name) + 2 or not _CJK_WORD.fullmatch(run):
        return False
    return any(run in chunk.text for _, chunk in sources)


_CJK_WORD = re.compile(f"[{CJK_CLASS}]+")


def value_lines(
    query: QueryAnalysis,
    chosen: list[ScoredSentence],
    sources: Sequence[tuple[int, Chunk]],
    lang: str = "zh",
) -> tuple[list[str], list[ScoredSentence]]:
    """For a question naming one year and a row ("2026年的市盈率"): a line per chosen table row
    the question names, the value first ("中芯国际 2026E 市盈率：106.2 倍 [Source 3]"), and the
    quotes to keep after them: not the rows beside them in their tables that the question does
    not name, nor a row whose one value the line already gives. No lines, and ``chosen`` as it
    is, otherwise."""
    question = query.text
    years = set(find_years(question))
    if query.reference("image"):  # asked about a figure, not a table's row
        return [], chosen
    if len(years) != 1 or query.asks_part_of_year or asks_which_period(question):
        # several years, a quarter ("2024Q1") or half, or which quarter of it: a whole-year
        # row's cell would not be the answer
        return [], chosen
    year = years.pop()
    terms = query.terms
    question_lower = f"{question} {terms.synonyms}".lower()
    q_words = set(terms.words)
    subjects = sources_subjects(query, sources)
    doc_of = {number: chunk.doc_id for number, chunk in sources}
    alone = in_view(subjects)
    found_lines: list[tuple[int, str, str]] = []  # (index in chosen, metric, line)
    answered: set[int] = set()  # indices in chosen of rows a line gives
    named_rows: set[int] = set()  # ... and of rows whose label the question names
    for i, item in enumerate(chosen):
        cand = item.candidate
        if not cand.row_label or not label_named(
            cand.metric or cand.row_label, question_lower, q_words
        ):
            continue
        named_rows.add(i)
        found = row_value(cand, year, lambda h: label_named(h, question_lower, q_words))
        if found is None:
            continue
        period, value, column = found
        unit_match = ROW_UNIT.search(column) or ROW_UNIT.search(cand.row_label)
        unit = unit_match.group(1).strip() if unit_match else ""
        unit = unit if re.search(r"[^\d\s]", unit) else cand.unit  # "(1)" marks a note
        if unit and (unit in value or unit == "%" and "％" in value):
            unit = ""
        metric = " ".join(ROW_UNIT.sub("", p).strip() for p in (cand.metric, column) if p)
        names = subjects.get(doc_of.get(cand.source, ""), frozenset())
        subject = shown_name(names)
        if not asks_of(query, names, alone):
            # "蓝鲸存储科技2024年净利润" is not answered by 中芯国际's 归母净利润 row's value
            continue
        amount = f"{value}{unit}" if unit in ("%", "％") else f"{value} {unit}".strip()
        if lang == "en" and not metric.isascii():  # an English question over a Chinese table
            subject, metric = _in_english(query, subject, metric)
        head = " ".join(p for p in (subject, period, metric) if p)
        colon = ": " if lang == "en" else "："  # the answer's language, not the row's
        found_lines.append(
            (i, f"{subject} {metric}", f"{head}{colon}{amount} [Source {cand.source}]")
        )
    # A row the question writes whole (清洗设备) that gives no line here: another row's line (the
    # company's 营业收入, named by 收入) is not its answer; the table's facts are read instead.
    written = question.lower()  # as written, not with its synonyms (收入 -> 营业收入)
    labels = {i: _UNIT.sub(" ", chosen[i].candidate.row_label).strip().lower() for i in named_rows}
    whole = {i for i, label in labels.items() if len(label) >= 2 and label in written}
    if whole and not whole & {i for i, _, _ in found_lines}:
        return [], chosen
    # A line more specific than another (硅片及硅棒 毛利率 over 毛利率, 营业收入增长率 over
    # 营业收入) is the answer; the other, and its row, answer nothing asked.
    lines: list[str] = []
    for i, metric, line in found_lines:
        subject, _, bare = metric.partition(" ")
        if any(
            _more_specific(m.partition(" ")[2], bare, question_lower)
            for _, m, _ in found_lines
            if m.partition(" ")[0] == subject
        ):
            continue
        if line not in lines:
            lines.append(line)
        answered.add(i)
    if not lines:
        return [], chosen
    # Rows beside the answered ones in their tables answer nothing asked (市净率 beside 市盈率);
    # another table's row may be the answer under other words, and stays.
    answering_tables = {chosen[i].candidate.source for i in answered}
    kept = [
        item
        for i, item in enumerate(chosen)
        if not item.candidate.row_label
        or item.candidate.source not in answering_tables
        or (i not in answered and i in named_rows and i not in {f[0] for f in found_lines})
        or (i in answered and sum(bool(_DIGIT.search(v)) for _, v in item.candidate.cells[1:]) > 1)
    ]
    return lines, kept


def _in_english(query: QueryAnalysis, subject: str, metric: str) -> tuple[str, str]:
    """A Chinese row's subject and metric as an English question names them, the table's label
    kept beside it: ("Orvella", "gross margin (毛利率)") for "What is Orvella's gross margin…?";
    an acronym ("SMIC's", "TSMC's") leaves the report's own name, which it may not be."""
    named = [s.text for s in query.spans() if s.kind == "metric" and s.text.isascii()]
    name = query.name if query.name.isascii() and not query.name.isupper() else ""
    return (name or subject) if subject else "", f"{named[0]} ({metric})" if named else metric


def _more_specific(metric: str, than: str, question_lower: str) -> bool:
    """Whether ``metric`` says ``than`` and more the question asks for: 硅片及硅棒 毛利率 than
    毛利率 for "硅片及硅棒业务毛利率", not 营业收入占比 than 营业收入 for "营业收入预测"."""
    if metric == than or than not in metric:
        return False
    extra = metric.replace(than, " ", 1).split()
    return bool(extra) and all(part.lower() in question_lower for part in extra)
