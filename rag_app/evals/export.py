"""A run as files: JSON (its settings, metrics and every question's result) and CSV (a row per
question, for a spreadsheet)."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from dataclasses import asdict

from rag_app.evals.store import EvalRun, StoredResult

CSV_COLUMNS = (
    "id",
    "question",
    "expected",
    "answerable",
    "passed",
    "declined",
    "rank",
    "holds",
    "em",
    "f1",
    "short",
    "routing",
    "gold_types",
    "routing_right",
    "unsupported",
    "latency_ms",
    "error",
    "answer",
)


def run_json(run: EvalRun, results: Sequence[StoredResult]) -> dict[str, object]:
    """The run as one JSON object: what ``/v1/evals/{id}/results`` returns and the export."""
    return {
        "id": run.id,
        "set": {"id": run.set_id, "name": run.set_name},
        "settings": asdict(run.settings),
        "status": run.status,
        "created": run.created,
        "finished": run.finished,
        "n_total": run.n_total,
        "n_done": run.n_done,
        "error": run.error,
        "metrics": asdict(run.metrics) if run.metrics is not None else None,
        "questions": [
            {"position": r.position, "passed": r.result.passed, **asdict(r.result)} for r in results
        ],
    }


def json_bytes(run: EvalRun, results: Sequence[StoredResult]) -> bytes:
    return json.dumps(run_json(run, results), ensure_ascii=False, indent=1).encode("utf-8")


def csv_bytes(results: Sequence[StoredResult]) -> bytes:
    """One row per question; UTF-8 with a byte-order mark, so that Excel reads the Chinese."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(CSV_COLUMNS)
    for stored in results:
        row = {**asdict(stored.result), "passed": stored.result.passed}
        row["expected"] = " | ".join(stored.result.expected)
        row["gold_types"] = " ".join(stored.result.gold_types)
        writer.writerow(["" if row.get(c) is None else row.get(c) for c in CSV_COLUMNS])
    return ("\ufeff" + out.getvalue()).encode("utf-8")
