"""Smart mode's routing in an evaluation: the hand labels of the broker questions, the types of
each question's gold items, and the summary of a smart run's decisions against them."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Protocol

from rag_app.models import Chunk


class _Chunks(Protocol):
    def chunks(self, kb: str, doc_id: str | None = None) -> list[Chunk]: ...


class _Gold(Protocol):
    @property
    def doc_id(self) -> str: ...
    @property
    def gold(self) -> frozenset[int]: ...


def load_routing_labels(path: Path) -> dict[str, tuple[str, str]]:
    """Question id -> (expected type, phrasing) from a routing labels file (JSON lines with id,
    type: table/text/image/mixed, phrasing: explicit/business/misleading)."""
    rows = (json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line)
    return {r["id"]: (r["type"], r["phrasing"]) for r in rows}


def routing_summary(
    per_question: Sequence[Mapping[str, object]],
    labels: Mapping[str, tuple[str, str]] | None = None,
) -> dict[str, object]:
    """Smart mode's routing over the rows that carry one: the routed share and routes per type;
    with labels, the routed questions' accuracy, wrong-type routes as a share of all labelled
    questions (a mixed question may route to table or text) and the share of single-type
    questions phrased in explicit or business words that routed to their own type."""
    decisions = [(row["id"], row["routing"]) for row in per_question if "routing" in row]
    routed = [(qid, r) for qid, r in decisions if r["single_type"]]  # type: ignore[index]
    by_type: dict[str, int] = {}
    for _, r in routed:
        by_type[r["type"]] = by_type.get(r["type"], 0) + 1  # type: ignore[index]
    out: dict[str, object] = {
        "n": len(decisions),
        "routed": round(len(routed) / len(decisions), 4) if decisions else 0.0,
        "routed_by_type": by_type,
    }
    # Against where the gold items are: of the questions whose gold is of one type, the share
    # routed to that type, to another, or not routed.
    single: list[tuple[Mapping[str, object], str]] = [
        (row["routing"], row["gold_types"][0])  # type: ignore[misc, index]
        for row in per_question
        if "routing" in row and len(row.get("gold_types") or ()) == 1  # type: ignore[arg-type]
    ]
    if single:
        n_own = n_wrong = 0
        for decision, gold in single:
            if decision["single_type"]:
                n_own += decision["type"] == gold
                n_wrong += decision["type"] != gold
        out |= {
            "n_single": len(single),
            "single_own": round(n_own / len(single), 4),
            "single_wrong": round(n_wrong / len(single), 4),
            "single_unrouted": round((len(single) - n_own - n_wrong) / len(single), 4),
        }
    labelled = [(qid, r) for qid, r in decisions if qid in (labels or {})]
    if labels and labelled:

        def right(qid: object, kind: object) -> bool:
            expected = labels[str(qid)][0]
            return kind in (("table", "text") if expected == "mixed" else (expected,))

        hits = [right(q, r["type"]) for q, r in labelled if r["single_type"]]  # type: ignore[index]
        own = [
            bool(r["single_type"]) and r["type"] == labels[str(q)][0]  # type: ignore[index]
            for q, r in labelled
            if labels[str(q)][0] != "mixed" and labels[str(q)][1] != "misleading"
        ]
        out |= {
            "n_labelled": len(labelled),
            "routed_accuracy": round(sum(hits) / len(hits), 4) if hits else None,
            "wrong_type_routes": round(hits.count(False) / len(labelled), 4),
            "own_type_routed": round(sum(own) / len(own), 4) if own else None,
        }
    return out


def gold_types(
    library: _Chunks,
    kb: str,
    question: _Gold,
    cache: dict[str, list[tuple[frozenset[int], str]]],
) -> tuple[str, ...]:
    """The types of the chunks built from the question's gold items (for rows without
    ``gold_item_types``), each document's chunks read once."""
    if question.doc_id not in cache:
        cache[question.doc_id] = [
            (frozenset(c.item_indices), c.type) for c in library.chunks(kb, question.doc_id)
        ]
    return tuple(sorted({t for items, t in cache[question.doc_id] if items & question.gold}))
