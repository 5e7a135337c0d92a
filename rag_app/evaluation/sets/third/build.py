"""Writes the third set (``assets/third_eval``): four documents in styles unlike the broker and
second sets, as MinerU content lists, and their hand-written questions with verified gold evidence.

Layout as ``assets/second_eval``: ``docs/<doc_id>_content_list.json``, ``manifest.jsonl``,
``questions.jsonl`` (one document each), ``questions_multi.jsonl`` (two),
``questions_followup.jsonl``, ``questions_unanswerable.jsonl`` and ``questions_arithmetic.jsonl``.
The documents: a city commercial bank's annual report (嵘城银行), a broker's note on a condiment
maker with its forecast transposed (沐溪食品), a pharmaceutical half-year report (岚泊药业) and the
quarterly report of a fund run by an English-named manager (Calder Peak 嘉峰消费精选, 018642), whose
top holdings name companies no document is about. Any question whose answer is not where its gold
says stops the build.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from rag_app.evaluation.sets.docgen import Doc
from rag_app.evaluation.sets.third import bank, consumer, fund, pharma
from rag_app.evaluation.sets.third.questions import (
    arithmetic_rows,
    followup_rows,
    multi_rows,
    single_rows,
    unanswerable_rows,
)

# name: (builder, what the document is about, ticker, kind of document)
DOCUMENTS = {
    "bank": (bank.build_report, "嵘城银行", "601329.SH", "年度报告"),
    "consumer": (consumer.build_report, "沐溪食品", "605376.SH", "公司点评报告"),
    "pharma": (pharma.build_report, "岚泊药业", "688574.SH", "半年度报告"),
    "fund": (fund.build_report, "Calder Peak 嘉峰消费精选混合", "018642.OF", "基金季度报告"),
}


def _write_jsonl(path: Path, rows: list[dict]) -> None:
    path.write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8"
    )


def write_third(out: Path) -> None:
    """Write the set into ``out`` (created if missing) and print a summary; raises
    ``SystemExit`` listing every question that fails verification."""
    docs: dict[str, Doc] = {name: spec[0]() for name, spec in DOCUMENTS.items()}
    subject = {name: spec[1] for name, spec in DOCUMENTS.items()}
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
        "questions.jsonl": single_rows(docs, subject, errors),
        "questions_multi.jsonl": multi_rows(docs, subject, errors),
        "questions_followup.jsonl": followup_rows(docs, subject, errors),
        "questions_unanswerable.jsonl": unanswerable_rows(docs, errors),
        "questions_arithmetic.jsonl": arithmetic_rows(docs, errors),
    }
    if errors:
        print("\n".join(errors))
        raise SystemExit(f"{len(errors)} question(s) of the third set failed verification")
    for name, rows in sets.items():
        _write_jsonl(out / name, rows)

    asked = Counter(r["doc_id"] for r in sets["questions.jsonl"])
    manifest = [
        {
            "doc_id": d.doc_id,
            "file": f"docs/{d.doc_id}_content_list.json",
            "n_items": len(d.items),
            "n_pages": d.page + 1,
            "n_questions": asked[d.doc_id],
            "company": DOCUMENTS[name][1],
            "ticker": DOCUMENTS[name][2],
            "document": DOCUMENTS[name][3],
            "type_counts": dict(Counter(it["type"] for it in d.items)),
            "role": "gold",
        }
        for name, d in docs.items()
    ]
    _write_jsonl(out / "manifest.jsonl", manifest)
    for row in manifest:
        print(
            f"{row['doc_id']:28s} items={row['n_items']:3d} pages={row['n_pages']} "
            f"questions={row['n_questions']:2d} types={row['type_counts']}"
        )
    for name, rows in sets.items():
        kinds = Counter(r.get("kind") or r["operation"] for r in rows)
        langs = Counter(r["lang"] for r in rows)
        print(f"{name}: {len(rows)} by kind={dict(kinds)} by lang={dict(langs)}")
