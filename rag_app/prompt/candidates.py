"""Retrieved hits as candidates for the prompt, and the paragraph a table shares with a text.

Hits are ordered by score, duplicates dropped and the sub-tables of one table merged before
anything is counted. A table's introducing paragraph is shown once: left out of the table
block when that paragraph is a source of its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from rag_app.models import Chunk, Hit, Reason
from rag_app.prompt.format import Candidate, ContextEntry, format_body
from rag_app.prompt.sections import Section, reason_key
from rag_app.prompt.tables import merge_table_chunks
from rag_app.stage_settings import Language, PromptSettings


def merge_subtables(hits: Sequence[Hit]) -> tuple[list[Candidate], list[Section]]:
    """Order hits by score and merge sub-tables of one table into one candidate.

    Hits are sorted by score, highest first (stable, so equal scores keep their given order).
    Sub-tables sharing ``(doc_id, parent_table_id)`` become one candidate at the position of the
    best-scoring part, with rows in ``subtable_index`` order and the header once; its hit takes
    the best part's score, rank and signals. A hit whose chunk already appeared is dropped; the
    returned sections record those duplicates.
    """
    ordered = sorted(hits, key=lambda hit: -hit.score)
    seen: set[str] = set()
    groups: dict[tuple[str, str], list[Hit]] = {}
    slots: list[tuple[str, str] | Hit] = []
    dropped: list[Section] = []
    for hit in ordered:
        chunk = hit.chunk
        if chunk.chunk_id in seen:
            dropped.append(_duplicate(chunk))
            continue
        seen.add(chunk.chunk_id)
        if chunk.type == "table" and chunk.parent_table_id:
            key = (chunk.doc_id, chunk.parent_table_id)
            if key not in groups:
                groups[key] = []
                slots.append(key)
            groups[key].append(hit)
        else:
            slots.append(hit)
    candidates = [
        Candidate(slot, (slot,)) if isinstance(slot, Hit) else _merge_group(groups[slot])
        for slot in slots
    ]
    return candidates, dropped


def _duplicate(chunk: Chunk) -> Section:
    return Section(
        "source",
        f"source {chunk.chunk_id}",
        0,
        "dropped",
        "duplicate: the same chunk was retrieved twice; the better-scored copy is used",
        chunk_id=chunk.chunk_id,
        why=reason_key("duplicate"),
    )


def _merge_group(group: list[Hit]) -> Candidate:
    """One candidate for the sub-tables of one table; ``group`` is in score order."""
    parts = tuple(sorted(group, key=lambda hit: hit.chunk.subtable_index))
    best = group[0]
    if len(parts) == 1:
        return Candidate(best, parts)
    merged_chunk = merge_table_chunks([hit.chunk for hit in parts])
    indices = "+".join(str(h.chunk.subtable_index) for h in parts)
    why = reason_key("hit_merged", parts=indices)
    merged = replace(best, chunk=merged_chunk).noted(f"merged sub-tables {indices}", why)
    return Candidate(merged, parts)


def describe(candidate: Candidate) -> str:
    """The name of a candidate's section in the budget report."""
    chunk = candidate.chunk
    if len(candidate.parts) > 1:
        indices = "+".join(str(p.chunk.subtable_index) for p in candidate.parts)
        return f"source {chunk.chunk_id} ({chunk.type}, sub-tables {indices} merged)"
    return f"source {chunk.chunk_id} ({chunk.type})"


# Of a source's title, what its section's label carries (the budget report's name stays the id).
LABEL_TITLE_CHARS = 40


def describe_key(candidate: Candidate) -> Reason:
    """The name of a candidate's section as a key and values, for the UI to word: its type, its
    title (caption, heading or start of its text) and the sub-tables merged ("" when one)."""
    chunk = candidate.chunk
    title = chunk.caption or (chunk.heading_path[-1] if chunk.heading_path else "") or chunk.text
    title = " ".join(title.split())
    if len(title) > LABEL_TITLE_CHARS:
        title = title[: LABEL_TITLE_CHARS - 1] + "…"
    merged = "+".join(str(p.chunk.subtable_index) for p in candidate.parts)
    return reason_key(
        "part_source",
        type=chunk.type,
        title=title,
        merged=merged if len(candidate.parts) > 1 else "",
    )


def _table_context(chunk: Chunk) -> str:
    if chunk.type != "table" or not chunk.context:
        return ""
    return chunk.context.strip().removesuffix("…").strip()


def context_shown(chunk: Chunk, chosen: Sequence[ContextEntry]) -> bool:
    """Is this table's introducing paragraph already the text of a chosen source?"""
    paragraph = _table_context(chunk)
    return bool(paragraph) and any(
        e.candidate.chunk.type == "text" and paragraph in e.candidate.chunk.text for e in chosen
    )


def without_shown_context(
    entry: ContextEntry, new: Chunk, lang: Language, settings: PromptSettings
) -> ContextEntry:
    """``entry`` re-rendered without its table context when the ``new`` text source holds it."""
    paragraph = _table_context(entry.candidate.chunk)
    if not paragraph or new.type != "text" or paragraph not in new.text:
        return entry
    if entry.body != format_body(entry.candidate, lang, settings.table_format):
        return entry  # already without it, or cut to fit: keep as it is
    body = format_body(entry.candidate, lang, settings.table_format, with_context=False)
    return replace(entry, body=body)
