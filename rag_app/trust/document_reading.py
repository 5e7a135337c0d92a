"""What the answerability check reads of one document, once per document version: the names
of what it is about, its text (whole and chunk by chunk), the periods its tables are laid out by,
its labels and headers; and what it can say of a term or a year (``writes``, ``gives_value``,
``states``, ``lacks_part``). ``trust.answerability`` holds questions against it."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from rag_app.index.profile import profile_of
from rag_app.models import Chunk
from rag_app.text.language import cjk_share
from rag_app.text.names import title_genres
from rag_app.text.periods import (
    PART_OF_YEAR,
    REPORT_COLUMN,
    YEARLESS_MONTH,
    find_years,
    month_tokens,
    months_named,
    period_tokens,
)
from rag_app.text.sentences import split_sentences
from rag_app.text.subjects import document_subjects, is_listed, search_title, shortest_chinese_name
from rag_app.text.synonyms import SYNONYM_GROUPS
from rag_app.text.tables import column_labels, parse_table
from rag_app.trust.mentions import bare_label, ends_with

# A line or a table row within a sentence (a row's cells follow its label after ";").
_LINES = re.compile(r"[\n|]")
# A value: a number that is not a year of a date alone (2024年6月 dates; 12.5, 3,265 are values).
_NUMBER = re.compile(r"(?<![\d.（(])\d+(?:[.,]\d+)*(?![\d）)])(?!\s*年)")


@dataclass(frozen=True)
class Document:
    """What the check reads of one document, built once per document version."""

    subjects: frozenset[str]  # its title's subject words (比亚迪)
    names: tuple[str, ...]  # every name of what it is about (text.subjects.subject_names)
    # a company's own report (its subject named with a ticker or in legal form): what it does
    # not give is read strictly; a story or a topic's report is read leniently
    listed: bool
    title: str  # its title line, for saying where a name is mentioned
    genres: frozenset[str]  # what its title calls it (报告, 证券研究报告): text.names.title_genres
    entities: tuple[str, ...]  # the names its tables list (regions, customers), for a gap's "held"
    text: str  # its chunks' searched text, lower-cased
    chunks: tuple[str, ...]  # the same, chunk by chunk
    labels: tuple[str, ...]  # the metrics its tables and terms name (lower-case)
    quantities: frozenset[str]  # those of them given with a unit (公允价值（元）), lower-case
    exhibits: tuple[tuple[str, str], ...]  # its numbered tables and figures: (kind, "图3")
    headers: tuple[str, ...]  # every row and column label of its tables (lower-case)
    table_years: frozenset[str]  # the years its tables are laid out by (headers, row labels)
    table_periods: frozenset[str]  # those periods as written: 2024q2, 2025e
    # Read when a question first needs them (mutable caches of a frozen record).
    _lazy: dict[str, object] = field(default_factory=dict)

    def years(self) -> frozenset[str]:
        if "years" not in self._lazy:
            self._lazy["years"] = frozenset(find_years(self.text))
        return self._lazy["years"]  # type: ignore[return-value]

    def period_tokens(self) -> frozenset[str]:
        """The quarters and halves it names (2024q2), in its tables' headers or its text."""
        if "periods" not in self._lazy:
            found = set(period_tokens(self.text)) | set(self.table_periods)
            found.update(re.sub(r"\s+", "", m.group(0)) for m in PART_OF_YEAR.finditer(self.text))
            self._lazy["periods"] = frozenset(found)
        return self._lazy["periods"]  # type: ignore[return-value]

    def lacks_part(self, part: str) -> bool:
        """Whether it lays out quarters (or halves) of ``part``'s year but not ``part`` (Q3 2024
        of a call whose tables give 2024Q2, 2025Q1 and 2025Q2), or quarters that begin after
        ``part`` or end before it (2023Q1 of a table from 2024Q1 to 2025Q3); a half whose two
        quarters it lays out it holds (2024H1 of 2024Q1 and 2024Q2)."""
        held = self.period_tokens()
        kin = sorted(t for t in held if len(t) == len(part) and t[4] == part[4])
        quarters = {f"{part[:4]}q{2 * int(part[5]) - k}" for k in (1, 0)} if part[4] == "h" else ()
        if part in held or not kin or (quarters and quarters <= held):  # a half: its quarters
            return False
        outside = part[4] == "q" and not kin[0] <= part <= kin[-1]
        return outside or any(t[:4] == part[:4] for t in kin)

    def months(self) -> tuple[frozenset[str], frozenset[str]]:
        """The months (``month_tokens``' form, 2025年10月) its tables lay out, and those its
        text names."""
        if "months" not in self._lazy:
            self._lazy["months"] = (
                frozenset(month_tokens(" ".join(self.table_periods))),
                frozenset(month_tokens(self.text)),
            )
        return self._lazy["months"]  # type: ignore[return-value]

    def states(self, year: str, head: str, words: tuple[str, ...]) -> bool:
        """Whether a sentence of its text writes ``year`` with what is asked: the question's
        ``head`` noun, else one of its ``words`` (or a synonym); a year its text only dates
        something by ("2024年6月18日") is not a year it reports what is asked for."""
        asked = tuple(head.split()) if head else words
        for sentence in split_sentences(self.text):
            if year in sentence and (not asked or any(written_term(w, sentence) for w in asked)):
                return True
        return False

    def writes(self, term: str) -> bool:
        """Whether it writes a term (or a synonym), or for a compound (``head_noun``'s: "乘用车
        销量") its first half, which says which of the things the second names is asked."""
        first, _, second = term.rpartition(" ")
        if first:  # a compound (总资产 规模): held as written, or by its specific first half
            return any(written_term(t, self.text) for t in (first + second, first))
        if written_term(term, self.text):
            return True
        return self.labels_it(term)

    def labels_it(self, term: str) -> bool:
        """Whether a label names ``term`` in other words: not much longer, holding all its
        characters (总投资: 项目投资总额), or as its two-character short form (``shortens``)."""
        chars = set(term)
        in_labels = any(chars <= set(lab) and len(lab) <= 2 * len(term) for lab in self.labels)
        return in_labels or self.shortens(term)

    def shortens(self, term: str) -> bool:
        """Whether ``term`` is a two-character short form of one of its labels: a label that ends
        as it ends and holds it in order (销量 of 生猪销售量（万头）, 产量 of 生产量)."""
        return len(term) == 2 and any(ends_with(bare_label(label), term) for label in self.labels)

    def gives_value(self, term: str) -> bool:
        """Whether it gives a value for a quantity: the term heads a table's row or column
        (or a metric's label holds it in other words: ``labels_it``), or a sentence writes it with
        a number ("先进制程研发投入大" names R&D spending and gives none)."""
        if any(term in header for header in self.headers):
            return True
        if self.labels_it(term):
            return True
        return any(
            term in sentence and _NUMBER.search(sentence.replace(term, ""))
            for chunk in self.chunks
            if term in chunk
            for sentence in split_sentences(chunk)
        )

    def writes_together(self, words: tuple[str, ...]) -> bool:
        """Whether one sentence, line or table row of it writes every one of ``words`` (or a
        synonym): 投资 活动 产生 (the investing line), 独立 (of 独立董事)."""
        return any(
            all(written_term(w, unit) for w in words)
            for chunk in self.chunks
            if written_term(words[0], chunk)
            for sentence in split_sentences(chunk)
            for unit in _LINES.split(sentence)
        )

    def strict(self) -> bool:
        """Whether what it does not give is read strictly: a Chinese company's own report. A
        story, a topic's report or an English filing's page (one page of many) is read as
        before: a name or a word written anywhere in it holds."""
        return self.listed and self.chinese() >= 0.5

    def chinese(self) -> float:
        """The share of the document's words that are Chinese."""
        if "chinese" not in self._lazy:
            self._lazy["chinese"] = cjk_share(self.text[:20000]) or 0.0
        return self._lazy["chinese"]  # type: ignore[return-value]


