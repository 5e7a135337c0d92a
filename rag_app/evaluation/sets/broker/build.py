"""Writes the broker set (``assets/broker_eval``): six fictional broker reports as MinerU content
lists, their questions with gold evidence, and the manifest.

Same layout as ``/work/shared/eval/<set>/``: ``docs/<doc_id>_content_list.json``,
``manifest.jsonl``, ``questions.jsonl`` (and ``questions_multi.jsonl``). Five reports are authored
in this package; the sixth is the demo report on 中芯国际 (``rag_app.evaluation.sets.sample``).

The reports deliberately share look-alike tables: every report has a "表1：盈利预测与估值" with the
same rows and columns, and a 产线一览 table with the same headers, so a question is answerable only
from the table of the company it names. Gold evidence is computed, not typed
(``questions.py``); any failure stops the build. ``answer_also_in_docs`` records other documents
containing the same string (useful for the pooled scope).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from rag_app.evaluation.sets.broker import byd, catl, huahong, longi, naura
from rag_app.evaluation.sets.broker.questions import multi_company_rows, single_doc_rows
from rag_app.evaluation.sets.docgen import Doc
from rag_app.evaluation.sets.sample.figures import app_values
from rag_app.evaluation.sets.tables import thousands

COMPANY = {
    "smic": "中芯国际",
    "huahong": "华虹半导体",
    "naura": "北方华创",
    "catl": "宁德时代",
    "byd": "比亚迪",
    "longi": "隆基绿能",
}
TICKER = {
    "smic": "688981.SH",
    "huahong": "688347.SH",
    "naura": "002371.SZ",
    "catl": "300750.SZ",
    "byd": "002594.SZ",
    "longi": "601012.SH",
}


def write_broker(out: Path, smic: Doc) -> None:
    """Write the set into ``out`` (created if missing), the sample report ``smic`` as its sixth
    document, and print a summary.

    Raises ``SystemExit`` listing every question whose answer is missing from one of its gold
    items or also found in another item of its document (the documents are written by then)."""
    docs = {
        "smic": smic,
        "huahong": huahong.build_report(),
        "naura": naura.build_report(),
        "catl": catl.build_report(),
        "byd": byd.build_report(),
        "longi": longi.build_report(),
    }
    placeholders = {"@smic_app_2023q1_phone": thousands(app_values()[0][0])}

    out_docs = out / "docs"
    out_docs.mkdir(parents=True, exist_ok=True)
    for old in out_docs.glob("*_content_list.json"):
        old.unlink()
    for d in docs.values():
        (out_docs / f"{d.doc_id}_content_list.json").write_text(
            json.dumps(d.items, ensure_ascii=False, indent=1) + "\n", encoding="utf-8"
        )

    errors: list[str] = []
    rows = single_doc_rows(docs, COMPANY, placeholders, errors)
    multi_rows = multi_company_rows(docs, COMPANY, placeholders, errors)
    if errors:
        print("\n".join(errors))
        raise SystemExit(f"{len(errors)} question(s) failed verification")

    with open(out / "questions.jsonl", "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    with open(out / "questions_multi.jsonl", "w", encoding="utf-8") as f:
        for r in multi_rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    nq = Counter(r["doc_id"] for r in rows)
    with open(out / "manifest.jsonl", "w", encoding="utf-8") as f:
        for name, d in docs.items():
            f.write(
                json.dumps(
                    {
                        "doc_id": d.doc_id,
                        "file": f"docs/{d.doc_id}_content_list.json",
                        "n_items": len(d.items),
                        "n_pages": d.page + 1,
                        "n_questions": nq[d.doc_id],
                        "company": COMPANY[name],
                        "ticker": TICKER[name],
                        "type_counts": dict(Counter(it["type"] for it in d.items)),
                        "role": "gold",
                    },
                    ensure_ascii=False,
                )
                + "\n"
            )

    for d in docs.values():
        print(
            f"{d.doc_id:16s} items={len(d.items):3d} pages={d.page + 1} questions={nq[d.doc_id]:2d} "
            f"types={dict(Counter(it['type'] for it in d.items))}"
        )
    print(
        f"questions: {len(rows)}  by answer_from={dict(Counter(r['answer_from'] for r in rows))}  "
        f"by lang={dict(Counter(r['lang'] for r in rows))}"
    )
    amb = sum(1 for r in rows if r["answer_also_in_docs"])
    print(f"answers also found in another document (pooled ambiguity): {amb}")
