"""The question rows the second and third sets share, read from a set's ``data/*.jsonl`` and
checked against its documents: ``questions.jsonl`` (one document each; a list answer is a list),
``multi.jsonl`` (two documents), ``followups.jsonl`` (a second turn and the turn before it) and
``unanswerable.jsonl`` (a question no document answers, then an answerable twin). A set names
its rows' id prefix and source line; its arithmetic rows are its own. Gold evidence is checked
by ``second.check``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from rag_app.evaluation.sets.docgen import Doc
from rag_app.evaluation.sets.second.check import absent_errors, also_in, gold_of


def read(data: Path, name: str) -> list[dict]:
    lines = (data / name).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def answer_fields(d: Doc, q: dict, gold: list[int]) -> dict:
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


@dataclass(frozen=True)
class QuestionRows:
    """One set's row readers: ids ``{prefix}_q001``…, every row's ``source`` line, its data."""

    prefix: str
    source: str
    data: Path

    def single(
        self, docs: Mapping[str, Doc], subject: Mapping[str, str], errors: list[str]
    ) -> list[dict]:
        """Rows of questions.jsonl (answers verified; failures appended to ``errors``)."""
        rows = []
        for n, q in enumerate(read(self.data, "questions.jsonl"), 1):
            qid = f"{self.prefix}_q{n:03d}"
            d = docs[q["doc"]]
            gold = _gold(d, q, f"{qid} {q['question']}", errors)
            answer = q["answer"]
            rows.append(
                {
                    "id": qid,
                    "question": q["question"],
                    **answer_fields(d, q, gold),
                    "answer_from": q["answer_from"],
                    "scale": q.get("scale", ""),
                    "kind": q["kind"],
                    "lang": q["lang"],
                    "scope": "single_doc",
                    "company": subject[q["doc"]],
                    "answer_also_in_docs": also_in(docs, q["doc"], answer)
                    if isinstance(answer, str)
                    else [],
                    "source": self.source,
                }
            )
        return rows

    def multi(
        self, docs: Mapping[str, Doc], subject: Mapping[str, str], errors: list[str]
    ) -> list[dict]:
        """Rows of questions_multi.jsonl: every part verified like a single-document question."""
        rows = []
        for n, q in enumerate(read(self.data, "multi.jsonl"), 1):
            qid = f"{self.prefix}_m{n:03d}"
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
                    "source": self.source,
                }
            )
        return rows

    def followup(
        self, docs: Mapping[str, Doc], subject: Mapping[str, str], errors: list[str]
    ) -> list[dict]:
        """Rows of questions_followup.jsonl: the turn before as ``history`` (the assistant's reply
        elided as ``……`` unless the row gives ``replies``), the follow-up, and ``written_out``."""
        rows = []
        for n, q in enumerate(read(self.data, "followups.jsonl"), 1):
            qid = f"{self.prefix}_f{n:03d}"
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
                    **answer_fields(d, q, gold),
                    "lang": q["lang"],
                    "kind": q["kind"],
                    "company": subject[q["doc"]],
                    "source": self.source,
                }
            )
        return rows

    def unanswerable(self, docs: Mapping[str, Doc], errors: list[str]) -> list[dict]:
        """Rows of questions_unanswerable.jsonl: each unanswerable question (its ``absent`` strings
        checked), then its answerable twin (verified); ``pair`` names the other of the two."""
        rows = []
        for n, q in enumerate(read(self.data, "unanswerable.jsonl"), 1):
            qid, tid = f"{self.prefix}_u{n:03d}", f"{self.prefix}_u{n:03d}t"
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
                    "source": self.source,
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
                    **answer_fields(d, t, gold),
                    "pair": qid,
                    "source": self.source,
                }
            )
        return rows