def written_term(word: str, text: str) -> bool:
    """Whether ``text`` writes ``word`` or a synonym."""
    group = next((g for g in SYNONYM_GROUPS if word in g), (word,))
    return any(t.lower() in text for t in group)


def read_document(chunks: list[Chunk]) -> Document:
    """One pass over a document's chunks, and its profile (``index.profile``): the periods its
    tables are laid out by (not a date a cell holds: "2024年6月18日"), the names they list."""
    profile = profile_of(chunks)
    subjects = next(iter(document_subjects(chunks).values()), frozenset())
    names = profile.subject_names
    if names and not any(w in n or n in w for w in subjects for n in names):
        # its title is a section heading ("第二节 公司简介…"): its subject by its shortest
        # Chinese name (澄远智能), else its main name
        subjects = frozenset({shortest_chinese_name(names) or names[0]})
    title = search_title(chunks[0]) if chunks else ""
    headers = _headers(chunks)
    own = _report_periods(title, headers)
    return Document(
        subjects=frozenset(subjects or ()) or frozenset(names[:1]),
        names=names,
        listed=any(is_listed(n) for n in names),
        title=title,
        genres=title_genres(title) if chunks else frozenset(),
        entities=tuple(e.name for e in profile.entities if e.name not in names)[:40],
        text="\n".join(c.search_text for c in chunks).lower(),
        chunks=tuple(c.search_text.lower() for c in chunks),
        labels=tuple(m.name.lower() for m in profile.metrics),
        quantities=frozenset(m.name.lower() for m in profile.metrics if m.unit),
        exhibits=tuple((e.kind, e.label) for e in profile.exhibits),
        headers=headers,
        table_years=frozenset(y for p in (*profile.periods, *own) for y in find_years(p)),
        table_periods=frozenset(p.lower() for p in (*profile.periods, *own)),
    )


