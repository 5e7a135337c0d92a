"""Two evaluation runs compared question by question: each run's rows are written one JSON line
a question under ``OUT/per_question/``, and ``diff_runs`` names every question whose row changed
(``python -m rag_app.evaluation.suite --diff BEFORE AFTER``): how "no behaviour change" is shown."""

from __future__ import annotations

import json
from pathlib import Path


def write_per_question(out: Path, set_name: str, scope: str, run_name: str, rows: object) -> None:
    """One JSON line per question of one run (its first hit's rank, the top chunks, the routing,
    what the answerers quoted) under ``OUT/per_question/``, so two runs can be compared question
    by question (``python -m rag_app.evaluation.suite --diff A B``)."""
    folder = out / "per_question"
    folder.mkdir(parents=True, exist_ok=True)
    name = "-".join([set_name, scope, *run_name.split()]).replace("/", "_")
    lines = [json.dumps(row, ensure_ascii=False, sort_keys=True) for row in rows]  # type: ignore[attr-defined]
    (folder / f"{name}.jsonl").write_text("".join(line + "\n" for line in lines))


def diff_runs(before: Path, after: Path) -> list[str]:
    """The questions whose rows differ between two ``OUT/per_question`` folders, a line each,
    and the runs only one of them has; empty when every question came out the same."""
    lines: list[str] = []
    names_before = {p.name for p in before.glob("*.jsonl")}
    names_after = {p.name for p in after.glob("*.jsonl")}
    for name in sorted(names_before ^ names_after):
        lines.append(f"{name}: only in {before if name in names_before else after}")
    for name in sorted(names_before & names_after):
        rows_before = [json.loads(x) for x in (before / name).read_text().splitlines() if x]
        rows_after = [json.loads(x) for x in (after / name).read_text().splitlines() if x]
        if len(rows_before) != len(rows_after):
            lines.append(f"{name}: {len(rows_before)} questions before, {len(rows_after)} after")
        for old, new in zip(rows_before, rows_after):
            old.pop("seconds", None)
            new.pop("seconds", None)
            if old != new:
                keys = sorted(k for k in old.keys() | new.keys() if old.get(k) != new.get(k))
                lines.append(
                    f"{name} {old.get('id')}: "
                    + ", ".join(f"{k} {old.get(k)!r} -> {new.get(k)!r}" for k in keys)
                )
    return lines
