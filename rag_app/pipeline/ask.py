"""``Pipeline``: a question in, a streamed answer with its evidence out.

Stages: retrieve (smart or hybrid) -> build the prompt (token budget) -> generate (any ``LLM``:
an OpenAI-compatible provider, or the offline extractive answerer) -> check citations. ``stream``
yields events as each stage starts and each token arrives, then the final ``Answer``; ``ask``
returns only the Answer. The UI and the CLI render what this returns and compute nothing.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Generator, Iterator, Sequence
from dataclasses import dataclass, replace

from rag_app.answer import LLM, ChatMessage, ExtractiveAnswerer, GenerationRequest, Usage
from rag_app.answer.offline import DECLINED_FALLBACK_NOTICE, FALLBACK_NOTICE
from rag_app.answer.short import short_answer
from rag_app.chat.audit import AuditLog, record_of
from rag_app.cite import CitationReport
from rag_app.config import Settings
from rag_app.index.library import Library
from rag_app.models import (
    Answer,
    AskOptions,
    Mode,
    PipelineEvent,
    RetrievalTrace,
    RevisionRound,
    SearchFilter,
    ShortAnswer,
    Understood,
)
from rag_app.pipeline.facts_note import facts_note
from rag_app.pipeline.series import library_series
from rag_app.prompt import PromptResult, PromptSettings, Turn, build_prompt
from rag_app.prompt.history import strip_citations
from rag_app.trust.findings import Finding
from rag_app.trust.self_rag import RevisionSteps, revise
from rag_app.understand.analysis import QueryAnalysis, analyse_query

# Re-exported: the result types used to live here, and callers still import them from here.
__all__ = ["Answer", "AskOptions", "Mode", "Pipeline", "PipelineEvent", "build_request"]
_log = logging.getLogger(__name__)
_CHECK_NOTE = {"zh": "检索核对：", "en": "Library check: "}


class Pipeline:
    """Composes the stages over a Library; ``llm`` None means the offline extractive answerer."""

    def __init__(
        self,
        settings: Settings,
        library: Library,
        llm: LLM | None = None,
        audit: AuditLog | None = None,
        client: str = "app",
    ) -> None:
        self.settings = settings
        self.library = library
        # Every answer is recorded here when given (the app, the CLI, the API), as ``client``.
        self.audit = audit
        self.client = client
        # The offline answerer answers when no model is configured, and in a model's place when
        # the model fails before it has written anything.
        self.offline = ExtractiveAnswerer(settings=settings.offline)
        self.fallback = ExtractiveAnswerer(
            settings=settings.offline,
            notice=FALLBACK_NOTICE,
            declined_notice=DECLINED_FALLBACK_NOTICE,
        )
        self.llm: LLM = llm if llm is not None else self.offline

    @property
    def answerer_name(self) -> str:
        return self.llm.name

    # retrieval ----------------------------------------------------------------------------------
    def retrieve(self, question: str, options: AskOptions) -> RetrievalTrace:
        """Retrieve for a question with the options' mode (the API's search, the warm-up, the
        queries model rewrites add): the question is analysed here. Raises ValueError on an
        empty one."""
        limit = self.settings.max_question_chars
        return self.retrieve_query(analyse_query(_check_question(question, limit)), options)

    def retrieve_query(self, query: QueryAnalysis, options: AskOptions) -> RetrievalTrace:
        """Retrieve for a question's analysis with the options' mode; raises ValueError on an
        empty question."""
        from rag_app.retrieve.strategies import retrieve_query

        _check_question(query.text, self.settings.max_question_chars)
        return retrieve_query(
            self.library,
            options.kb,
            query,
            mode=options.mode,
            k=options.top_k or self.settings.top_k,
            search_filter=SearchFilter(doc_ids=options.doc_ids),
            settings=self.settings,
        )

    def check(self, query: QueryAnalysis, options: AskOptions) -> Finding:
        """What of the question's company, periods and metrics the library does not hold."""
        from rag_app.trust.answerability import assess

        try:
            return assess(query, self.library, options.kb, options.doc_ids)
        except Exception as exc:  # noqa: BLE001 - a check that fails never costs the answer
            _log.warning("the answerability check failed: %s", exc)
            return Finding()

    def understand(self, question: str, history: Sequence[Turn], options: AskOptions) -> Understood:
        """``question`` made standalone from the conversation's earlier questions (the model
        rewrites it when one is configured, else what they named carries over)."""
        from rag_app.pipeline.followups import understand

        model = None if self.llm is self.offline else self.llm
        earlier = [turn.user for turn in history]
        answer = strip_citations(history[-1].assistant) if history else ""
        return understand(
            question, earlier, self.library, options.kb, self.settings, model, answer=answer
        )

    def prompt_settings(self, options: AskOptions) -> PromptSettings:
        """The settings' prompt knobs with this question's budget, mode and system prompt."""
        base = self.settings.prompt
        return replace(
            base,
            context_budget=options.context_budget or base.context_budget,
            mode=options.prompt_mode,  # type: ignore[arg-type]
            system_prompt=options.system_prompt,
        )

    def _with_facts(
        self,
        prompt: PromptResult,
        query: QueryAnalysis,
        trace: RetrievalTrace,
        options: AskOptions,
        history: Sequence[Turn],
        doc_names: dict[str, str],
        note: str,
    ) -> PromptResult:
        """``prompt`` rebuilt with the facts note after ``note``, when the question asks about
        table cells and the rebuilt prompt numbers its sources as the note cites them."""
        numbered = [(s.number, s.hit.chunk) for s in prompt.sources]
        facts = facts_note(query, numbered, prompt.language)
        if not facts:
            return prompt
        rebuilt = self.build(
            query, trace, options, history, doc_names, f"{note}\n\n{facts}".strip()
        )
        same = [(s.number, s.hit.chunk.chunk_id) for s in rebuilt.sources]
        return (
            rebuilt if same[: len(numbered)] == [(n, c.chunk_id) for n, c in numbered] else prompt
        )

    def build(
        self,
        query: QueryAnalysis,
        trace: RetrievalTrace,
        options: AskOptions,
        history: Sequence[Turn] = (),
        doc_names: dict[str, str] | None = None,
        note: str = "",
    ) -> PromptResult:
        """The prompt for the question over the trace's hits; ``note`` goes to the model as its
        own instruction, apart from the question whose words pick the excerpts."""
        names = {d.doc_id: d.name for d in self.library.documents(options.kb)}
        # Names read when the question started win: a document deleted since keeps its name.
        names.update(doc_names or {})
        return build_prompt(
            query,
            list(trace.hits),
            history=tuple(history),
            settings=self.prompt_settings(options),
            counter=self.library.counter,
            doc_names=names,
            note=note,
        )

    # answering ----------------------------------------------------------------------------------
    def stream(
        self, question: str, options: AskOptions, history: Sequence[Turn] = ()
    ) -> Iterator[PipelineEvent]:
        """Run every stage, yielding events; the last event is always ``answer``.

        Provider failures end the stream with an ``error`` event followed by the Answer, which
        keeps whatever text had streamed. An empty question raises ValueError before anything.
        """
        question = _check_question(question, self.settings.max_question_chars)
        timings: list[tuple[str, float]] = []
        started = time.perf_counter()

        yield PipelineEvent("stage", stage="retrieving")
        doc_names = {d.doc_id: d.name for d in self.library.documents(options.kb)}
        understood = None
        if history:
            # A follow-up is made standalone from the conversation; retrieval, the offline
            # answerer and the prompt's question read it so.
            t0 = time.perf_counter()
            understood = self.understand(question, history, options)
            timings.append(("understand_ms", (time.perf_counter() - t0) * 1000))
            if understood.rewritten or understood.note:
                yield PipelineEvent(
                    "stage",
                    stage="understood",
                    data={"question": understood.text, "how": understood.how},
                )
        t0 = time.perf_counter()
        # Read once (its embedding too) with the library's companies, and passed to every stage.
        from rag_app.retrieve.subjects import company_names_by_document

        companies = company_names_by_document(self.library, options.kb)
        analysis = analyse_query(question, understood, self.library.embedder, companies)
        trace = self.retrieve_query(analysis, options)
        rewrites = self.settings.rewrites
        if self.llm is not self.offline and (
            rewrites.multi_query or rewrites.hyde or rewrites.decompose
        ):
            # Seed 001's rewrites: more queries from the model, their hits fused in.
            from rag_app.pipeline.expansions import expand

            yield PipelineEvent("stage", stage="expanding")
            k = options.top_k or self.settings.top_k
            trace = expand(
                trace,
                self.llm,
                rewrites,
                lambda q: self.retrieve(q, options),
                k,
                self.settings.rrf_k,
            )
            yield PipelineEvent(
                "stage", stage="expanded", data={"queries": [e.query for e in trace.expansions]}
            )
        timings.append(("retrieve_ms", (time.perf_counter() - t0) * 1000))
        # Whether the library holds what the question names (company, period, metric).
        finding = self.check(analysis, options)
        note = finding.note(analysis.language)
        if finding.gaps:
            yield PipelineEvent(
                "stage",
                stage="checked",
                data={"note": note, "declined": finding.declines},
            )
        yield PipelineEvent("stage", stage="retrieved", data={"hits": len(trace.hits)})

        yield PipelineEvent("stage", stage="building_prompt")
        t0 = time.perf_counter()
        # A model is told what the library lacks, and to say so (the offline answerer reads it
        # from the request), in a note of its own: inside the question, the companies and row
        # labels it lists would pick the sources' excerpts.
        check_note = ""
        if finding.gaps and self.llm is not self.offline:
            check_note = f"{_CHECK_NOTE[analysis.language]}{note}"
        prompt = self.build(analysis, trace, options, history, doc_names, check_note)
        if self.llm is not self.offline:  # the cells asked about, cited, as a small table
            prompt = self._with_facts(
                prompt, analysis, trace, options, history, doc_names, check_note
            )
        timings.append(("prompt_ms", (time.perf_counter() - t0) * 1000))
        yield PipelineEvent(
            "stage", stage="prompt_built", data={"prompt_tokens": prompt.report.prompt_tokens}
        )

        yield PipelineEvent("stage", stage="generating")
        t0 = time.perf_counter()
        request = replace(
            build_request(analysis, prompt),
            finding=note,
            declined=finding.declines,
        )
        generated = yield from self._generate(self.llm, request, started, timings)
        answerer, fallback_from = self.llm.name, ""
        if generated.error and not generated.text and self.llm is not self.offline:
            # Nothing came from the model: answer from the same retrieval offline, marked as such,
            # rather than leave the user with an error alone.
            yield PipelineEvent("stage", stage="fallback", data={"answerer": self.fallback.name})
            offline = yield from self._generate(self.fallback, request, started, timings)
            answerer, fallback_from = self.fallback.name, self.llm.name
            generated = replace(offline, error=generated.error, error_kind=generated.error_kind)
        timings.append(("generate_ms", (time.perf_counter() - t0) * 1000))
        text, usage, error, error_kind = (
            generated.text,
            generated.usage,
            generated.error,
            generated.error_kind,
        )

        t0 = time.perf_counter()
        # A declined offline answer quotes nothing: there is nothing to check (and no ✅ to show).
        quoted_nothing = finding.declines and answerer == self.offline.name
        citations = None if quoted_nothing else self._check(text, prompt, analysis)
        if citations is not None:
            timings.append(("cite_ms", (time.perf_counter() - t0) * 1000))
        revisions: tuple[RevisionRound, ...] = ()
        if self.settings.self_rag.enabled and self.llm is not self.offline:
            if answerer == self.llm.name and not error:
                # Seed 001's Self-RAG: what the check flags is retrieved for, the answer revised.
                yield PipelineEvent("stage", stage="revising")
                t0 = time.perf_counter()
                draft = (text, trace, prompt, citations)
                steps = self.revision_steps(analysis, options, history)
                r = revise(steps, self.settings.self_rag, analysis, *draft)
                text, trace, prompt, citations = r.text, r.trace, r.prompt, r.citations
                revisions = r.rounds
                timings.append(("self_rag_ms", (time.perf_counter() - t0) * 1000))
        series, t0 = None, time.perf_counter()
        if not finding.declines:  # one metric over periods or companies, each point cited
            found = options.doc_ids or tuple({h.chunk.doc_id: 0 for h in trace.hits})
            series = library_series(self.library, options.kb, analysis, found)
            timings.append(("series_ms", (time.perf_counter() - t0) * 1000))
        timings.append(("total_ms", (time.perf_counter() - started) * 1000))
        numbered = [(source.number, source.hit.chunk) for source in prompt.sources]
        short = ShortAnswer() if finding.declines else short_answer(text, numbered, analysis)
        answer = Answer(
            question=question,
            text=text,
            retrieval=trace,
            prompt=prompt,
            citations=citations,
            answerer=answerer,
            fallback_from=fallback_from,
            timings=tuple(timings),
            usage=usage,
            error=error,
            error_kind=error_kind,
            understood=understood,
            finding=note,
            declined=finding.declines,
            revisions=revisions,
            short=short,
            series=series,
        )
        answer = replace(answer, audit_id=self._record(answer, options))
        yield PipelineEvent("stage", stage="done")
        yield PipelineEvent("answer", answer=answer)

    def revision_steps(
        self, query: QueryAnalysis, options: AskOptions, history: Sequence[Turn]
    ) -> RevisionSteps:
        """What Self-RAG's rounds call for the question ``query``: this pipeline's retrieval (of
        the queries a round builds), prompt (without the document names read when the question
        started), model and check."""
        return RevisionSteps(
            retrieve=lambda text: self.retrieve(text, options),
            build=lambda trace, note: self.build(query, trace, options, history, None, note),
            generate=lambda prompt: self.llm.stream(build_request(query, prompt)),
            check=lambda text, prompt: self._check(text, prompt, query),
        )

    def _record(self, answer: Answer, options: AskOptions) -> int:
        """The answer's audit record, its id; a log that cannot be written never costs the
        answer (0)."""
        if self.audit is None:
            return 0
        try:
            return self.audit.add(record_of(answer, options, user=options.user, client=self.client))
        except Exception as exc:  # noqa: BLE001 - logged; the user still gets the answer
            _log.warning("could not write the audit record: %s", exc)
            return 0

    def _generate(
        self, llm: LLM, request: GenerationRequest, started: float, timings: list[tuple[str, float]]
    ) -> Generator[PipelineEvent, None, Generated]:
        """Stream ``llm``'s answer to ``request`` as pipeline events; returns what came."""
        parts: list[str] = []
        usage: Usage | None = None
        error, error_kind = "", ""
        for event in llm.stream(request):
            if event.kind == "token":
                if not any(name == "first_token_ms" for name, _ in timings):
                    timings.append(("first_token_ms", (time.perf_counter() - started) * 1000))
                    yield PipelineEvent("stage", stage="first_token")
                parts.append(event.text)
                yield PipelineEvent("token", text=event.text)
            elif event.kind == "usage":
                usage = event.usage
            elif event.kind == "retry":
                yield PipelineEvent(
                    "retry",
                    text=event.error,
                    data={"attempt": event.attempt, "delay_s": event.delay_s},
                )
            elif event.kind == "error":
                error, error_kind = event.error, event.error_kind
                yield PipelineEvent("error", text=event.error, data={"kind": event.error_kind})
            elif event.kind == "done" and event.usage is not None:
                usage = event.usage
        return Generated("".join(parts), usage, error, error_kind)

    def ask(self, question: str, options: AskOptions, history: Sequence[Turn] = ()) -> Answer:
        """The whole answer at once (the CLI's and the evaluation's way)."""
        answer = None
        for event in self.stream(question, options, history):
            if event.kind == "answer":
                answer = event.answer
        assert answer is not None
        return answer

    def _check(
        self, text: str, prompt: PromptResult, query: QueryAnalysis
    ) -> CitationReport | None:
        if not text.strip():
            return None
        from rag_app.cite import check_answer

        sources = {s.number: s for s in prompt.sources}
        return check_answer(
            text, sources, self.library.embedder, query, settings=self.settings.cite
        )


@dataclass(frozen=True)
class Generated:
    """What one model streamed: its text, usage, and the error that ended it ("" when none)."""

    text: str
    usage: Usage | None
    error: str
    error_kind: str


def _check_question(question: str, limit: int) -> str:
    """The question stripped; ValueError when empty or over ``limit`` characters
    (``Settings.max_question_chars``)."""
    question = (question or "").strip()
    if not question:
        raise ValueError("the question is empty")
    if len(question) > limit:
        raise ValueError(f"the question is longer than {limit} characters; shorten it")
    return question


def build_request(query: QueryAnalysis, prompt: PromptResult) -> GenerationRequest:
    """The request for the answer to the question ``query``: ``prompt``'s messages and numbered
    sources, the question's analysis, and the question's own language (the offline answerer's
    notice follows it, not the prompt's language setting)."""
    return GenerationRequest(
        messages=tuple(
            ChatMessage(role=m["role"], content=m["content"])  # type: ignore[arg-type]
            for m in prompt.chat_messages()
        ),
        analysis=query,
        sources=tuple((s.number, s.hit.chunk) for s in prompt.sources),
        language=query.language,
    )
