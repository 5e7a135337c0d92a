"""The offline answerer: quotes the best-matching sentences of the sources, honestly labelled.

An ``LLM`` like the others, used when no language model is configured. It never writes anything
of its own beyond a notice: the answer is 2-4 sentences (or table rows, or figure descriptions)
copied from the top sources, each followed by its ``[Source N]``, chosen by weighted term overlap
with the question. A question asking for a list ("中芯国际的产线有哪些？") first gets the names the
table listing them gives (its naming column's cells, in one line). If no sentence shares a term
with the question it says the sources do not contain the answer.

Scoring, per candidate sentence ``s`` and question terms ``T``:
``sum(idf(t) * w(t) for t in T if t in s)`` with ``idf`` computed over all candidate sentences
(terms found everywhere, like a table's header, count little), ``w`` 1 for words and 0.3 for
Chinese character bigrams (a fallback when jieba cuts the question and the text differently),
plus bonuses for numbers, for table rows whose first cell is named in the question, for
terms in the chunk's caption or heading path, and, for a question about a figure, for the
description's sentence stating the trend (not the axes).

A question naming a year and a table row ("中芯国际2026年的市盈率") is answered value first, with
its unit, period and subject ("中芯国际 2026E 市盈率：106.2 倍 [Source 3]"), then the rows it
asks about as the evidence; when no row gives it, the value a quoted sentence states for the
asked year (``stated_values``), in either language of the question.

A question pointing at a figure ("图2", "Figure 3") is answered from that figure: its
description and the sentences of the paragraph introducing it, whether or not they share a word
with the question (``quotes.FigureScores``). A question naming some of the sources' reports, by
their subject or by a name in capitals ("KEHGCN", ``text.coined``), is answered from those.
Quotes of which none answers the question (another company, year or quantity, the citation
check's judges) are quoted only as the closest, under a line saying so.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import replace

from rag_app.answer.base import GenerationRequest, LLMEvent, split_stream_pieces
from rag_app.answer.fact_counts import quarters_listed, ranked_lines
from rag_app.answer.fact_lines import fact_value_lines, worked_lines
from rag_app.answer.lists import list_of_table
from rag_app.answer.named_reports import coined_sources, named_documents, sources_of
from rag_app.answer.quotes import (
    Candidate,
    PointedTable,
    ScoredSentence,
    chunk_candidates,
    clip,
    discussion_candidates,
    figure_scores,
    operand_rows,
    with_caption,
)
from rag_app.answer.stated_values import stated_value_lines
from rag_app.answer.values import label_named, sources_subjects, value_lines
from rag_app.models import Chunk
from rag_app.stage_settings import OfflineSettings
from rag_app.text.analyzer import loose_pairs, match_terms
from rag_app.text.aspects import off_question, source_subject
from rag_app.understand.analysis import QueryAnalysis, each_asked

NOTICE = {
    "zh": "（离线抽取式回答：未配置大模型，以下句子直接摘自参考资料）",
    "en": (
        "(Offline extractive answer: no language model is configured; the sentences below are "
        "quoted from the sources.)"
    ),
}
# In a model's place, when the configured model failed before writing anything.
FALLBACK_NOTICE = {
    "zh": "（离线抽取式回答：大模型调用失败，以下句子直接摘自参考资料）",
    "en": (
        "(Offline extractive answer: the language model failed; the sentences below are quoted "
        "from the sources.)"
    ),
}
NOT_FOUND = {
    "zh": "参考资料中未找到相关信息。",
    "en": "The sources do not contain the answer.",
}
# Before quotes of which none answers the question (another metric, company or period).
NOT_ANSWERED = {
    "zh": "参考资料中未找到直接回答该问题的内容；以下是最接近的句子：",
    "en": "The sources do not answer this directly; the closest sentences:",
}


_DIGIT = re.compile(r"\d")


# The head of an answer the library check declined: nothing is quoted under it.
DECLINED_NOTICE = {
    "zh": "（离线回答：未配置大模型；以下是对文档库的核对结果）",
    "en": "(Offline answer: no language model is configured; this is what the library holds.)",
}
# The same, in a model's place when the configured model failed before writing anything.
DECLINED_FALLBACK_NOTICE = {
    "zh": "（离线回答：大模型调用失败；以下是对文档库的核对结果）",
    "en": "(Offline answer: the language model failed; this is what the library holds.)",
}


class ExtractiveAnswerer:
    """Answers by quoting the sources; needs no model and no network.

    ``settings`` holds its knobs (``OfflineSettings``: how many sentences, the bonuses, the named
    features); ``max_sentences`` / ``min_sentences`` override the settings' when given.
    ``notice`` (per language) opens every answer and says what it is; ``declined_notice`` an
    answer the library check declined.
    ``piece_chars`` sets the size of streamed pieces.
    """

    name = "offline-extractive"

    def __init__(
        self,
        max_sentences: int | None = None,
        min_sentences: int | None = None,
        piece_chars: int = 4,
        settings: OfflineSettings | None = None,
        notice: Mapping[str, str] = NOTICE,
        declined_notice: Mapping[str, str] = DECLINED_NOTICE,
    ) -> None:
        settings = settings or OfflineSettings()
        if max_sentences is not None or min_sentences is not None:
            settings = replace(
                settings,
                max_sentences=settings.max_sentences if max_sentences is None else max_sentences,
                min_sentences=settings.min_sentences if min_sentences is None else min_sentences,
            )
        self.settings = settings
        self.notice = notice
        self.declined_notice = declined_notice
        self.piece_chars = piece_chars

    def select(
        self, query: QueryAnalysis, sources: Sequence[tuple[int, Chunk]]
    ) -> list[ScoredSentence]:
        """The sentences the answer to the question ``query`` quotes, best first (empty when
        none overlaps the question)."""
        return self._select(query, sources)[0]

    def _select(
        self, query: QueryAnalysis, sources: Sequence[tuple[int, Chunk]]
    ) -> tuple[list[ScoredSentence], bool]:
        """(the quotes, whether they answer the question: False when none is about the asked
        company, period and quantity and the closest are quoted in their place)."""
        # Finance synonyms, across languages too: "P/E" meets a row labelled 市盈率, 营收 one
        # labelled 营业收入.
        question, terms = query.text, query.terms
        q_words, q_bigrams, synonyms = set(terms.words), set(terms.bigrams), terms.synonyms
        if not q_words and not q_bigrams:
            return [], True
        settings = self.settings
        subjects = sources_subjects(query, sources)
        named_docs = named_documents(query, subjects) if settings.named_reports else {}
        # Once quotes are kept to the named reports, the company's name says nothing about which
        # sentence answers: "华虹半导体" in a figure caption must not outscore the 毛利率 row.
        names = " ".join(w for words in named_docs.values() for w in words)
        if names:
            n_words, n_bigrams = match_terms(names)
            if q_words - n_words or q_bigrams - n_bigrams:
                q_words -= n_words
                q_bigrams -= n_bigrams
        named = sources_of(named_docs, subjects, sources, query.text)
        if named is None and settings.named_reports:
            named = coined_sources(query, sources)
        candidates = [
            cand
            for rank, (number, chunk) in enumerate(sources)
            if named is None or number in named
            for cand in chunk_candidates(
                number,
                rank,
                chunk,
                settings.row_notes,
                settings.join_continuations,
                settings.max_sentence_chars,
            )
        ]
        figures = figure_scores(query, sources) if settings.figure_sentences else None
        if figures is not None and figures.pointed:
            # "图2是什么走势？": what the paragraph introducing the figure says of it, too; its
            # caption alone, the stand-in for a missing description, then says nothing more
            discussed = {
                number: found
                for rank, (number, chunk) in enumerate(sources)
                if number in figures.pointed
                and (
                    found := discussion_candidates(number, rank, chunk, settings.max_sentence_chars)
                )
            }
            captions = {clip(chunk.caption.strip()) for n, chunk in sources if n in discussed}
            candidates = [
                c for c in candidates if not (c.source in discussed and c.text in captions)
            ]
            candidates += [cand for found in discussed.values() for cand in found]
        tables = PointedTable(query, sources) if settings.table_references else None
        if tables is not None and tables.pointed:
            candidates = [c for c in candidates if tables.about(c)]
        if not candidates:
            return [], True
        idf = _idf(candidates, q_words | q_bigrams)
        top_idf = max(idf.values(), default=1.0)
        question_lower = f"{question} {synonyms}".lower()

        scored: list[ScoredSentence] = []
        # two characters the question means as a word match one written inside a longer word
        pairs = loose_pairs(question) & (q_words | q_bigrams)
        for cand in candidates:
            matched_words = sorted(q_words & cand.words | pairs & cand.bigrams)
            matched_bigrams = sorted((q_bigrams - pairs) & cand.bigrams)
            # Enough overlap to quote: a shared word, or two shared bigrams (a name jieba cut
            # differently in the question and in the text); the figure asked about needs none.
            pointed = (figures is not None and figures.about_pointed(cand)) or (
                tables is not None and bool(tables.pointed) and tables.about(cand)
            )
            if not matched_words and len(matched_bigrams) < 2 and not pointed:
                continue
            score = sum(idf[t] for t in matched_words)
            score += settings.bigram_weight * sum(idf[t] for t in matched_bigrams)
            score += settings.context_weight * sum(idf.get(t, 0.0) for t in q_words & cand.context)
            if cand.row_label and label_named(cand.row_label, question_lower, q_words):
                score += settings.first_cell_bonus * top_idf
            if _DIGIT.search(cand.text):
                score += settings.number_bonus * top_idf
            if figures is not None:
                if not figures.quotable(cand):
                    continue
                score += settings.figure_bonus * top_idf * figures.score(cand)
            scored.append(ScoredSentence(cand, score, tuple(matched_words + matched_bigrams)))
        if not scored:
            return [], True
        scored.sort(key=lambda s: (-s.score, s.candidate.order))
        listing = (
            list_of_table(
                question,
                q_words,
                q_bigrams,
                sources,
                named,
                scored[0].score,
                settings.list_min_rows,
                settings.max_sentence_chars,
            )
            if settings.list_answers and query.asks_for_list
            else None
        )
        if listing is not None:
            # "中芯国际的产线有哪些？": the list table's names first, then what else matches; its
            # rows one by one would only repeat the list.
            table = listing.candidate.source
            scored = [listing, *(s for s in scored if s.candidate.source != table)]

        best = scored[0].score
        chosen: list[ScoredSentence] = []
        limit = settings.max_sentences
        if len(named_docs) >= 2:
            # "中芯国际和华虹半导体的毛利率": the best quote of each named report first, so one
            # report's three good rows cannot leave the other out.
            doc_of = {number: chunk.doc_id for number, chunk in sources}
            for doc_id in named_docs:
                own = next((i for i in scored if doc_of[i.candidate.source] == doc_id), None)
                if own is not None:
                    chosen.append(own)
            chosen.sort(key=lambda s: (-s.score, s.candidate.order))
            limit = max(limit, len(chosen))
        off = off_question_test(query, sources) if settings.on_question_only else None
        skipped: list[ScoredSentence] = []
        for item in scored:
            if len(chosen) >= limit:
                break
            if item in chosen:
                continue
            if (
                len(chosen) >= settings.min_sentences
                and item.score < settings.relative_cutoff * best
            ):
                break
            if any(_same_text(item.candidate.text, c.candidate.text) for c in chosen):
                continue
            if off is not None and off(item.candidate.text, item.candidate.source):
                skipped.append(item)  # another company's, year's or metric's: answers nothing
                continue
            chosen.append(item)
        # Nothing on the question, or the numbered figure or table it points at is not among
        # the sources: the best quotes still, said to be the closest, and the citation check
        # says whose.
        missing = (figures is not None and bool(figures.number) and not figures.pointed) or (
            tables is not None and bool(tables.number) and not tables.pointed
        )
        if not chosen:
            return skipped[: settings.min_sentences], False
        return chosen, not missing

    def answer_text(
        self, query: QueryAnalysis, sources: Sequence[tuple[int, Chunk]], lang: str = "zh"
    ) -> str:
        """The whole answer ``stream`` would send to the question ``query``, as one string."""
        lang = "en" if lang == "en" else "zh"
        chosen, answers = self._select(query, sources)
        values: list[str] = []
        if chosen and answers and self.settings.value_lines:
            values, chosen = self._values(query, chosen, sources, lang)
            # the same asked of two metrics or names (营收和净利润分别…): each its line, if each has one
            each = [self._values(part, chosen, sources, lang)[0] for part in each_asked(query)]
            values = [line for lines in each for line in lines] if each and all(each) else values
        if values and chosen:  # each operand of a working quoted with its row
            chosen = [*chosen, *operand_rows(values, chosen, sources, self.settings)]
        if not chosen and not values:
            body = NOT_FOUND[lang]
        else:
            body = "\n".join(_quoted_lines(chosen, sources, self.settings.max_sentence_chars))
            if not answers:
                body = f"{NOT_ANSWERED[lang]}\n\n{body}"
        if values:
            # each its own paragraph: Markdown would run lines one "\n" apart together
            body = "\n\n".join(values) + (f"\n\n{body}" if chosen else "")
        return f"{self.notice[lang]}\n\n{body}"

    def _values(
        self,
        query: QueryAnalysis,
        chosen: list[ScoredSentence],
        sources: Sequence[tuple[int, Chunk]],
        lang: str,
    ) -> tuple[list[str], list[ScoredSentence]]:
        """The value-first lines (and the quotes to keep after them): who ranks where, a worked
        change, a row's cell, a sentence's value, else a table's cells named or worked out."""
        sure, facts = self.settings.operation_confidence, self.settings.fact_lines
        values = ranked_lines(query, sources, lang) if facts else []  # asked by rank
        if facts and not values:  # a change: worked out, not a value
            values = worked_lines(query, sources, lang, sure)
        if not values:
            values, chosen = value_lines(query, chosen, sources, lang)
        if not values:  # no table row gives it: a quoted sentence may state it
            values = stated_value_lines(query, chosen, sources, lang)
        if not values and facts:  # a table's cells, named or worked out
            values = fact_value_lines(query, sources, lang, sure)
        if not values and facts and (by_quarter := quarters_listed(query, sources, lang)):
            values = [by_quarter]  # a year only its quarters give
        return values, chosen

    def stream(self, request: GenerationRequest) -> Iterator[LLMEvent]:
        """Stream an extractive answer to ``request.analysis`` from ``request.sources`` ((N,
        chunk) pairs, N being the number cited as ``[Source N]``): ``token`` events, then
        ``done``. The rendered messages are not read.

        ``request.language`` picks the language of the notice and of the not-found message;
        quoted sentences stay in the language of the sources. Deterministic.
        """
        text = self.answer_text(request.analysis, request.sources, request.language)
        if request.finding:
            # The library check (rag_app.trust.answerability): what the library does not hold is said
            # first; when that leaves nothing to answer, nothing is quoted in its place.
            lang = "en" if request.language == "en" else "zh"
            if request.declined:
                text = f"{self.declined_notice[lang]}\n\n{request.finding}"
            else:
                notice, _, body = text.partition("\n\n")
                text = f"{notice}\n\n{request.finding}\n\n{body}"
        for piece in split_stream_pieces(text, self.piece_chars):
            yield LLMEvent.token(piece)
        yield LLMEvent.done("stop")


