"""``make bench``: ingestion and query speed per encoder runtime, against torch fp32 in one run.

- Reference: the bare torch fp32 encoder (sentence-transformers, ``ingest_threads``) over the
  very chunk texts the pipeline makes, sorted by length, batches of ``encode_batch_size``,
  measured before and after the runtimes (averaged, so drift on a shared machine shows); and the
  torch fp32 query embedding alone (one thread, as queries run).
- Per runtime (``--runtimes``, default the configured one): the whole ingestion (parse, chunk,
  embed, Chroma, catalogue, keywords) in a fresh library, in chunks/s, beside the torch
  reference (goal >= 2x, docs/ENCODER.md) and beside its own bare encoder; then query p50/p95
  per retriever beside the torch fp32 query embedding (goal: hybrid p50 <= it).
Reads the TAT-QA development documents from ../shared/eval (not copied into the repo).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from rag_app.config import Settings, load_settings
from rag_app.evaluation.evaluate import find_documents, load_questions, percentile
from rag_app.index.embedder import RUNTIMES, SentenceTransformerEmbedder, load_embedder
from rag_app.index.library import Library
from rag_app.ingest import ChunkingOptions, chunk_document, load_path
from rag_app.protocols import Embedder
from rag_app.retrieve import Retriever, make_retriever
from rag_app.text.tokens import get_token_counter
from rag_app.understand.analysis import analyse_query

REPO = Path(__file__).resolve().parents[2]
RETRIEVERS = ("dense", "bm25", "rrf", "hybrid", "smart")


def _texts(files: Sequence[Path]) -> list[str]:
    counter = get_token_counter()
    out: list[str] = []
    for path in files:
        for loaded in load_path(path, 10**9):
            out.extend(
                c.search_text for c in chunk_document(loaded.document, counter, ChunkingOptions())
            )
    return out


def _rate(embedder: Embedder, texts: Sequence[str]) -> float:
    """Chunks/s of the bare encoder over ``texts`` (sorted by length, as ingestion batches)."""
    start = time.perf_counter()
    embedder.embed_passages(sorted(texts, key=len))
    return len(texts) / (time.perf_counter() - start)


def _latencies(run: Callable[[str], object], questions: Sequence[str]) -> tuple[float, float]:
    times = []
    for q in questions:
        t0 = time.perf_counter()
        run(q)
        times.append((time.perf_counter() - t0) * 1000)
    return percentile(times, 0.5), percentile(times, 0.95)


def _asking(retriever: Retriever) -> Callable[[str], object]:
    """A question as asked of ``retriever``: analysed, then retrieved for (top 10)."""
    return lambda question: retriever.retrieve(analyse_query(question), 10)


def torch_reference(settings: Settings) -> SentenceTransformerEmbedder:
    """The torch fp32 embedder of the configured model: the floor every runtime is set against."""
    embedder = load_embedder(replace(settings, encoder_runtime="torch"))
    assert isinstance(embedder, SentenceTransformerEmbedder)
    embedder.warm_up()
    return embedder


def bench_runtime(
    settings: Settings,
    runtime: str,
    files: Sequence[Path],
    texts: Sequence[str],
    questions: Sequence[str],
    torch_rate: Callable[[], float],
    torch_query_p50: float,
    retrievers: Sequence[str] = RETRIEVERS,
) -> dict[str, float]:
    """Print one runtime's ingestion and query rows; return its headline numbers."""
    s = replace(settings, encoder_runtime=runtime)
    embedder = load_embedder(s)
    actual = getattr(embedder, "runtime", "torch")
    embedder.warm_up()
    own = _rate(embedder, texts)
    with tempfile.TemporaryDirectory(prefix="rag_app_bench_") as tmp:
        s = replace(s, data_dir=Path(tmp), knowledge_base="bench")
        library = Library(s, embedder=embedder)
        start = time.perf_counter()
        library.ingest_paths(files, "bench")
        pipeline = len(texts) / (time.perf_counter() - start)
        reference = torch_rate()
        print(
            f"[{runtime}{'' if actual == runtime else f' -> {actual}'}] ingest: pipeline "
            f"{pipeline:.1f} chunks/s = {pipeline / reference:.2f}x the bare torch fp32 encoder "
            f"({reference:.1f} chunks/s, goal >= 2x); its own bare encoder {own:.1f} chunks/s "
            f"(pipeline {pipeline / own:.2f}x of it)",
            flush=True,
        )
        q50, q95 = _latencies(lambda q: embedder.embed_queries([q]), questions)
        print(
            f"[{runtime}] query embedding alone p50 {q50:.1f} ms, p95 {q95:.1f} ms "
            f"({q50 / torch_query_p50:.2f}x torch fp32's {torch_query_p50:.1f} ms)"
        )
        print(f"  {'retriever':10} {'p50 ms':>8} {'p95 ms':>8} {'p50/torch query':>16}")
        result = {"ingest_chunks_s": pipeline, "bare_chunks_s": own, "query_p50": q50}
        for name in retrievers:
            p50, p95 = _latencies(_asking(make_retriever(name, library, "bench", s)), questions)
            print(f"  {name:10} {p50:8.1f} {p95:8.1f} {p50 / torch_query_p50:15.2f}x", flush=True)
            result[f"{name}_p50"] = p50
    return result


