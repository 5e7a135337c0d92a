"""Whether the library holds what a question asks for, read against what each document is
and holds, before the question is answered.

A question gives names (the one it leads with, ``text.names.leading_name``; the proper nouns
jieba tags and the Latin names it writes, ``text.names.proper_names``), periods and the noun it
asks for (``text.names.head_noun``). Each document is read once (``Document``): the names of
what it is about (``text.subjects.subject_names``: a company with its ticker or legal name, its
English and Chinese names; an English name is also matched by its pinyin), its text, the periods
its tables are laid out by, its labels. Then:
- a name no document is about:
  - written nowhere: a subject the library does not hold ("宁德时代" over the sample);
  - written only as a row of another report's table (an industry report's ranking, a
    prospectus's customers) that gives nothing of what is asked: a company only mentioned
    (北辰智控's 董事长); where the row gives it (its 市场份额), the question is answered there;
- a company's own report (a Chinese report on a listed or legally named company, the strict
  reading; a story or an English filing's page is read as before):
  - another name it gives (a country, a plant) not written in the report, or written only in a
    sentence that says nothing asked ("德国、法国渠道的拓展" for revenue in 德国);
  - the noun asked for, written nowhere in it, nor as a label in other words (资产负债率);
  - a finance metric of the lexicon for which it gives no value (a table label, or a sentence
    with a number: "研发投入大、周期长" gives none);
- a year none of its tables is laid out by and no sentence states with what is asked (a date
  in a fact sheet, "2024年6月18日", is not a year of figures); a quarter whose neighbours its
  tables give but not it (Q3 2024 of a call giving 2024Q2, 2025Q1, 2025Q2).
Each gap names the closest things the library does hold. A question whose subject, name or
metric is not held, or whose every year is outside, is declined: the offline answerer says so
instead of quoting another company's, year's or metric's numbers, and a model's prompt carries
the finding with the instruction to say so. A question missing some of several years is
answered with a note.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from rag_app.index.library import Library, Snapshot
from rag_app.stage_settings import OfflineSettings
from rag_app.text.language import CJK_CLASS, cjk_share
from rag_app.text.names import (
    content_words,
    head_noun,
    is_place,
    is_proper,
    is_verb,
    noun_run,
    qualified_noun,
    source_clause,
)
from rag_app.text.periods import find_years
from rag_app.text.pinyin import sounds_like
from rag_app.text.spans import strip_modifiers
from rag_app.text.subjects import (
    covers,
    is_listed,
    name_prefixes,
)
from rag_app.text.tables import parse_table
from rag_app.trust.asked_names import asked_names, given_names
from rag_app.trust.document_reading import Document, read_document
from rag_app.trust.exhibits import exhibit_gap, shown
from rag_app.trust.findings import Finding, Gap
from rag_app.trust.mentions import Mention, gives, mention_context, own_row
from rag_app.trust.metric_gaps import (
    named_before_held,
    names_operation,
    unheld_lexicon_metrics,
    unheld_statement_terms,
)
from rag_app.trust.other_companies import beside, presumed
from rag_app.trust.period_gaps import unheld_periods
from rag_app.understand.analysis import QueryAnalysis

# Operations that work a value out of the cells a question names (not a lookup, not a share).
_WORKED = ("diff", "change_ratio", "average", "sum", "divide", "cagr")
# A Latin name the question gives again in Chinese, in brackets right after it.
_ALIASED = re.compile(rf"^[A-Za-z\s'’.]{{0,12}}[（(][{CJK_CLASS}]")


def assess(
    question: QueryAnalysis, library: Library, kb: str, doc_ids: tuple[str, ...] = ()
) -> Finding:
    """The library's answer to "do you hold what ``question`` (its analysis) asks for?" (see
    the module)."""
    from rag_app.retrieve.signals import per_document

    if kb not in library.knowledge_bases():
        return Finding()
    # per document, kept across uploads: after one only the new documents are read
    profile = per_document("answerability", library, kb, read_document)
    docs = [d for d in profile if not doc_ids or d in doc_ids]
    if not docs:
        return Finding()
    subjects = sorted({w for d in docs for w in profile[d].subjects})
    # "报告给出的目标价": what names the source ("报告给出的") is not what is asked
    source = source_clause(question.text, frozenset().union(*(profile[d].genres for d in docs)))
    text = question.text.replace(source, " ", 1) if source else question.text
    asked = asked_names(text, question.name, [profile[d] for d in docs])
    snap = library.snapshot(kb)
    noted: list[Gap] = []  # what is missing of a company asked beside another: said only
    asked = presumed(question.name, asked, docs, profile, noted)
    about = _docs_about(text, asked, docs, profile)
    if about is None:
        worked = _worked(question)
        scope, gap = _mentioned_scope(
            text, question.name, question.synonyms, asked, docs, profile, snap, subjects, worked
        )
    else:
        # a company asked beside the subject ("中芯国际和宁德时代…分别"): said, not refused
        for name in beside(text, asked, about, profile):
            alone = text.replace(name, " ")
            for covered in (w for d in about for w in profile[d].subjects):
                alone = alone.replace(covered, " ")
            _, found = _mentioned_scope(
                alone, name, question.synonyms, (name,), docs, profile, snap, subjects
            )
            noted += [found] if found is not None else []
            text = text.replace(name, " ")
        reports = [d for d in about if profile[d].strict()]
        scope, gap = about, _unheld_name(text, reports, profile, snap) if reports else None
    gap = gap or exhibit_gap(question, scope, profile)
    if gap is None and question.language == "zh" and all(profile[d].strict() for d in scope):
        gap = _metric_gap(
            question, _from_name(text, asked, docs, profile), asked, scope, docs, profile, snap
        )
    if gap is not None:
        return Finding((gap, *noted), declines=True)
    # a company's periods may be given where another report writes it (an industry report's
    # ranking gives a company's 2024 share that its prospectus stops before): the years there
    elsewhere = _years_elsewhere(question, asked, about, docs, profile, snap) if about else set()
    spans = question.spans(subjects)
    words = content_words(text, asked, nouns=True)
    head = head_noun(text, asked) if question.language == "zh" else ""
    periods = unheld_periods(question, spans, head, words, scope, elsewhere, profile)
    gaps: list[Gap] = [periods.gap] if periods.gap is not None else []
    unheld = unheld_lexicon_metrics(spans, [profile[d] for d in scope])
    if _worked(question):
        unheld = named_before_held(unheld, spans, question.text, [profile[d] for d in scope])
    if all(profile[d].strict() for d in scope):  # a Chinese report's terms, named either way
        terms = unheld_statement_terms(question.text, spans, [profile[d] for d in scope])
        # what a worked question works out (its CAGR) is not asked of the reports
        unheld += [t for t in terms if not (_worked(question) and names_operation(question, t))]
    gaps += [Gap("metric", m, _row_labels(snap, scope)[:8]) for m in unheld]
    declines = bool(gaps) and (any(g.kind == "metric" for g in gaps) or periods.all_missing)
    return Finding((*gaps, *noted), declines)


def _worked(question: QueryAnalysis) -> bool:
    """Whether the question asks, read surely, for a value worked out of others (a change, an
    average, a compound growth), not for one a report gives."""
    operation = question.operation
    return (
        operation.name in _WORKED and operation.confidence >= OfflineSettings.operation_confidence
    )


def _metric_gap(
    question: QueryAnalysis,
    text: str,
    asked: tuple[str, ...],
    scope: list[str],
    docs: list[str],
    profile: Mapping[str, Document],
    snap: Snapshot,
) -> Gap | None:
    """The noun a Chinese question asks for that its company's reports do not give: written
    nowhere (资产负债率), given only with another qualifier (流动性覆盖率 beside 拨备覆盖率), or
    written without what qualifies it (投资活动产生的现金流量净额)."""
    operation = question.operation
    if operation.confidence >= OfflineSettings.operation_confidence:
        if operation.name == "share":
            # a share's whole may be named in general words (占总收入的比例): no metric
            return None
        head = head_noun(text, asked)
        if operation.name in _WORKED and head and not any(profile[d].writes(head) for d in scope):
            # what is worked out is no metric a report gives (平均值, 复合增长率): the noun
            # it is worked out of, before it, is asked
            text = text[: text.lower().find(head.split()[0].lower())]  # CAGR read as cagr
    if shown(question, scope, profile):  # "表6" asked for by number: shown, whatever named
        return None
    held = _row_labels(snap, scope)[:8]
    head = head_noun(text, asked)
    if head and not any(profile[d].writes(head) for d in scope):
        return Gap("metric", head.replace(" ", ""), held)
    run, last = noun_run(text, asked)
    if run != last and len(last) >= 3:
        # a noun the tables give only with another qualifier: 拨备覆盖率 and no 流动性覆盖率
        # when the latter is asked (not 营业收入 when 公司营业收入 is)
        labels = [label for d in scope for label in profile[d].labels]
        if (
            not any(profile[d].writes(run) for d in scope)
            and last.lower() not in labels
            and any(label.endswith(last.lower()) for label in labels)
        ):
            return Gap("metric", run, held)
    phrase, qualifiers, _ = qualified_noun(text, asked)
    # a verb right before the noun that no report writes with it: the clause's verb and its
    # object (来自个人 of "存款主要来自个人"), not a term (独立董事, which reports write)
    verb = qualifiers[-1] if qualifiers and "的" not in phrase else ""
    tail = phrase[phrase.rfind(verb) :] if verb and is_verb(verb) else ""
    term = not tail or any(tail in profile[d].text for d in docs)
    # the noun written, but not what qualifies it (the operating line's 现金流量净额 when the
    # investing one's is asked; 董事 when 独立董事 are)
    if qualifiers and term and not any(profile[d].writes_together(qualifiers) for d in scope):
        return Gap("metric", phrase, held)
    return None


def _from_name(
    question: str, asked: tuple[str, ...], docs: list[str], profile: Mapping[str, Document]
) -> str:
    """The question from the first name it asks that the library writes: the words before it
    describe it (第三大重仓股 of "第三大重仓股衡沙电气持有多少股"), they are not what is asked."""
    lowered = question.lower()
    for name in asked:
        at = lowered.find(name.lower())
        if at > 0 and any(name.lower() in profile[d].text for d in docs):
            return question[at:]
    return question


def _mentioned_scope(
    question: str,
    lead: str,
    synonyms: tuple[str, ...],
    asked: tuple[str, ...],
    docs: list[str],
    profile: dict[str, Document],
    snap: Snapshot,
    subjects: list[str],
    worked: bool = False,
) -> tuple[list[str], Gap | None]:
    """The documents a question naming no report's subject is answered from: all of them when
    it names nothing; when it names a company no report is about, those that write it where
    they give what is asked (a ranking's row gives 市场份额, not 董事长). A name written nowhere
    is a subject the library does not hold."""
    if not asked:
        return docs, None
    # the name a question leads with must be written (its first three characters at least);
    # a proper noun read elsewhere in it (a person, a place) need only be written in part
    name = _as_written(asked[0], [profile[d].text for d in docs], 3 if lead else 2)
    if not name:
        return docs, Gap("subject", asked[0], tuple(subjects))
    written = [d for d in docs if name in profile[d].text]
    mentions = mention_context(snap, written, name)
    # a Chinese question's words; an English one's finance terms in their Chinese synonyms
    if (cjk_share(question) or 0) >= 0.5:
        # a modifier alone (预测, 预计) says which column (2025E), not which row
        asks = content_words(question, asked)
        words = [w for w in asks if strip_modifiers(w)]
        # what is worked out (年均复合增长率) is named after the metric it is worked out of:
        # the words up to a label the mention gives are what it must give
        ends = range(len(words), 0, -1) if worked else (len(words),)
        alone = len(asks) == len(asked) == 1  # 营收 asked, no place (欧洲) nor segment besides
        giving = [m for m in mentions if any(gives(m, words[:k], alone) for k in ends)]
        giving += [m for m in mentions if m not in giving and _counts_asked(m, question)]
        # a table's row gives the years its columns name (2024年营业收入), not another's
        years = find_years(question)
        giving = [m for m in giving if not (years and m.labels) or _names_year(m, years)]
    else:
        # read against a Chinese report by its finance terms' Chinese synonyms; an English
        # report's rows (a segment, a region) are not held against an English question's words
        alternatives = [t for t in synonyms if not t.isascii()]
        giving = [
            m
            for m in mentions
            if not alternatives
            or profile[m.doc_id].chinese() < 0.5
            or any(gives(m, (t,)) for t in alternatives)
        ]
    # a row of a table (a ranking, a customer list), or a sentence of a company's own report
    # naming a company in legal form (a subsidiary), that gives nothing asked: a company only
    # mentioned; a name only a story's sentences write is not held against it
    legal = is_listed(asked[0]) and name == asked[0].lower()
    listed_in = [m for m in mentions if m.labels or (legal and profile[m.doc_id].strict())]
    if not giving and listed_in and not is_place(asked[0]):
        where = tuple(dict.fromkeys(m.caption or profile[m.doc_id].title for m in listed_in))
        return docs, Gap("mentioned", asked[0], where)
    # narrowed to the Chinese reports whose tables list it; a story's sentences (or an English
    # filing's rows, a segment or a region) narrow nothing
    narrowed = [m.doc_id for m in giving if m.labels and profile[m.doc_id].chinese() >= 0.5]
    return list(dict.fromkeys(narrowed)) or docs, None


# A count a question asks in ("多少台", "几万辆"): a column in that unit gives it, whatever the
# verb (卖了多少台 of 销量（台）); money and percentages are too common to tell a column.
_COUNT_ASKED = re.compile(r"(?:多少|几)\s*([^\s\d元%？?，,。的]{1,3})")


def _counts_asked(mention: Mention, question: str) -> bool:
    """Whether a table's mention has a column in the unit the question counts in."""
    units = {m.group(1)[:k] for m in _COUNT_ASKED.finditer(question) for k in (1, 2, 3)}
    return any(f"（{u}）" in label or f"({u})" in label for u in units for label in mention.labels)


def _names_year(mention: Mention, years: list[str]) -> bool:
    """Whether a table's mention names one of ``years`` in its labels or rows (2025E of 2025);
    a table naming no year at all may state it elsewhere."""
    written = " ".join((*mention.labels, mention.text))
    return not find_years(written) or any(y in written for y in years)


def _unheld_name(
    question: str, about: list[str], profile: dict[str, Document], snap: Snapshot
) -> Gap | None:
    """A name the question gives besides its subject (a country, a plant, a customer) that
    the subject's reports do not write: neither in a table that lists it, nor in a sentence
    with a word of what is asked ("德国、法国渠道的拓展" says nothing of revenue in 德国)."""
    rest = question
    for d in about:
        for written in (*profile[d].subjects, *profile[d].names):
            rest = rest.replace(written, " ")
    named = given_names(rest)
    # a row the tables label, run on into the metric (益生菌业务收入 of the 益生菌 row)
    rows = {h for d in about for h in profile[d].headers if len(h) >= 2}
    others = [
        n
        for n in named
        if not any(covers(profile[d].names, n) or _sounds_like(n, profile[d]) for d in about)
        and not any(n.lower().startswith(h) for h in rows)
    ]
    words = content_words(rest, named)
    for name in others:
        if name.isascii() and _ALIASED.search(rest[rest.find(name) + len(name) :]):
            continue  # "Malaysia Kuching base (马来西亚古晋基地)": the question names it again
        written = _as_written(name, [profile[d].text for d in about], 2)
        mentions = mention_context(snap, about, written) if written else []
        if not any(
            (m.labels and own_row(m, profile[m.doc_id].entities, written))
            or any(w in m.text.lower() for w in words)
            for m in mentions
        ):
            return Gap("name", name, tuple(e for d in about for e in profile[d].entities))
    return None


def _years_elsewhere(
    question: QueryAnalysis,
    asked: tuple[str, ...],
    about: list[str],
    docs: list[str],
    profile: dict[str, Document],
    snap: Snapshot,
) -> set[str]:
    """The years written where a report not about the question's subject writes it and
    gives what is asked (the row, sentence or caption itself)."""
    words = content_words(question.text, asked) if question.language == "zh" else ()
    years: set[str] = set()
    for d in docs:
        if d in about or not _writes_any(asked, profile[d]):
            continue
        for name in (n for n in asked if len(n) >= 4):
            for mention in mention_context(snap, [d], name):
                if gives(mention, words):
                    years.update(find_years(" ".join((mention.text, mention.caption))))
    return years


def _writes_any(asked: tuple[str, ...], document: Document) -> bool:
    """Whether a document writes one of the names a question gives (of four characters or
    more: a company's short name, not a bare surname)."""
    return any(len(n) >= 4 and n.lower() in document.text for n in asked)


def _sounds_like(name: str, document: Document) -> bool:
    """Whether a Latin name is the pinyin of one of the document's Chinese subject names."""
    return name.isascii() and any(
        sounds_like(name, n) for n in (*document.names, *document.subjects) if not n.isascii()
    )


def _docs_about(
    question: str, asked: tuple[str, ...], docs: list[str], profile: dict[str, Document]
) -> list[str] | None:
    """The documents whose subject the question names (a subject word written in it, or a
    name it gives that is one of the document's subject names); None when it names none."""
    lowered = question.lower()
    about = [
        d
        for d in docs
        if any(s.lower() in lowered for s in profile[d].subjects)
        or any(
            covers(profile[d].names, name) or _sounds_like(name, profile[d])
            for name in asked
            if len(name) > 2 or not is_place(name)  # 中国 is no 中国金茂
        )
    ]
    return list(dict.fromkeys(about)) or None


def _as_written(name: str, texts: list[str], shortest: int = 3) -> str:
    """The longest head of ``name`` (``name_prefixes``, down to ``shortest`` Chinese characters)
    that one of ``texts`` (lower-case) writes, else its longest tail so written that is a name
    itself (福建宁德 as 宁德; not 拓衡传感 as 传感, a common word, by jieba's tags); "" when none is."""
    lowered = name.strip().lower()
    tails = [lowered[k:] for k in range(1, len(lowered) - shortest + 1) if is_proper(lowered[k:])]
    for part in (*name_prefixes(name, shortest), *([] if lowered.isascii() else tails)):
        if any(part in text for text in texts):
            return part
    return ""


def _row_labels(snap: Snapshot, docs: list[str]) -> tuple[str, ...]:
    """The row labels of the tables of ``docs`` (read only when a metric is missing)."""
    ids = [i for d in docs for i in snap.chunks.doc_chunk_ids(d)]
    chunks = snap.chunks.get_many(ids)
    labels = list[str]()
    for chunk_id in ids:
        chunk = chunks.get(chunk_id)
        if chunk is not None and chunk.type == "table" and chunk.table_html:
            try:
                grid = parse_table(chunk.table_html)
            except ValueError:
                continue
            labels.extend(r[0] for r in grid.data_rows if r and r[0])
    return tuple(dict.fromkeys(labels))
