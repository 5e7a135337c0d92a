"""Answers readers rated, as rows ``rag-app eval`` reads (issue 27: "turned into evaluation rows
in one click"): the question, its conversation's understood form, the document and items of the
sources the answer cited (the gold to find again), and the expected answer: the short answer a
👍 confirmed, or a 👎's note (what the reader says the answer should be)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence

from rag_app.chat.audit import AuditRecord
from rag_app.models import Chunk

_CITED = re.compile(r"\[Source (\d+)\]")


def feedback_rows(
    records: Sequence[AuditRecord], chunks_of: Callable[[str, str], Sequence[Chunk]]
) -> list[dict[str, object]]:
    """One row per rated record (unrated ones are left out); ``chunks_of(kb, doc_id)`` reads a
    document's chunks from the library (a chunk deleted since leaves the row no gold items)."""
    rows: list[dict[str, object]] = []
    read: dict[tuple[str, str], dict[str, list[Chunk]]] = {}
    for record in records:
        if record.feedback is None:
            continue
        cited = {int(n) for n in _CITED.findall(record.answer)}
        doc_of = {h.chunk_id: h.doc_id for h in record.hits}
        chunks: list[Chunk] = []
        for source in record.sources:
            doc = doc_of.get(source.chunk_id) or re.split(r"[:#]", source.chunk_id, maxsplit=1)[0]
            if source.number not in cited:
                continue
            if (record.kb, doc) not in read:
                read[record.kb, doc] = _by_id(chunks_of(record.kb, doc))
            chunks.extend(read[record.kb, doc].get(source.chunk_id, ()))
        doc_id = chunks[0].doc_id if chunks else ""
        gold = sorted({i for c in chunks if c.doc_id == doc_id for i in c.item_indices})
        good = record.feedback.rating > 0
        rows.append(
            {
                "id": f"feedback_{record.id}",
                "question": record.standalone_question or record.question,
                "answer": record.feedback.note if not good else _first_line(record.answer),
                "doc_id": doc_id,
                "gold_item_indices": gold if good else [],
                "rating": "up" if good else "down",
                "note": record.feedback.note,
                "kb": record.kb,
                "source": f"feedback on audit record {record.id} ({record.time})",
            }
        )
    return rows


def _by_id(chunks: Sequence[Chunk]) -> dict[str, list[Chunk]]:
    """A document's chunks by id, a split table's parts also under its table's id (the id a
    merged source is cited by, "doc#table9")."""
    out: dict[str, list[Chunk]] = {}
    for chunk in chunks:
        out.setdefault(chunk.chunk_id, []).append(chunk)
        if chunk.parent_table_id:
            out.setdefault(chunk.parent_table_id, []).append(chunk)
    return out


def _first_line(answer: str) -> str:
    """The answer's value line or first quote, without its citation: what a 👍 confirmed."""
    for line in answer.splitlines():
        line = _CITED.sub("", line).strip(" -")
        if line and not line.startswith(("（", "(")):
            return line.strip()
    return ""


def jsonl_bytes(rows: Sequence[dict[str, object]]) -> bytes:
    """The rows as a questions.jsonl file."""
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode("utf-8")
