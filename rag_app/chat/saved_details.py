"""What an answer showed besides its text and sources, in the form a saved turn keeps it: the
retrieval (hits with every signal, the routing, the layers), the prompt (its report and the
exact messages), and the reader that turns the stored JSON back into these dataclasses.

A hit keeps its chunk's id, document, type, pages and a short title, not the chunk: the trace is
drawn again from these, as the live answer drew it. ``from_plain`` reads a dataclass back from
``dataclasses.asdict`` JSON by its type hints: a field the JSON lacks (a turn saved before the
field existed) takes its default, a key the dataclass lacks is ignored.
"""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints

from rag_app.models import (
    Answer,
    Chunk,
    Expansion,
    Hit,
    LayerStep,
    Reason,
    RetrievalTrace,
    Routing,
    Signal,
)
from rag_app.prompt.builder import PromptReport

TITLE_CHARS = 80  # of a hit's caption, heading or text: what the hits table shows of it


@dataclass(frozen=True)
class SavedHit:
    """One retrieved hit as the hits table shows it. ``pages`` are 0-based, as in ``Chunk``."""

    chunk_id: str
    doc_id: str
    type: str
    pages: tuple[int, ...] = ()
    title: str = ""
    rank: int = 0
    score: float = 0.0
    strategy: str = ""
    note: str = ""
    signals: tuple[tuple[str, Signal], ...] = ()
    why: tuple[Reason, ...] = ()


@dataclass(frozen=True)
class SavedRetrieval:
    """``RetrievalTrace`` with its hits as ``SavedHit``s."""

    query: str
    mode: str
    hits: tuple[SavedHit, ...] = ()
    routing: Routing | None = None
    layers: tuple[LayerStep, ...] = ()
    notes: tuple[str, ...] = ()
    expanded_terms: tuple[str, ...] = ()
    ms: float = 0.0
    expansions: tuple[Expansion, ...] = ()
    why: tuple[Reason, ...] = ()


@dataclass(frozen=True)
class SavedPrompt:
    """The prompt as sent (``(role, content)`` messages) and its token report. The messages
    are the prompt's own text: the system prompt, history, sources and question, never a key."""

    messages: tuple[tuple[str, str], ...]
    report: PromptReport
    language: str = "zh"
    mode: str = "advanced"
    max_tokens: int = 0


def hit_title(chunk: Chunk) -> str:
    title = chunk.caption or (chunk.heading_path[-1] if chunk.heading_path else "") or chunk.text
    title = " ".join(title.split())
    return title if len(title) <= TITLE_CHARS else title[: TITLE_CHARS - 1] + "…"


def saved_hit(hit: Hit) -> SavedHit:
    chunk = hit.chunk
    return SavedHit(
        chunk_id=chunk.chunk_id,
        doc_id=chunk.doc_id,
        type=chunk.type,
        pages=tuple(chunk.pages),
        title=hit_title(chunk),
        rank=hit.rank,
        score=float(hit.score),
        strategy=hit.strategy,
        note=hit.note,
        signals=tuple(hit.signals),
        why=tuple(hit.why),
    )


def saved_retrieval(answer: Answer) -> SavedRetrieval:
    trace = answer.retrieval
    return SavedRetrieval(
        query=trace.query,
        mode=trace.mode,
        hits=tuple(saved_hit(h) for h in trace.hits),
        routing=trace.routing,
        layers=tuple(trace.layers),
        notes=tuple(trace.notes),
        expanded_terms=tuple(trace.expanded_terms),
        ms=float(trace.ms),
        expansions=tuple(trace.expansions),
        why=tuple(trace.why),
    )


def saved_prompt(answer: Answer) -> SavedPrompt | None:
    prompt = answer.prompt
    if prompt is None:
        return None
    return SavedPrompt(
        messages=tuple((str(m["role"]), str(m["content"])) for m in prompt.messages),
        report=prompt.report,
        language=str(prompt.language),
        mode=str(prompt.mode),
        max_tokens=int(prompt.max_tokens),
    )


def light_chunk(chunk_id: str, doc_id: str, type: str, pages: tuple[int, ...], title: str) -> Chunk:
    """A chunk standing in for a saved one in a redrawn trace: its id, document, type, pages,
    and its title as caption and text (all the trace and prompt inspector show of it)."""
    return Chunk(chunk_id, doc_id, type, title, "", (), tuple(pages), caption=title)  # type: ignore[arg-type]


def restored_hit(hit: SavedHit) -> Hit:
    chunk = light_chunk(hit.chunk_id, hit.doc_id, hit.type, hit.pages, hit.title)
    return Hit(chunk, hit.score, hit.rank, hit.strategy, hit.signals, note=hit.note, why=hit.why)


def restored_trace(saved: SavedRetrieval | None, question: str, mode: str) -> RetrievalTrace:
    if saved is None:
        return RetrievalTrace(question, mode, ())
    return RetrievalTrace(
        query=saved.query,
        mode=saved.mode,
        hits=tuple(restored_hit(h) for h in saved.hits),
        routing=saved.routing,
        layers=saved.layers,
        notes=saved.notes,
        expanded_terms=saved.expanded_terms,
        ms=saved.ms,
        expansions=saved.expansions,
        why=saved.why,
    )


# reading JSON back ---------------------------------------------------------------------------
_FIELDS: dict[type, tuple[str, ...]] = {}


def to_plain(value: Any) -> Any:
    """``value`` as JSON-ready data, as ``dataclasses.asdict`` gives it (dataclasses as dicts,
    tuples and lists as lists), without asdict's deep copy of every leaf: a saved turn holds
    thousands (each hit's signals), and an evaluation saves one per question."""
    kind = type(value)
    if value is None or kind in (str, int, float, bool):
        return value
    names = _FIELDS.get(kind)
    if names is None and dataclasses.is_dataclass(value):
        names = _FIELDS[kind] = tuple(f.name for f in dataclasses.fields(value))
    if names is not None:
        return {name: to_plain(getattr(value, name)) for name in names}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [to_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: to_plain(v) for k, v in value.items()}
    return value


def from_plain(kind: Any, value: Any) -> Any:
    """``value`` (as ``json.loads`` gives ``dataclasses.asdict`` output) as type ``kind``:
    dataclasses, tuples, optionals, mappings, literals and scalars. Missing fields default."""
    if value is None:
        return None
    origin = get_origin(kind)
    if origin in (Union, types.UnionType):
        options = [a for a in get_args(kind) if a is not type(None)]
        return from_plain(options[0], value) if len(options) == 1 else value
    if origin is tuple:
        args = get_args(kind)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(from_plain(args[0], v) for v in value)
        return tuple(from_plain(a, v) for a, v in zip(args, value, strict=False))
    if origin in (dict, Mapping):
        return dict(value)
    if origin is Literal or kind is Any:
        return value
    if dataclasses.is_dataclass(kind) and isinstance(kind, type):
        hints = get_type_hints(kind)
        names = {f.name for f in dataclasses.fields(kind) if f.init}
        return kind(**{k: from_plain(hints[k], v) for k, v in value.items() if k in names})
    if kind in (int, float, str, bool):
        return kind(value)
    return value