def recall_by_runtime(
    eval_dir: Path,
    out: Path,
    runtimes: Sequence[str],
    sets: Sequence[str],
    retrievers: Sequence[str],
) -> list[dict[str, object]]:
    """Recall@k and mrr of ``retrievers`` (pooled, k=10) on each dev set for each runtime.

    Each runtime embeds its own index under ``out/<runtime>/<set>`` (kept: a second run only
    queries). Each non-torch runtime is also run over torch's index ("<runtime> over torch"):
    the library built by torch, searched by the other runtime's queries.
    """
    from rag_app.evaluation.evaluate import evaluate
    from rag_app.evaluation.suite import CachingEmbedder, eval_sets

    settings = load_settings()
    specs = eval_sets(eval_dir)
    rows: list[dict[str, object]] = []
    runs = [(r, r) for r in runtimes] + [(r, "torch") for r in runtimes if r != "torch"]
    for runtime, index in runs:
        embedder = CachingEmbedder(load_embedder(replace(settings, encoder_runtime=runtime)))
        label = runtime if runtime == index else f"{runtime} over {index}"
        for key in sets:
            spec = specs[key]
            s = replace(settings, data_dir=out / index / key, knowledge_base="eval")
            library = Library(s, embedder=embedder)
            start = time.perf_counter()
            library.ingest_paths(find_documents(spec.docs), "eval")
            ingest_s = time.perf_counter() - start
            questions = load_questions(spec.questions)
            for name in retrievers:
                m = evaluate(library, "eval", questions, name, "pooled", 10, context_budget=None)
                row = {"runtime": label, "set": spec.name, "retriever": name, "ingest_s": ingest_s}
                row.update({k: m[k] for k in ("recall@1", "recall@5", "recall@10", "mrr@10")})
                print(
                    f"{label:22} {spec.name:18} {name:7} "
                    + " ".join(f"{k} {m[k]:.3f}" for k in ("recall@1", "recall@5", "recall@10"))
                    + f" mrr@10 {m['mrr@10']:.3f} (ingest {ingest_s:.0f} s)",
                    flush=True,
                )
                rows.append(row)
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--eval-dir", default=str(REPO.parent / "shared" / "eval"))
    parser.add_argument("--docs", type=int, default=0, help="use only the first N documents")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument(
        "--runtimes",
        default="",
        help=f"comma-separated, of {', '.join(RUNTIMES)} (default: the configured runtime)",
    )
    parser.add_argument(
        "--retrievers", default="", help="default: all for speed, dense,hybrid,smart for recall"
    )
    parser.add_argument(
        "--recall",
        metavar="OUT",
        default="",
        help="instead: recall per dev set (tatqa, crud, broker) for each of --runtimes "
        "(default onnx-int8,torch), indexes kept under OUT",
    )
    args = parser.parse_args(argv)
    if args.recall:
        recall_by_runtime(
            Path(args.eval_dir),
            Path(args.recall),
            [r.strip() for r in (args.runtimes or "onnx-int8,torch").split(",") if r.strip()],
            ("tatqa", "crud", "broker"),
            [r.strip() for r in (args.retrievers or "dense,hybrid,smart").split(",") if r.strip()],
        )
        return 0
    base = Path(args.eval_dir) / "tatqa_dev"
    files = find_documents([base / "docs"])
    if args.docs:
        files = files[: args.docs]
    settings = load_settings()
    runtimes = [r.strip() for r in args.runtimes.split(",") if r.strip()] or [
        settings.encoder_runtime
    ]
    texts = _texts(files)
    questions = [q.question for q in load_questions(base / "questions.jsonl")[: args.queries]]
    print(
        f"corpus: {len(files)} TAT-QA documents, {len(texts)} chunks; {len(questions)} queries",
        flush=True,
    )

    torch = torch_reference(settings)
    torch_rates = [_rate(torch, texts)]

    def torch_rate() -> float:
        # The reference again after each runtime: a mean over the run, so drift shows.
        torch_rates.append(_rate(torch, texts))
        return sum(torch_rates) / len(torch_rates)

    t50, t95 = _latencies(lambda q: torch.embed_queries([q]), questions)
    print(
        f"torch fp32 reference: bare encoder {torch_rates[0]:.1f} chunks/s; query embedding "
        f"alone p50 {t50:.1f} ms, p95 {t95:.1f} ms",
        flush=True,
    )
    for runtime in runtimes:
        bench_runtime(
            settings,
            runtime,
            files,
            texts,
            questions,
            torch_rate,
            t50,
            [r.strip() for r in (args.retrievers or ",".join(RETRIEVERS)).split(",") if r.strip()],
        )
    print(
        "torch fp32 bare encoder runs: "
        + " / ".join(f"{r:.1f}" for r in torch_rates)
        + " chunks/s (the ratios use their running mean)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
