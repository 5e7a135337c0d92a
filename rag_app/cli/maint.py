"""``rag-app eval`` (retrieval measured on a question set) and ``rag-app check`` (the library's
parts compared, and repaired)."""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from rag_app.cli.common import _err, _library, _ProgressPrinter, _settings
from rag_app.config import load_settings


def cmd_eval(args: argparse.Namespace) -> int:
    from rag_app.evaluation.evaluate import evaluate, find_documents, load_questions

    questions = load_questions(Path(args.questions))
    files = find_documents(Path(d) for d in args.docs)
    if not files:
        _err("no *.json documents under --docs")
        return 2
    temp = None
    if args.data_dir:
        data_dir = Path(args.data_dir)
    else:
        temp = tempfile.TemporaryDirectory(prefix="rag_app_eval_")
        data_dir = Path(temp.name)
    settings = load_settings(data_dir=data_dir, knowledge_base=args.kb or "eval")
    library = _library(settings)
    kb = settings.knowledge_base
    _err(f"ingesting {len(files)} documents into {data_dir}")
    start = time.perf_counter()
    reports = library.ingest_paths(files, kb, progress=_ProgressPrinter())
    ingest_seconds = time.perf_counter() - start
    rejected = [r for r in reports if r.status == "rejected"]
    for r in rejected:
        _err(f"rejected {r.name}: {r.message}")
    n_chunks = sum(d.n_chunks for d in library.documents(kb))
    _err(f"{len(questions)} questions, retriever {args.retriever}, scope {args.scope}")
    answers = None
    if args.answers:
        from rag_app.answer.offline import ExtractiveAnswerer
        from rag_app.evaluation.answers import AnswerScores

        answers = AnswerScores(ExtractiveAnswerer(settings=settings.offline).answer_text)
    result = evaluate(
        library,
        kb,
        questions,
        args.retriever,
        args.scope,
        args.k,
        progress=_ProgressPrinter(),
        answers=answers,
    )
    per_question = result.pop("per_question")
    summary = {
        **result,
        "ingest_seconds": round(ingest_seconds, 2),
        "n_chunks": n_chunks,
        "n_documents": len(files),
        "n_rejected": len(rejected),
        "questions_file": str(args.questions),
        "docs": [str(d) for d in args.docs],
    }
    text = json.dumps(summary, ensure_ascii=False, indent=2)
    if args.json:
        out = Path(args.json)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(
            json.dumps({**summary, "per_question": per_question}, ensure_ascii=False, indent=1)
        )
    print(text)
    if temp is not None:
        temp.cleanup()
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    """Compare the catalogue, the vectors, the keyword indexes and the image folders; with
    --repair, fix what differs. Exit 0 when consistent (or repaired), 1 when problems remain."""
    from rag_app.index.consistency import check_library

    settings = _settings(args)
    report = check_library(_library(settings), kb=args.kb, repair=args.repair)
    if args.json:
        print(json.dumps(report.to_json(), ensure_ascii=False, indent=2))
    else:
        print("\n".join(report.lines()))
        if not report.consistent and not args.repair:
            _err("run `rag-app check --repair` to fix them")
    return 0 if report.consistent else 1


def add_check_parser(sub, common: argparse.ArgumentParser) -> None:  # type: ignore[no-untyped-def]
    p = sub.add_parser(
        "check",
        parents=[common],
        help="compare the catalogue, vectors and keyword indexes (every knowledge base unless "
        "--kb); --repair fixes what differs",
    )
    p.add_argument("--repair", action="store_true", help="fix what differs")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_check)


def add_eval_parser(sub, common: argparse.ArgumentParser) -> None:  # type: ignore[no-untyped-def]
    from rag_app.retrieve import RETRIEVERS

    p = sub.add_parser("eval", parents=[common], help="measure retrieval on a question set")
    p.add_argument("--docs", action="append", required=True, help="folder of *.json documents")
    p.add_argument("--questions", required=True, help="questions.jsonl")
    p.add_argument("--scope", choices=["doc", "pooled"], default="pooled")
    p.add_argument("--retriever", default="hybrid", choices=RETRIEVERS)
    p.add_argument("--k", type=int, default=10)
    p.add_argument("--json", help="write the metrics (and per-question ranks) here")
    p.add_argument(
        "--answers",
        action="store_true",
        help="also answer each question offline: per question its answer (text, short, scale), "
        "and TAT-QA's exact match and F1 for questions with gold answers",
    )
    p.set_defaults(func=cmd_eval)
