"""The third set's question rows, read from ``data/*.jsonl`` and checked against the documents.

The questions are data, written by hand and frozen before anything was measured on them
(``assets/third_eval/README.md``), in the second set's row formats: ``questions.jsonl`` (one
document each; a list answer is a list), ``multi.jsonl`` (two documents), ``followups.jsonl`` (a
second turn and the turn before it), ``unanswerable.jsonl`` (a question no document answers, then
an answerable twin) and ``arithmetic.jsonl`` (cells named by table, row and column; the answer and
the derivation are worked out here, ``cells.worked_out``). Gold evidence is checked as in the
second set (``second.check``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from rag_app.evaluation.sets.docgen import Doc
from rag_app.evaluation.sets.second.check import absent_errors, also_in, gold_of
from rag_app.evaluation.sets.third.cells import PERCENT, cell, counted, worked_out

DATA = Path(__file__).resolve().parent / "data"
SOURCE = "rag_app third_eval (authored, frozen 2026-11-28)"


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


def _gold(d: Doc, q: dict, where: str, errors: list[str]) -> list[int]:
    return gold_of(d, q["answer"], q["gold"], where, errors, q.get("ignore", ()))


def single_rows(
    docs: Mapping[str, Doc], subject: Mapping[str, str], errors: list[str]
) -> list[dict]:
    """Rows of questions.jsonl (answers verified; failures appended to ``errors``)."""
    rows = []
    for n, q in enumerate(read("questions.jsonl"), 1):
        qid = f"third_q{n:03d}"
        d = docs[q["doc"]]
        gold = _gold(d, q, f"{qid} {q['question']}", errors)
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
        qid = f"third_m{n:03d}"
        parts = []
        for p in q["parts"]:
            d = docs[p["doc"]]
            gold = _gold(d, p, f"{qid} {q['question']}", errors)
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
    elided as ``……`` unless the row gives ``replies``), the follow-up, and ``written_out``."""
    rows = []
    for n, q in enumerate(read("followups.jsonl"), 1):
        qid = f"third_f{n:03d}"
        d = docs[q["doc"]]
        gold = _gold(d, q, f"{qid} {q['question']}", errors)
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
    """Rows of questions_unanswerable.jsonl: each unanswerable question (its ``absent`` strings
    checked), then its answerable twin (verified); ``pair`` names the other of the two."""
    rows = []
    for n, q in enumerate(read("unanswerable.jsonl"), 1):
        qid, tid = f"third_u{n:03d}", f"third_u{n:03d}t"
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
        gold = _gold(d, t, f"{tid} {t['question']}", errors)
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


ARITHMETIC_SOURCE = "rag_app third_eval arithmetic (authored, frozen 2026-11-28)"


def _counted(refs: list[list[str]], hits: list[bool]) -> str:
    """A count's derivation: the labels of the cells counted, joined by ``##`` (the columns when
    the cells share a row, else the rows)."""
    same_row = len({r[1] for r in refs}) == 1
    return "##".join((r[2] if same_row else r[1]) for r, hit in zip(refs, hits) if hit)


def arithmetic_rows(docs: Mapping[str, Doc], errors: list[str]) -> list[dict]:
    """Rows of questions_arithmetic.jsonl. A row names its cells (``[table, row, column]``) and
    its ``operation``; the cells are read from the document, the answer and the derivation
    worked out from them (``cells.worked_out``)."""
    rows = []
    for n, q in enumerate(read("arithmetic.jsonl"), 1):
        qid = f"third_a{n:03d}"
        d = docs[q["doc"]]
        try:
            texts = [cell(d, *ref) for ref in q["cells"]]
        except KeyError as e:
            errors.append(f"{qid} {q['question']}: {e}")
            continue
        answer, derivation = worked_out(q["operation"], texts, q.get("threshold", ""))
        if q["operation"] == "count":
            derivation = _counted(q["cells"], counted(texts, q["threshold"]))
        gold = sorted({d.index(ref[0]) for ref in q["cells"]})
        rows.append(
            {
                "id": qid,
                "question": q["question"],
                "answer": answer,
                "answer_str": answer,
                "answer_type": "count" if q["operation"] == "count" else "arithmetic",
                "scale": "percent" if q["operation"] in PERCENT else "",
                "derivation": derivation,
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
