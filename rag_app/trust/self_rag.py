"""Self-RAG (seed 001, "Self-RAG 自我验证和迭代"): a model's answer checked, what it misses
retrieved, and the answer revised, in bounded rounds.

The seed has the model grade its own answer (relevance, accuracy, completeness, citations) and
regenerate below a score. Here the grading is the citation check the pipeline already runs,
which needs no model call: a factual sentence its sources do not support, or one about another
company, period or metric than the question asks (``rag_app.cite.relevance``), is a claim
missing its evidence. A round then
1. builds a query per flagged claim, worst first: for a sentence off the question, what the
   question asks (its company, periods and metrics, ``text.aspects``); for an unsupported one,
   the claim itself;
2. retrieves each query and brings the chunks not yet retrieved into the hits, interleaved
   with the first answer's (each recorded as an ``Expansion`` of kind ``self_rag`` in the trace);
3. asks the model again, with the new prompt and the flagged claims named as the question's
   note (as the library check's note is), and checks the revision;
4. keeps the revision only when it has fewer flagged claims (the seed's "best answer").
Rounds stop at ``max_rounds``, when nothing is flagged, when a revision is no better, or at
``time_limit_s`` after the first answer (a revision still streaming then is dropped). Every
round is recorded as a ``RevisionRound``. Retrieval, the prompt, the model and the check are
handed in by the caller (``RevisionSteps``): this module never imports the pipeline.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace

from rag_app.answer import LLMEvent
from rag_app.cite import CitationReport
from rag_app.config import SelfRagSettings
from rag_app.models import Expansion, Hit, Reason, RetrievalTrace, RevisionRound, Usage
from rag_app.prompt import PromptResult
from rag_app.understand.analysis import QueryAnalysis

_NOTE = {
    "zh": "自查：上一版回答中这些陈述未被来源支持或与问题不符，请只依据来源重新回答，来源中没有的请直说：",
    "en": "Self-check: these statements of a first answer were not supported by the sources or "
    "not about the question; answer again from the sources only, and say what they do not hold: ",
}


@dataclass(frozen=True)
class RevisionSteps:
    """What a round calls, each bound by the caller to the question (its options, conversation
    and analysis): ``retrieve`` a query; ``build`` the question's prompt over a trace, with a
    note to the model apart from the question; ``generate`` the model's stream of events for a
    prompt; ``check`` an answer's citations against a prompt's sources."""

    retrieve: Callable[[str], RetrievalTrace]
    build: Callable[[RetrievalTrace, str], PromptResult]
    generate: Callable[[PromptResult], Iterable[LLMEvent]]
    check: Callable[[str, PromptResult], CitationReport | None]


@dataclass(frozen=True)
class Revision:
    """The answer after Self-RAG: its text, retrieval, prompt and citation check (the first
    answer's when no revision was kept), and every round."""

    text: str
    trace: RetrievalTrace
    prompt: PromptResult
    citations: CitationReport | None
    rounds: tuple[RevisionRound, ...] = ()


def flagged_claims(report: CitationReport | None) -> list[tuple[str, str, bool]]:
    """The factual sentences of ``report`` missing their evidence, worst first: (claim, why,
    whether it is off the question)."""
    if report is None:
        return []
    bad = [s for s in report.sentences if s.factual and (not s.supported or not s.relevant)]
    bad.sort(key=lambda s: (s.relevant, s.support))
    return [(s.text, s.off_subject if not s.relevant else s.reason, not s.relevant) for s in bad]


def missing_queries(
    question: QueryAnalysis,
    claims: Sequence[tuple[str, str, bool]],
    limit: int,
    max_chars: int = SelfRagSettings.max_query_chars,
) -> list[str]:
    """One query per flagged claim, at most ``limit``, no two alike, a claim's own cut to
    ``max_chars`` (see the module)."""
    asked = question.aspects()
    wanted = (
        " ".join(dict.fromkeys((*asked.names, *asked.periods, *asked.metrics))) or question.text
    )
    queries: list[str] = []
    for claim, _, off in claims:
        query = wanted if off else claim[:max_chars]
        if query.strip() and query not in queries:
            queries.append(query)
    return queries[:limit]


def revise(
    steps: RevisionSteps,
    settings: SelfRagSettings,
    question: QueryAnalysis,
    text: str,
    trace: RetrievalTrace,
    prompt: PromptResult,
    citations: CitationReport | None,
    *,
    clock: Callable[[], float] = time.monotonic,
) -> Revision:
    """Self-RAG rounds after the first answer ``text`` to ``question`` (its analysis; see the
    module), within ``settings``' bounds, through ``steps``. ``trace``, ``prompt`` and
    ``citations`` are the first answer's; the notes to the model are in the question's
    language. Never raises for what a round meets (a failed retrieval or model ends the rounds,
    noted); returns the first answer unchanged when there is nothing to revise."""
    deadline = clock() + settings.time_limit_s
    current = Revision(text, trace, prompt, citations)
    rounds: list[RevisionRound] = []
    ask = _Asked(question, question.language, settings, deadline, clock)
    for number in range(1, settings.max_rounds + 1):
        claims = flagged_claims(current.citations)
        if not claims:
            break
        flagged = tuple(f"{c}: {why}" for c, why, _ in claims)
        if clock() >= deadline:
            rounds.append(RevisionRound(number, flagged, note="time limit reached"))
            break
        started = clock()
        try:
            candidate, queries, added, usage, note = _round(steps, current, claims, number, ask)
        except Exception as exc:  # noqa: BLE001 - a failed round never costs the first answer
            candidate, queries, added, usage, note = None, [], [], None, f"failed: {exc}"
        kept = candidate is not None and _bad(candidate.citations) < len(claims)
        if candidate is not None and not kept and not note:
            note = "the revision was no better"
        rounds.append(
            RevisionRound(
                number,
                flagged,
                queries=tuple(queries),
                added=tuple(added),
                draft=current.text,
                kept=kept,
                ms=(clock() - started) * 1000,
                note=note,
                usage=usage,
            )
        )
        if not kept or candidate is None:
            break
        current = candidate
    return replace(current, rounds=tuple(rounds))


@dataclass(frozen=True)
class _Asked:
    """What every round of one question shares."""

    question: QueryAnalysis
    language: str
    settings: SelfRagSettings
    deadline: float
    clock: Callable[[], float]


def _round(
    steps: RevisionSteps,
    current: Revision,
    claims: list[tuple[str, str, bool]],
    number: int,
    ask: _Asked,
) -> tuple[Revision | None, list[str], list[str], Usage | None, str]:
    """One round: (the revision or None, its queries, the chunks they added, usage, a note)."""
    settings = ask.settings
    queries = missing_queries(ask.question, claims, settings.max_queries, settings.max_query_chars)
    cited = {
        h.chunk.chunk_id
        for source in current.prompt.sources
        if current.citations is not None and source.number in current.citations.cited_sources
        for h in (source.hit, *source.parts)
    }
    trace, added = _with_found(
        current.trace,
        cited,
        queries,
        number,
        settings.hits_per_query,
        steps.retrieve,
    )
    note = _NOTE.get(ask.language, _NOTE["en"]) + "; ".join(
        f"「{c}」({why})" for c, why, _ in claims
    )
    # The note apart from the question: its claims' words must not pick the excerpts.
    prompt = steps.build(trace, note)
    parts: list[str] = []
    usage: Usage | None = None
    stream = steps.generate(prompt)
    try:
        for event in stream:
            if ask.clock() >= ask.deadline:
                return None, queries, added, usage, "time limit reached while revising"
            if event.kind == "token":
                parts.append(event.text)
            elif event.kind in ("usage", "done") and event.usage is not None:
                usage = event.usage
            elif event.kind == "error":
                return None, queries, added, usage, f"the model failed: {event.error}"
    finally:
        close = getattr(stream, "close", None)
        if close is not None:
            close()  # a revision dropped mid-stream lets go of its connection
    text = "".join(parts)
    if not text.strip():
        return None, queries, added, usage, "the revision was empty"
    return Revision(text, trace, prompt, steps.check(text, prompt)), queries, added, usage, ""


def _with_found(
    trace: RetrievalTrace,
    cited: set[str],
    queries: list[str],
    number: int,
    per_query: int,
    retrieve: Callable[[str], RetrievalTrace],
) -> tuple[RetrievalTrace, list[str]]:
    """``trace`` with up to ``per_query`` new chunks from each query's retrieval and an
    ``Expansion`` per query. The new chunks take the places of the last hits the answer did not
    cite (``cited``: chunk ids), so the prompt's budget holds them and every source before keeps
    its number; more new chunks than such places are added after."""
    seen = {h.chunk.chunk_id for h in trace.hits}
    found: list[Hit] = []
    expansions = []
    for query in queries:
        new = [h for h in retrieve(query).hits if h.chunk.chunk_id not in seen][:per_query]
        seen.update(h.chunk.chunk_id for h in new)
        found.extend(
            replace(
                h,
                strategy="self_rag",
                note=f"found by Self-RAG round {number}",
                why=(Reason.of("hit_self_rag", round=number),),
            )
            for h in new
        )
        expansions.append(Expansion("self_rag", query, tuple(h.chunk.chunk_id for h in new)))
    kept = list(trace.hits)
    for _ in found:
        if not kept or kept[-1].chunk.chunk_id in cited:
            break
        kept.pop()
    hits = tuple(replace(h, rank=rank) for rank, h in enumerate(kept + found, start=1))
    added = [h.chunk.chunk_id for h in found]
    return replace(trace, hits=hits, expansions=trace.expansions + tuple(expansions)), added


def _bad(report: CitationReport | None) -> int:
    return len(flagged_claims(report))
