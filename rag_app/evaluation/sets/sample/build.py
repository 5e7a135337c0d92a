"""Writes the sample report (``assets/sample_report``) into a folder.

Writes ``smic_report_content_list.json`` (the MinerU content list), ``smic_report.md`` (its
MinerU-style Markdown), ``images/<sha256>.png`` (the three figures), ``smic_report.zip`` (content
list, md and images/ as a MinerU output folder), ``questions.json`` (the UI's example questions)
and ``eval_set.csv`` (the Evaluate page's sample question set).
Run with the broker set: ``python -m rag_app.evaluation.sets``.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

from rag_app.evaluation.sets.docgen import to_markdown
from rag_app.evaluation.sets.sample.charts import draw_charts
from rag_app.evaluation.sets.sample.eval_set import eval_set_csv
from rag_app.evaluation.sets.sample.figures import DOC_NAME
from rag_app.evaluation.sets.sample.questions import ui_questions
from rag_app.evaluation.sets.sample.report import build_smic


def write_sample(out: Path) -> None:
    """Write the sample report's files into ``out`` (created if missing), replacing any figure
    that is no longer drawn, and print a summary line."""
    d = build_smic()
    items = d.items
    out.mkdir(parents=True, exist_ok=True)
    (out / "images").mkdir(exist_ok=True)
    paths = {k: out / items[d.index(k)]["img_path"] for k in ("fig1", "fig2", "fig3")}
    for old in (out / "images").glob("*.png"):
        if old not in paths.values():
            old.unlink()
    draw_charts(paths)
    cl = out / f"{DOC_NAME}_content_list.json"
    cl.write_text(json.dumps(items, ensure_ascii=False, indent=4) + "\n", encoding="utf-8")
    md = out / f"{DOC_NAME}.md"
    md.write_text(to_markdown(items), encoding="utf-8")
    with zipfile.ZipFile(out / f"{DOC_NAME}.zip", "w", zipfile.ZIP_DEFLATED) as z:
        for p in [cl, md] + sorted(paths.values()):
            zi = zipfile.ZipInfo(str(p.relative_to(out)), date_time=(2025, 3, 17, 0, 0, 0))
            zi.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(zi, p.read_bytes())
    qs = ui_questions(d)
    (out / "questions.json").write_text(
        json.dumps(qs, ensure_ascii=False, indent=2) + "\n", encoding="utf-8"
    )
    (out / "eval_set.csv").write_text(eval_set_csv(d, DOC_NAME), encoding="utf-8")
    types: dict[str, int] = {}
    for it in items:
        types[it["type"]] = types.get(it["type"], 0) + 1
    print(
        f"{DOC_NAME}: {len(items)} items, pages {d.page + 1}, types {types}; {len(qs)} UI questions"
    )
    for p in sorted(paths.values()):
        print(f"  {p.name}: {p.stat().st_size} bytes")
