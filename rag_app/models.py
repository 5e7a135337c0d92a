"""Typed data passed between the pipeline's stages.

Everything here is a frozen dataclass: stages return new objects (``dataclasses.replace``) rather
than editing what they were given, so a hit or a chunk can be shared between the UI, the CLI and
the evaluation without surprises.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Literal

ChunkType = Literal["text", "table", "image", "qa"]
CHUNK_TYPES: tuple[ChunkType, ...] = ("text", "table", "image", "qa")


@dataclass(frozen=True)
class Item:
    """One entry of a parsed document, normalised from any input format.

    ``index`` is the entry's position in the source list as written (before any filtering), which
    is what gold evidence and citations refer to. ``kind`` is the source type (``text``,
    ``heading``, ``table``, ``image``, ``equation``, ``code``, ``list``, ``chart``, ``qa``).
    """

    index: int
    kind: str
    text: str = ""
    page: int | None = None
    level: int = 0  # heading level; 0 for body items
    table_body: str = ""  # raw HTML of a table, as the parser wrote it
    caption: tuple[str, ...] = ()
    footnote: tuple[str, ...] = ()
    image_path: str = ""
    description: str = ""  # a chart's or image's own description, when the parser gave one
    fields: tuple[tuple[str, str], ...] = ()  # extra named values (Q&A sheets: tags, grade)


@dataclass(frozen=True)
class Document:
    """A parsed input file: its items plus what the library catalogue shows about it."""

    doc_id: str
    # what the library lists it under: the file name the user gave, or for a file kept beside
    # a document of that name, the id it was kept as ("report (2)")
    name: str
    source_format: str  # content_list / zip / markdown / sheet
    items: tuple[Item, ...]
    content_hash: str
    size_bytes: int
    assets_dir: str = ""  # folder holding the document's images, when it came with any


@dataclass(frozen=True)
class Chunk:
    """The unit that is embedded, keyword-indexed, retrieved and cited.

    ``text`` is what a reader sees; ``search_text`` is what the embedder and the keyword index
    see (heading path, caption and linearised rows added). ``item_indices`` are the source items
    it was built from.
    """

    chunk_id: str
    doc_id: str
    type: ChunkType
    text: str
    search_text: str
    item_indices: tuple[int, ...]
    pages: tuple[int, ...] = ()
    heading_path: tuple[str, ...] = ()
    # tables
    table_html: str = ""
    caption: str = ""
    footnote: str = ""
    context: str = ""  # the paragraph that introduces a table or figure
    n_rows: int = 0
    n_cols: int = 0
    header_rows: int = 0
    parent_table_id: str = ""  # set on sub-tables of a table split by rows
    subtable_index: int = 0  # 1-based position among the sub-tables; 0 when not split
    subtable_count: int = 0
    # images
    image_path: str = ""
    description: str = ""
    # Q&A examples and other named values
    fields: tuple[tuple[str, str], ...] = ()

    @property
    def page(self) -> int | None:
        return self.pages[0] if self.pages else None

    def field(self, name: str, default: str = "") -> str:
        return dict(self.fields).get(name, default)


@dataclass(frozen=True)
class Signal:
    """One retrieval signal's view of a hit: its raw score and its 1-based rank in that signal's
    list; rank 0 for signals that score candidates without ranking them (structure, numbers)."""

    score: float
    rank: int


@dataclass(frozen=True)
class Hit:
    """A retrieved chunk with the evidence of how it was found.

    ``signals`` maps a signal name (``dense``, ``bm25``, ``structure`` ...) to its score and rank;
    ``strategy`` names the retriever or layer that produced the hit; ``score`` is the final score
    that ``rank`` orders by.
    """

    chunk: Chunk
    score: float
    rank: int = 0
    strategy: str = ""
    signals: tuple[tuple[str, Signal], ...] = ()
    weight: float = 1.0  # fusion weight applied to this hit's list, when fused
    note: str = ""  # a human-readable reason (which layer, which threshold)
    why: tuple[Reason, ...] = ()  # ``note`` as keys and values, a clause each, for the UI

    def signal(self, name: str) -> Signal | None:
        return dict(self.signals).get(name)

    def noted(self, note: str, why: Reason, sep: str = "; ") -> Hit:
        """This hit with ``note`` added to its note (after ``sep``) and ``why`` to its keys."""
        return replace(
            self, note=f"{self.note}{sep}{note}" if self.note else note, why=(*self.why, why)
        )

    def to_json(self) -> dict[str, Any]:
        """The hit as ``rag-app search --json`` prints it and the API returns it, with its
        signals (the trace)."""
        return {
            "rank": self.rank,
            "score": self.score,
            "strategy": self.strategy,
            "note": self.note,
            "chunk_id": self.chunk.chunk_id,
            "doc_id": self.chunk.doc_id,
            "type": self.chunk.type,
            "pages": list(self.chunk.pages),
            "item_indices": list(self.chunk.item_indices),
            "signals": {n: {"score": s.score, "rank": s.rank} for n, s in self.signals},
            "text": self.chunk.text,
        }


@dataclass(frozen=True)
class IngestReport:
    """What happened to one input file."""

    name: str
    # conflict: a different file under a taken document id; nothing was written (admission)
    status: Literal["ingested", "duplicate", "rejected", "conflict"]
    doc_id: str = ""
    message: str = ""
    type_counts: tuple[tuple[str, int], ...] = ()
    n_chunks: int = 0
    warnings: tuple[str, ...] = ()
    # a rejection's reason as a key and values (``IngestError.why``), for the UI's languages
    why: Reason | None = None


@dataclass(frozen=True)
class DocumentInfo:
    """A row of the library catalogue."""

    doc_id: str
    name: str  # shown wherever it is listed, picked or confirmed (``Document.name``)
    source_format: str
    n_items: int
    n_chunks: int
    type_counts: tuple[tuple[str, int], ...]
    pages: int
    size_bytes: int
    content_hash: str
    ingested_at: str
    assets_dir: str = ""


@dataclass(frozen=True)
class Progress:
    """A step of long work, for progress bars: ``done`` of ``total`` in ``stage``."""

    stage: str
    done: int
    total: int
    message: str = ""


@dataclass(frozen=True)
class SearchFilter:
    """Restricts candidates: by chunk types and by documents (empty means all)."""

    types: tuple[str, ...] = ()
    doc_ids: tuple[str, ...] = ()


NO_FILTER = SearchFilter()


@dataclass(frozen=True)
class Reason:
    """Why something was decided, as a message key and its values, so that each UI language can
    word it; the core also keeps an English wording (logs, CLI). Values are display strings."""

    key: str
    values: tuple[tuple[str, str], ...] = ()

    def value(self, name: str) -> str:
        return dict(self.values).get(name, "")

    @classmethod
    def of(cls, key: str, **values: object) -> Reason:
        """The reason ``key`` with ``values``, each turned to text."""
        return cls(key, tuple((k, str(v)) for k, v in values.items()))


@dataclass(frozen=True)
class Routing:
    """Smart mode's decision: the query's detected content type, how sure, and why."""

    detected_type: str  # text / table / image
    confidence: float
    evidence: tuple[str, ...]  # the cues that matched, e.g. ("表格", "table:盈利预测")
    scores: tuple[tuple[str, float], ...]  # per-type evidence scores
    single_type: bool  # True when confidence reached the threshold: that type preferred
    reason: str  # in English
    threshold: float = 0.0
    why: Reason = Reason("")  # the reason as a key: no_cues / single / hybrid


@dataclass(frozen=True)
class LayerStep:
    """One layer of layered recall for one type: what it found and whether it ran at all."""

    type: str
    layer: str  # structure / semantic / keyword / expansion
    threshold: float
    found: int  # new candidates this layer added
    total: int  # candidates after it
    ran: bool
    reason: str = ""


@dataclass(frozen=True)
class Expansion:
    """One query a model rewrite added (seed 001): its kind (multi_query / hyde / decompose), the
    query, and the chunks it brought that the question's own retrieval had not."""

    kind: str
    query: str
    added: tuple[str, ...] = ()


