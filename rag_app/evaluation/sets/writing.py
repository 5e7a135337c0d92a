"""Writing one of our authored sets (``assets/second_eval``, ``assets/third_eval``,
``assets/fourth_eval``): its documents as MinerU content lists, its question files, verified, and its
manifest; a summary printed."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Mapping
from pathlib import Path
from types import ModuleType

from rag_app.evaluation.sets.docgen import Doc

# name: (builder, what the document is about, ticker, kind of document)
Documents = Mapping[str, tuple[Callable[[], Doc], str, str, str]]


def write_jsonl(path: Path, rows: list[dict]) -> None:
    path.write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8"
    )


def write_set(out: Path, label: str, documents: Documents, questions: ModuleType) -> None:
    """Write the set ``documents`` and ``questions`` (its module of ``single_rows``,
    ``multi_rows``, ``followup_rows``, ``unanswerable_rows``, ``arithmetic_rows``) make into
    ``out`` (created if missing) and print a summary.

    Raises ``SystemExit`` listing every question whose answer is missing from one of its gold
    items, or found in another item of its document, and every unanswerable question whose
    missing string is in fact there (the documents are written by then)."""
    docs: dict[str, Doc] = {name: spec[0]() for name, spec in documents.items()}
    subject = {name: spec[1] for name, spec in documents.items()}
    out_docs = out / "docs"
    out_docs.mkdir(parents=True, exist_ok=True)
    for old in out_docs.glob("*_content_list.json"):
        old.unlink()
    for d in docs.values():
        (out_docs / f"{d.doc_id}_content_list.json").write_text(
            json.dumps(d.items, ensure_ascii=False, indent=1) + "\n", encoding="utf-8"
        )

    errors: list[str] = []
    sets = {
        "questions.jsonl": questions.single_rows(docs, subject, errors),
        "questions_multi.jsonl": questions.multi_rows(docs, subject, errors),
        "questions_followup.jsonl": questions.followup_rows(docs, subject, errors),
        "questions_unanswerable.jsonl": questions.unanswerable_rows(docs, errors),
        "questions_arithmetic.jsonl": questions.arithmetic_rows(docs, errors),
    }
    if errors:
        print("\n".join(errors))
        raise SystemExit(f"{len(errors)} question(s) of the {label} set failed verification")
    for name, rows in sets.items():
        write_jsonl(out / name, rows)

    asked = Counter(r["doc_id"] for r in sets["questions.jsonl"])
    manifest = [
        {
            "doc_id": d.doc_id,
            "file": f"docs/{d.doc_id}_content_list.json",
            "n_items": len(d.items),
            "n_pages": d.page + 1,
            "n_questions": asked[d.doc_id],
            "company": documents[name][1],
            "ticker": documents[name][2],
            "document": documents[name][3],
            "type_counts": dict(Counter(it["type"] for it in d.items)),
            "role": "gold",
        }
        for name, d in docs.items()
    ]
    write_jsonl(out / "manifest.jsonl", manifest)
    width = max(len(d.doc_id) for d in docs.values()) + 2
    for row in manifest:
        print(
            f"{row['doc_id']:{width}s} items={row['n_items']:3d} pages={row['n_pages']} "
            f"questions={row['n_questions']:2d} types={row['type_counts']}"
        )
    for name, rows in sets.items():
        kinds = Counter(r.get("kind") or r["operation"] for r in rows)
        langs = Counter(r["lang"] for r in rows)
        print(f"{name}: {len(rows)} by kind={dict(kinds)} by lang={dict(langs)}")
