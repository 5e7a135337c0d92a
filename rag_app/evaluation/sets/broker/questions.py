"""The broker set's questions, verified against the reports they ask about.

The questions are data: ``data/question_keys.jsonl`` (one document each) and
``data/multi_question_keys.jsonl`` (two companies each), authored for this set, name their gold
evidence by item keys (``t_forecast``, ``fig3``...), which the reports' builders give their
items. Here the keys become 0-based item indices, and every answer is checked to appear in each
of its gold items and in no other item of the same document (numbers as whole numbers).

A row: ``{doc, question, answer, gold: [keys], lang, answer_from, scale}``, optionally ``ignore:
[keys]`` (items allowed to hold the answer too); a two-company row has ``parts: [{doc, answer,
gold}]`` instead. An answer starting with ``@`` is a placeholder the build fills in from the
report's own numbers.
"""

from __future__ import annotations

import json
from pathlib import Path

from rag_app.evaluation.sets.docgen import contains_answer

SOURCE = "rag_app broker_eval (authored fictional broker reports)"
DATA = Path(__file__).resolve().parent / "data"


def _read(name: str) -> list[dict]:
    lines = (DATA / name).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def single_doc_rows(docs: dict, company: dict, placeholders: dict, errors: list[str]) -> list[dict]:
    """Rows of questions.jsonl: each answer in every gold item of its document and in no other
    item of it (bar the question's ``ignore`` keys); failures are added to ``errors``."""
    rows: list[dict] = []
    for n, q in enumerate(_read("question_keys.jsonl"), 1):
        name, question, answer, keys = q["doc"], q["question"], q["answer"], q["gold"]
        lang, answer_from, scale = q["lang"], q["answer_from"], q["scale"]
        ignore = set(q.get("ignore", ()))
        answer = placeholders.get(answer, answer)
        d = docs[name]
        try:
            gold = sorted({d.index(k) for k in keys})
            ignored = {d.index(k) for k in ignore}
        except KeyError as e:
            errors.append(f"q{n} {question}: unknown key {e}")
            continue
        for i in gold:
            if not contains_answer(d.items[i], answer):
                errors.append(
                    f"q{n} {question}: answer {answer!r} not in gold item {i} ({d.items[i]['type']})"
                )
        extra = [
            i
            for i, it in enumerate(d.items)
            if i not in gold and i not in ignored and contains_answer(it, answer)
        ]
        if extra:
            errors.append(
                f"q{n} {question}: answer {answer!r} also in non-gold items {extra} of {d.doc_id}: "
                + "; ".join(
                    ((d.items[i].get("text") or str(d.items[i].get("table_caption")))[:30])
                    for i in extra
                )
            )
        also = [
            o.doc_id
            for on, o in docs.items()
            if on != name and any(contains_answer(it, answer) for it in o.items)
        ]
        rows.append(
            {
                "id": f"broker_q{n:03d}",
                "question": question,
                "answer": answer,
                "answer_str": answer,
                "answer_type": "span",
                "answer_from": answer_from,
                "scale": scale,
                "doc_id": d.doc_id,
                "doc_file": f"docs/{d.doc_id}_content_list.json",
                "gold_item_indices": gold,
                "gold_item_types": [d.items[i]["type"] for i in gold],
                "lang": lang,
                "scope": "single_doc",
                "company": company[name],
                "answer_also_in_docs": also,
                "source": SOURCE,
            }
        )
    return rows


def multi_company_rows(
    docs: dict, company: dict, placeholders: dict, errors: list[str]
) -> list[dict]:
    """Rows of questions_multi.jsonl, each part verified like a single-document question
    (answer in every gold item of its document, in no other item of it)."""
    rows = []
    for n, q in enumerate(_read("multi_question_keys.jsonl"), 1):
        question, lang, answer_from, scale = q["question"], q["lang"], q["answer_from"], q["scale"]
        parts = [(p["doc"], p["answer"], p["gold"]) for p in q["parts"]]
        gold_docs = []
        for name, answer, keys in parts:
            d = docs[name]
            answer = placeholders.get(answer, answer)
            try:
                gold = sorted({d.index(k) for k in keys})
            except KeyError as e:
                errors.append(f"m{n} {question}: unknown key {e} in {name}")
                continue
            if not all(contains_answer(d.items[i], answer) for i in gold):
                errors.append(f"m{n} {question}: {answer!r} not in every gold item of {name}")
            extra = [
                i for i, it in enumerate(d.items) if i not in gold and contains_answer(it, answer)
            ]
            if extra:
                errors.append(f"m{n} {question}: {answer!r} also in items {extra} of {name}")
            gold_docs.append({"doc_id": d.doc_id, "gold_item_indices": gold, "answer": answer})
        if len(gold_docs) != len(parts):
            continue
        first = gold_docs[0]
        rows.append(
            {
                "id": f"broker_m{n:03d}",
                "question": question,
                "answer": [g["answer"] for g in gold_docs],
                "answer_type": "multi-span",
                "answer_from": answer_from,
                "scale": scale,
                "doc_id": first["doc_id"],
                "gold_item_indices": first["gold_item_indices"],
                "gold_docs": gold_docs,
                "lang": lang,
                "scope": "multi_doc",
                "company": [company[name] for name, _, _ in parts],
                "source": SOURCE,
            }
        )
    return rows
