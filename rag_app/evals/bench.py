"""How fast a question set is evaluated in the product (issue 27: 300 questions at 10 or more a
second offline), beside the floor of bare retrieval measured in the same run.

The broker set's six reports are ingested into a temporary data dir; its questions (lookups,
follow-ups with their history, lists, multi-report and unanswerable ones) and the authored
Chinese arithmetic questions over the same reports make the set, cut to ``--n``. A run goes
through ``rag_app.evals.runner.run_now`` exactly as the Evaluate page's does: the pipeline's
whole answer (understanding, retrieval, the library check, prompt, offline answer, citation
check, series), the scores, the saved turn and its row in evals.sqlite. The floor is retrieval
alone (``Pipeline.retrieve``) over the same questions.

    .venv/bin/python -m rag_app.evals.bench [--n 300] [--mode smart]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from rag_app.config import load_settings
from rag_app.evals.question_sets import EvalQuestion, read_question_set
from rag_app.evals.runner import run_now
from rag_app.evals.store import EvalStore, RunSettings
from rag_app.index.library import Library
from rag_app.models import AskOptions
from rag_app.pipeline.ask import Pipeline

ROOT = Path(__file__).resolve().parents[2]
BROKER = ROOT / "assets" / "broker_eval"
SETS = (
    BROKER / "questions.jsonl",
    BROKER / "questions_followup.jsonl",
    BROKER / "questions_list.jsonl",
    BROKER / "questions_multi.jsonl",
    BROKER / "questions_unanswerable.jsonl",
    ROOT / "assets" / "operations_zh" / "questions.jsonl",
)
# The bar: questions answered and scored per second, offline.
TARGET_QPS = 10.0


def bench_questions(n: int) -> list[EvalQuestion]:
    """The first ``n`` questions of the broker sets, ids made unique by their file."""
    out: list[EvalQuestion] = []
    for path in SETS:
        for q in read_question_set(path.read_bytes(), path.name):
            out.append(EvalQuestion(**{**q.__dict__, "id": f"{path.stem}:{q.id}"}))
    return out[:n]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=300)
    parser.add_argument("--mode", default="smart", choices=["smart", "hybrid"])
    parser.add_argument("--json", help="also write the numbers here")
    args = parser.parse_args(argv)
    questions = bench_questions(args.n)
    with tempfile.TemporaryDirectory(prefix="bench_evals_") as folder:
        data_dir = Path(folder)
        settings = load_settings(data_dir=data_dir, knowledge_base="bench")
        library = Library(settings)
        start = time.perf_counter()
        library.ingest_paths(sorted((BROKER / "docs").glob("*.json")), "bench")
        ingest_s = time.perf_counter() - start
        pipeline = Pipeline(settings, library)
        options = AskOptions(kb="bench", mode=args.mode)  # type: ignore[arg-type]
        pipeline.ask("warm up", options)  # the model's first call and the snapshot, not timed
        start = time.perf_counter()
        for q in questions:
            pipeline.retrieve(q.question, options)
        floor_s = time.perf_counter() - start
        store = EvalStore.in_dir(data_dir)  # the temporary folder's, never the shared database
        set_id = store.add_set("bench", questions)
        run_id = store.add_run(set_id, RunSettings(kb="bench", mode=args.mode), len(questions))
        start = time.perf_counter()
        status = run_now(store, library, run_id)
        run_s = time.perf_counter() - start
        run = store.run(run_id)
        store.close()
    qps = len(questions) / run_s
    out = {
        "n_questions": len(questions),
        "mode": args.mode,
        "status": status,
        "ingest_s": round(ingest_s, 1),
        "run_s": round(run_s, 2),
        "questions_per_s": round(qps, 1),
        "retrieval_only_per_s": round(len(questions) / floor_s, 1),
        "run_over_retrieval": round(run_s / floor_s, 2),
        "target_questions_per_s": TARGET_QPS,
        "meets_target": qps >= TARGET_QPS,
        "metrics": run.metrics.__dict__ if run is not None and run.metrics else None,
    }
    text = json.dumps(out, ensure_ascii=False, indent=1)
    print(text)
    if args.json:
        Path(args.json).write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
