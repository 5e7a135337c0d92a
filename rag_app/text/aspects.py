"""What a text is about, read as three aspects: the companies (or reports) it names, the years it
names and the metrics it names. A question's aspects are what it asks for; an answer sentence's
are what it tells. The citation check compares the two (``rag_app.cite.relevance``): a sentence
quoting 中芯国际's 2025E 毛利率 does not answer a question on 宁德时代's 2026 营业收入, however
exactly it quotes its source.

Every reader here is a reader of the words room: names from ``names.leading_name`` and the
library's report subjects, periods from ``periods.PERIOD_SPAN``, metrics from ``followup.spans`` with
``strip_modifiers`` and the finance synonym groups (a metric is on-question when any term of the
asked metric's synonym group is in the sentence: 市盈率 meets PE, revenue meets Total revenues).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from rag_app.models import Chunk, Reason
from rag_app.text import lexicon
from rag_app.text.names import leading_name
from rag_app.text.periods import PERIOD_SPAN, PERIOD_YEAR, YEAR_RANGE
from rag_app.text.spans import spans, strip_modifiers
from rag_app.text.subjects import subject_words
from rag_app.text.synonyms import SYNONYM_GROUPS, contains_term

# The synonym groups that name a quantity (not a rating, a risk, a forecast cue or a change):
# a sentence naming one of these, and none of the asked one's, is about another metric.
_NOT_QUANTITY = frozenset({"预测", "同比", "环比", "风险提示", "产线", "工艺节点"})
_QUANTITY_GROUPS = tuple(
    tuple(t.lower() for t in g) for g in SYNONYM_GROUPS if g[0] not in _NOT_QUANTITY
)
# Words asking for a share of a quantity rather than the quantity (data file: its origin).
_SHARE_WORDS = tuple(sorted(lexicon.word_set("share_words.txt")))


@dataclass(frozen=True)
class Aspects:
    """``names``: companies or reports named, as written; ``years``: the years named (digits),
    with ``periods`` the period spans as written (2026E, 2026年); ``metrics``: the metric terms
    named, lower-cased, modifiers stripped (市盈率 of 预测市盈率)."""

    names: tuple[str, ...] = ()
    years: tuple[str, ...] = ()
    periods: tuple[str, ...] = ()
    metrics: tuple[str, ...] = ()
    shares: tuple[str, ...] = ()  # asked: a share of the metric (比重, share), any such word


def question_aspects(question: str, subjects: Collection[str] = ()) -> Aspects:
    """What ``question`` asks about: the library's ``subjects`` it names and the name it leads
    with (``names.leading_name``), its years (ranges filled in) and its metrics."""
    lowered = question.lower()
    names = [s for s in subjects if s and s.lower() in lowered]
    lead = leading_name(question)
    if lead and not any(same_name(lead, n) for n in names):
        names.append(lead)
    years, periods = _years(question)
    lowered_metrics = _metrics(question, subjects)
    asks_share = any(contains_term(lowered, w) for w in _SHARE_WORDS)
    shares = _SHARE_WORDS if asks_share else ()
    return Aspects(tuple(names), years, periods, lowered_metrics, shares)


def text_aspects(text: str, subjects: Collection[str] = ()) -> Aspects:
    """What a sentence (or table row) of an answer tells about: the ``subjects`` it names, its
    years and the quantities it names (``metric_group`` terms only, so 晶圆代工 or 先进制程 name
    no metric)."""
    lowered = text.lower()
    names = tuple(s for s in subjects if s and s.lower() in lowered)
    years, periods = _years(text)
    metrics = tuple(m for m in _metrics(text, subjects) if is_quantity(m))
    return Aspects(names, years, periods, metrics)


def metric_group(term: str) -> tuple[str, ...]:
    """The synonyms of metric ``term`` (lower-cased), itself first; ``(term,)`` when it has none."""
    term = term.lower()
    group = next((g for g in SYNONYM_GROUPS if term in (t.lower() for t in g)), ())
    return (term, *(t.lower() for t in group if t.lower() != term))


def is_quantity(term: str) -> bool:
    """Whether metric ``term`` names a quantity (a figure: 营业收入, PE), not a node or a status."""
    term = term.lower()
    return any(term in g for g in _QUANTITY_GROUPS)


def names_metric(text: str, term: str) -> bool:
    """Whether ``text`` names ``term`` or one of its synonyms."""
    lowered = text.lower()
    return any(contains_term(lowered, t) for t in metric_group(term))


def same_name(a: str, b: str) -> bool:
    """Whether two names are the same company: one holds the other (中芯国际, 中芯国际集成电路)."""
    a, b = a.lower().strip(), b.lower().strip()
    return bool(a) and bool(b) and (a in b or b in a)


def mentions(text: str, name: str) -> bool:
    """Whether ``text`` mentions ``name``: its first three characters in Chinese (a question's
    leading run may run on: 西门子医疗计划 is 西门子's), its first word in English (as the
    answerability check holds a name against the library)."""
    head = name.split()[0] if name.isascii() else name[:3]
    return bool(head) and head.lower() in text.lower()


def _years(text: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    years: list[str] = []
    periods: list[str] = []
    for match in PERIOD_SPAN.finditer(text):
        found = PERIOD_YEAR.search(match.group())
        if found is None or PERIOD_YEAR.match(text, match.start() + found.start()) is None:
            continue  # a value, not a period (2031亿元)
        periods.append(match.group().strip())
        years.append(found.group(1))
    for match in YEAR_RANGE.finditer(text):
        lo, hi = int(match.group(1)), int(match.group(2))
        if 0 < hi - lo <= 10:
            years.extend(str(y) for y in range(lo, hi + 1))
    return tuple(dict.fromkeys(years)), tuple(dict.fromkeys(periods))


def _metrics(text: str, subjects: Collection[str]) -> tuple[str, ...]:
    out = []
    for span in spans(text, subjects):
        if span.kind == "metric":
            term = strip_modifiers(span.text.lower()) or span.text.lower()
            out.append(term)
    return tuple(dict.fromkeys(out))


@dataclass(frozen=True)
class SourceSubject:
    """What one source is about: its document's subject ("" when its title names none) and its
    text, lower-cased, to find the names it mentions."""

    subject: str
    text: str
    # The chunk's type and caption, and what discusses a table or figure: its description and
    # the paragraph introducing it (which of them a question's "图3" points at).
    kind: str = ""
    caption: str = ""
    discussion: str = ""
    headings: str = ""  # its heading path: with the caption, what names a table row's metric
    document: str = ""  # its document's id


def source_subject(chunk: Chunk, shown: str = "") -> SourceSubject:
    """The subject of ``chunk``'s document and the text the model saw of it (``shown``)."""
    words = sorted(subject_words(chunk))
    text = "\n".join(x for x in (chunk.search_text, chunk.text, shown) if x)
    discussion = "\n".join(x for x in (chunk.description, chunk.context) if x.strip())
    return SourceSubject(
        words[0] if words else "",
        text.lower(),
        chunk.type,
        chunk.caption.strip(),
        discussion,
        " > ".join(chunk.heading_path),
        chunk.doc_id,
    )


