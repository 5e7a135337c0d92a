"""Questions naming reports by their subject.

Several ("中芯国际和华虹半导体的毛利率"): retrieved once per named report, within that report's
documents, and the results interleaved so neither fills the top.

One company ("澄远智能2024年营收多少？"): every part of a company's own report is about that
company, so within its report the name says nothing about which part answers. Searched with the
name in it, the report's one page that writes the name most (its particulars, "公司的中文简称：
澄远智能") comes first whatever is asked. So the report's parts are ranked by the question
without the name, in the places the whole question's ranking gives them.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace

from rag_app.index.library import Library, Snapshot
from rag_app.models import Hit, Reason, RetrievalTrace, SearchFilter
from rag_app.retrieve.scoring import _apply_quotas, finalise
from rag_app.retrieve.signals import per_generation
from rag_app.text.names import proper_names
from rag_app.text.subjects import covers, is_listed, name_prefixes

# A ticker's exchange, before or after its code: "NYSE: ORVL", "ORVL.US", "688367.SH".
_EXCHANGE = re.compile(r"^[A-Z]{2,8}\s*[:：]\s*|\.[A-Z]{1,2}$")
_LEGAL_FORM_END = re.compile(r"(?:Co\.,?\s*Ltd\.?|Inc\.|Corp\.|Corporation|Ltd\.|GmbH|AG|PLC)$")


def subjects_by_document(library: Library, kb: str) -> dict[str, frozenset[str]]:
    """What each document is about (the leading name of its title: 中芯国际 of
    "中芯国际（688981.SH）深度报告"), per knowledge-base generation; documents without one are
    left out."""

    def build(snap: Snapshot) -> dict[str, frozenset[str]]:
        # each document's, computed when it was written (rag_app.index.doc_features)
        return {d: f.subject for d, f in snap.features.items() if f.subject}

    return per_generation("subjects", library, kb, build)


def _interleave(per_subject: Sequence[tuple[str, Sequence[Hit]]], k: int) -> list[Hit]:
    """The subjects' hits taking turns (first of each, then second of each, ...), so neither
    named report fills the top. A turn is one source of the prompt: the other retrieved parts of
    a split table come with its first part (the prompt merges them back). Scores are each
    subject's scaled so its best equals the overall best, then capped to never rise down the
    list (the prompt takes sources by score). A chunk found for two subjects keeps its first
    place."""
    lists = [(subject, list(hits)) for subject, hits in per_subject if hits and hits[0].score > 0]
    if not lists:
        return []
    best = max(hits[0].score for _, hits in lists)
    out: list[Hit] = []
    seen: set[str] = set()
    ceiling = best
    cursors = [0] * len(lists)
    while any(cursors[i] < len(hits) for i, (_, hits) in enumerate(lists)):
        for i, (subject, hits) in enumerate(lists):
            while cursors[i] < len(hits) and hits[cursors[i]].chunk.chunk_id in seen:
                cursors[i] += 1
            if cursors[i] >= len(hits):
                continue
            first = hits[cursors[i]]
            table = (first.chunk.doc_id, first.chunk.parent_table_id)
            turn = [first]
            if first.chunk.parent_table_id:
                turn += [
                    h
                    for h in hits[cursors[i] + 1 :]
                    if (h.chunk.doc_id, h.chunk.parent_table_id) == table
                    and h.chunk.chunk_id not in seen
                ]
            for hit in turn:
                seen.add(hit.chunk.chunk_id)
                ceiling = min(ceiling, hit.score * best / hits[0].score)
                if subject:
                    why = Reason.of("hit_for_subject", subject=subject)
                    hit = hit.noted(f"retrieved for {subject}", why)
                out.append(replace(hit, score=ceiling))
    return out[:k]


def per_subject_trace(
    query: str,
    mode: str,
    k: int,
    search_filter: SearchFilter,
    named: dict[str, tuple[str, ...]],
    retrieve_one: Callable[[str, SearchFilter], RetrievalTrace],
) -> RetrievalTrace:
    """Retrieval for a query naming several reports: once per named subject, within that
    subject's documents and without the other names (they only pull the search towards the
    other report), the results interleaved. ``named`` maps each subject to its documents;
    ``retrieve_one`` retrieves a query within a filter (the caller's retrieval, with subjects
    off: this module never imports it)."""
    started = time.perf_counter()
    traces = []
    for subject, doc_ids in named.items():
        sub_query = query
        for other in named:
            if other != subject:
                sub_query = sub_query.replace(other, " ")
        sub_filter = replace(search_filter, doc_ids=doc_ids)
        trace = retrieve_one(sub_query, sub_filter)
        traces.append((subject, trace))
    hits = _interleave([(subject, t.hits) for subject, t in traces], k)
    first = traces[0][1]
    note = f"named reports {', '.join(named)}: retrieved for each separately and interleaved"
    why = Reason.of("note_named_reports", names=", ".join(named))
    return RetrievalTrace(
        query=query,
        mode=mode,
        hits=finalise(hits, k),
        routing=first.routing,
        layers=tuple(step for _, t in traces for step in t.layers),
        notes=(note, *(n for _, t in traces for n in t.notes)),
        why=(why, *(w for _, t in traces for w in t.why)),
        expanded_terms=first.expanded_terms,
        ms=(time.perf_counter() - started) * 1000,
    )


def company_names_by_document(library: Library, kb: str) -> dict[str, tuple[str, ...]]:
    """Per document that is a company's own report (its subject named with a ticker or in legal
    form, ``index.profile``): every name it gives that company, per generation."""

    def build(snap: Snapshot) -> dict[str, tuple[str, ...]]:
        out = {}
        for doc_id, profile in library.profiles(kb).items():
            names = profile.subject_names
            if doc_id in snap.versions and any(is_listed(n) for n in names):
                out[doc_id] = names
        return out

    return per_generation("company names", library, kb, build)


def _as_asked(names: Sequence[str], asked: str) -> str:
    """How the question writes one of ``names`` (``asked``, or the head of it that is a name:
    "拓衡传感" of "拓衡传感董事会"); "" when it writes none."""
    if asked.isascii():
        return asked if covers(names, asked) else ""
    lowered = [n.lower() for n in names if len(n) >= 2]
    for head in name_prefixes(asked):
        for name in lowered:
            if head in name:
                return asked[: len(head)]
            if name in head:
                start = asked.lower().index(name)
                return asked[start : start + len(name)]
    return ""


@dataclass(frozen=True)
class _Companies:
    """The company names of the library's own reports (``company_names_by_document``), looked
    up by a question's words instead of read report by report: each name's character pairs
    (Latin names: their words) and each report's other spellings (codes, Latin words), each to
    the reports that hold it."""

    names: dict[str, tuple[str, ...]]  # report -> its names, in listing order
    place: dict[str, int]  # report -> its place in that order
    by_pair: dict[str, tuple[str, ...]]
    by_word: dict[str, tuple[str, ...]]
    spellings: dict[str, tuple[tuple[str, ...], tuple[str, ...]]]  # report -> (codes, words)
    by_spelling: dict[str, tuple[str, ...]]

    def holding(self, asked: str) -> list[str]:
        """The reports whose names may hold ``asked`` or a head of it (``_as_asked``): those
        sharing its first Latin word, or a character pair with it; in listing order."""
        if asked.isascii():
            words = re.findall(r"[a-z0-9&]+", asked.lower())
            found = set(self.by_word.get(words[0], ())) if words else set()
        else:
            lowered = asked.lower()
            pairs = {lowered[i : i + 2] for i in range(len(lowered) - 1)}
            found = {d for pair in pairs for d in self.by_pair.get(pair, ())}
        return sorted(found, key=self.place.__getitem__)

    def spelled(self, question: str) -> set[str]:
        """The reports one of whose other spellings the question writes as a whole word."""
        runs = set(re.findall(r"[A-Za-z0-9]+", question))
        return {d for run in runs for d in self.by_spelling.get(run, ())}


def _companies(library: Library, kb: str) -> _Companies:
    def build(_snap: Snapshot) -> _Companies:
        names = company_names_by_document(library, kb)
        pairs: dict[str, dict[str, None]] = {}
        words: dict[str, dict[str, None]] = {}
        spellings = {}
        spelled: dict[str, dict[str, None]] = {}
        for doc_id, held in names.items():
            for name in (n.lower() for n in held if len(n) >= 2):
                for i in range(len(name) - 1):
                    pairs.setdefault(name[i : i + 2], {})[doc_id] = None
                for word in re.findall(r"[a-z0-9&]+", name) if name.isascii() else ():
                    words.setdefault(word, {})[doc_id] = None
            codes, latin = _spellings_of(held)
            spellings[doc_id] = (codes, latin)
            for spelling in codes + latin:
                spelled.setdefault(spelling, {})[doc_id] = None
        return _Companies(
            names,
            {d: i for i, d in enumerate(names)},
            {k: tuple(v) for k, v in pairs.items()},
            {k: tuple(v) for k, v in words.items()},
            spellings,
            {k: tuple(v) for k, v in spelled.items()},
        )

    return per_generation("company index", library, kb, build)


def company_named(
    question: str, lead: str, library: Library, kb: str, doc_ids: Sequence[str] = ()
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The one company whose own report(s) ``question`` names: how the question writes it (each
    spelling) and its documents (those in ``doc_ids`` when given); empty when it names none, or
    names two companies' reports (``per_subject_trace``'s case)."""
    companies = _companies(library, kb)
    if not companies.names:
        return (), ()
    spellings: dict[str, None] = {}
    found: set[tuple[str, ...]] = set()
    for asked in dict.fromkeys(n for n in (lead, *proper_names(question)) if n):
        if not asked.isascii() and len(asked) < 3:
            continue  # a bare surname or place, not a company's name
        docs = []
        for doc_id in companies.holding(asked):
            if doc_ids and doc_id not in doc_ids:
                continue
            written = _as_asked(companies.names[doc_id], asked)
            if written:
                docs.append(doc_id)
                spellings[written] = None
        if docs:
            found.add(tuple(docs))
    named_docs = next(iter(found)) if len(found) == 1 else ()
    by_ticker = []
    for doc_id in sorted(
        companies.spelled(question) | set(named_docs), key=companies.place.__getitem__
    ):
        if doc_ids and doc_id not in doc_ids:
            continue
        codes, latin = companies.spellings[doc_id]
        tickers, words = _written(codes, question), _written(latin, question)
        if doc_id in named_docs or (not found and tickers):
            # its other spellings, or its ticker alone ("How much stock has ORVL bought back?")
            spellings.update(dict.fromkeys(tickers + words))
            by_ticker += [] if found else [doc_id]
    if by_ticker:
        found.add(tuple(by_ticker))
    if len(found) != 1:
        return (), ()
    return tuple(spellings), next(iter(found))


