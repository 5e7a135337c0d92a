"""``rag-app eval``, two ways over the same question files.

- With ``--docs``: the documents are ingested into a library of their own (a temporary one
  unless ``--data-dir``) and retrieval is measured (rag_app.evaluation.evaluate): recall@k, MRR,
  the answer in the context, latency. Questions are the evaluation's questions.jsonl, or a
  question set as the Evaluate page reads it (.csv, .xlsx, .json, .jsonl: rag_app.evals), whose
  rows are used where they name a document and its content-list items; the others are listed
  with the reason.
- Without ``--docs``: the product's evaluation (rag_app.evals) on the knowledge base ``--kb`` of
  the data dir: every question asked as the Ask page asks it, scored, saved to evals.sqlite (the
  Evaluate page shows the run), its metrics printed as JSON.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rag_app.cli.common import _err, _library, _ProgressPrinter, _settings
from rag_app.config import load_settings
from rag_app.evals.question_sets import EvalQuestion, QuestionSetError, read_question_set
from rag_app.models import Progress

if TYPE_CHECKING:  # the evaluation's modules load the library's: only when eval runs
    from rag_app.evaluation.evaluate import Question

# The CLI's name in a run's ``user`` (the API's is the token's, the app's the signed-in user's).
CLI_USER = "cli"


def cmd_eval(args: argparse.Namespace) -> int:
    if args.docs:
        return _measure_retrieval(args)
    return _run_product_eval(args)


# the questions ---------------------------------------------------------------------------------
def read_questions(path: Path) -> tuple[list[Question] | list[EvalQuestion], str]:
    """The evaluation's questions.jsonl as Questions, else a question set's rows, with why a
    .jsonl read as a set is not the evaluation's format ("" otherwise). Raises ValueError
    naming the file (and for a .jsonl, why it is neither)."""
    from rag_app.evaluation.evaluate import load_questions

    as_eval = None
    if path.suffix.lower() == ".jsonl":
        try:
            return load_questions(path), ""
        except ValueError as exc:
            as_eval = exc
    try:
        return read_question_set(path.read_bytes(), path.name), str(as_eval or "")
    except QuestionSetError as exc:
        if as_eval is not None:
            raise ValueError(f"{as_eval}; nor is it a question set: {exc}") from None
        raise ValueError(f"{path}: {exc}") from None


def retrieval_question(row: EvalQuestion, doc_ids: dict[str, str]) -> Question | str:
    """The row as the retrieval evaluation's Question, or why it cannot be one. ``doc_ids``:
    how a row may name a document, folded, to its id (rag_app.evals.runner.document_ids)."""
    from rag_app.evaluation.evaluate import Question

    doc_id = doc_ids.get(row.document.casefold(), "") if row.document else ""
    if row.answerable:
        if not row.document:
            return "it names no document (the retrieval evaluation looks for its gold there)"
        if not doc_id:
            return f"its document {row.document!r} is not among the --docs"
        if not row.items:
            if row.pages:
                return "its gold is pages only; retrieval is scored on content-list items (item)"
            return "it gives no gold items (item / gold_item_indices)"
    return Question(
        id=row.id,
        question=row.question,
        doc_id=doc_id or row.document,
        gold=frozenset(row.items),
        answers=row.expected,
        answer_type=row.answer_type,
        lang="",
        history=row.history,
        answerable=row.answerable,
        scale=row.scale,
    )


def retrieval_questions(
    rows: Sequence[EvalQuestion], doc_ids: dict[str, str]
) -> tuple[list[Question], list[dict[str, str]]]:
    """The rows that can be used, and ``{id, why}`` of each that cannot."""
    usable: list[Question] = []
    skipped: list[dict[str, str]] = []
    for row in rows:
        made = retrieval_question(row, doc_ids)
        if isinstance(made, str):
            skipped.append({"id": row.id, "why": made})
        else:
            usable.append(made)
    return usable, skipped


# with --docs: retrieval ------------------------------------------------------------------------
def _measure_retrieval(args: argparse.Namespace) -> int:
    from rag_app.evals.runner import document_ids
    from rag_app.evaluation.evaluate import Question, evaluate, find_documents

    for flag in ("prompt_mode", "top_k", "answerer"):
        if getattr(args, flag) is not None:
            _err(f"--{flag.replace('_', '-')} is for a run on a knowledge base (without --docs)")
            return 2
    loaded, not_eval_format = read_questions(Path(args.questions))
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
    try:
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
        skipped: list[dict[str, str]] | None = None
        questions: list[Question] = []
        for item in loaded:
            if isinstance(item, Question):
                questions.append(item)
        if len(questions) != len(loaded):  # a question set: its rows made Questions
            rows = [q for q in loaded if isinstance(q, EvalQuestion)]
            questions, skipped = retrieval_questions(rows, document_ids(library, kb))
            for s in skipped:
                _err(f"row {s['id']} cannot be used: {s['why']}")
            if not questions:
                why = f" (nor is it the evaluation's format: {not_eval_format})"
                _err(
                    f"error: no row of {args.questions} can be used for the retrieval "
                    f"evaluation{why if not_eval_format else ''}"
                )
                return 2
        n_chunks = sum(d.n_chunks for d in library.documents(kb))
        scope = "pooled" if args.scope in (None, "kb") else args.scope
        retriever = args.retriever or "hybrid"
        k = args.k or 10
        _err(f"{len(questions)} questions, retriever {retriever}, scope {scope}")
        answers = None
        if args.answers:
            from rag_app.answer.offline import ExtractiveAnswerer
            from rag_app.evaluation.answers import AnswerScores

            answers = AnswerScores(ExtractiveAnswerer(settings=settings.offline).answer_text)
        result = evaluate(
            library,
            kb,
            questions,
            retriever,
            scope,
            k,
            progress=_ProgressPrinter(),
            answers=answers,
        )
        per_question = result.pop("per_question")
        summary: dict[str, Any] = {
            **result,
            "ingest_seconds": round(ingest_seconds, 2),
            "n_chunks": n_chunks,
            "n_documents": len(files),
            "n_rejected": len(rejected),
            "questions_file": str(args.questions),
            "docs": [str(d) for d in args.docs],
        }
        if skipped is not None:
            summary["n_skipped"] = len(skipped)
        if args.json:
            details = {**summary, "per_question": per_question}
            if skipped is not None:
                details["skipped"] = skipped
            _write(Path(args.json), json.dumps(details, ensure_ascii=False, indent=1))
        print(json.dumps(summary, ensure_ascii=False, indent=2))
    finally:
        if temp is not None:
            temp.cleanup()
    return 0


# without --docs: the product's evaluation -------------------------------------------------------
def _run_product_eval(args: argparse.Namespace) -> int:
    from rag_app.evals.export import json_bytes, run_json
    from rag_app.evals.runner import RunProgress, run_now, unknown_documents
    from rag_app.evals.scoring import run_metrics
    from rag_app.evals.store import EvalStore, RunSettings

    problem = _product_flags_problem(args)
    if problem:
        _err(problem)
        return 2
    settings = _settings(args)
    path = Path(args.questions)
    try:
        questions = read_question_set(path.read_bytes(), path.name)
    except QuestionSetError as exc:
        _err(f"error: {path}: {exc}")
        return 2
    library = _library(settings)
    kb = settings.knowledge_base
    if kb not in library.knowledge_bases():
        _err(
            f"no knowledge base '{kb}' in {settings.data_dir}; ingest documents first "
            f"(rag-app ingest FILE --kb {kb}), or give --docs to evaluate documents on their own"
        )
        return 2
    llm = None
    if args.answerer == "model":
        from rag_app.answer import OpenAIChatLLM, provider_from_env

        provider = provider_from_env()
        if provider is None:
            _err("--answerer model needs a model: set RAG_APP_MODEL (and RAG_APP_BASE_URL)")
            return 2
        llm = OpenAIChatLLM(provider)
    for doc in unknown_documents(questions, library, kb):
        _err(f"warning: knowledge base '{kb}' holds no document {doc!r}: its rows' gold is missed")
    run_settings = RunSettings(
        kb=kb,
        mode=args.retriever or "smart",
        prompt_mode=args.prompt_mode or "advanced",
        top_k=args.top_k,
        scope="doc" if args.scope == "doc" else "kb",
        answerer=llm.name if llm is not None else "offline",
    )
    store = EvalStore.in_dir(settings.data_dir, settings.database_url)
    try:
        set_id = store.add_set(path.name, questions, CLI_USER)
        run_id = store.add_run(set_id, run_settings, len(questions), CLI_USER)
        _err(
            f"run {run_id}: {len(questions)} questions on '{kb}', {run_settings.mode}, "
            f"prompt {run_settings.prompt_mode}, {run_settings.answerer} (saved in {store.where})"
        )
        printer = _ProgressPrinter()

        def progress(p: RunProgress) -> None:
            printer(Progress("questions", p.done, p.total))

        try:
            status = run_now(store, library, run_id, llm, progress)
        except KeyboardInterrupt:  # keep what is done: the run can be resumed on the page
            k = run_settings.top_k or library.settings.top_k
            done = [r.result for r in store.results(run_id)]
            store.finish(run_id, "cancelled", run_metrics(done, k))
            raise
        run = store.run(run_id)
        assert run is not None
        results = store.results(run_id)
        if args.json:
            _write(Path(args.json), json_bytes(run, results).decode("utf-8"))
        summary = run_json(run, ())
        del summary["questions"]
        print(json.dumps(summary, ensure_ascii=False, indent=2))
        if run.error:
            _err(f"run {run_id} {status}: {run.error}")
        return 0 if status == "done" else 1
    finally:
        store.close()


def _product_flags_problem(args: argparse.Namespace) -> str:
    """What is wrong with the flags for a run on a knowledge base ("" when nothing)."""
    if args.retriever not in (None, "smart", "hybrid"):
        return f"--retriever {args.retriever} measures retrieval only: give --docs, or smart/hybrid"
    if args.k is not None:
        return "--k is the retrieval evaluation's depth (with --docs); a run's hits are --top-k"
    if args.answers:
        return "--answers is for the retrieval evaluation (with --docs): a run always answers"
    if args.top_k is not None and args.top_k < 1:
        return "--top-k is a positive number"
    return ""


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def add_eval_parser(sub, common: argparse.ArgumentParser) -> None:  # type: ignore[no-untyped-def]
    from rag_app.retrieve import RETRIEVERS

    p = sub.add_parser(
        "eval",
        parents=[common],
        help="evaluate on a question set: retrieval over --docs, or a run on the knowledge "
        "base --kb (saved, as on the Evaluate page)",
    )
    p.add_argument(
        "--docs",
        action="append",
        help="folder of *.json documents: ingest them into a library of their own and measure "
        "retrieval; without --docs, the run is on the data dir's knowledge base --kb",
    )
    p.add_argument(
        "--questions",
        required=True,
        help="questions.jsonl, or a question set: .csv, .xlsx, .json or .jsonl (question, "
        "expected answer, document, page, item, history, answerable)",
    )
    p.add_argument(
        "--scope",
        choices=["doc", "pooled", "kb"],
        help="doc: each question only its document; pooled / kb: everything (the default)",
    )
    p.add_argument(
        "--retriever",
        choices=RETRIEVERS,
        help="with --docs any retriever (default hybrid); a run: smart (default) or hybrid",
    )
    p.add_argument("--k", type=int, help="with --docs: recall's depth (default 10)")
    p.add_argument(
        "--prompt-mode",
        choices=["simple", "advanced", "precise"],
        help="a run's prompt mode (default advanced)",
    )
    p.add_argument("--top-k", type=int, help="a run's hits a question (default: the library's)")
    p.add_argument(
        "--answerer",
        choices=["offline", "model"],
        help="a run's answerer: offline (default), or the model RAG_APP_MODEL names",
    )
    p.add_argument(
        "--json",
        help="write the details here: with --docs the metrics and per-question ranks; for a "
        "run, the run with every question's result (as the Evaluate page exports it)",
    )
    p.add_argument(
        "--answers",
        action="store_true",
        help="with --docs: also answer each question offline: per question its answer (text, "
        "short, scale), and TAT-QA's exact match and F1 for questions with gold answers",
    )
    p.set_defaults(func=cmd_eval)
