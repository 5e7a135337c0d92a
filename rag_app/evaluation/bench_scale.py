"""``make bench`` (scale table): how ingestion and queries grow with the library, encoder aside.

Copies of the TAT-QA development content lists (each made distinct by one extra paragraph) are
ingested into one knowledge base with the deterministic hash embedder (384 dimensions; the real
encoder's cost is ``rag_app.evaluation.bench``'s subject), and at each size the table gets: chunks, seconds
of ingestion per 1k chunks (the last step's batch), the first query after that upload (a cold
snapshot: whatever an upload leaves to the next question), p50/p95 of smart and hybrid over 20
questions, and the process's peak memory. The same measurements as ``../shared/checks/scale``
(docs/SCALE.md has the goals and a measured table).

  python -m rag_app.evaluation.bench_scale --sizes 5000,20000
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from rag_app.config import load_settings
from rag_app.index.embedder import HashEmbedder
from rag_app.index.library import Library
from rag_app.retrieve.strategies import retrieve

REPO = Path(__file__).resolve().parents[2]
KB = "scale"
# Questions timed per mode and size (the probe's number: enough for a p95 of one slow query).
QUESTIONS = 20


@dataclass(frozen=True)
class ScaleRow:
    """One size of the table (milliseconds, seconds per 1k chunks, megabytes of peak RSS)."""

    chunks: int
    ingest_s_per_1k: float
    cold_first_query_ms: float
    smart_p50_p95: tuple[float, float]
    hybrid_p50_p95: tuple[float, float]
    rss_mb: float


def peak_rss_mb() -> float:
    # ru_maxrss is in kilobytes on Linux
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _copies(base: list[tuple[str, list[object]]], copy: int) -> list[tuple[str, bytes]]:
    """The documents of ``base`` as copy number ``copy``: one extra paragraph makes each new."""
    batch = []
    for name, items in base:
        extra = {
            "type": "text",
            "text": f"Copy {copy} of {name}: filed under ledger {copy * 7919 % 100003}.",
            "page_idx": 0,
        }
        stem = name.replace("_content_list.json", "")
        batch.append((f"{stem}_c{copy}_content_list.json", json.dumps([*items, extra]).encode()))
    return batch


def _p50_p95(values: list[float]) -> tuple[float, float]:
    ordered = sorted(values)
    return round(statistics.median(ordered), 1), round(ordered[int(0.95 * (len(ordered) - 1))], 1)


def measure(
    docs: Path, questions: Path, sizes: Sequence[int], data_dir: Path | None = None
) -> list[ScaleRow]:
    """The table's rows at each of ``sizes`` (chunks, ascending), printed as they come."""
    data = data_dir or Path(tempfile.mkdtemp(prefix="scale-"))
    library = Library(load_settings(data_dir=data, knowledge_base=KB), embedder=HashEmbedder(384))
    base = [(p.name, json.loads(p.read_text())) for p in sorted(docs.glob("*.json"))]
    with questions.open(encoding="utf-8") as lines:
        asked = [json.loads(line)["question"] for line in lines if line.strip()][:QUESTIONS]
    rows: list[ScaleRow] = []
    copy = n_chunks = 0
    for target in sizes:
        started, before = time.perf_counter(), n_chunks
        while n_chunks < target:
            reports = library.ingest_bytes(_copies(base, copy), kb=KB)
            n_chunks += sum(r.n_chunks or 0 for r in reports if r.status == "ingested")
            copy += 1
        ingest_s = time.perf_counter() - started
        started = time.perf_counter()
        retrieve(library, KB, asked[0], mode="hybrid", k=20)
        cold_ms = (time.perf_counter() - started) * 1000
        latency: dict[str, tuple[float, float]] = {}
        for mode in ("smart", "hybrid"):
            times = []
            for question in asked:
                started = time.perf_counter()
                retrieve(library, KB, question, mode=mode, k=20)
                times.append((time.perf_counter() - started) * 1000)
            latency[mode] = _p50_p95(times)
        row = ScaleRow(
            chunks=n_chunks,
            ingest_s_per_1k=round(ingest_s / max(1.0, (n_chunks - before) / 1000), 2),
            cold_first_query_ms=round(cold_ms),
            smart_p50_p95=latency["smart"],
            hybrid_p50_p95=latency["hybrid"],
            rss_mb=round(peak_rss_mb()),
        )
        rows.append(row)
        print(json.dumps(row.__dict__), flush=True)
    return rows


def table(rows: Sequence[ScaleRow]) -> str:
    """The rows as a Markdown table."""
    out = [
        "| chunks | ingest s / 1k chunks | first query after upload (ms) | smart p50 / p95 (ms) "
        "| hybrid p50 / p95 (ms) | peak RSS (MB) |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        out.append(
            f"| {r.chunks} | {r.ingest_s_per_1k} | {r.cold_first_query_ms:.0f} "
            f"| {r.smart_p50_p95[0]} / {r.smart_p50_p95[1]} "
            f"| {r.hybrid_p50_p95[0]} / {r.hybrid_p50_p95[1]} | {r.rss_mb:.0f} |"
        )
    return "\n".join(out)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--eval-dir", default=str(REPO.parent / "shared" / "eval"))
    parser.add_argument("--sizes", default="5000,20000,100000", help="chunk counts, ascending")
    parser.add_argument("--data-dir", default="", help="where the library goes (else a temp dir)")
    args = parser.parse_args(argv)
    sizes = sorted(int(s) for s in args.sizes.split(",") if s.strip())
    base = Path(args.eval_dir) / "tatqa_dev"
    rows = measure(
        base / "docs",
        base / "questions.jsonl",
        sizes,
        Path(args.data_dir) if args.data_dir else None,
    )
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