def _report_periods(title: str, headers: tuple[str, ...]) -> tuple[str, ...]:
    """The periods a report's tables give that their headers name from the report's own
    (本报告期, 上年同期, 本月, 上年同月) or without a year (1月 … 10月), dated by the year (and
    month) its title names: 禾溪生物's 2025年半年度报告 gives 2025 and 2024, and the first half
    of 2025; a monthly announcement's 1月 … 10月 are months of its year."""
    years = find_years(title)
    if not years:
        return ()
    year = int(years[0])
    out: list[str] = []
    if any(REPORT_COLUMN.fullmatch(h) for h in headers):
        out += [f"{year}年", f"{year - 1}年"]
        named = months_named(title)
        if named:  # 本月 and 上年同月 of a month's announcement
            out += [f"{year}年{named[0][1]}月", f"{year - 1}年{named[0][1]}月"]
    out += [f"{year}年{int(m.group(1))}月" for h in headers if (m := YEARLESS_MONTH.fullmatch(h))]
    if _HALF_YEAR_REPORT.search(title):  # a 半年度报告 gives the first half, not the second
        out.append(f"{year}h1")
    return tuple(out)


# A half-year report's title (2025年半年度报告, 中期报告).
_HALF_YEAR_REPORT = re.compile(r"半年度报告|中期报告")


def _headers(chunks: list[Chunk]) -> tuple[str, ...]:
    """Every column label and row label of a document's tables, lower-cased."""
    out: dict[str, None] = {}
    for chunk in chunks:
        if chunk.type != "table" or not chunk.table_html:
            continue
        try:
            grid = parse_table(chunk.table_html, chunk.header_rows)
        except ValueError:
            continue
        out.update(dict.fromkeys(label.lower() for label in column_labels(grid) if label))
        out.update(dict.fromkeys(r[0].strip().lower() for r in grid.data_rows if r and r[0]))
    return tuple(out)
