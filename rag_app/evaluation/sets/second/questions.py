"""The second set's question rows, read from ``data/*.jsonl`` and checked against the documents.

The questions are data, written by hand before anything was measured on them
(``assets/second_eval/README.md``): ``questions.jsonl`` (one document each; a list answer is a
list), ``multi.jsonl`` (two documents each), ``followups.jsonl`` (a second turn and the turn
before it), ``unanswerable.jsonl`` (a question no document answers, beside an answerable twin)
and ``arithmetic.jsonl`` (a value worked out from cells, or a count).
Each answerable row names its gold items by key (``check.gold_of`` verifies them); each
unanswerable row may name the strings whose absence makes it so (``check.absent_errors``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path

from rag_app.evaluation.sets.docgen import Doc, contains_answer
from rag_app.evaluation.sets.second.check import absent_errors, also_in, gold_of

DATA = Path(__file__).resolve().parent / "data"
SOURCE = "rag_app second_eval (authored, frozen 2026-11-27)"


def read(name: str) -> list[dict]:
    lines = (DATA / name).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def _answer_fields(d: Doc, q: dict, gold: list[int]) -> dict:
    answer = q["answer"]
    return {
        "answer": answer,
        "answer_str": answer if isinstance(answer, str) else "、".join(answer),
        "answer_type": "span" if isinstance(answer, str) else "multi-span",
        "doc_id": d.doc_id,
        "doc_file": f"docs/{d.doc_id}_content_list.json",
        "gold_item_indices": gold,
        "gold_item_types": [d.items[i]["type"] for i in gold],
    }


def single_rows(
    docs: Mapping[str, Doc], subject: Mapping[str, str], errors: list[str]
) -> list[dict]:
    """Rows of questions.jsonl (answers verified; failures appended to ``errors``)."""
    rows = []
    for n, q in enumerate(read("questions.jsonl"), 1):
        qid = f"second_q{n:03d}"
        d = docs[q["doc"]]
        gold = gold_of(
            d, q["answer"], q["gold"], f"{qid} {q['question']}", errors, q.get("ignore", ())
        )
        answer = q["answer"]
        rows.append(
            {
                "id": qid,
                "question": q["question"],
                **_answer_fields(d, q, gold),
                "answer_from": q["answer_from"],
                "scale": q.get("scale", ""),
                "kind": q["kind"],
                "lang": q["lang"],
                "scope": "single_doc",
                "company": subject[q["doc"]],
                "answer_also_in_docs": also_in(docs, q["doc"], answer)
                if isinstance(answer, str)
                else [],
                "source": SOURCE,
            }
        )
    return rows


def multi_rows(
    docs: Mapping[str, Doc], subject: Mapping[str, str], errors: list[str]
) -> list[dict]:
    """Rows of questions_multi.jsonl: every part verified like a single-document question."""
    rows = []
    for n, q in enumerate(read("multi.jsonl"), 1):
        qid = f"second_m{n:03d}"
        parts = []
        for p in q["parts"]:
            d = docs[p["doc"]]
            gold = gold_of(d, p["answer"], p["gold"], f"{qid} {q['question']}", errors)
            parts.append({"doc_id": d.doc_id, "gold_item_indices": gold, "answer": p["answer"]})
        rows.append(
            {
                "id": qid,
                "question": q["question"],
                "answer": [p["answer"] for p in parts],
                "answer_type": "multi-span",
                "answer_from": q["answer_from"],
                "kind": q["kind"],
                "doc_id": parts[0]["doc_id"],
                "gold_item_indices": parts[0]["gold_item_indices"],
                "gold_docs": parts,
                "lang": q["lang"],
                "scope": "multi_doc",
                "company": [subject[p["doc"]] for p in q["parts"]],
                "source": SOURCE,
            }
        )
    return rows


def followup_rows(
    docs: Mapping[str, Doc], subject: Mapping[str, str], errors: list[str]
) -> list[dict]:
    """Rows of questions_followup.jsonl: the turn before as ``history`` (the assistant's reply
    elided as in the broker set, unless the row gives ``replies``: a follow-up that points at
    the earlier answer), the follow-up, and the same question written out whole."""
    rows = []
    for n, q in enumerate(read("followups.jsonl"), 1):
        qid = f"second_f{n:03d}"
        d = docs[q["doc"]]
        gold = gold_of(
            d, q["answer"], q["gold"], f"{qid} {q['question']}", errors, q.get("ignore", ())
        )
        replies = q.get("replies") or ["……"] * len(q["history"])
        history = []
        for earlier, reply in zip(q["history"], replies, strict=True):
            history += [
                {"role": "user", "content": earlier},
                {"role": "assistant", "content": reply},
            ]
        rows.append(
            {
                "id": qid,
                "question": q["question"],
                "history": history,
                "written_out": q["written_out"],
                **_answer_fields(d, q, gold),
                "lang": q["lang"],
                "kind": q["kind"],
                "company": subject[q["doc"]],
                "source": SOURCE,
            }
        )
    return rows


def unanswerable_rows(docs: Mapping[str, Doc], errors: list[str]) -> list[dict]:
    """Rows of questions_unanswerable.jsonl: each unanswerable question, then its answerable twin
    (verified like any answerable question); ``pair`` names the other of the two."""
    rows = []
    for n, q in enumerate(read("unanswerable.jsonl"), 1):
        qid, tid = f"second_u{n:03d}", f"second_u{n:03d}t"
        errors.extend(absent_errors(docs, q.get("absent", ()), f"{qid} {q['question']}"))
        rows.append(
            {
                "id": qid,
                "question": q["question"],
                "answerable": False,
                "kind": q["kind"],
                "lang": q["lang"],
                "doc_id": "",
                "gold_item_indices": [],
                "answer": None,
                "pair": tid,
                "source": SOURCE,
            }
        )
        t = q["twin"]
        d = docs[t["doc"]]
        gold = gold_of(
            d, t["answer"], t["gold"], f"{tid} {t['question']}", errors, t.get("ignore", ())
        )
        rows.append(
            {
                "id": tid,
                "question": t["question"],
                "answerable": True,
                "kind": t["kind"],
                "lang": t.get("lang", q["lang"]),
                **_answer_fields(d, t, gold),
                "pair": qid,
                "source": SOURCE,
            }
        )
    return rows


ARITHMETIC_SOURCE = (
    "rag_app second_eval arithmetic (authored, frozen 2026-11-27 before the operation model saw "
    "any Chinese question)"
)
_OPERAND = re.compile(r"\d[\d,]*(?:\.\d+)?")


def arithmetic_rows(docs: Mapping[str, Doc], errors: list[str]) -> list[dict]:
    """Rows of questions_arithmetic.jsonl: a value worked out from cells (``derivation``, each
    operand verified to be written in a gold item) or a count (the years counted, verified)."""
    rows = []
    for n, q in enumerate(read("arithmetic.jsonl"), 1):
        qid = f"second_a{n:03d}"
        d = docs[q["doc"]]
        gold = sorted({d.index(k) for k in q["gold"]})
        operands = _OPERAND.findall(q["derivation"])
        if q["operation"] == "average":
            operands = operands[:-1]  # its count of terms is the question's, not a cell
        for operand in operands:
            if not any(contains_answer(d.items[i], operand) for i in gold):
                errors.append(f"{qid} {q['question']}: operand {operand} not in its gold items")
        rows.append(
            {
                "id": qid,
                "question": q["question"],
                "answer": q["answer"],
                "answer_str": q["answer"],
                "answer_type": q["answer_type"],
                "scale": q["scale"],
                "derivation": q["derivation"],
                "operation": q["operation"],
                "doc_id": d.doc_id,
                "doc_file": f"docs/{d.doc_id}_content_list.json",
                "gold_item_indices": gold,
                "gold_item_types": [d.items[i]["type"] for i in gold],
                "answer_from": "table",
                "lang": q["lang"],
                "scope": "single_doc",
                "source": ARITHMETIC_SOURCE,
            }
        )
    return rows