@dataclass(frozen=True)
class RetrievalTrace:
    """What retrieval returned and how: hits in final order, the routing, the layers."""

    query: str
    mode: str
    hits: tuple[Hit, ...]
    routing: Routing | None = None
    layers: tuple[LayerStep, ...] = ()
    notes: tuple[str, ...] = ()
    expanded_terms: tuple[str, ...] = ()
    ms: float = 0.0
    expansions: tuple[
        Expansion, ...
    ] = ()  # what model rewrites added (rag_app.pipeline.expansions)
    why: tuple[Reason, ...] = ()  # ``notes`` as keys and values, one each, for the UI to word

    def by_type(self, chunk_type: str) -> tuple[Hit, ...]:
        return tuple(h for h in self.hits if h.chunk.type == chunk_type)


@dataclass(frozen=True)
class Usage:
    """The tokens one answer took, as the provider reported them (or as counted locally)."""

    prompt_tokens: int
    completion_tokens: int
    estimated: bool = False  # True when counted locally because the provider sent no usage

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


Mode = Literal["smart", "hybrid"]


@dataclass(frozen=True)
class Understood:
    """The question as retrieval and answering took it: standalone, built from the conversation.

    ``how``: "" (as asked), "carried" (what earlier turns named carried over, no model) or
    "model" (rewritten by the model); ``carried`` what came from earlier turns; ``note`` why the
    model's rewrite was not used, when it was tried and failed.
    """

    text: str
    how: str = ""
    carried: tuple[str, ...] = ()
    note: str = ""

    @property
    def rewritten(self) -> bool:
        return bool(self.how)


