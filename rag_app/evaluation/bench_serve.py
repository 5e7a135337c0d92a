"""Load on ``rag-app serve``: N concurrent SSE asks, throughput and latency to the first token and
to the end (docs/API.md, "Load").

``python -m rag_app.evaluation.bench_serve`` starts one server on a free loopback port over a fresh data
dir, uploads the sample report, and runs each concurrency level with a bounded number of asks and
a time limit. ``run_load(base_urls, ...)`` is the measurement alone, for servers started
elsewhere: asks are spread round-robin over the URLs (several processes over one store).
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import httpx

QUESTIONS = (
    "中芯国际2026年预测市盈率是多少？",
    "中芯国际的产线有哪些？",
    "What is SMIC's forecast P/E for 2026?",
    "中芯国际2025年的毛利率预测是多少？",
)
SAMPLE = Path(__file__).resolve().parents[2] / "assets" / "sample_report"


@dataclass(frozen=True)
class AskTiming:
    ok: bool
    first_token_s: float | None
    end_s: float
    error: str = ""


@dataclass
class LoadResult:
    concurrency: int
    wall_s: float
    timings: list[AskTiming] = field(default_factory=list)

    @property
    def ok(self) -> list[AskTiming]:
        return [t for t in self.timings if t.ok]

    def errors(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for t in self.timings:
            if not t.ok:
                counts[t.error] = counts.get(t.error, 0) + 1
        return counts

    def row(self) -> str:
        ok = self.ok
        first = [t.first_token_s for t in ok if t.first_token_s is not None]
        end = [t.end_s for t in ok]
        errors = ", ".join(f"{k} ×{v}" for k, v in sorted(self.errors().items())) or "0"
        return (
            f"| {self.concurrency} | {len(self.timings)} | {len(ok) / self.wall_s:.2f} "
            f"| {_pct(first, 50)} | {_pct(first, 95)} | {_pct(end, 50)} | {_pct(end, 95)} "
            f"| {errors} |"
        )


HEADER = (
    "| concurrent | asks | answers/s | first token p50 | p95 | end p50 | p95 | errors |\n"
    "|---:|---:|---:|---:|---:|---:|---:|---|"
)


def _pct(values: Sequence[float], p: int) -> str:
    if not values:
        return "-"
    ordered = sorted(values)
    if len(ordered) == 1:
        return f"{ordered[0]:.2f} s"
    cut = statistics.quantiles(ordered, n=100, method="inclusive")[p - 1]
    return f"{cut:.2f} s"


def sse_ask(client: httpx.Client, base: str, question: str, kb: str, timeout: float) -> AskTiming:
    """One streamed ask; the time to its first token and to its last event."""
    start = time.perf_counter()
    first = None
    last_type = ""
    try:
        with client.stream(
            "POST",
            base.rstrip("/") + "/v1/ask",
            json={"question": question, "kb": kb, "mode": "smart"},
            headers={"Accept": "text/event-stream"},
            timeout=timeout,
        ) as response:
            if response.status_code != 200:
                return AskTiming(
                    False, None, time.perf_counter() - start, f"http {response.status_code}"
                )
            for line in response.iter_lines():
                if not line.startswith("data:"):
                    continue
                kind = json.loads(line[5:]).get("type", "")
                if kind == "token" and first is None:
                    first = time.perf_counter() - start
                last_type = kind
    except httpx.HTTPError as exc:
        return AskTiming(False, first, time.perf_counter() - start, type(exc).__name__)
    end = time.perf_counter() - start
    if last_type != "answer":
        return AskTiming(False, first, end, f"ended on {last_type or 'nothing'}")
    return AskTiming(True, first, end)


def run_load(
    base_urls: Sequence[str],
    concurrency: int,
    asks: int,
    kb: str = "api",
    token: str = "",
    time_limit_s: float = 180.0,
    questions: Sequence[str] = QUESTIONS,
) -> LoadResult:
    """``asks`` SSE asks, ``concurrency`` at a time, spread round-robin over ``base_urls``; asks
    not started within ``time_limit_s`` are skipped (the result holds those that ran)."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    deadline = time.perf_counter() + time_limit_s
    started = time.perf_counter()
    with httpx.Client(headers=headers, limits=limits) as client:

        def one(i: int) -> AskTiming | None:
            if time.perf_counter() > deadline:
                return None
            base = base_urls[i % len(base_urls)]
            return sse_ask(client, base, questions[i % len(questions)], kb, time_limit_s)

        with ThreadPoolExecutor(concurrency) as pool:
            done = [t for t in pool.map(one, range(asks)) if t is not None]
    return LoadResult(concurrency, time.perf_counter() - started, done)


# a server of its own ------------------------------------------------------------------------------
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(data_dir: Path, max_streams: int) -> tuple[subprocess.Popen[bytes], str]:
    """``rag-app serve`` on a free loopback port over ``data_dir`` (offline answerer unless
    RAG_APP_MODEL is set), once /health answers."""
    port = _free_port()
    env = {**os.environ, "RAG_APP_DATA_DIR": str(data_dir), "RAG_APP_MAX_STREAMS": str(max_streams)}
    env.pop("RAG_APP_SERVER_TOKEN", None)
    cli = Path(sys.executable).with_name("rag-app")
    proc = subprocess.Popen(
        [str(cli), "serve", "--port", str(port), "--log-level", "warning"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    for _ in range(240):
        try:
            if httpx.get(base + "/health", timeout=2).json().get("warm"):
                return proc, base
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    proc.terminate()
    raise RuntimeError("rag-app serve did not come up in 2 minutes")


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m rag_app.evaluation.bench_serve", description=__doc__
    )
    ap.add_argument("--base", action="append", help="a running server (repeat for several)")
    ap.add_argument("--kb", default="api")
    ap.add_argument("--levels", default="8,32,64", help="concurrency levels")
    ap.add_argument("--asks", type=int, default=2, help="asks per level, times the level")
    ap.add_argument("--time-limit", type=float, default=180.0, help="seconds per level")
    ap.add_argument(
        "--max-streams", type=int, default=0, help="the server's limit (default: the top level)"
    )
    args = ap.parse_args(argv)
    levels = [int(x) for x in args.levels.split(",")]
    token = os.environ.get("RAG_APP_SERVER_TOKEN", "") if args.base else ""
    proc, temp = None, None
    bases = args.base
    if not bases:
        temp = tempfile.TemporaryDirectory(prefix="rag_bench_serve_")
        proc, base = start_server(Path(temp.name), args.max_streams or max(levels))
        bases = [base]
        sample = SAMPLE / "smic_report_content_list.json"
        files = [("files", (sample.name, sample.read_bytes()))]
        r = httpx.post(f"{base}/v1/kbs/{args.kb}/documents", files=files, timeout=600)
        r.raise_for_status()
        run_load(bases, 1, 2, args.kb)  # warm caches (the library's snapshot) before timing
    try:
        print(HEADER)
        for level in levels:
            result = run_load(bases, level, level * args.asks, args.kb, token, args.time_limit)
            print(result.row(), flush=True)
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(timeout=30)
        if temp is not None:
            temp.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