def _idf(candidates: Sequence[Candidate], terms: set[str]) -> dict[str, float]:
    n = len(candidates)
    idf = {}
    for term in terms:
        df = sum(1 for c in candidates if term in c.words or term in c.bigrams)
        # BM25's idf, kept positive: a term in every sentence still counts a little.
        idf[term] = math.log(1.0 + (n - df + 0.5) / (df + 0.5))
    return idf


def off_question_test(
    query: QueryAnalysis, sources: Sequence[tuple[int, Chunk]]
) -> Callable[[str, int], bool] | None:
    """A test of whether a sentence of source N is about another company, period or metric
    than the question ``query`` asks (the citation check's judges, ``text.aspects``); None when
    the question names none of the three."""
    subject_of = {number: source_subject(chunk) for number, chunk in sources}
    subjects = sorted({s.subject for s in subject_of.values() if s.subject}, key=len, reverse=True)
    asked = query.aspects(subjects)
    if not (asked.names or asked.years or asked.metrics):
        return None
    cited = {n: [s] for n, s in subject_of.items()}
    return lambda text, number: bool(off_question(asked, text, cited.get(number, []), subjects))


def _quoted_lines(
    chosen: Sequence[ScoredSentence], sources: Sequence[tuple[int, Chunk]], max_chars: int
) -> list[str]:
    """One line per quoted sentence; a figure's first quoted sentence names the figure (its
    caption cut to ``max_chars``)."""
    chunks = dict(sources)
    named: set[int] = set()
    lines = []
    for s in chosen:
        text, number = s.candidate.text, s.candidate.source
        if number not in named and number in chunks:
            text = with_caption(text, chunks[number], max_chars)
            named.add(number)
        lines.append(f"- {text} [Source {number}]")
    return lines


def _same_text(a: str, b: str) -> bool:
    return a == b or a in b or b in a