@dataclass(frozen=True)
class RevisionRound:
    """One Self-RAG round (``rag_app.trust.self_rag``): the claims of the answer before it (``draft``)
    found unsupported or off the question (``flagged``, "claim: why"), the ``queries`` retrieved
    for what they miss and the chunks that brought (``added``), and whether the revised answer
    was ``kept`` in the draft's place (``note`` says why not, or why the round stopped)."""

    number: int
    flagged: tuple[str, ...]
    queries: tuple[str, ...] = ()
    added: tuple[str, ...] = ()
    draft: str = ""
    kept: bool = False
    ms: float = 0.0
    note: str = ""
    usage: Usage | None = None


@dataclass(frozen=True)
class AskOptions:
    """Per-question choices (the UI's widgets); numbers default from Settings."""

    kb: str
    mode: Mode = "smart"
    doc_ids: tuple[str, ...] = ()
    prompt_mode: str = "advanced"
    top_k: int | None = None
    context_budget: int | None = None
    system_prompt: str | None = None
    user: str = ""  # who asks (the audit log's user; "" is the one local user)


@dataclass(frozen=True)
class ShortAnswer:
    """An answer in a few words (``rag_app.answer.short``): ``value`` its value ("" when it gives
    none), or its values when it lists several; ``scale`` "", thousand, million, billion or
    percent; ``source`` the N of the [Source N] it came from (0: none)."""

    value: str | tuple[str, ...] = ""
    scale: str = ""
    source: int = 0


@dataclass(frozen=True)
class Answer:
    """The answer and all its evidence: hits, the exact prompt, citations, timings.

    ``prompt`` is the ``rag_app.prompt.PromptResult`` the answer was generated from and
    ``citations`` the ``rag_app.cite.CitationReport`` of its text (None when it is empty). They
    are typed ``Any`` here because models import no stage, not even for type checking (the
    import-boundary test); they become exact once those result types live in this module.
    """

    question: str
    text: str
    retrieval: RetrievalTrace
    prompt: Any
    citations: Any
    answerer: str
    timings: tuple[tuple[str, float], ...] = ()
    usage: Usage | None = None
    error: str = ""
    error_kind: str = ""
    # The model that failed before writing anything, when the offline answerer answered in its
    # place from the same retrieval ("" otherwise).
    fallback_from: str = ""
    # The standalone question built from the conversation (None: asked without one).
    understood: Understood | None = None
    # What the library check found missing (rag_app.trust.answerability), in words ("" when nothing),
    # and whether that left nothing to answer (then the answer says so and quotes nothing).
    finding: str = ""
    declined: bool = False
    # The Self-RAG rounds after the first answer (rag_app.trust.self_rag; empty when off or not needed).
    revisions: tuple[RevisionRound, ...] = ()
    # The answer in a few words, read once from its text (empty when declined).
    short: ShortAnswer = ShortAnswer()
    # One metric over periods or companies, each point a cited cell (``facts.series.Series``).
    series: Any = None
    audit_id: int = 0  # its audit record's id (what feedback on it names); 0 when none written

    @property
    def standalone_question(self) -> str:
        return self.understood.text if self.understood is not None else self.question

    @property
    def hits(self) -> tuple[Hit, ...]:
        return self.retrieval.hits

    def timing(self, stage: str) -> float | None:
        return dict(self.timings).get(stage)


@dataclass(frozen=True)
class PipelineEvent:
    """``stage`` (a stage starts or ends), ``token`` (answer text), ``retry``, ``error``, or
    ``answer`` (the final Answer; always the last event)."""

    kind: Literal["stage", "token", "retry", "error", "answer"]
    stage: str = ""
    text: str = ""
    answer: Answer | None = None
    data: dict[str, Any] = field(default_factory=dict)


__all__ = [
    "Answer",
    "AskOptions",
    "CHUNK_TYPES",
    "Chunk",
    "ChunkType",
    "Document",
    "DocumentInfo",
    "Expansion",
    "Hit",
    "IngestReport",
    "Item",
    "NO_FILTER",
    "LayerStep",
    "Mode",
    "PipelineEvent",
    "Progress",
    "RetrievalTrace",
    "Routing",
    "SearchFilter",
    "Signal",
    "Understood",
    "Usage",
]
