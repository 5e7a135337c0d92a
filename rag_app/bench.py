"""``make bench``: ingestion and query speed, as ratios against floors measured in the same run.

- Ingestion: the whole pipeline (parse, chunk, embed, Chroma, catalogue, keywords) in chunks/s,
  beside the bare encoder on the very same chunk texts (measured before and after the pipeline
  run, averaged, so drift on a shared machine shows). Goal: pipeline >= 0.85x encoder.
- Queries: p50/p95 latency per retriever beside the floor, the query embedding alone.
Reads the TAT-QA development documents from ../shared/eval (not copied into the repo).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from rag_app.config import load_settings
from rag_app.evaluation import _percentile, find_documents, load_questions
from rag_app.index.embedder import load_embedder
from rag_app.index.library import Library
from rag_app.ingest import ChunkingOptions, chunk_document, load_path
from rag_app.retrieve import make_retriever
from rag_app.tokens import get_token_counter

REPO = Path(__file__).resolve().parent.parent


def _texts(files: Sequence[Path]) -> list[str]:
    counter = get_token_counter()
    out: list[str] = []
    for path in files:
        for loaded in load_path(path, 10**9):
            out.extend(
                c.search_text for c in chunk_document(loaded.document, counter, ChunkingOptions())
            )
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--eval-dir", default=str(REPO.parent / "shared" / "eval"))
    parser.add_argument("--docs", type=int, default=0, help="use only the first N documents")
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args(argv)
    base = Path(args.eval_dir) / "tatqa_dev"
    files = find_documents([base / "docs"])
    if args.docs:
        files = files[: args.docs]
    settings = load_settings()
    embedder = load_embedder(settings)
    embedder.warm_up()
    texts = _texts(files)
    print(f"corpus: {len(files)} TAT-QA documents, {len(texts)} chunks", flush=True)

    def bare() -> float:
        start = time.perf_counter()
        embedder.embed_passages(sorted(texts, key=len))
        return len(texts) / (time.perf_counter() - start)

    encoder_before = bare()
    with tempfile.TemporaryDirectory(prefix="rag_app_bench_") as tmp:
        s = replace(settings, data_dir=Path(tmp), knowledge_base="bench")
        library = Library(s, embedder=embedder)
        start = time.perf_counter()
        library.ingest_paths(files, "bench")
        pipeline_rate = len(texts) / (time.perf_counter() - start)
        encoder_after = bare()
        encoder = (encoder_before + encoder_after) / 2
        print(
            f"ingest: pipeline {pipeline_rate:.1f} chunks/s; bare encoder "
            f"{encoder_before:.1f} / {encoder_after:.1f} chunks/s (before / after); "
            f"ratio {pipeline_rate / encoder:.2f}x (goal >= 0.85x)",
            flush=True,
        )

        questions = load_questions(base / "questions.jsonl")[: args.queries]
        floor = []
        for q in questions:
            t0 = time.perf_counter()
            embedder.embed_queries([q.question])
            floor.append((time.perf_counter() - t0) * 1000)
        f50, f95 = _percentile(floor, 0.5), _percentile(floor, 0.95)
        print(
            f"queries ({len(questions)}, pooled): floor = query embedding alone "
            f"p50 {f50:.1f} ms, p95 {f95:.1f} ms"
        )
        print(f"{'retriever':10} {'p50 ms':>8} {'p95 ms':>8} {'p50/floor':>10}")
        for name in ("dense", "bm25", "rrf", "hybrid", "smart"):
            retriever = make_retriever(name, library, "bench", s)
            times = []
            for q in questions:
                t0 = time.perf_counter()
                retriever.retrieve(q.question, 10)
                times.append((time.perf_counter() - t0) * 1000)
            p50, p95 = _percentile(times, 0.5), _percentile(times, 0.95)
            print(f"{name:10} {p50:8.1f} {p95:8.1f} {p50 / f50:10.2f}x", flush=True)
        print(f"(median of floor runs {statistics.median(floor):.1f} ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