def off_question(
    asked: Aspects,
    context: str,
    cited: list[SourceSubject],
    subjects: Collection[str] = (),
    paragraph: str | None = None,
) -> tuple[Reason, ...]:
    """Why a sentence (read in its ``context``, citing sources about ``cited``) is about
    another company, period or metric than ``asked`` (a question's aspects), or gives none of
    the asked quantity; () when on it. ``paragraph`` is the text up to the sentence's end that
    may name the metric for it ("2024年毛利率为18.6%，2025E为21.8%": the second clause gives
    毛利率 too); None for ``context`` alone."""
    told = text_aspects(context, subjects)
    return tuple(
        r
        for r in (
            off_company(asked, told, cited),
            off_period(asked, told),
            off_metric(asked, told, context if paragraph is None else paragraph, cited),
        )
        if r is not None
    )


def off_company(asked: Aspects, told: Aspects, cited: list[SourceSubject]) -> Reason | None:
    if not asked.names:
        return None
    if all(a.isascii() for a in asked.names) and not all(s.subject.isascii() for s in cited):
        # A Latin name over Chinese reports (SMIC, 中芯国际) cannot be told apart: not judged.
        return None
    if told.names:
        if any(same_name(t, a) for t in told.names for a in asked.names):
            return None
        return why("company", about=told.names[0], asked=asked.names[0])
    if not cited or any(mentions(s.text, a) for s in cited for a in asked.names):
        return None
    about = next((s.subject for s in cited if s.subject), "")
    if not about:
        return None
    return why("company", about=about, asked=asked.names[0])


def off_period(asked: Aspects, told: Aspects) -> Reason | None:
    if not asked.years or not told.years or set(told.years) & set(asked.years):
        return None
    return why(
        "period",
        about="、".join(told.periods[:3]) or told.years[0],
        asked="、".join(asked.periods[:3]) or asked.years[0],
    )


def off_metric(
    asked: Aspects, told: Aspects, context: str, cited: Collection[SourceSubject] = ()
) -> Reason | None:
    """Off when the question asks for a quantity and neither ``context`` nor the caption or
    headings of the ``cited`` sources name any of its terms (a table row "智能手机 370" gives
    the 营收 of its caption "分应用领域季度营收"): it names another quantity ("毛利率, the
    question asks 营业收入"), or none at all, however many words it shares with the question
    (a risk sentence's 研发 does not give 研发费用)."""
    quantities = [m for m in asked.metrics if is_quantity(m)]
    if not quantities:
        return None  # a question on a process node or a status asks for no figure
    labels = "\n".join(f"{c.caption}\n{c.headings}" for c in cited)
    if any(names_metric(context, m) or names_metric(labels, m) for m in asked.metrics):
        return None
    if asked.shares and any(contains_term(context.lower(), w) for w in asked.shares):
        return None  # "海外销量占总销量的比重": "海外占比…" gives the share asked
    if told.metrics:
        return why("metric", about=told.metrics[0], asked=quantities[0])
    return why("no_metric", asked=quantities[0])


def why(kind: str, **values: str) -> Reason:
    return Reason(f"off_{kind}", tuple(values.items()))


def english_off(reason: Reason) -> str:
    """The English wording of one off-question reason."""
    v = reason.value
    if reason.key == "off_company":
        return f"about {v('about')}, the question asks about {v('asked')}"
    if reason.key == "off_no_metric":
        return f"gives no {v('asked')}, which the question asks"
    if reason.key == "off_reference":
        return f"not from {v('asked')}, which the question asks about"
    return f"{v('about')}, the question asks {v('asked')}"