def _spellings_of(names: Sequence[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A company's other spellings: its tickers' codes (ORVL of "NYSE: ORVL", 688367 of
    688367.SH) and the capitalised words of its Latin names (Chengyuan of "Jiangsu Chengyuan
    Intelligent Equipment Co., Ltd.")."""
    codes: dict[str, None] = {}
    words: dict[str, None] = {}
    for name in names:
        if not name.isascii():
            continue
        if is_listed(name) and not _LEGAL_FORM_END.search(name):  # a ticker
            codes.update(dict.fromkeys(re.findall(r"[A-Z]{2,6}|\d{4,6}", _EXCHANGE.sub("", name))))
        else:
            words.update(dict.fromkeys(re.findall(r"[A-Z][a-z]{3,}", name)))
    return tuple(codes), tuple(words)


def _written(spellings: Sequence[str], question: str) -> list[str]:
    """Those of ``spellings`` the question writes as a whole word."""
    return [
        w
        for w in spellings
        if re.search(rf"(?<![A-Za-z0-9]){re.escape(w)}(?![A-Za-z0-9])", question)
    ]


def without(question: str, spellings: Sequence[str]) -> str:
    """The question with a name's spellings taken out (longest first)."""
    for spelling in sorted(spellings, key=len, reverse=True):
        question = question.replace(spelling, " ")
    return " ".join(question.split())


def within_company_trace(
    whole: RetrievalTrace,
    company: str,
    doc_ids: Sequence[str],
    unnamed: RetrievalTrace,
    k: int,
) -> RetrievalTrace:
    """``whole`` (the question's ranking) with the places it gives the company's report's parts
    taken, in order, by those parts as both rankings agree (``_agreed``: the question's and
    ``unnamed``'s, the question without the name within its report), the report's first part
    first: a question naming a company with a report of its own is answered from that report
    first; what others write of it (a ranking, a customer list) keeps the places the question
    gives it. Scores stay with the places. When the question without the name shares no word
    with the report (an English question's only Chinese word was the name), ``whole`` stands."""
    own = set(doc_ids)
    if not shares_words(unnamed, doc_ids):
        return whole
    mine = _agreed(
        [h for h in whole.hits if h.chunk.doc_id in own],
        [h for h in unnamed.hits if h.chunk.doc_id in own],
    )
    queue = iter(mine)
    hits: list[Hit] = []
    for hit in whole.hits:
        if hit.chunk.doc_id in own:
            nxt = next(queue, None)
            if nxt is not None:
                hits.append(replace(_noted(nxt, company), score=hit.score))
        else:
            hits.append(hit)
    placed = {h.chunk.chunk_id for h in hits}
    floor = hits[-1].score if hits else mine[0].score
    hits += [
        replace(_noted(h, company), score=floor) for h in queue if h.chunk.chunk_id not in placed
    ]
    hits = report_first(hits, own)
    # each type found keeps its place in the top k, as in either ranking (``scoring``)
    types = list(dict.fromkeys(h.chunk.type for h in (*whole.hits, *unnamed.hits)))
    hits = _apply_quotas(hits, k, types)
    note = f"{company}'s report ranked by the question without the name, its first part first"
    why = Reason.of("note_company_first", company=company)
    return replace(
        whole,
        hits=finalise(hits, k),
        notes=(*whole.notes, note),
        why=(*whole.why, why),
        ms=whole.ms + unnamed.ms,
    )


def report_first(hits: Sequence[Hit], doc_ids: Collection[str]) -> list[Hit]:
    """``hits`` with the first part of the named company's own report (``doc_ids``) moved to
    the top and those it passes a place down, scores staying with the places."""
    first = next((i for i, h in enumerate(hits) if h.chunk.doc_id in doc_ids), 0)
    if not first:
        return list(hits)
    moved = [hits[first], *hits[:first], *hits[first + 1 :]]
    return [replace(h, score=p.score) for h, p in zip(moved, hits, strict=True)]


def _agreed(named: list[Hit], unnamed: list[Hit]) -> list[Hit]:
    """The report's parts by the sum of their places in both rankings (the question with the
    name and without it; a part one of them misses is placed after its last), ties to the
    ranking without the name: the name still counts where the report writes it of itself
    ("比亚迪2024年12月新能源汽车销量" beside the industry's), but can no longer put the page that
    writes it most first on its own."""
    first = {h.chunk.chunk_id: i for i, h in enumerate(named)}
    second = {h.chunk.chunk_id: i for i, h in enumerate(unnamed)}
    hits = {h.chunk.chunk_id: h for h in named}
    hits.update({h.chunk.chunk_id: h for h in unnamed})

    def place(chunk_id: str) -> tuple[int, int]:
        a, b = first.get(chunk_id, len(first)), second.get(chunk_id, len(second))
        return a + b, b

    return [hits[c] for c in sorted(hits, key=place)]


def shares_words(unnamed: RetrievalTrace, doc_ids: Sequence[str]) -> bool:
    """Whether the question without the company's name found words of its report (a keyword
    score above zero): an English question whose one Chinese word was the name finds none."""
    for hit in unnamed.hits:
        found = hit.signal("bm25")
        if hit.chunk.doc_id in doc_ids and found is not None and found.score > 0:
            return True
    return False


def _noted(hit: Hit, company: str) -> Hit:
    why = Reason.of("hit_within_company", company=company)
    return hit.noted(f"ranked within {company}'s report without its name", why)
